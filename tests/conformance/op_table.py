#!/usr/bin/env python3
"""Prints the README's op support table: each op onnxc handles, its opset ranges, the element types
its conformance cases pass with, and how many of the cases that use it pass.

Usage: tests/conformance/op_table.py ONNXC REPORT.tsv [INDEX.tsv] > table.md
  ONNXC       the onnxc binary (its `ops` subcommand lists the handlers and opset ranges)
  REPORT.tsv  `onnxc test --report` over the whole suite (case, status, detail)
  INDEX.tsv   the suite's index (default: ../shared/onnx-backend-tests/INDEX.tsv)

"cases" counts every case whose graph uses the op (a case with 12 ops counts for all 12), so a
failure in one op shows against every op of its case. "types" are the element types of the
passing cases in which the op is the only op besides Constant: the types the op itself was
checked with. Random ops' cases (PASS-RANDOM) are counted apart, as "on range".
"""
import collections
import os
import subprocess
import sys


def handlers(onnxc):
    rows = []
    out = subprocess.run([onnxc, "ops"], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        domain, op, ranges = line.split(None, 2)
        rows.append((domain, op, ranges.strip()))
    return rows


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    onnxc, report = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    index = sys.argv[3] if len(sys.argv) > 3 else os.path.join(
        here, "..", "..", "..", "shared", "onnx-backend-tests", "INDEX.tsv")
    status = {}
    with open(report) as f:
        for line in f.read().splitlines()[1:]:
            case, st = line.split("\t")[:2]
            status[case] = st
    total = collections.Counter()
    passed = collections.Counter()
    on_range = collections.Counter()  # PASS-RANDOM: random ops checked on shape, type and range
    types = collections.defaultdict(set)
    with open(index) as f:
        for line in f.read().splitlines()[1:]:
            folder, case, _, _, ops, dtypes = line.split("\t")[:6]
            st = status.get(f"{folder}/{case}", "")
            ok = st == "PASS"
            names = set()
            for op in ops.split():
                domain, _, name = op.rpartition(":")
                names.add((domain or "ai.onnx", name))
            for key in names:
                total[key] += 1
                passed[key] += ok
                on_range[key] += st == "PASS-RANDOM"
            solo = names - {("ai.onnx", "Constant")}
            if st.startswith("PASS") and len(solo) == 1:
                types[next(iter(solo))].update(dtypes.split())
    print("| domain | op | opsets | types checked | cases passed |")
    print("|---|---|---|---|---|")
    for domain, op, ranges in handlers(onnxc):
        key = (domain, op)
        cases = f"{passed[key]} of {total[key]}" if total[key] else "no case"
        if on_range[key]:
            cases += f" (+{on_range[key]} on range)"
        print(f"| {domain} | {op} | {ranges} | {' '.join(sorted(types[key]))} | {cases} |")


if __name__ == "__main__":
    main()
