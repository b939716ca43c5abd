# `--shape` giving another rank than the declared one is an error without --override-shape.
# command: compile --shape x=2x3x1
# expect-exit: 1
# expect: --shape x=2x3x1: input 'x' has rank 2, the flag gives rank 3; .*--override-shape
from _lib import relu_model, save

save(relu_model())
