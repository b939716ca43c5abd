#!/usr/bin/env bash
# Accuracy and speed of onnxc against onnxruntime-node on the same CPU, on torchvision resnet18,
# mobilenet_v2, mobilenet_v3_small, efficientnet_b0, squeezenet1_1 and an MLP. Needs python3-torch,
# python3-torchvision (apt) and `npm install --ignore-scripts` in bench/. Usage: [TARGET=..] bench/compare_with_ort.sh [ONNXC] [ITERS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
onnxc=${1:-$here/../build/onnxc}
iters=${2:-20}
cases=${CASES_DIR:-/tmp/onnxc-ort-cases}
rm -rf "$cases" && mkdir -p "$cases"
/usr/bin/python3 "$here/make_cases.py" export "$cases"
(cd "$here" && node ort_reference.js "$cases" --time "$iters")
/usr/bin/python3 "$here/make_cases.py" expect "$cases"
target=${TARGET:-generic}  # e.g. TARGET=x86-64-v4: the AVX-512 variants (Winograd among them)
echo "== accuracy: onnxc --target $target vs onnxruntime (rtol 1e-4, atol 1e-5)"
"$onnxc" test --target "$target" --rtol 1e-4 --atol 1e-5 "$cases"
echo "== speed: onnxc (-O3 -march=native, 1 thread)"
for m in "$cases"/*/; do
  echo "$(basename "$m") onnxc $("$onnxc" bench "$m/model.onnx" --iters "$iters" | tail -1)"
done
