export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=.
timeout 200 python3 probe/f32ring.py $OUT/f32ring.json 2>&1 | grep -E "^\{|Error|error" | head -80
