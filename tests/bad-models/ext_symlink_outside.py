# External data through a symlink inside the model folder that points outside it (the
# CVE-2026-27489 class) is refused: the real path must stay in the folder.
# command: compile
# expect-exit: 1
# expect: initializer 'w': external data location 'w\.bin' resolves \(through a symlink\) to .*outside the model's folder
import os

from _lib import external_model, out_dir, save

secret = os.path.join(os.path.dirname(out_dir()), "ext_symlink_outside.secret")
with open(secret, "wb") as f:
    f.write(b"\0" * 16)
os.symlink(secret, os.path.join(out_dir(), "w.bin"))
save(external_model([("location", "w.bin")]))
