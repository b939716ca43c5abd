# `--shape` naming no graph input is an error, not silently ignored.
# command: compile --shape nope=2x3
# expect-exit: 1
# expect: --shape nope=2x3: the model has no input named 'nope' \(inputs: x\)
from _lib import relu_model, save

save(relu_model())
