export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.
timeout 280 python3 probe/direct.py $OUT/direct.json > $OUT/direct.log 2>&1
grep -E "^\{|Error|error" $OUT/direct.log | head -60
