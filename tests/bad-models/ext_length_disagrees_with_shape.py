# External data whose length does not match the tensor's type and shape (4 floats = 16
# bytes, 12 given) is refused.
# command: compile
# expect-exit: 1
# expect: initializer 'w'.*12 bytes
from _lib import external_model, save, write_side_file

write_side_file("w.bin", b"\0" * 16)
save(external_model([("location", "w.bin"), ("length", "12")]))
