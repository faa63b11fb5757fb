export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.
timeout 400 python3 probe/tune_direct.py $OUT/tune_direct.json 330 > $OUT/tune_direct.log 2>&1
grep -E "^\{|Error|error" $OUT/tune_direct.log | head -60
