#!/usr/bin/env python3
"""Op families and files pair up (issue 34): every row X(family) of ONNXC_OP_FAMILIES
(compiler/ops/op_families.h) is defined by compiler/ops/<domain>/<family>.cpp, which defines
`family_ops()`; every file under a domain folder that registers ops is such a row. ops/ itself
holds only what the families share (no registrations).

Usage: check_op_families.py SOURCE_DIR   (exit 1 and one line per mismatch)
"""
import os
import re
import sys


def main():
    ops = os.path.join(sys.argv[1], "compiler", "ops")
    text = open(os.path.join(ops, "op_families.h"), encoding="utf-8").read()
    families = re.findall(r"^\s*X\((\w+)\)", text, re.M)
    registering = {}  # family -> path, from the files that define <name>_ops()
    bad = []
    for folder, _, names in sorted(os.walk(ops)):
        for name in sorted(n for n in names if n.endswith(".cpp")):
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, os.path.dirname(os.path.dirname(ops)))
            defined = re.findall(r"^std::vector<OpRegistration> (\w+)_ops\(\) \{", open(path).read(),
                                 re.M)
            if not defined:
                continue
            if folder == ops:
                bad.append(f"{rel}: registers ops but is not in a domain folder")
            for family in defined:
                if family != name[:-4]:
                    bad.append(f"{rel}: defines {family}_ops(); the file must be {family}.cpp")
                registering[family] = rel
    for family in families:
        if family not in registering:
            bad.append(f"op_families.h: X({family}) has no compiler/ops/<domain>/{family}.cpp "
                       f"defining {family}_ops()")
    for family, rel in sorted(registering.items()):
        if family not in families:
            bad.append(f"{rel}: {family}_ops() is not a row of ONNXC_OP_FAMILIES")
    for line in bad:
        print(line)
    print(f"{len(families)} families, {len(bad)} mismatches")
    return 1 if bad or len(families) < 40 else 0


if __name__ == "__main__":
    sys.exit(main())
