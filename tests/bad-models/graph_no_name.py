# The main graph has an empty name: every graph must specify one.
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph has no name \(every graph must specify one\)

from _lib import relu_model, save

m = relu_model()
m.graph.name = ''
save(m)
