# com.microsoft MultiHeadAttention with packed QKV (query (B, S, N, 3, H), no key and value): ORT's
# CPU kernel does not implement it ("Packed QKV of shape (B, L, N, 3, H) not implemented for
# CPU"), so neither does onnxc: refused with the rule (issue 35).
# command: compile
# expect-exit: 1
# expect: model\.onnx: node 'mha' \(com\.microsoft MultiHeadAttention\): packed QKV \(query \(B, S, N, 3, H\), no key and value\) is not supported: ORT's CPU kernel does not implement it either
from onnx import helper

from _lib import model, save, value

nodes = [helper.make_node("MultiHeadAttention", ["qkv"], ["y"], name="mha",
                          domain="com.microsoft", num_heads=2)]
m = model(nodes, [value("qkv", [1, 3, 2, 3, 4])], [value("y", [1, 3, 8])])
m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
save(m)
