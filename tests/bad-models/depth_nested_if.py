# If nodes nested 200 deep (each then branch holds the next If): about 600 levels of protobuf
# messages, past the 100-level recursion limit the loader parses with (which also bounds the
# validator's and importer's walks over subgraphs). Refused with the reason, not "invalid bytes".
# command: check
# expect-exit: 1
# expect: model\.onnx: cannot parse model: not a valid onnx\.ModelProto \(\d+ bytes\): its messages nest deeper than 100 levels \(the protobuf recursion limit; subgraphs nest at most ~30 deep\)
import sys

from onnx import TensorProto, helper

from _lib import model, save, value

DEPTH = 200


def leaf(name, out):
    """A branch graph computing out = Identity(x) (x from the outer scope)."""
    return helper.make_graph([helper.make_node("Identity", ["x"], [out], name=name)], name, [],
                             [value(out, [1])])


def branch(level):
    """A graph whose one node is an If nested `level` deep (level 0: a leaf)."""
    out = "o%d" % level
    if level == 0:
        return leaf("leaf", out)
    n = helper.make_node("If", ["c"], [out], name="if%d" % level, then_branch=branch(level - 1),
                         else_branch=leaf("else%d" % level, out))
    return helper.make_graph([n], "b%d" % level, [], [value(out, [1])])


sys.setrecursionlimit(10000)
g = branch(DEPTH)
save(model(list(g.node), [value("c", [], TensorProto.BOOL), value("x", [1])],
           [value("o%d" % DEPTH, [1])]))
