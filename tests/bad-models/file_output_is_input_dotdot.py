# `-o` spelling the input model's path another way (sub/../model.onnx) is the same file: refused.
# command: compile -o {dir}/sub/../model.onnx
# expect-exit: 2
# expect: is the input model
import os

from _lib import out_dir, relu_model, save

save(relu_model())
os.mkdir(os.path.join(out_dir(), "sub"))
