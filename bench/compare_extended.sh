#!/usr/bin/env bash
# The bench models as onnxruntime-node saves them at graph optimization `extended`
# (optimizedModelFilePath: com.microsoft FusedConv, FusedGemm, Gelu, QuickGelu ...), the form a
# user's tool chain hands onnxc, against the plain exports (issue 35):
#   1. accuracy: `onnxc test` of both forms against ORT's outputs of the plain model
#      (rtol 1e-4, atol 1e-5);
#   2. speed: the two forms built once by `onnxc bench --out`, their timing programs run
#      interleaved, ROUNDS rounds of ITERS runs, median of the medians;
#      prints ms per model and the ratio extended / plain (at most 1.0 is the goal).
# Needs python3-torch/torchvision (apt) and `npm install --ignore-scripts` in bench/.
# Usage: [TARGET=native] bench/compare_extended.sh [ONNXC] [ITERS] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
onnxc=${1:-$here/../build/onnxc}
iters=${2:-30}
rounds=${3:-3}
target=${TARGET:-native}
work=${CASES_DIR:-/tmp/onnxc-extended-cases}
rm -rf "$work" && mkdir -p "$work/plain"
/usr/bin/python3 "$here/make_cases.py" export "$work/plain"
(cd "$here" && node ort_reference.js "$work/plain")
/usr/bin/python3 "$here/make_cases.py" expect "$work/plain"
cp -r "$work/plain" "$work/extended"
for case in "$work"/plain/*/; do
  name=$(basename "$case")
  (cd "$here" && node ort_save_optimized.js "$case/model.onnx" "$work/extended/$name/model.onnx" extended)
done
echo "== accuracy: onnxc --target $target vs onnxruntime (rtol 1e-4, atol 1e-5)"
"$onnxc" test --target "$target" --rtol 1e-4 --atol 1e-5 "$work/plain" "$work/extended"
echo "== speed: onnxc --target $target, 1 thread, $rounds interleaved rounds of $iters runs"
echo "$(uname -m) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
# Each form is built once (`onnxc bench --out --no-run`); the rounds then run the two timing
# programs one after the other, so both meet the same machine state.
for case in "$work"/plain/*/; do
  name=$(basename "$case")
  for form in plain extended; do
    "$onnxc" bench "$work/$form/$name/model.onnx" --target "$target" --out "$work/build/$form/$name" \
      --no-run >/dev/null
  done
done
printf '%-20s %12s %12s %8s\n' model plain_ms extended_ms ratio
source "$here/interleave.sh"
for case in "$work"/plain/*/; do
  name=$(basename "$case")
  interleave_pair "$name" "$work/build/plain/$name" "$work/build/extended/$name" "$iters" "$rounds" \
    '{name:20} {a:12.3f} {b:12.3f} {ratio:8.3f}'
done
