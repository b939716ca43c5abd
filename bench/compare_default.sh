#!/usr/bin/env bash
# The default path against --target native (issue 37): each bench model built as a user who
# follows the README builds it (`--target generic`, the default of onnxc and onnxc_add_model;
# g++ -O2, no -march) and as `--target native` at -O3, both by `onnxc bench --out --no-run`, then
# the two timing programs run interleaved on one thread, ROUNDS rounds of ITERS runs each;
# prints the medians of the rounds' medians (ms) and generic / native (the target: at most 1.5).
# Needs the models of bench/make_models.py (python3-torch/torchvision; bench/run exports them into
# build/bench/models, or this script does).
# Usage: bench/compare_default.sh [ONNXC] [ITERS] [ROUNDS] [MODEL...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
onnxc=${1:-$here/../build/onnxc}
iters=${2:-30}
rounds=${3:-3}
shift $(($# < 3 ? $# : 3))
models=("$@")
((${#models[@]})) || models=(resnet18 resnet50 mobilenet_v2 mobilenet_v3_small efficientnet_b0
  shufflenet_v2_x1_0 squeezenet1_1 bert_encoder lstm mlp kws_cnn)
model_dir=${MODELS_DIR:-$here/../build/bench/models}
work=${WORK_DIR:-/tmp/onnxc-default-path}
/usr/bin/python3 "$here/make_models.py" "$model_dir" "${models[@]}" >/dev/null
mkdir -p "$work"
echo "# $(uname -m) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores;" \
  "$(${CXX:-g++} --version | head -1); 1 thread; $rounds interleaved rounds of $iters runs"
echo "# generic: onnxc bench --target generic --opt-level 2; native: --target native --opt-level 3"
for m in "${models[@]}"; do
  "$onnxc" bench "$model_dir/$m.onnx" --target generic --opt-level 2 --out "$work/generic/$m" \
    --no-run >/dev/null
  "$onnxc" bench "$model_dir/$m.onnx" --target native --opt-level 3 --out "$work/native/$m" \
    --no-run >/dev/null
done
printf '| %-20s | %10s | %10s | %16s |\n' model generic_ms native_ms "generic / native"
printf '|---|---|---|---|\n'
ratios=()
for m in "${models[@]}"; do
  generic=() native=()
  for ((r = 0; r < rounds; ++r)); do
    for form in generic native; do
      ms=$(cd "$work/$form/$m" && ./bench . "$iters" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
      if [[ $form == generic ]]; then generic+=("$ms"); else native+=("$ms"); fi
    done
  done
  /usr/bin/python3 - "$m" "${generic[*]}" "${native[*]}" <<'PY'
import statistics, sys
name, g, n = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
g, n = statistics.median(g), statistics.median(n)
print(f"| {name:20} | {g:10.3f} | {n:10.3f} | {g / n:16.2f} |")
PY
done
