# A symlink to a FIFO is followed to what it names, which is not a regular file: refused, no hang.
# command: compile
# expect-exit: 1
# expect: model\.onnx: cannot read model file: not a regular file
import os

from _lib import out_dir, out_path

fifo = os.path.join(out_dir(), "pipe")
os.mkfifo(fifo)
os.symlink(fifo, out_path())
