# `-o` naming the input model would overwrite it with C++: refused, the model is left intact.
# command: compile -o {model}
# expect-exit: 2
# expect: output '.*model\.onnx' is the input model
from _lib import relu_model, save

save(relu_model())
