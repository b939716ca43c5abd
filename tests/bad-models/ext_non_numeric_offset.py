# External data with offset '0x10' (hex is not a decimal integer).
# command: compile
# expect-exit: 1
# expect: model\.onnx: initializer 'w': external data 'offset' must be a non-negative integer, got '0x10'
from _lib import external_model, save, write_side_file

write_side_file('w.bin', b'\0' * 32)
save(external_model([('location', 'w.bin'), ('offset', '0x10')]))
