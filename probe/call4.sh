export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.
timeout 190 python3 probe/f32_ragged.py $OUT/f32.json > $OUT/f32.log 2>&1; grep -c "^{" $OUT/f32.log
PARTS=pytest LIMIT_S=390 WORKERS=14 timeout 395 benchmarks/run_gpu_checks.sh /tmp/checks; cp /tmp/checks/pytest.log $OUT/
