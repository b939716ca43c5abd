# An attribute whose type enum is 99: not an AttributeProto type.
# command: check
# expect-exit: 1
# expect: model\.onnx: node 'sm' \(Softmax\): attribute 'axis' has type 99, not an AttributeProto type
from onnx import helper

from _lib import model, save_bytes, value

n = helper.make_node('Softmax', ['x'], ['y'], name='sm', axis=1)
# protobuf's Python API refuses to set an unknown enum value: patch the serialized bytes (field 20,
# varint: tag 0xa0 0x01, value 2 = INT) to 99.
data = model([n], [value('x', [2, 3])], [value('y', [2, 3])]).SerializeToString()
assert data.count(b'\xa0\x01\x02') == 1
save_bytes(data.replace(b'\xa0\x01\x02', b'\xa0\x01\x63'))
