#!/usr/bin/python3
"""Builds the issue-14 test models (model-local functions, ai.onnx.ml ops) as ONNX backend-test
cases: model.onnx + test_data_set_0/input_K.{pb,bin} + inputs.json; onnxruntime-node then gives
the expected outputs (bench/ort_reference.js, bench/make_cases.py expect).
  make_ir_models.py OUT_DIR            # the cases
  make_ir_models.py --expect OUT_DIR   # ORT's output_K.bin -> output_K.pb (float32 or int64)
  make_ir_models.py --check OUT_DIR    # ORT agrees on `functions` and `functions_inlined`

Messages are built with the protobuf API from this repository's proto/onnx.proto (compiled here by
protoc), because Debian's python3-onnx (1.12) predates FunctionProto.attribute_proto (IR 9) and
overload (IR 10). Every input is float32 (what ort_reference.js feeds).

Cases:
  functions          local functions: an attribute reference (ref_attr_name) into LeakyRelu, a
                     default attribute value (attribute_proto) read by a Constant, two overloads of
                     one function, a function calling functions, an If whose branch reads a
                     function input and an attribute reference, a function importing ai.onnx.ml
                     that the model does not import
  functions_inlined  the same computation with every call inlined by hand; make_ir_models.py
                     --check compares ORT's outputs of the two
  loop_if            a Loop whose trip count is a graph input, with an If in its body
  sparse_initializer a sparse initializer and a Constant's sparse_value (densified by onnxc)
  sparse_pruned      a pruned sparse weight and bias, also run with --keep-sparse (kept COO)
  sequence_grow      a Loop with a run-time trip count growing sequences (--max-trip-count)
  ml_*               ai.onnx.ml ops the conformance suite lacks (Scaler, Normalizer, Imputer,
                     TreeEnsembleRegressor, TreeEnsembleClassifier (multiclass and each of
                     onnxruntime's two-class rules), TreeEnsemble post transforms, LinearRegressor,
                     LinearClassifier with int64 labels, binary and multiclass, OneHotEncoder,
                     LabelEncoder, FeatureVectorizer, CategoryMapper (both ways), SVMRegressor and
                     SVMClassifier in
                     liblinear and libsvm form, each kernel, one_class, probabilities)
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
proto_dir = os.path.join(here, "..", "..", "proto")
gen = tempfile.mkdtemp(prefix="onnxc-pb-")
subprocess.check_call(["protoc", f"--proto_path={proto_dir}", f"--python_out={gen}", "onnx.proto"])
sys.path.insert(0, gen)
import onnx_pb2 as P  # noqa: E402

A = P.AttributeProto
FLOAT = P.TensorProto.FLOAT


# ---- builders -------------------------------------------------------------------------------

def attr(name, value=None, ref=None, kind=None):
    a = A(name=name)
    if ref is not None:
        a.ref_attr_name = ref
        a.type = kind
        return a
    if isinstance(value, P.GraphProto):
        a.type = A.GRAPH
        a.g.CopyFrom(value)
    elif isinstance(value, P.TensorProto):
        a.type = A.TENSOR
        a.t.CopyFrom(value)
    elif isinstance(value, P.SparseTensorProto):
        a.type = A.SPARSE_TENSOR
        a.sparse_tensor.CopyFrom(value)
    elif isinstance(value, float):
        a.type, a.f = A.FLOAT, value
    elif isinstance(value, int):
        a.type, a.i = A.INT, value
    elif isinstance(value, str):
        a.type, a.s = A.STRING, value.encode()
    elif all(isinstance(v, int) for v in value):
        a.type = A.INTS
        a.ints.extend(value)
    elif all(isinstance(v, str) for v in value):
        a.type = A.STRINGS
        a.strings.extend(v.encode() for v in value)
    else:
        a.type = A.FLOATS
        a.floats.extend(float(v) for v in value)
    return a


def node(op, inputs, outputs, name, domain="", overload="", **attrs):
    n = P.NodeProto(op_type=op, name=name, domain=domain, input=inputs, output=outputs)
    if overload:
        n.overload = overload
    for k, v in attrs.items():
        n.attribute.append(v if isinstance(v, A) else attr(k, v))
    return n


def tensor(name, array):
    array = np.asarray(array)
    types = {np.float32: P.TensorProto.FLOAT, np.float64: P.TensorProto.DOUBLE,
             np.int64: P.TensorProto.INT64, np.uint8: P.TensorProto.UINT8}
    t = P.TensorProto(name=name, data_type=types[array.dtype.type], dims=array.shape)
    t.raw_data = array.tobytes()
    return t


def value_info(name, shape, elem=FLOAT):
    v = P.ValueInfoProto(name=name)
    v.type.tensor_type.elem_type = elem
    for d in shape:
        v.type.tensor_type.shape.dim.add().dim_value = d
    return v


def opsets(**versions):
    name = lambda d: "" if d == "ai_onnx" else d.replace("_", ".")
    return [P.OperatorSetIdProto(domain=name(d), version=v) for d, v in versions.items()]


def model(nodes, inputs, outputs, opset_import, functions=(), initializers=(), ir_version=10):
    m = P.ModelProto(ir_version=ir_version, producer_name="onnxc-tests")
    m.opset_import.extend(opset_import)
    m.functions.extend(functions)
    g = m.graph
    g.name = "g"
    g.node.extend(nodes)
    g.input.extend(value_info(n, s) for n, s in inputs)
    g.output.extend(value_info(*o) for o in outputs)  # (name, shape[, element type])
    g.initializer.extend(initializers)
    return m


def write_case(out_dir, name, m, feeds):
    data = os.path.join(out_dir, name, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(out_dir, name, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    specs = []
    for k, (n, x) in enumerate(feeds):
        x = np.asarray(x, np.int64 if np.asarray(x).dtype == np.int64 else np.float32)
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(tensor(n, x).SerializeToString())
        x.tofile(os.path.join(data, f"input_{k}.bin"))
        specs.append({"name": n, "shape": list(x.shape), "type": x.dtype.name})
    with open(os.path.join(data, "inputs.json"), "w") as f:
        json.dump(specs, f)


# ---- model-local functions ------------------------------------------------------------------

def function(name, inputs, outputs, nodes, attributes=(), defaults=(), overload="", imports=None):
    f = P.FunctionProto(name=name, domain="local", input=inputs, output=outputs, attribute=attributes)
    if overload:
        f.overload = overload
    f.node.extend(nodes)
    f.attribute_proto.extend(defaults)
    f.opset_import.extend(imports or opsets(ai_onnx=18))
    return f


def functions_case(out_dir):
    # AffineAct(X, B; alpha, beta = 0.5) = LeakyRelu(X + B, alpha) * beta
    affine = function("AffineAct", ["X", "B"], ["Y"], [
        node("Add", ["X", "B"], ["T"], "add"),
        node("LeakyRelu", ["T"], ["R"], "act", alpha=attr("alpha", ref="alpha", kind=A.FLOAT)),
        node("Constant", [], ["C"], "beta", value_float=attr("value_float", ref="beta", kind=A.FLOAT)),
        node("Mul", ["R", "C"], ["Y"], "scale"),
    ], attributes=["alpha"], defaults=[attr("beta", 0.5)])
    # Norm, two overloads: X / sum|X| (l1) and X / sqrt(sum X^2) (l2) over the last axis.
    norm = {
        o: function("Norm", ["X"], ["Y"], [
            node("Constant", [], ["axes"], "axes", value=tensor("axes", np.array([-1], np.int64))),
            node(red, ["X", "axes"], ["S"], "reduce", keepdims=1),
            node("Div", ["X", "S"], ["Y"], "div"),
        ], overload=o)
        for o, red in (("l1", "ReduceL1"), ("l2", "ReduceL2"))
    }
    # Block(X, B) = l2-normalized AffineAct(X, B; alpha 0.3, beta 2) + Binarizer(X, threshold 0.25)
    # (ORT 1.30 cannot resolve an overload called from inside a function: Block calls no overload)
    block = function("Block", ["X", "B"], ["Y"], [
        node("Constant", [], ["axes"], "axes", value=tensor("axes", np.array([-1], np.int64))),
        node("AffineAct", ["X", "B"], ["A"], "affine", domain="local", alpha=0.3, beta=2.0),
        node("ReduceL2", ["A", "axes"], ["S"], "reduce", keepdims=1),
        node("Div", ["A", "S"], ["N"], "div"),
        node("Binarizer", ["X"], ["Z"], "bin", domain="ai.onnx.ml", threshold=0.25),
        node("Add", ["N", "Z"], ["Y"], "sum"),
    ], imports=opsets(ai_onnx=18, ai_onnx_ml=3, local=1))
    # Gate(X; scale) = If(sum X > 0, X * scale, -X): the branch reads X and a reference.
    then_g = P.GraphProto(name="then", node=[
        node("Constant", [], ["k"], "k", value_float=attr("value_float", ref="scale", kind=A.FLOAT)),
        node("Mul", ["X", "k"], ["ty"], "mul")], output=[value_info("ty", [])])
    then_g.output[0].type.tensor_type.ClearField("shape")
    else_g = P.GraphProto(name="else", node=[node("Neg", ["X"], ["ey"], "neg")],
                          output=[value_info("ey", [])])
    else_g.output[0].type.tensor_type.ClearField("shape")
    gate = function("Gate", ["X"], ["Y"], [
        node("ReduceSum", ["X"], ["S"], "total", keepdims=0),
        node("Constant", [], ["zero"], "zero", value_float=0.0),
        node("Greater", ["S", "zero"], ["c"], "positive"),
        node("If", ["c"], ["Y"], "branch", then_branch=then_g, else_branch=else_g),
    ], attributes=["scale"])
    calls = [
        node("AffineAct", ["X", "B"], ["y1"], "aff1", domain="local", alpha=0.1),
        node("AffineAct", ["X", "B"], ["y2"], "aff2", domain="local", alpha=0.2, beta=2.0),
        node("Norm", ["y1"], ["n1"], "norm1", domain="local", overload="l1"),
        node("Norm", ["y2"], ["n2"], "norm2", domain="local", overload="l2"),
        node("Block", ["X", "B"], ["b"], "block", domain="local"),
        node("Gate", ["X"], ["g"], "gate", domain="local", scale=3.0),
    ]
    b = tensor("B", np.array([0.5, -1.0, 0.25], np.float32))
    outs = [(n, [2, 3]) for n in ("n1", "n2", "b", "g")]
    m = model(calls, [("X", [2, 3])], outs, opsets(ai_onnx=18, local=1),
              [affine, norm["l1"], norm["l2"], block, gate], [b])
    x = np.array([[1.0, -2.0, 0.5], [-0.75, 3.0, 0.1]], np.float32)
    write_case(out_dir, "functions", m, [("X", x)])
    # The same by hand: every call's body spelled out in the graph.
    axes = lambda n: node("Constant", [], [n], n, value=tensor(n, np.array([-1], np.int64)))
    const = lambda n, v: node("Constant", [], [n], n, value_float=v)
    then_h = P.GraphProto(name="then", node=[const("k", 3.0), node("Mul", ["X", "k"], ["ty"], "mul")],
                          output=[value_info("ty", [])])
    else_h = P.GraphProto(name="else", node=[node("Neg", ["X"], ["ey"], "neg")],
                          output=[value_info("ey", [])])
    for g in (then_h, else_h):
        g.output[0].type.tensor_type.ClearField("shape")
    hand = [
        node("Add", ["X", "B"], ["t1"], "a1"), node("LeakyRelu", ["t1"], ["r1"], "l1", alpha=0.1),
        const("c1", 0.5), node("Mul", ["r1", "c1"], ["y1"], "m1"),
        node("Add", ["X", "B"], ["t2"], "a2"), node("LeakyRelu", ["t2"], ["r2"], "l2", alpha=0.2),
        const("c2", 2.0), node("Mul", ["r2", "c2"], ["y2"], "m2"),
        axes("ax1"), node("ReduceL1", ["y1", "ax1"], ["s1"], "s1", keepdims=1),
        node("Div", ["y1", "s1"], ["n1"], "d1"),
        axes("ax2"), node("ReduceL2", ["y2", "ax2"], ["s2"], "s2", keepdims=1),
        node("Div", ["y2", "s2"], ["n2"], "d2"),
        node("Add", ["X", "B"], ["t3"], "a3"), node("LeakyRelu", ["t3"], ["r3"], "l3", alpha=0.3),
        const("c3", 2.0), node("Mul", ["r3", "c3"], ["y3"], "m3"),
        axes("ax3"), node("ReduceL2", ["y3", "ax3"], ["s3"], "s3", keepdims=1),
        node("Div", ["y3", "s3"], ["n3"], "d3"),
        node("Binarizer", ["X"], ["z3"], "bz", domain="ai.onnx.ml", threshold=0.25),
        node("Add", ["n3", "z3"], ["b"], "sb"),
        node("ReduceSum", ["X"], ["S"], "total", keepdims=0), const("zero", 0.0),
        node("Greater", ["S", "zero"], ["c"], "positive"),
        node("If", ["c"], ["g"], "branch", then_branch=then_h, else_branch=else_h),
    ]
    m = model(hand, [("X", [2, 3])], outs, opsets(ai_onnx=18, ai_onnx_ml=3), initializers=[b])
    write_case(out_dir, "functions_inlined", m, [("X", x)])


# ---- control flow ---------------------------------------------------------------------------

def scalar_info(name, elem):
    v = value_info(name, [], elem)
    v.type.tensor_type.shape.SetInParent()  # rank 0, not an unknown shape
    return v


def control_flow_case(out_dir):
    """A Loop whose trip count M is a graph input, with an If in its body reading an outer value:
    acc = X; for i < M: acc = acc + X if i is even, else acc * 0.5."""
    then_g = P.GraphProto(name="then", node=[node("Add", ["acc_in", "X"], ["t"], "add")],
                          output=[value_info("t", [3])])
    else_g = P.GraphProto(name="else", node=[
        node("Constant", [], ["half"], "half", value_float=0.5),
        node("Mul", ["acc_in", "half"], ["e"], "halve")], output=[value_info("e", [3])])
    body = P.GraphProto(name="body", node=[
        node("Constant", [], ["two"], "two", value=tensor("two", np.array(2, np.int64))),
        node("Mod", ["i", "two"], ["r"], "mod"),
        node("Constant", [], ["zero"], "zero", value=tensor("zero", np.array(0, np.int64))),
        node("Equal", ["r", "zero"], ["even"], "even"),
        node("If", ["even"], ["acc_out"], "branch", then_branch=then_g, else_branch=else_g),
        node("Identity", ["cond_in"], ["cond_out"], "keep_going"),
    ])
    body.input.extend([scalar_info("i", P.TensorProto.INT64),
                       scalar_info("cond_in", P.TensorProto.BOOL), value_info("acc_in", [3])])
    body.output.extend([scalar_info("cond_out", P.TensorProto.BOOL), value_info("acc_out", [3])])
    m = model([node("Loop", ["M", "", "X"], ["Y"], "loop", body=body)], [("X", [3])], [("Y", [3])],
              opsets(ai_onnx=18))
    m.graph.input.append(scalar_info("M", P.TensorProto.INT64))
    write_case(out_dir, "loop_if", m,
               [("X", np.array([1.0, -2.0, 0.5], np.float32)), ("M", np.array(5, np.int64))])


def sequence_grow_case(out_dir):
    """A Loop whose trip count M is a graph input grows two sequences, both empty at the start:
    iteration i appends t = X + i to `s` and Unsqueeze(t, 0) to `u`; YS stacks `s`, ZS concatenates
    `u` along axis 0 and N is SequenceLength(s). run_ir_models.sh compiles it with
    --max-trip-count grow=3 and feeds M = 3, so all three rows hold values."""
    seq = P.TypeProto()
    seq.sequence_type.elem_type.tensor_type.elem_type = FLOAT
    body = P.GraphProto(name="body", node=[
        node("Identity", ["cond_in"], ["cond_out"], "keep_going"),
        node("Cast", ["i"], ["fi"], "to_float", to=FLOAT),
        node("Add", ["X", "fi"], ["t"], "step"),
        node("Constant", [], ["axes"], "axes", value=tensor("axes", np.array([0], np.int64))),
        node("Unsqueeze", ["t", "axes"], ["t1"], "row"),
        node("SequenceInsert", ["s_in", "t"], ["s_out"], "append_s"),
        node("SequenceInsert", ["u_in", "t1"], ["u_out"], "append_u"),
    ])
    body.input.extend([scalar_info("i", P.TensorProto.INT64),
                       scalar_info("cond_in", P.TensorProto.BOOL),
                       P.ValueInfoProto(name="s_in", type=seq), P.ValueInfoProto(name="u_in", type=seq)])
    body.output.extend([scalar_info("cond_out", P.TensorProto.BOOL),
                        P.ValueInfoProto(name="s_out", type=seq), P.ValueInfoProto(name="u_out", type=seq)])
    m = model([node("SequenceEmpty", [], ["s0"], "empty_s", dtype=FLOAT),
               node("SequenceEmpty", [], ["u0"], "empty_u", dtype=FLOAT),
               node("Loop", ["M", "", "s0", "u0"], ["s", "u"], "grow", body=body),
               node("ConcatFromSequence", ["s"], ["YS"], "stack", axis=0, new_axis=1),
               node("ConcatFromSequence", ["u"], ["ZS"], "concat", axis=0),
               node("SequenceLength", ["s"], ["N"], "length")],
              [("X", [2])], [("YS", [3, 2]), ("ZS", [3, 2])], opsets(ai_onnx=17))
    m.graph.input.append(scalar_info("M", P.TensorProto.INT64))
    m.graph.output.append(scalar_info("N", P.TensorProto.INT64))
    write_case(out_dir, "sequence_grow", m,
               [("X", np.array([1.0, 10.0], np.float32)), ("M", np.array(3, np.int64))])


def sparse_tensor(name, dims, values, indices):
    """A SparseTensorProto: float values at COO indices ([NNZ] linear or [NNZ, rank])."""
    indices = np.asarray(indices, np.int64)
    sp = P.SparseTensorProto(dims=dims)
    sp.values.CopyFrom(tensor(name, np.asarray(values, np.float32)))
    sp.indices.CopyFrom(tensor(name + "_indices", indices))
    return sp


def sparse_case(out_dir):
    """Y = X @ W + C: W a sparse initializer [3, 4] (coordinates), C a Constant's sparse_value [4]
    (linear indices); onnxc densifies both at import."""
    m = model([node("MatMul", ["X", "W"], ["XW"], "matmul"),
               node("Constant", [], ["C"], "bias",
                    sparse_value=sparse_tensor("C", [4], [0.5, -1.5], [1, 3])),
               node("Add", ["XW", "C"], ["Y"], "add")],
              [("X", [2, 3])], [("Y", [2, 4])], opsets(ai_onnx=13), ir_version=8)
    m.graph.sparse_initializer.append(
        sparse_tensor("W", [3, 4], [2.0, -1.0, 3.0, 0.25], [[0, 0], [0, 3], [1, 2], [2, 1]]))
    write_case(out_dir, "sparse_initializer", m,
               [("X", np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]], np.float32))])


def sparse_pruned_case(out_dir):
    """Y = Relu(X @ W + C): W a pruned sparse initializer [64, 32] (120 of 2048 weights, linear
    indices), C a Constant's sparse_value [2, 32] (coordinates). run_ir_models.sh also runs it with
    --keep-sparse, where both stay COO and are expanded at run time."""
    rng = np.random.default_rng(14)
    at = np.sort(rng.choice(64 * 32, 120, replace=False))
    m = model([node("MatMul", ["X", "W"], ["XW"], "matmul"),
               node("Constant", [], ["C"], "bias",
                    sparse_value=sparse_tensor("C", [2, 32], [0.5, -1.5, 2.0],
                                               [[0, 3], [1, 0], [1, 31]])),
               node("Add", ["XW", "C"], ["S"], "add"),
               node("Relu", ["S"], ["Y"], "relu")],
              [("X", [2, 64])], [("Y", [2, 32])], opsets(ai_onnx=13), ir_version=8)
    m.graph.sparse_initializer.append(
        sparse_tensor("W", [64, 32], rng.standard_normal(120).astype(np.float32), at))
    write_case(out_dir, "sparse_pruned", m,
               [("X", rng.standard_normal((2, 64)).astype(np.float32))])


def cast_strings_case(out_dir):
    """Cast between strings and numbers. The harness feeds and reads numbers only, so the strings
    are checked inside the model: X (float), X as double and I (int64) cast to strings are
    compared (Equal) with the strings C's printf gives ("%.8g", "NaN", "INF"; the 9th digit
    decides the rounding of most of them); I also goes back to int64 and, truncated, to int32;
    string constants (folded at compile time by the same kernels) parse to float, int64 and bool."""
    rng = np.random.default_rng(21)
    x = np.concatenate([rng.uniform(1, 10, 11) * 10.0 ** np.arange(-30, 31, 6),
                        [0.3, -0.0, 1e-5, 123456789, 2.5e-3, 5e-45, 3.4e38, 1 / 3, 99999999.5,
                         float("nan"), float("inf"), -float("inf")]]).astype(np.float32)
    ints = np.array([0, -1, 2**63 - 1, -2**63, 123456789012, 2**31], np.int64)
    STRING, INT64, INT32, BOOL, DOUBLE = (P.TensorProto.STRING, P.TensorProto.INT64,
                                          P.TensorProto.INT32, P.TensorProto.BOOL,
                                          P.TensorProto.DOUBLE)

    def strings(name, values):
        t = P.TensorProto(name=name, data_type=STRING, dims=[len(values)])
        t.string_data.extend(v.encode() for v in values)
        return t

    def printf(v):
        return "NaN" if np.isnan(v) else ("-INF" if v < 0 else "INF") if np.isinf(v) else "%.8g" % v

    floats = ["  12", "0x1p-3", "1e-40", "100.5", "3.14abc", "+.5e1", "-2.5E-3", "1e-46"]
    integers = ["100.5", " -7", "+42", "1e3", "300", "0"]
    m = model([node("Cast", ["X"], ["XS"], "x_to_string", to=STRING),
               node("Equal", ["XS", "XWant"], ["XE"], "x_strings_equal"),
               node("Cast", ["XE"], ["Y0"], "x_equal_to_int64", to=INT64),
               node("Cast", ["X"], ["XD"], "x_to_double", to=DOUBLE),
               node("Cast", ["XD"], ["DS"], "double_to_string", to=STRING),
               node("Equal", ["DS", "XWant"], ["DE"], "double_strings_equal"),
               node("Cast", ["DE"], ["Y1"], "double_equal_to_int64", to=INT64),
               node("Cast", ["I"], ["IS"], "i_to_string", to=STRING),
               node("Equal", ["IS", "IWant"], ["IE"], "i_strings_equal"),
               node("Cast", ["IE"], ["Y2"], "i_equal_to_int64", to=INT64),
               node("Cast", ["IS"], ["Y3"], "i_from_string", to=INT64),
               node("Cast", ["IS"], ["I32"], "i_to_int32", to=INT32),
               node("Cast", ["I32"], ["Y4"], "i32_to_int64", to=INT64),
               node("Constant", [], ["CF"], "float_strings", value=strings("CF", floats)),
               node("Cast", ["CF"], ["Y5"], "parse_floats", to=FLOAT),
               node("Constant", [], ["CI"], "int_strings", value=strings("CI", integers)),
               node("Cast", ["CI"], ["Y6"], "parse_ints", to=INT64),
               node("Cast", ["CI"], ["CB"], "parse_bools", to=BOOL),
               node("Cast", ["CB"], ["Y7"], "bools_to_int64", to=INT64)],
              [("X", [x.size]), ("I", [ints.size])],
              [("Y0", [x.size], INT64), ("Y1", [x.size], INT64), ("Y2", [ints.size], INT64),
               ("Y3", [ints.size], INT64), ("Y4", [ints.size], INT64), ("Y5", [len(floats)]),
               ("Y6", [len(integers)], INT64), ("Y7", [len(integers)], INT64)],
              opsets(ai_onnx=19),
              initializers=[strings("XWant", [printf(v) for v in x.astype(np.float64)]),
                            strings("IWant", [str(v) for v in ints])])
    m.graph.input[1].type.tensor_type.elem_type = INT64
    write_case(out_dir, "cast_strings", m, [("X", x), ("I", ints)])


# ---- ai.onnx.ml -----------------------------------------------------------------------------

def ml_cases(out_dir):
    rng = np.random.default_rng(14)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    x[1, 2] = np.nan
    ml = opsets(ai_onnx=18, ai_onnx_ml=3)

    def one(name, n, out_shape, feeds=None, imports=ml):
        m = model([n], [("X", [5, 4])], [("Y", out_shape)], imports)
        write_case(out_dir, name, m, feeds or [("X", np.nan_to_num(x))])

    one("ml_scaler", node("Scaler", ["X"], ["Y"], "s", "ai.onnx.ml", offset=[0.5, -1, 2, 0],
                          scale=[2, 0.5, -1, 3]), [5, 4])
    for norm in ("MAX", "L1", "L2"):
        one(f"ml_normalizer_{norm.lower()}", node("Normalizer", ["X"], ["Y"], "n", "ai.onnx.ml",
                                                 norm=norm), [5, 4])
    one("ml_imputer_nan", node("Imputer", ["X"], ["Y"], "i", "ai.onnx.ml",
                               imputed_value_floats=[1.5, 2.5, 3.5, 4.5],
                               replaced_value_float=float("nan")), [5, 4], [("X", x)])
    one("ml_binarizer", node("Binarizer", ["X"], ["Y"], "b", "ai.onnx.ml", threshold=0.3), [5, 4])
    # Two trees over 4 features, two targets; tree 1's node 0 sends NaN right (missing tracks true).
    reg = dict(
        nodes_treeids=[0, 0, 0, 0, 0, 1, 1, 1],
        nodes_nodeids=[0, 1, 2, 3, 4, 0, 1, 2],
        nodes_featureids=[2, 0, 0, 0, 0, 3, 0, 0],
        nodes_modes=["BRANCH_LEQ", "BRANCH_GT", "LEAF", "LEAF", "LEAF", "BRANCH_LT", "LEAF", "LEAF"],
        nodes_values=[0.1, -0.4, 0, 0, 0, 0.2, 0, 0],
        nodes_truenodeids=[1, 2, 0, 0, 0, 1, 0, 0],
        nodes_falsenodeids=[4, 3, 0, 0, 0, 2, 0, 0],
        nodes_missing_value_tracks_true=[1, 0, 0, 0, 0, 0, 0, 0],
        target_treeids=[0, 0, 0, 0, 1, 1],
        target_nodeids=[2, 3, 4, 4, 1, 2],
        target_ids=[0, 0, 0, 1, 1, 0],
        target_weights=[1.5, -2.0, 0.25, 4.0, 3.0, -1.0],
        n_targets=2, base_values=[0.1, -0.2])
    for agg, post in (("SUM", "NONE"), ("AVERAGE", "LOGISTIC"), ("MAX", "NONE"), ("SUM", "SOFTMAX")):
        one(f"ml_tree_regressor_{agg.lower()}_{post.lower()}",
            node("TreeEnsembleRegressor", ["X"], ["Y"], "t", "ai.onnx.ml", aggregate_function=agg,
                 post_transform=post, **reg), [5, 2], [("X", x)])
    # TreeEnsembleClassifier over the same trees. The spec leaves two-class labels and scores open:
    # onnxc follows onnxruntime (rules in runtime/onnxc/ml_tree.h), each rule a case here.
    nodes = {k: v for k, v in reg.items() if k.startswith("nodes_")}
    leaves = dict(class_treeids=[0, 0, 0, 0, 1, 1], class_nodeids=[2, 3, 4, 4, 1, 2])

    def classifier(name, labels, ids, weights, post, base=None):
        extra = {"base_values": base} if base is not None else {}
        m = model([node("TreeEnsembleClassifier", ["X"], ["Y", "Z"], "c", "ai.onnx.ml",
                        classlabels_int64s=labels, class_ids=ids, class_weights=weights,
                        post_transform=post, **nodes, **leaves, **extra)],
                  [("X", [5, 4])], [("Y", [5]), ("Z", [5, len(labels)])], ml)
        m.graph.output[0].type.tensor_type.elem_type = P.TensorProto.INT64
        write_case(out_dir, f"ml_tree_classifier_{name}", m, [("X", x)])

    signed = [1.5, -2.0, 0.25, 4.0, 3.0, -1.0]
    for post in ("NONE", "SOFTMAX", "LOGISTIC"):  # three classes, class 2 voted only once
        classifier(f"multi_{post.lower()}", [4, 8, 15], [0, 1, 0, 2, 1, 0], signed, post,
                   [0.1, -0.2, 0.3])
    classifier("multi_nobase", [4, 8, 15], [0, 1, 0, 2, 1, 0], signed, "NONE")
    # Two labels, every vote for class 0 (binary): probability-like weights, then signed ones.
    probs = [0.2, 0.9, 0.6, 0.1, 0.7, 0.4]
    classifier("binary_positive", [3, 7], [0] * 6, probs, "NONE")
    for post in ("NONE", "LOGISTIC"):
        classifier(f"binary_signed_{post.lower()}", [3, 7], [0] * 6, signed, post, [0.25])
    classifier("binary_signed_nobase", [3, 7], [0] * 6, signed, "NONE")
    classifier("binary_signed_base2", [3, 7], [0] * 6, signed, "LOGISTIC", [0.1, 0.1])
    classifier("binary_class1_base2", [3, 7], [1] * 6, signed, "NONE", [0.1, 0.1])
    # Two labels voted for separately ("binary as multiclass"), with two base values or none.
    classifier("two_class_base2", [3, 7], [0, 1, 0, 1, 1, 0], signed, "NONE", [0.5, -0.5])
    classifier("two_class_nobase", [3, 7], [0, 1, 0, 1, 1, 0], signed, "LOGISTIC")
    # TreeEnsemble (ai.onnx.ml 5): the same first tree with a set-membership root for tree 2.
    te = dict(
        tree_roots=[0, 3], nodes_featureids=[2, 0, 1, 1],
        nodes_modes=tensor("nodes_modes", np.array([0, 3, 0, 6], np.uint8)),
        nodes_splits=tensor("nodes_splits", np.array([0.1, -0.4, 0.0, 0.0], np.float32)),
        nodes_truenodeids=[1, 0, 0, 3], nodes_trueleafs=[0, 1, 0, 1],
        nodes_falsenodeids=[2, 1, 0, 4], nodes_falseleafs=[1, 1, 0, 1],
        membership_values=tensor("membership_values", np.array([0.0, 1.0, np.nan], np.float32)),
        leaf_targetids=[0, 1, 0, 1, 0], n_targets=2,
        leaf_weights=tensor("leaf_weights", np.array([1.5, -2.0, 0.25, 4.0, 3.0], np.float32)))
    te5 = opsets(ai_onnx=21, ai_onnx_ml=5)
    xr = np.round(x * 2) / 2  # features on a 0.5 grid so set membership hits
    xr[1, 2] = np.nan
    # post_transform 1 and 2 are not compared: onnxruntime reads 1 as LOGISTIC and 2 as SOFTMAX,
    # the spec says 1 SOFTMAX, 2 LOGISTIC (onnxc follows the spec).
    for post in (0, 3):
        one(f"ml_tree_ensemble_post{post}", node("TreeEnsemble", ["X"], ["Y"], "t", "ai.onnx.ml",
                                                 post_transform=post, **te), [5, 2], [("X", xr)], te5)


def linear_cases(out_dir):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    coef = rng.standard_normal(9).round(2).tolist()
    ml = opsets(ai_onnx=18, ai_onnx_ml=1)
    for post in ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO"):
        m = model([node("LinearRegressor", ["X"], ["Y"], "r", "ai.onnx.ml", coefficients=coef,
                        intercepts=[0.5, -1.0, 0.25], targets=3, post_transform=post)],
                  [("X", [5, 3])], [("Y", [5, 3])], ml)
        write_case(out_dir, f"ml_linear_regressor_{post.lower()}", m, [("X", x)])
        m = model([node("LinearClassifier", ["X"], ["Y", "Z"], "c", "ai.onnx.ml", coefficients=coef,
                        intercepts=[0.5, -1.0, 0.25], classlabels_ints=[4, 8, 15],
                        post_transform=post)],
                  [("X", [5, 3])], [("Y", [5]), ("Z", [5, 3])], ml)
        m.graph.output[0].type.tensor_type.elem_type = P.TensorProto.INT64
        write_case(out_dir, f"ml_linear_classifier_{post.lower()}", m, [("X", x)])
    for post in ("NONE", "LOGISTIC"):  # binary: one score row, two labels, two score columns
        m = model([node("LinearClassifier", ["X"], ["Y", "Z"], "c", "ai.onnx.ml",
                        coefficients=coef[:3], intercepts=[0.1], classlabels_ints=[3, 7],
                        post_transform=post)],
                  [("X", [5, 3])], [("Y", [5]), ("Z", [5, 2])], ml)
        m.graph.output[0].type.tensor_type.elem_type = P.TensorProto.INT64
        write_case(out_dir, f"ml_linear_binary_{post.lower()}", m, [("X", x)])


def svm_cases(out_dir):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    sv = rng.standard_normal(12).round(2).tolist()  # 4 support vectors of 3 features
    coef = [0.7, -1.2, 0.4, 0.9]
    ml = opsets(ai_onnx=18, ai_onnx_ml=1)

    def regressor(name, **attrs):
        m = model([node("SVMRegressor", ["X"], ["Y"], "s", "ai.onnx.ml", **attrs)],
                  [("X", [5, 3])], [("Y", [5, 1])], ml)
        write_case(out_dir, f"ml_svm_regressor_{name}", m, [("X", x)])

    regressor("liblinear", coefficients=[0.5, -0.25, 1.5], rho=[0.1], n_supports=0,
              kernel_params=[0.0, 0.0, 0.0])  # onnxruntime requires kernel_params
    for kernel, params in (("LINEAR", [0.0, 0.0, 0.0]), ("POLY", [0.3, 0.5, 3.0]),
                           ("RBF", [0.4, 0.0, 0.0]), ("SIGMOID", [0.2, -0.1, 0.0])):
        regressor(kernel.lower(), coefficients=coef, support_vectors=sv, rho=[-0.3], n_supports=4,
                  kernel_type=kernel, kernel_params=params)
    regressor("one_class", coefficients=coef, support_vectors=sv, rho=[0.05], n_supports=4,
              kernel_type="RBF", kernel_params=[0.4, 0.0, 0.0], one_class=1)

    # SVMClassifier: scores and two-class labels follow onnxruntime (the spec leaves them open).
    def classifier(name, labels, columns, **attrs):
        m = model([node("SVMClassifier", ["X"], ["Y", "Z"], "c", "ai.onnx.ml",
                        classlabels_ints=labels, **attrs)],
                  [("X", [5, 3])], [("Y", [5]), ("Z", [5, columns])], ml)
        m.graph.output[0].type.tensor_type.elem_type = P.TensorProto.INT64
        write_case(out_dir, f"ml_svm_classifier_{name}", m, [("X", x)])

    none = [0.0, 0.0, 0.0]
    lin3 = rng.standard_normal(9).round(2).tolist()
    classifier("liblinear3", [4, 8, 15], 3, coefficients=lin3, rho=[0.2], kernel_params=none)
    classifier("liblinear2_mixed", [3, 7], 2, coefficients=lin3[:6], rho=[0.1],
               kernel_params=none)
    classifier("liblinear2_positive", [3, 7], 2, coefficients=[abs(c) for c in lin3[:6]],
               rho=[-0.6], kernel_params=none)
    # Libsvm form: 3 classes with 1, 2 and 1 support vectors (coefficients: 2 rows of 4).
    svc = dict(support_vectors=sv, vectors_per_class=[1, 2, 1],
               coefficients=[0.7, -1.2, 0.4, 0.9, -0.5, 0.3, 1.1, -0.8], rho=[0.1, -0.2, 0.3])
    for kernel, params in (("LINEAR", none), ("POLY", [0.3, 0.5, 2.0]), ("RBF", [0.4, 0.0, 0.0]),
                           ("SIGMOID", [0.2, -0.1, 0.0])):
        classifier(f"svc3_{kernel.lower()}", [4, 8, 15], 3, kernel_type=kernel,
                   kernel_params=params, **svc)
    classifier("svc3_rbf_softmax", [4, 8, 15], 3, kernel_type="RBF", kernel_params=[0.4, 0, 0],
               post_transform="SOFTMAX", **svc)
    classifier("svc3_rbf_proba", [4, 8, 15], 3, kernel_type="RBF", kernel_params=[0.4, 0, 0],
               prob_a=[-1.5, -0.8, -2.0], prob_b=[0.1, -0.2, 0.05], **svc)
    svc2 = dict(support_vectors=sv, vectors_per_class=[2, 2], coefficients=[0.7, -1.2, 0.4, 0.9],
                rho=[-0.3], kernel_type="RBF", kernel_params=[0.4, 0.0, 0.0])
    classifier("svc2_none", [3, 7], 2, **svc2)
    classifier("svc2_logistic", [3, 7], 2, post_transform="LOGISTIC", **svc2)
    classifier("svc2_proba", [3, 7], 2, prob_a=[-1.2], prob_b=[0.3], **svc2)


def encode_cases(out_dir):
    ml = opsets(ai_onnx=18, ai_onnx_ml=2)
    x = np.array([[1, 3, 7], [2, 7, 0], [5, 1, 3]], np.float32)
    m = model([node("OneHotEncoder", ["X"], ["Y"], "o", "ai.onnx.ml", cats_int64s=[7, 1, 3, 9])],
              [("X", [3, 3])], [("Y", [3, 3, 4])], ml)
    write_case(out_dir, "ml_one_hot_encoder", m, [("X", x)])
    m = model([node("LabelEncoder", ["X"], ["Y"], "l", "ai.onnx.ml", keys_floats=[1.0, 3.0, 7.0],
                    values_floats=[10.0, 30.0, 70.0], default_float=-5.0)],
              [("X", [3, 3])], [("Y", [3, 3])], ml)
    # No repeated key: the spec says the last one wins, onnxruntime keeps the first (onnxc: spec).
    write_case(out_dir, "ml_label_encoder_float", m, [("X", x)])
    m = model([node("FeatureVectorizer", ["X", "W"], ["Y"], "f", "ai.onnx.ml",
                    inputdimensions=[2, 4])],
              [("X", [3, 3]), ("W", [3, 2])], [("Y", [3, 6])], ml)
    write_case(out_dir, "ml_feature_vectorizer", m, [("X", x), ("W", x[:, :2] * 0.5)])
    # int64 -> string -> int64: 0, 2 and 5 are unlisted (default_string), "nine" is unlisted in
    # the second mapper (default_int64), "other" maps back.
    int64 = P.TensorProto.INT64
    m = model([node("Cast", ["X"], ["I"], "c", to=int64),
               node("CategoryMapper", ["I"], ["S"], "to_strings", "ai.onnx.ml", cats_int64s=[1, 3, 7, 9],
                    cats_strings=["one", "three", "seven", "nine"], default_string="other"),
               node("CategoryMapper", ["S"], ["Y"], "to_ints", "ai.onnx.ml", cats_int64s=[10, 30, 70, -1],
                    cats_strings=["one", "three", "seven", "other"], default_int64=-5)],
              [("X", [3, 3])], [("Y", [3, 3], int64)], ml)
    write_case(out_dir, "ml_category_mapper", m, [("X", np.array([[1, 3, 7], [9, 0, 2], [5, 7, 1]], np.float32))])


def expect(out_dir):
    """ORT's output_K.bin (ort_reference.js) -> output_K.pb, typed as the model's outputs."""
    dtypes = {P.TensorProto.FLOAT: np.float32, P.TensorProto.INT64: np.int64}
    for name in sorted(os.listdir(out_dir)):
        m = P.ModelProto()
        with open(os.path.join(out_dir, name, "model.onnx"), "rb") as f:
            m.ParseFromString(f.read())
        data = os.path.join(out_dir, name, "test_data_set_0")
        with open(os.path.join(data, "outputs.json")) as f:
            outputs = json.load(f)
        for k, o in enumerate(outputs):
            elem = next(v.type.tensor_type.elem_type for v in m.graph.output if v.name == o["name"])
            y = np.fromfile(os.path.join(data, f"output_{k}.bin"), dtypes[elem]).reshape(o["shape"])
            with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
                f.write(tensor(o["name"], y).SerializeToString())


def check(out_dir):
    """ORT's outputs of `functions` and `functions_inlined` must agree (rtol 1e-6)."""
    a = os.path.join(out_dir, "functions", "test_data_set_0")
    b = os.path.join(out_dir, "functions_inlined", "test_data_set_0")
    for k in range(4):
        ya = np.fromfile(os.path.join(a, f"output_{k}.bin"), np.float32)
        yb = np.fromfile(os.path.join(b, f"output_{k}.bin"), np.float32)
        if not np.allclose(ya, yb, rtol=1e-6, atol=1e-7):
            sys.exit(f"functions: ORT output {k} differs from the hand-inlined model's")
    print("functions: ORT agrees with the hand-inlined model")


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        check(sys.argv[2])
    elif sys.argv[1] == "--expect":
        expect(sys.argv[2])
    else:
        linear_cases(sys.argv[1])
        encode_cases(sys.argv[1])
        svm_cases(sys.argv[1])
        functions_case(sys.argv[1])
        control_flow_case(sys.argv[1])
        sparse_case(sys.argv[1])
        sparse_pruned_case(sys.argv[1])
        sequence_grow_case(sys.argv[1])
        cast_strings_case(sys.argv[1])
        ml_cases(sys.argv[1])
