# Names from the model are data, never code (issue 17 point 1): every name, the doc strings, the
# producer and the metadata hold a newline followed by a preprocessor line, `*/`, quotes, a
# backslash before a newline, a trigraph, control bytes and invalid UTF-8 bytes. The model compiles,
# the generated code builds with -Wall -Wextra -Werror, and no line of it starts with the
# injected directive. stderr stays empty (debug builds of protobuf may log the invalid UTF-8).
# command: compile
# expect-exit: 0
# expect: ^(\[libprotobuf ERROR [^\n]*invalid UTF-8[^\n]*\n)*$
# then: cxx-syntax
# output-lacks: (?m)^\s*#\s*(include|error|define) <?evil
from onnx import TensorProto, helper

from _lib import FLOAT, save_bytes

EVIL = ["x\n#include <evil.h>\n", "*/ #error evil */", "\"; #define evil 1 //", "a\\\n#error evil",
        "??/\n#error evil", "\x01\x1b[2J\x7f", "bad\ufffdutf8"]


def name(i, role):
    return "%s%d_%s" % (role, i, EVIL[i % len(EVIL)])


x, w, h, y = name(0, "in"), name(1, "w"), name(2, "mid"), name(3, "out")
nodes = [helper.make_node("Add", [x, w], [h], name=name(4, "node"), doc_string=EVIL[1]),
         helper.make_node("Relu", [h], [y], name=name(5, "node"), doc_string=EVIL[0])]
graph = helper.make_graph(nodes, name(6, "graph"), [helper.make_tensor_value_info(x, FLOAT, [2])],
                          [helper.make_tensor_value_info(y, FLOAT, [2])],
                          initializer=[helper.make_tensor(w, FLOAT, [2], [1.0, -5.0])],
                          doc_string=EVIL[2])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name=EVIL[0],
                          producer_version=EVIL[3], doc_string=EVIL[4], domain=EVIL[1])
helper.set_model_props(model, {EVIL[0]: EVIL[2], "k": EVIL[4]})
# U+FFFD (3 bytes in UTF-8) becomes 3 bytes of invalid UTF-8: Python's protobuf refuses to set them.
save_bytes(model.SerializeToString().replace("\ufffd".encode(), b"\xff\xfe\xc0"))
