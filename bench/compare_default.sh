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
source "$here/interleave.sh"
# interleave_pair's ratio is b / a: native first, so that it prints generic / native.
for m in "${models[@]}"; do
  interleave_pair "$m" "$work/native/$m" "$work/generic/$m" "$iters" "$rounds" \
    '| {name:20} | {b:10.3f} | {a:10.3f} | {ratio:16.2f} |'
done
