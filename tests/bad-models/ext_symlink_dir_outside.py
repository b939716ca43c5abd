# A symlinked folder inside the model folder that points to its parent: sub/w.bin leaves
# the folder through it and is refused.
# command: compile
# expect-exit: 1
# expect: location 'sub/w\.bin' resolves \(through a symlink\) to .*outside the model's folder
import os

from _lib import external_model, out_dir, save

with open(os.path.join(os.path.dirname(out_dir()), "w.bin"), "wb") as f:
    f.write(b"\0" * 16)
os.symlink("..", os.path.join(out_dir(), "sub"))
save(external_model([("location", "sub/w.bin")]))
