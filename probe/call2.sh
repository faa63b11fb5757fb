export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.
timeout 470 python3 probe/fewcta.py $OUT/fewcta.json 2>&1 | grep -E "^\{|Error" | cut -c1-260
