# External data with length -16.
# command: compile
# expect-exit: 1
# expect: model\.onnx: initializer 'w': external data 'length' must be a non-negative integer, got '-16'
from _lib import external_model, save, write_side_file

write_side_file('w.bin', b'\0' * 16)
save(external_model([('location', 'w.bin'), ('length', '-16')]))
