# A FIFO given as the model path must be refused at once, not hang inspect waiting for a writer.
# command: inspect
# expect-exit: 1
# expect: model\.onnx: cannot read model file: not a regular file
import os

from _lib import out_path

os.mkfifo(out_path())
