# Slice whose starts and ends are a run-time value plus constants near the int64 limits (x + MAX
# and x - MIN): tracing them to one base summed the constants with signed overflow. The trace
# stops instead, and the starts, not constant, are refused with the rule.
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'slice' \(Slice\): .*constant
from onnx import TensorProto, helper

from _lib import INT64, model, save, value

MAX, MIN = 2**63 - 1, -2**63


def scalar(name, v):
    return helper.make_tensor(name, INT64, [1], [v])


nodes = [
    helper.make_node("Add", ["i", "max"], ["s"], name="add"),
    helper.make_node("Sub", ["i", "min"], ["e"], name="sub"),
    helper.make_node("Slice", ["x", "s", "e"], ["y"], name="slice"),
]
save(model(nodes, [value("x", [8]), value("i", [1], INT64)], [value("y", [1])],
           initializers=[scalar("max", MAX), scalar("min", MIN)]))
