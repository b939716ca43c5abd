# A non-numeric length is refused.
# command: compile
# expect-exit: 1
# expect: external data 'length' must be a non-negative integer, got '16abc'
from _lib import external_model, save, write_side_file

write_side_file("w.bin", b"\0" * 16)
save(external_model([("location", "w.bin"), ("length", "16abc")]))
