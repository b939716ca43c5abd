# `--shape` may only pin symbolic dims: changing the static dim 3 to 4 needs --override-shape.
# command: compile --shape x=2x4
# expect-exit: 1
# expect: --shape x=2x4: dim 1 of input 'x' is static \(3\); .*--override-shape
from _lib import relu_model, save

save(relu_model())
