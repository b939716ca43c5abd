"""Single-precision targets do only float math in float kernels (issue 16).

Compiles float models with `onnxc --target cortex-m4` and builds each generated .cpp for the
Cortex-M4F (fpv4-sp-d16: a single-precision FPU) with -Wdouble-promotion -Werror, then lists the
object's undefined symbols (arm-none-eabi-nm -u). A float kernel that computes in double pulls
in soft-double helpers (__aeabi_dadd, __aeabi_f2d, __muldf3, ...) or double libm functions
(sqrt, exp, ...: their float forms end in f); either fails the model.

The models:
  - the three models of the Cortex-M CI example (examples/cortex-m/make_models.py and the
    README's CNN), generated here;
  - from the ONNX backend node cases that pass on the host (tests/conformance/expected_pass.txt),
    up to --per-op cases of every op type whose graph inputs and outputs are float32 (integer
    index tensors and bools allowed): one model per kernel family, several for the families
    whose attributes pick different code.
Cases listed in --known (op-family cases that still use double, one case name a line) may fail
without failing the check; a listed case that passes is reported so the list can shrink.

Usage: check_float_math.py ONNXC WORK_DIR [--per-op N] [--known FILE] [-j N]
Exit: 0 all clean, 1 a model not in --known uses double math, 77 no arm-none-eabi toolchain."""
import argparse
import concurrent.futures as futures
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
BACKEND = os.path.join(os.path.dirname(SOURCE), "shared", "onnx-backend-tests")
M4F = ["-mcpu=cortex-m4", "-mthumb", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard"]
CXXFLAGS = ["-std=c++17", "-O2", "-fno-exceptions", "-fno-rtti", "-Wall", "-Wextra",
            "-Wdouble-promotion", "-Werror", "-c"]

# Soft-double helpers of the Arm EABI (__aeabi_dadd, __aeabi_cdcmple, __aeabi_f2d, __aeabi_i2d,
# ...) and of libgcc (__adddf3, __extendsfdf2, __fixdfsi, ...).
SOFT_DOUBLE = re.compile(r"^(__aeabi_c?d[a-z0-9]+|__aeabi_[a-z0-9]+2d|__[a-z]*df[a-z0-9]*)$")
# Double libm functions (their float forms, sqrtf, expf, ..., are fine).
DOUBLE_LIBM = re.compile(
    r"^(sqrt|cbrt|exp|exp2|expm1|log|log2|log10|log1p|pow|sin|cos|tan|asin|acos|atan|atan2|"
    r"sinh|cosh|tanh|asinh|acosh|atanh|erf|erfc|tgamma|lgamma|floor|ceil|round|trunc|rint|"
    r"nearbyint|lrint|llrint|lround|llround|fmod|remainder|remquo|fma|fmax|fmin|hypot|ldexp|"
    r"frexp|modf|scalbn|copysign|fabs)$")
FLOAT_TYPES = {1}  # TensorProto.FLOAT
# Element types a float model may also carry: indices, shapes, masks (no other float width).
SIDE_TYPES = {6, 7, 9}  # INT32, INT64, BOOL


def float_cases(per_op):
    """Node cases that pass on the host and whose graph I/O is float32: up to per_op per op."""
    import onnx
    passing = set()
    with open(os.path.join(SOURCE, "tests", "conformance", "expected_pass.txt")) as f:
        for line in f:
            if line.startswith("node/"):
                passing.add(line.strip()[len("node/"):])
    by_op = {}
    for case in sorted(passing):
        path = os.path.join(BACKEND, "node", case, "model.onnx")
        if not os.path.exists(path):
            continue
        model = onnx.load(path, load_external_data=False)
        g = model.graph
        types = [v.type.tensor_type.elem_type for v in list(g.input) + list(g.output)
                 if v.type.HasField("tensor_type")]
        if len(types) != len(g.input) + len(g.output) or not types:
            continue  # sequences, optionals, maps
        if not any(t in FLOAT_TYPES for t in types) or any(
                t not in FLOAT_TYPES | SIDE_TYPES for t in types):
            continue
        ops = sorted({n.op_type for n in g.node})
        key = ops[0] if len(ops) == 1 else "+".join(ops)
        by_op.setdefault(key, [])
        if len(by_op[key]) < per_op:
            by_op[key].append(case)
    return [(c, os.path.join(BACKEND, "node", c, "model.onnx")) for cs in by_op.values()
            for c in cs]


def ci_models(work):
    """The Cortex-M example's three models (run_qemu.sh), generated into WORK/ci."""
    out = os.path.join(work, "ci")
    os.makedirs(out, exist_ok=True)
    py = sys.executable
    subprocess.run([py, os.path.join(SOURCE, "examples", "make_example_model.py"),
                    os.path.join(out, "tiny_cnn.onnx")], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([py, os.path.join(SOURCE, "examples", "cortex-m", "make_models.py"), out],
                   check=True, stdout=subprocess.DEVNULL)
    return [("ci/" + m, os.path.join(out, m + ".onnx")) for m in ("small", "tiny_cnn", "kws")]


def bind_small_inputs(model, out):
    """As `onnxc test` does for ops that need compile-time values (Reshape's shape, TopK's K):
    the case's small inputs (64 elements or fewer) become initializers."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(model)
    data = os.path.join(os.path.dirname(model), "test_data_set_0")
    inits = {i.name for i in m.graph.initializer}
    kept = []
    for k, v in enumerate(i for i in m.graph.input if i.name not in inits):
        path = os.path.join(data, f"input_{k}.pb")
        t = onnx.TensorProto()
        if os.path.exists(path):
            with open(path, "rb") as f:
                t.ParseFromString(f.read())
        if os.path.exists(path) and numpy_helper.to_array(t).size <= 64:
            t.name = v.name
            m.graph.initializer.append(t)
        else:
            kept.append(v)
    del m.graph.input[:]
    m.graph.input.extend(kept)
    onnx.save(m, out)


def check(onnxc, work, name, model):
    """(status, detail): clean | double (symbols) | warning (compiler text) | onnxc (refused)."""
    stem = os.path.join(work, "gen", name.replace("/", "_"))
    cmd = [onnxc, model, "-o", stem + ".cpp", "--target", "cortex-m4", "--name", "m"]
    if name == "ci/tiny_cnn":
        cmd += ["--dim", "batch=1"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 and "must be a constant" in r.stderr:
        bind_small_inputs(model, stem + ".onnx")
        cmd[1] = stem + ".onnx"
        r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return "onnxc", (r.stderr.strip().splitlines() or ["?"])[0]
    r = subprocess.run(["arm-none-eabi-g++", *M4F, *CXXFLAGS, stem + ".cpp", "-o", stem + ".o"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        lines = [l for l in r.stderr.splitlines() if "error:" in l]
        return "warning", (lines or r.stderr.splitlines() or ["?"])[0]
    r = subprocess.run(["arm-none-eabi-nm", "-u", stem + ".o"], capture_output=True, text=True,
                       check=True)
    syms = [l.split()[-1] for l in r.stdout.splitlines() if l.strip()]
    bad = sorted(s for s in syms if SOFT_DOUBLE.match(s) or DOUBLE_LIBM.match(s))
    return ("double", " ".join(bad)) if bad else ("clean", "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxc")
    ap.add_argument("work")
    ap.add_argument("--per-op", type=int, default=1)
    ap.add_argument("--known", default=None)
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    for tool in ("arm-none-eabi-g++", "arm-none-eabi-nm"):
        if not shutil.which(tool):
            print(f"skipped: {tool} is not installed (.ci/setup)")
            return 77
    onnxc = os.path.abspath(a.onnxc)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(os.path.join(a.work, "gen"))
    known = set()
    if a.known:
        with open(a.known) as f:
            known = {l.strip() for l in f if l.strip() and not l.startswith("#")}
    start = time.time()
    models = ci_models(a.work) + float_cases(a.per_op)
    with futures.ThreadPoolExecutor(a.j) as pool:
        results = list(pool.map(lambda m: (m[0], *check(onnxc, a.work, *m)), models))
    counts, failed, fixed = {}, [], []
    for name, status, detail in results:
        counts[status] = counts.get(status, 0) + 1
        if status in ("double", "warning"):
            print(f"{'known ' if name in known else ''}{status}: {name}: {detail}")
            if name not in known:
                failed.append(name)
        elif status == "onnxc":
            print(f"not compiled for cortex-m4: {name}: {detail}")
        elif name in known:
            fixed.append(name)
    for name in fixed:
        print(f"now clean (drop it from the known list): {name}")
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    print(f"{len(models)} float models for cortex-m4: {summary}; "
          f"{len(failed)} unexpected failures ({time.time() - start:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
