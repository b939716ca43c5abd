#!/usr/bin/env python3
"""Every Catch2 test name must survive catch_discover_tests: CTest runs each case by passing its
name back to the test binary as a filter. A name that starts with '-' is read as an option, a ';'
splits it into two CMake list items, and an unbalanced '[' or ']' joins it with its neighbours;
each of those runs the wrong cases or none, and the CTest entry passes without testing anything.

Usage: check_test_names.py TEST_BINARY...   (exit 1 and one line per bad name)
"""
import subprocess
import sys


def problems(name):
    if name.startswith("-"):
        yield "starts with '-' (read as a Catch option)"
    if ";" in name:
        yield "holds ';' (splits the CMake list)"
    depth = 0
    for c in name:
        depth += {"[": 1, "]": -1}.get(c, 0)
        if depth < 0:
            break
    if depth != 0:
        yield "unbalanced '[' ']' (joins CMake list items)"


def main():
    bad = 0
    for binary in sys.argv[1:]:
        # Catch v2 exits with the number of cases listed, so the status says nothing.
        names = subprocess.run([binary, "--list-test-names-only"],
                               capture_output=True, text=True).stdout.splitlines()
        for name in filter(None, (n.strip() for n in names)):
            for why in problems(name):
                print(f"{binary}: test name '{name}' {why}")
                bad += 1
    print(f"check_test_names: {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
