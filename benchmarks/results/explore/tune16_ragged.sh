#!/usr/bin/env bash
# Re-tune the 16-bit ragged buckets with the 256-byte-K-tile candidate, merge
# into the shipped table (and copy it in place), run the 16-bit ragged suite,
# then time the near misses in alternating rounds.
set -uo pipefail
out=$1
export PYTHONPATH=. PYTHONUNBUFFERED=1
python3 benchmarks/tune.py --shapes=4097x4097x4097,1000x1000x1000,3000x5000x700,2047x8191x1023 --dtypes=bfloat16,float16 --backend=mosaic --cache_out=$out/tune16r.json 2>&1 | grep -v Deprecat > $out/tune16r.log
grep -E "TUNED" $out/tune16r.log | sed 's/.*TUNED //'
python3 benchmarks/tune.py --merge=pallas_tiled/tuned/h200.json,$out/tune16r.json --cache_out=$out/h200_table.json 2>&1 | tail -1
cp $out/h200_table.json pallas_tiled/tuned/h200.json
python3 benchmarks/matmul_benchmark.py --suite=ragged --backends=auto,triton --impls=tiled,naive,xla,jax_example --dtypes=bfloat16,float16 --json_out=$out/ragged16.json > $out/ragged16.log 2>&1
grep -E "^(tiled|xla) " $out/ragged16.log
python3 abtest/near_miss.py 2>&1 | grep -v Warning | tee $out/near_miss.log
