# A length reaching past the end of the data file is refused.
# command: compile
# expect-exit: 1
# expect: offset 8 length 16 is past the end of 'w\.bin' \(16 bytes\)
from _lib import external_model, save, write_side_file

write_side_file("w.bin", b"\0" * 16)
save(external_model([("location", "w.bin"), ("offset", "8"), ("length", "16")]))
