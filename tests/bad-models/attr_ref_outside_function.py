# An attribute with ref_attr_name in the main graph: references only make sense inside a function
# body.
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'sm' \(Softmax\): attribute 'axis' refers to a function attribute \('outer_axis'\) outside a function body
import onnx
from onnx import helper

from _lib import model, save, value

a = onnx.AttributeProto(name='axis', type=onnx.AttributeProto.INT, ref_attr_name='outer_axis')
n = helper.make_node('Softmax', ['x'], ['y'], name='sm')
n.attribute.append(a)
save(model([n], [value('x', [2, 3])], [value('y', [2, 3])]))
