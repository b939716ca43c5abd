# An external data key ExternalData.md does not define is refused, not ignored.
# command: compile
# expect-exit: 1
# expect: unknown external data key 'basepath'
from _lib import external_model, save, write_side_file

write_side_file("w.bin", b"\0" * 16)
save(external_model([("location", "w.bin"), ("basepath", "/etc")]))
