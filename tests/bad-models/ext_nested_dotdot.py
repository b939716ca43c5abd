# A nested 'subdir/../../x' location (the CVE-2024-27318 class) is refused before any lookup.
# command: compile
# expect-exit: 1
# expect: location 'subdir/\.\./\.\./x\.bin' contains '\.\.'
from _lib import external_model, save, write_side_file

write_side_file("subdir/keep", b"")
save(external_model([("location", "subdir/../../x.bin")]))
