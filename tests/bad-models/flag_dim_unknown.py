# `--dim` naming no symbolic dim of the model is an error, not silently ignored.
# command: inspect --dim Q=3
# expect-exit: 1
# expect: --dim Q=3: the model has no symbolic dim named 'Q' \(dims: N\)
from _lib import relu_model, save

save(relu_model(in_dims=("N", 3), out_dims=("N", 3)))
