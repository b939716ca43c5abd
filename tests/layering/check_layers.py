#!/usr/bin/python3
"""CTest `layering` (issue 34): no call runs from a lower layer of the compiler into a higher one.

The layers, lowest first: base, ir, ops, then frontend and passes (peers: neither reaches the
other), codegen, llvm_backend (the LLVM backend, library onnxc_llvm: only the driver calls it),
driver. runtime is a leaf the compiler embeds. Two checks:
  1. includes: a file of compiler/L may include headers of L and of lower layers only;
  2. links: an object file of layer L may leave undefined only symbols that objects of L or of
     lower layers define (a function declared low and defined high, as infer_subgraph was, fails
     here even though no include shows it).
Usage: check_layers.py SOURCE_DIR OBJECT_DIR...   (each OBJECT_DIR holds compiler/*/ objects: those
of onnxc_core and of onnxc_llvm)
"""
import os
import re
import subprocess
import sys

RANK = {"base": 0, "ir": 1, "ops": 2, "frontend": 3, "passes": 3, "codegen": 4, "llvm_backend": 5,
        "driver": 6}


def allowed(src, dst):
    return src == dst or RANK[dst] < RANK[src]


def files_under(folder, suffixes):
    """(path relative to folder, full path) of every file under folder (its domain subfolders, as
    ops/nn/, included) ending in one of suffixes."""
    for parent, _, names in sorted(os.walk(folder)):
        for name in sorted(names):
            if name.endswith(suffixes):
                path = os.path.join(parent, name)
                yield os.path.relpath(path, folder), path


def include_violations(root):
    bad = []
    for layer in RANK:
        for name, path in files_under(os.path.join(root, "compiler", layer), (".cpp", ".h", ".inc")):
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    m = re.match(r'#include "(\w+)/', line)
                    if m and m.group(1) in RANK and not allowed(layer, m.group(1)):
                        bad.append(f"compiler/{layer}/{name}:{number}: includes {m.group(1)}/ "
                                   f"({layer} is below {m.group(1)})")
    return bad


def symbols(obj, flag):
    out = subprocess.run(["nm", flag, obj], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def link_violations(object_dirs):
    defined, undefined = {}, {}
    for layer in RANK:
        for objects in object_dirs:
            for name, path in files_under(os.path.join(objects, "compiler", layer), (".o",)):
                for s in symbols(path, "--defined-only"):
                    defined.setdefault(s, set()).add(layer)
                undefined[(layer, name)] = symbols(path, "--undefined-only")
    bad = []
    for (layer, name), needs in sorted(undefined.items()):
        for s in sorted(needs):
            owners = defined.get(s, set())
            if owners and not any(allowed(layer, o) for o in owners):
                demangled = subprocess.run(["c++filt", s], capture_output=True,
                                           text=True).stdout.strip()
                bad.append(f"compiler/{layer}/{name}: calls {demangled}, defined in "
                           f"{'/'.join(sorted(owners))}/")
    return bad, len(undefined)


def main():
    root, objects = sys.argv[1], sys.argv[2:]
    bad = include_violations(root)
    link_bad, count = link_violations(objects)
    bad += link_bad
    for b in bad:
        print("UPWARD  " + b)
    if count == 0:
        print(f"no object files under {' '.join(objects)}: build onnxc_core first")
        return 1
    print(f"layering: {len(bad)} upward edges (includes of compiler/, symbols of {count} objects)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
