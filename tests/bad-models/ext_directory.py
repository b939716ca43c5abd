# A location naming a folder is refused.
# command: compile
# expect-exit: 1
# expect: external data location 'd' is not a regular file
from _lib import external_model, save, write_side_file

write_side_file("d/keep", b"")
save(external_model([("location", "d")]))
