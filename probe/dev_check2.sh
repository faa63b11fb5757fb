export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.
timeout 90 python3 -m pytest tests/mosaic/test_kernel.py -n 8 -p no:cacheprovider -k "ping_pong or ragged or lane" > $OUT/pytest_sub.log 2>&1; tail -1 $OUT/pytest_sub.log
for spec in bfloat16:788x2304x768,788x4096x1024,3000x2048x4608 float16:788x2304x768,788x4096x1024,3000x2048x4608 float8_e4m3fn:4096x28672x250,5120x1280x224,8192x4096x64; do
  d=${spec%%:*}; s=${spec#*:}
  WORKERS=3 timeout 45 benchmarks/run_wild.sh /tmp/w wild-check $d 0/1 --shapes=$s > /tmp/w_$d.log 2>&1; echo "$d rc=$?"
done
cp /tmp/w/wild-check_*.json $OUT/
