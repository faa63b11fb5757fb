export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.
timeout 200 python3 -m pytest -p no:cacheprovider -n 8 tests/mosaic/test_kernel.py -k "transposed or ragged or unpadded or ping_pong" > $OUT/pytest_t.log 2>&1; tail -5 $OUT/pytest_t.log
timeout 200 python3 probe/t_store.py $OUT/t.json > $OUT/t.log 2>&1; grep -v "^I11\|Warning\|warn" $OUT/t.log | tail -20
