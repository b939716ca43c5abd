# `-o` naming a hard link to the input model (same inode) is the same file: refused.
# command: compile -o {dir}/link.cpp
# expect-exit: 2
# expect: output '.*link\.cpp' is the input model
import os

from _lib import out_dir, out_path, relu_model, save

save(relu_model())
os.link(out_path(), os.path.join(out_dir(), "link.cpp"))
