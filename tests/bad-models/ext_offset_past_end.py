# An offset past the end of the data file (the CVE-2024-27319 out-of-bounds read class).
# command: compile
# expect-exit: 1
# expect: external data offset 100 length -1 is past the end of 'w\.bin' \(16 bytes\)
from _lib import external_model, save, write_side_file

write_side_file("w.bin", b"\0" * 16)
save(external_model([("location", "w.bin"), ("offset", "100")]))
