export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.
timeout 95 python3 probe/ring.py $OUT/ring.json 2>&1 | grep "^{"
PARTS=pytest LIMIT_S=340 WORKERS=16 timeout 345 benchmarks/run_gpu_checks.sh /tmp/checks; cp /tmp/checks/pytest.log $OUT/
