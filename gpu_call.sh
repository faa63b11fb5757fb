set -u
export PYTHONPATH=. XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 190 python3 -m pytest tests/mosaic/test_kernel.py -k "narrowed or (lowers_for_cuda and float8) or short_k_ping_pong" -n 4 -p no:cacheprovider -q -rfE > $OUT/pytest.log 2>&1; tail -4 $OUT/pytest.log
TUNE=384x6144x64,384x18944x32,384x21504x32,2048x12288x64,8192x256x32
CHECK=128x5120x32,184x2486x111,512x1600x32,1000x4096x32,2048x8192x64,2048x57344x64,6144x2304x32,8192x4096x64,12288x4096x64,12288x5120x64
timeout 170 python3 benchmarks/calibrate.py --suite=wild-tune --dtype=float8_e4m3fn --shapes=$TUNE --workers=8 --deadline_s=140 --out=$OUT/h100_wild_tune_f8_narrowk.jsonl > $OUT/cal_tune.log 2>&1; echo tune rc=$?; tail -3 $OUT/cal_tune.log
timeout 225 python3 benchmarks/calibrate.py --suite=wild-check --dtype=float8_e4m3fn --shapes=$CHECK --workers=8 --deadline_s=180 --out=$OUT/h100_wild_check_f8_narrowk.jsonl > $OUT/cal_check.log 2>&1; echo check rc=$?; tail -3 $OUT/cal_check.log
wc -l $OUT/*.jsonl
