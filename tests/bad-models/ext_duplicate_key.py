# Two 'location' keys are ambiguous: refused.
# command: compile
# expect-exit: 1
# expect: external data key 'location' is given twice
from _lib import external_model, save, write_side_file

write_side_file("w.bin", b"\0" * 16)
save(external_model([("location", "w.bin"), ("location", "/etc/passwd")]))
