# An empty model file is one clear error.
# command: check
# expect-exit: 1
# expect: model\.onnx: cannot parse model: the file is empty
from _lib import save_bytes

save_bytes(b"")
