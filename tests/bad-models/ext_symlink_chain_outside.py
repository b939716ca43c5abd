# A symlink chain that ends outside the folder (a -> b -> ../x) is refused too.
# command: compile
# expect-exit: 1
# expect: location 'a\.bin' resolves \(through a symlink\) to .*outside
import os

from _lib import external_model, out_dir, save

target = os.path.join(os.path.dirname(out_dir()), "ext_chain_target.bin")
with open(target, "wb") as f:
    f.write(b"\0" * 16)
os.symlink(target, os.path.join(out_dir(), "b.bin"))
os.symlink("b.bin", os.path.join(out_dir(), "a.bin"))
save(external_model([("location", "a.bin")]))
