#!/usr/bin/env bash
# Regenerates the pictures the README shows (issue 38), from models exported by Debian's torch:
#   docs/bench.svg        bench/run --quick --svg: onnxc against ONNX Runtime, 4 small models
#   docs/memory_plan.svg  onnxc inspect --memory --svg: torchvision mobilenet_v2's arena plan
#   docs/layers.svg       onnxc bench --profile --svg: squeezenet1_1 layer by layer, with the
#                         percentage of the peak bench/run measured
# Timings are this machine's, as the pictures say; run it on a quiet machine.
# Usage: docs/make_pictures.sh [ONNXC]   (default: build/onnxc)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
onnxc=$(realpath "${1:-$root/build/onnxc}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
docs=$root/docs

/usr/bin/python3 "$root/bench/run" --quick --onnxc "$onnxc" --work "$work/bench" \
  --svg "$docs/bench.svg" | tee "$work/bench.txt"
peak=$(sed -n 's/^# peak: .* = \([0-9.]*\) GFLOP\/s.*/\1/p' "$work/bench.txt")

/usr/bin/python3 "$root/tests/models/export_symbolic.py" "$work/models"
"$onnxc" inspect "$work/models/mobilenet_v2.onnx" --dim batch=1 --memory \
  --svg "$docs/memory_plan.svg" >/dev/null
"$onnxc" bench "$work/models/squeezenet1_1.onnx" --dim batch=1 --iters 30 --profile \
  --peak-gflops "$peak" --svg "$docs/layers.svg" >/dev/null
echo "wrote $docs/bench.svg, $docs/memory_plan.svg, $docs/layers.svg"
