# A length over int64 is not a number onnxc accepts.
# command: compile
# expect-exit: 1
# expect: external data 'length' must be a non-negative integer, got '99999999999999999999'
from _lib import external_model, save, write_side_file

write_side_file("w.bin", b"\0" * 16)
save(external_model([("location", "w.bin"), ("length", "99999999999999999999")]))
