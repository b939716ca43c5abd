# A huge length key (the CVE-2026-34445 class) is checked against the file size before any
# allocation: refused at once, in little memory.
# command: compile
# expect-exit: 1
# max-rss-mb: 200
# expect: length 9223372036854775807 is past the end of 'w\.bin'
from _lib import external_model, save, write_side_file

write_side_file("w.bin", b"\0" * 16)
save(external_model([("location", "w.bin"), ("length", "9223372036854775807")]))
