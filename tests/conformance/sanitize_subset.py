#!/usr/bin/python3
"""Writes tests/conformance/sanitize_subset.txt: the conformance cases CI runs under ASan/UBSan.

Picks from the cases that pass today (expected_pass.txt), using the ops column of the suite's
INDEX.tsv, so that every op with a passing case is represented:
  1. per op (sorted by name), the case that tests it most directly: the fewest distinct ops, then
     the fewest bytes on disk (model + data), then the name;
  2. then, round-robin over the ops in the same order, each op's next such case not yet chosen,
     until the list holds --count cases (more data types, attributes and shapes per op).
light/ models are left out: whole networks (AlexNet, ResNet-50, ...) whose ops the node cases
already cover, and far too slow under the sanitizers for CI.
Deterministic: the same INDEX.tsv, expected_pass.txt and suite give the same list.

Usage: tests/conformance/sanitize_subset.py [--count N] [--suite DIR] [--out FILE]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDERS = ("node", "simple", "pytorch-converted", "pytorch-operator")


def read_passing(path):
    with open(path) as f:
        return {line.strip() for line in f if line.strip() and not line.startswith("#")}


def folder_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def read_cases(suite, passing):
    """{case name: (ops, bytes)} for the passing cases of FOLDERS."""
    cases = {}
    with open(os.path.join(suite, "INDEX.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        col = {name: k for k, name in enumerate(header)}
        for line in f:
            row = line.rstrip("\n").split("\t")
            name = row[col["folder"]] + "/" + row[col["case"]]
            if row[col["folder"]] not in FOLDERS or name not in passing:
                continue
            ops = frozenset(row[col["ops"]].split())
            cases[name] = (ops, folder_bytes(os.path.join(suite, name)))
    return cases


def choose(cases, count):
    by_op = {}
    for name, (ops, size) in cases.items():
        for op in ops:
            by_op.setdefault(op, []).append((len(ops), size, name))
    for candidates in by_op.values():
        candidates.sort()
    chosen, seen = [], set()
    ops = sorted(by_op)
    rank = {op: 0 for op in ops}

    def take_next(op):
        candidates = by_op[op]
        while rank[op] < len(candidates) and candidates[rank[op]][2] in seen:
            rank[op] += 1
        if rank[op] == len(candidates):
            return False
        name = candidates[rank[op]][2]
        seen.add(name)
        chosen.append(name)
        return True

    for op in ops:  # 1. every op once
        take_next(op)
    while len(chosen) < count:  # 2. round-robin
        if not any([take_next(op) for op in ops if len(chosen) < count]):
            break
    return sorted(chosen), ops


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=320)
    ap.add_argument("--suite", default=os.path.join(HERE, "..", "..", "..", "shared",
                                                   "onnx-backend-tests"))
    ap.add_argument("--out", default=os.path.join(HERE, "sanitize_subset.txt"))
    args = ap.parse_args()
    passing = read_passing(os.path.join(HERE, "expected_pass.txt"))
    cases = read_cases(args.suite, passing)
    chosen, ops = choose(cases, args.count)
    with open(args.out, "w") as out:
        out.write(
            "# Conformance subset run under ASan/UBSan in CI (.ci/run): onnxc built with the\n"
            "# sanitizers, and `onnxc test --sanitize` on the generated code and the harness.\n"
            "# Made by tests/conformance/sanitize_subset.py (its docstring says how cases are\n"
            f"# chosen): {len(chosen)} passing cases covering all {len(ops)} ops that have a\n"
            "# passing node/simple/pytorch case; at least one case per op, then round-robin per op.\n"
            "# Every case listed must pass (ratchet); none is unsupported.\n")
        out.writelines(name + "\n" for name in chosen)
    print(f"{len(chosen)} cases, {len(ops)} ops -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
