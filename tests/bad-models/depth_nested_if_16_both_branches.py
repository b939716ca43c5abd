# If nodes nested 16 deep with both branches nested: 65,535 Ifs, 131,070 branch values, all live
# while the outer If runs. The storage check once compared every pair of them (17 GB, then "out
# of memory"); it now checks the regions level by level in O(n log n). Compiles, in bounded memory.
# command: compile
# expect-exit: 0
# expect: ^$
# max-rss-mb: 1000
import sys

from onnx import AttributeProto, TensorProto, helper

from _lib import model, save, value

DEPTH = 16
count = [0]


def fill(graph, level):
    """Fills `graph` in place (protobuf copies of nested graphs would cost O(n * DEPTH)): its one
    node is an If nested `level` deep over both branches, or Identity(x) at level 0."""
    count[0] += 1
    out = "o%d" % count[0]
    graph.name = "g%d" % count[0]
    n = graph.node.add()
    n.output.append(out)
    if level == 0:
        n.op_type, n.name = "Identity", "id%d" % count[0]
        n.input.append("x")
    else:
        n.op_type, n.name = "If", "if%d" % count[0]
        n.input.append("c")
        for name in ("then_branch", "else_branch"):
            a = n.attribute.add()
            a.name, a.type = name, AttributeProto.GRAPH
            fill(a.g, level - 1)
    graph.output.append(value(out, [1]))
    return out


m = model([], [value("c", [], TensorProto.BOOL), value("x", [1])], [])
fill(m.graph, DEPTH)
m.graph.name = "g"
save(m)
