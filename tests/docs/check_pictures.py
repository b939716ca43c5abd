#!/usr/bin/python3
"""CTest `pictures` (issue 38): onnxc's SVG pictures are well-formed XML and draw what they claim.

- docs/*.svg (the README's pictures, docs/make_pictures.sh) parse as SVG documents.
- `onnxc inspect --memory --svg` on a small CNN: one box with a tooltip per tensor that owns arena
  bytes and per kernel scratch, counted from `inspect --memory --json`.
- `onnxc bench --profile --svg --peak-gflops`: one time bar and one %-of-peak bar per node of the
  profile table.
- bench/plot_results.py: one bar per row of a bench/run CSV.

Usage: check_pictures.py ONNXC WORK_DIR
"""
import csv
import glob
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SVG = "{http://www.w3.org/2000/svg}"
failures = []


def check(ok, what):
    print(("PASS  " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def boxes(path):
    """The <rect> elements with a tooltip (<title>) of an SVG file, which must parse."""
    root = ET.parse(path).getroot()
    assert root.tag == SVG + "svg", f"{path}: root is {root.tag}"
    return [r for r in root.iter(SVG + "rect") if r.find(SVG + "title") is not None]


def small_cnn(path):
    rng = np.random.default_rng(0)
    w1 = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w1")
    w2 = numpy_helper.from_array(rng.standard_normal((8, 8, 3, 3)).astype(np.float32), "w2")
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("MaxPool", ["r1"], ["p1"], name="pool", kernel_shape=[2, 2],
                              strides=[2, 2]),
             helper.make_node("Conv", ["p1", "w2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["c2", "p1"], ["y"], name="residual")]
    graph = helper.make_graph(nodes, "cnn",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])],
                              [w1, w2])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def main():
    onnxc, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    docs = sorted(glob.glob(os.path.join(ROOT, "docs", "*.svg")))
    check(len(docs) >= 3, f"docs/ holds the README's pictures ({len(docs)} SVG files)")
    for path in docs:
        try:
            check(len(boxes(path)) > 0, f"{os.path.relpath(path, ROOT)}: SVG with tooltipped boxes")
        except (ET.ParseError, AssertionError) as e:
            check(False, f"{os.path.relpath(path, ROOT)}: {e}")

    model = os.path.join(work, "cnn.onnx")
    small_cnn(model)
    plan = os.path.join(work, "plan.svg")
    report = json.loads(subprocess.run([onnxc, "inspect", model, "--memory", "--json", "--svg",
                                        plan], check=True, capture_output=True, text=True).stdout)
    owned = [t for t in report["tensors"] if t["storage"] == "arena" and t["offset"] is not None]
    expected = len(owned) + len(report["scratch"])
    got = len(boxes(plan))
    check(got == expected and expected > 0,
          f"memory plan: {got} boxes for {len(owned)} arena tensors + {len(report['scratch'])} "
          f"scratch")

    layers = os.path.join(work, "layers.svg")
    out = subprocess.run([onnxc, "bench", model, "--iters", "3", "--profile", "--svg", layers,
                          "--peak-gflops", "100"], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    start = next(i for i, line in enumerate(out) if line.split()[:2] == ["rank", "ms"])
    table = [line for line in out[start + 1:] if line.split() and line.split()[0].isdigit()]
    got = len(boxes(layers))
    check(got == 2 * min(len(table), 40) and table,
          f"layer profile: {got} bars for {len(table)} profiled nodes (time and %-of-peak)")

    results = os.path.join(work, "results.csv")
    with open(results, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "threads", "onnxc_median_ms", "ort_median_ms", "ratio_median"])
        w.writerows([["a", 1, 1.0, 2.0, 0.5], ["a", 2, 0.6, 1.0, 0.6], ["b", 1, 3.0, 2.0, 1.5]])
    chart = os.path.join(work, "bench.svg")
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "plot_results.py"), results,
                    chart], check=True)
    check(len(boxes(chart)) == 3, f"bench chart: {len(boxes(chart))} bars for 3 rows")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
