#!/usr/bin/env python3
"""One naming grammar for every kernel (issue 34): a function of runtime/onnxc/ whose name
starts with an element-type prefix (f32_, s8_, ...) and that the generated code may call (it
returns void and is not inside a *_detail namespace) is named <dtype>_<op>_<tile>__<isa>, where
isa is one of ONNXC_ISAS (compiler/ir/target.h): what the kernel requires, never how it is tuned.

Usage: check_kernel_names.py SOURCE_DIR   (exit 1 and one line per bad name)
"""
import os
import re
import sys

DTYPES = "f16|bf16|f32|f64|s8|u8|s16|u16|s32|s64|i8|i32|i64"
KERNEL = re.compile(r"^(?:template <[^>]*>\s*)?(?:inline\s+)?void\s+((?:%s)_\w+)\s*\(" % DTYPES)


def isas(root):
    text = open(os.path.join(root, "compiler", "ir", "target.h"), encoding="utf-8").read()
    block = text[text.index("#define ONNXC_ISAS(X)"):]
    block = block[:block.index("\n\n")]
    return re.findall(r"X\((\w+)\)", block)


def main():
    root = sys.argv[1]
    grammar = re.compile(r"^(?:%s)_[a-z0-9]+(?:_[a-z0-9]+)*_[a-z0-9]+__(?:%s)$" %
                         (DTYPES, "|".join(isas(root))))
    folder = os.path.join(root, "runtime", "onnxc")
    bad = checked = 0
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".h"):
            continue
        detail = []  # the namespaces open at this line that are *_detail
        for number, line in enumerate(open(os.path.join(folder, name), encoding="utf-8"), 1):
            opened = re.match(r"^namespace (\w+) \{", line)
            if opened:
                detail.append(opened.group(1).endswith("_detail"))
            elif re.match(r"^\}  // namespace", line) and detail:
                detail.pop()
            m = KERNEL.match(line)
            if not m or any(detail):
                continue
            checked += 1
            if not grammar.match(m.group(1)):
                print(f"runtime/onnxc/{name}:{number}: kernel {m.group(1)} is not "
                      "<dtype>_<op>_<tile>__<isa> (isa one of ONNXC_ISAS)")
                bad += 1
    print(f"{checked} kernel definitions checked, {bad} off the grammar")
    return 1 if bad or checked < 20 else 0


if __name__ == "__main__":
    sys.exit(main())
