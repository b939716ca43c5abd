# External data location 'sub/../w.bin': the '..' is refused even when it would stay inside.
# command: compile
# expect-exit: 1
# expect: model\.onnx: initializer 'w': external data location 'sub/\.\./w\.bin' contains '\.\.'; it must stay inside the model's folder
from _lib import external_model, save, write_side_file

write_side_file('w.bin', b'\0' * 16)
write_side_file('sub/keep', b'')
save(external_model([('location', 'sub/../w.bin')]))
