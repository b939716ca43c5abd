# With --weights external the weights go to out.bin: when that is the input model, refused.
# command: compile -o {dir}/out.cpp --weights external
# expect-exit: 2
# expect: output '.*out\.bin' is the input model
import os

from _lib import out_dir, out_path, relu_model, save

save(relu_model())
os.symlink(out_path(), os.path.join(out_dir(), "out.bin"))
