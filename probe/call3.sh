export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.
for d in bfloat16 float16; do
  WORKERS=2 timeout 150 benchmarks/run_wild.sh /tmp/w_$d wild-check $d 0/1 --shapes=257x3840x1280,788x4096x1024 > $OUT/wild_$d.log 2>&1; tail -3 $OUT/wild_$d.log
  cp /tmp/w_$d/wild-check_*.json $OUT/ 2>/dev/null; ls /tmp/w_$d
done
timeout 150 python3 probe/t_pad.py $OUT/tpad.json 2>&1 | grep "^{"
