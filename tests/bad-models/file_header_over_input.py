# The header written beside `-o out.cpp` is out.h: when that is (a link to) the input model, the
# compile is refused before it writes anything.
# command: compile -o {dir}/out.cpp
# expect-exit: 2
# expect: output '.*out\.h' is the input model
import os

from _lib import out_dir, out_path, relu_model, save

save(relu_model())
os.link(out_path(), os.path.join(out_dir(), "out.h"))
