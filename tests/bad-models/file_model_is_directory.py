# A directory given as the model path is refused with one line.
# command: check
# expect-exit: 1
# expect: model\.onnx: cannot read model file: (is a directory|not a regular file)
import os

from _lib import out_path

os.mkdir(out_path())
