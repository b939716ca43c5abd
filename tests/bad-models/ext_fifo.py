# A location naming a FIFO is refused, not read (it would hang).
# command: compile
# expect-exit: 1
# expect: external data location 'w\.bin' is not a regular file
import os

from _lib import external_model, out_dir, save

os.mkfifo(os.path.join(out_dir(), "w.bin"))
save(external_model([("location", "w.bin")]))
