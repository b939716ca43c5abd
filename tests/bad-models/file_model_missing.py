# A model path naming nothing is one clear error.
# command: inspect
# expect-exit: 1
# expect: model\.onnx: cannot read model file: no such file
pass  # the generator writes nothing
