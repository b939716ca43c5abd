# Mod of int64 constants [7] / [0]: folding once computed it silently. Div and Mod of integers give
# x / 0 = 0 and MIN / -1 = MIN at run time (numpy's results), but in constants they are a broken
# model, refused with the rule (README: what onnxc refuses).
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'div' \(Mod\): integer modulo by zero: the divisor 'b' is a constant holding 0
from onnx import TensorProto, helper

from _lib import model, save, value

T = TensorProto.INT64
nodes = [
    helper.make_node("Constant", [], ["a"], name="a", value=helper.make_tensor("a", T, [1], [7])),
    helper.make_node("Constant", [], ["b"], name="b", value=helper.make_tensor("b", T, [1], [0])),
    helper.make_node("Mod", ["a", "b"], ["q"], name="div"),
    helper.make_node("Add", ["x", "q"], ["y"], name="add"),
]
save(model(nodes, [value("x", [1], T)], [value("y", [1], T)]))
