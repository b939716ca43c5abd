# A main graph input with a name but no type: main graph inputs are typed.
# command: check
# expect-exit: 1
# expect: model\.onnx: main graph input 'x' has no type \(main graph inputs and outputs are typed\)

from _lib import relu_model, save

m = relu_model()
m.graph.input[0].ClearField('type')
save(m)
