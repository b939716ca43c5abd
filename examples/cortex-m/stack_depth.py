#!/usr/bin/env python3
# Static stack depth of one inference call, from GCC's -fcallgraph-info=su output (a .ci file in
# VCG form: one node per function with its frame size, one edge per call).
#   stack_depth.py FILE.ci ENTRY     prints the deepest call path from ENTRY in bytes
# The generated code's call tree is shallow and static (run() -> kernels -> helpers): a call cycle,
# a frame of dynamic size (a VLA or alloca) or an unbounded one is an error (exit 1), because then
# no bound exists ("dynamic,bounded" frames, from stack realignment, are counted at their bound). Functions defined outside the file (libm, memset, the soft-float helpers) count
# 0 bytes here: the painted measurement on the target covers them.
import re
import sys

NODE = re.compile(r'^node: \{ title: "([^"]*)" label: "([^"]*)"')
EDGE = re.compile(r'^edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"')
FRAME = re.compile(r'\\n(\d+) bytes \(([a-z, ]+)\)')


def read_graph(path):
    frames, calls = {}, {}
    for line in open(path):
        if m := NODE.match(line):
            title, label = m.groups()
            f = FRAME.search(label)
            if f is None:
                frames[title] = 0  # declared only: defined elsewhere
            elif f.group(2) not in ("static", "dynamic,bounded"):
                sys.exit(f"{path}: {label.split(chr(92))[0]}: stack frame is {f.group(2)}, not static")
            else:
                frames[title] = int(f.group(1))
        elif m := EDGE.match(line):
            calls.setdefault(m.group(1), set()).add(m.group(2))
    return frames, calls


def deepest(frames, calls, entry):
    memo, active = {}, set()

    def depth(fn):
        if fn in memo:
            return memo[fn]
        if fn in active:
            sys.exit(f"call cycle through {fn}: no static stack bound")
        active.add(fn)
        d = frames.get(fn, 0) + max((depth(c) for c in calls.get(fn, ())), default=0)
        active.discard(fn)
        memo[fn] = d
        return d

    return depth(entry)


if __name__ == "__main__":
    path, entry = sys.argv[1], sys.argv[2]
    frames, calls = read_graph(path)
    if entry not in frames:
        sys.exit(f"{path}: no function {entry}")
    print(deepest(frames, calls, entry))
