# Slice with steps = INT64_MIN and ends = INT64_MIN: inference negated the step (-INT64_MIN is
# undefined behaviour; UBSan: "negation of -9223372036854775808") and multiplied the stride by it.
# A step of magnitude above the dim takes one element, as onnxruntime does: it compiles, with no
# sanitizer report.
# command: compile
# expect-exit: 0
# expect: ^$
from onnx import TensorProto, helper

from _lib import INT64, model, save, value

MIN = -2**63


def const(name, values):
    return helper.make_tensor(name, INT64, [len(values)], values)


nodes = [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"], name="slice")]
inits = [const("starts", [-1]), const("ends", [MIN]), const("axes", [0]), const("steps", [MIN])]
save(model(nodes, [value("x", [4, 3])], [value("y", [1, 3])], initializers=inits))
