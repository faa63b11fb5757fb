set -x
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.
PARTS=pytest LIMIT_S=400 WORKERS=14 timeout 410 benchmarks/run_gpu_checks.sh /tmp/checks; cp /tmp/checks/pytest.log $OUT/
timeout 170 python3 probe/f8_ragged.py $OUT/f8.json > $OUT/f8.log 2>&1; tail -40 $OUT/f8.log
