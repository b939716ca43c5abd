#!/usr/bin/python3
"""The size guards of issue 34 (CTest `source_sizes`): no C++ source file over 800 lines and no
function over 120 lines, so that every file reads in one sitting and every function on a screen
or two. Checked over compiler/, runtime/ and templates/ (the product; tests and the
checked-in example output are exempt).

A function is found the way clang-format leaves it: a line that opens a body with `{` after a
parameter list `)` (a definition, also a lambda or a method in a class), closed by the first
later line that holds only `}` (or `};`) at the indentation of the line where the definition
starts. Control statements (if/for/while/switch/...) and type or namespace bodies are not
functions; a function's length counts every line from its signature to its closing brace.

Usage: check_sizes.py SOURCE_DIR. Prints each offender and exits 1 if there is any.
"""
import os
import re
import sys

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 120
ROOTS = ("compiler", "runtime", "templates")
EXTENSIONS = (".cpp", ".h", ".inc")
NOT_FUNCTIONS = re.compile(
    r"^\s*(?:}\s*)?(?:if|for|while|switch|else|do|try|catch|namespace|class|struct|union|enum|"
    r"extern)\b|=\s*\{$|^\s*#")


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def signature_start(lines, i):
    """The first line of the statement that line i ends: walks back over continuation lines (a
    wrapped parameter list) until the previous line ends a statement or a block."""
    k = i
    while k > 0:
        prev = lines[k - 1].rstrip()
        if not prev or prev.endswith((";", "{", "}", ":")) or prev.lstrip().startswith(("//", "#")):
            break
        k -= 1
    return k


def functions(lines):
    """(first line, last line, name) of every function body, 0-based, outermost and nested."""
    found = []
    for i, line in enumerate(lines):
        text = line.rstrip()
        if not text.endswith("{") or text.lstrip().startswith("//"):
            continue
        start = signature_start(lines, i)
        head = " ".join(l.strip() for l in lines[start:i + 1])
        if ")" not in head or NOT_FUNCTIONS.search(head) or NOT_FUNCTIONS.search(lines[start]):
            continue
        indent = indent_of(lines[start])
        for j in range(i + 1, len(lines)):
            closing = lines[j].rstrip()
            if closing.strip() not in ("}", "};", "});", "}();"):
                continue
            if indent_of(lines[j]) < indent:  # the enclosing body closed first: a call, not a body
                break
            if indent_of(lines[j]) == indent:
                name = re.search(r"([\w:~<>\[\]]+)\s*\(", head)
                found.append((start, j, name.group(1) if name else head[:40]))
                break
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    problems = []
    for top in ROOTS:
        for folder, _, names in sorted(os.walk(os.path.join(root, top))):
            for name in sorted(names):
                if not name.endswith(EXTENSIONS):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as f:
                    lines = f.read().split("\n")
                if len(lines) - 1 > MAX_FILE_LINES:
                    problems.append("%s: %d lines (at most %d)" % (rel, len(lines) - 1,
                                                                   MAX_FILE_LINES))
                for first, last, fn in functions(lines):
                    if last - first + 1 > MAX_FUNCTION_LINES:
                        problems.append("%s:%d: function %s is %d lines (at most %d)" %
                                        (rel, first + 1, fn, last - first + 1,
                                         MAX_FUNCTION_LINES))
    for p in problems:
        print(p)
    print("source_sizes: %d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
