#!/usr/bin/env bash
# CTest `real_models`: exports the real models of issue 13 (make_models.py), runs them under
# onnxruntime-node (bench/ort_reference.js) for the expected outputs, then checks onnxc against
# them with `onnxc test`, also as onnxruntime-node saves them at `extended`. Exits 77 (CTest SKIP_RETURN_CODE) only when /usr/bin/python3 lacks torch
# or node/onnxruntime-node is missing; .ci/setup installs both.
# Usage: run_real_models.sh ONNXC WORK_DIR
set -euo pipefail
test_name=real_models
ort_python_modules="torch onnx numpy"
source "$(dirname "$0")/ort_prerequisites.sh"
onnxc=$1
work=$2

rm -rf "$work" && mkdir -p "$work"
cases=$work/cases
if ! /usr/bin/python3 "$here/make_models.py" "$cases" >"$work/export.log" 2>&1; then
  cat "$work/export.log"
  exit 1
fi
(cd "$bench" && node ort_reference.js "$cases")
/usr/bin/python3 "$bench/make_cases.py" expect "$cases"

status=0
echo "== float models vs onnxruntime (rtol 1e-3, atol 1e-5)"
float_cases=()
for c in "$cases"/*/; do
  [[ $(basename "$c") == qdq_* ]] || float_cases+=("${c%/}")
done
"$onnxc" test -j 2 --rtol 1e-3 --atol 1e-5 "${float_cases[@]}" || status=1
# The same with the AVX-512 target, where the host has it, serial and on 2 threads: its kernel
# variants (Winograd on the U-Net's 16-channel 16x16 convolutions, the 8x32 GEMM tiles) and their
# parallel forms, as the generated code inlines them, against onnxruntime too.
if grep -qw avx512f /proc/cpuinfo; then
  for threads in 1 2; do
    echo "== float models vs onnxruntime, --target x86-64-v4 --threads $threads (rtol 1e-3, atol 1e-5)"
    "$onnxc" test -j 2 --target x86-64-v4 --threads $threads --rtol 1e-3 --atol 1e-5 \
      "${float_cases[@]}" || status=1
  done
fi
# The QDQ model's output is requantized (uint8, scale 2^-9 = QDQ_OUTPUT_SCALE in make_models.py):
# onnxc and ORT may round one value to a neighbouring level, so the bound is one quantization step.
echo "== QDQ model vs onnxruntime (one output quantization step: atol 2^-9, rtol 1e-3)"
source "$here/ort_int8_exact.sh"
if ort_int8_exact; then
  "$onnxc" test -j 2 --rtol 1e-3 --atol 0.001953125 "$cases"/qdq_* || status=1
else
  echo "NOT RUN      qdq_*: $ORT_INT8_SKIP_REASON"
fi
# Issue 35: the same models as onnxruntime-node saves them at graph optimization `extended`
# (optimizedModelFilePath: com.microsoft FusedConv, FusedMatMul, Gelu), against the same outputs.
echo "== the models saved by onnxruntime-node at extended vs onnxruntime"
extended=$work/extended
for c in "$cases"/*/; do
  name=$(basename "$c")
  mkdir -p "$extended/$name" && cp -r "$c/test_data_set_0" "$extended/$name/"
  (cd "$bench" && node ort_save_optimized.js "$c/model.onnx" "$extended/$name/model.onnx" extended)
done
"$onnxc" test -j 2 --rtol 1e-3 --atol 1e-5 $(ls -d "$extended"/*/ | grep -v /qdq_) || status=1
ort_int8_exact && { "$onnxc" test -j 2 --rtol 1e-3 --atol 0.001953125 "$extended"/qdq_* || status=1; }
# And built as a user builds it: default flags, g++ and arm-none-eabi-g++ -Werror (issue 33).
"$here/compile_default.sh" "$onnxc" "$work/user_build" "$cases"/qdq_*/model.onnx || status=1
# Issue 38: `onnxc inspect` shows a torchvision export with a symbolic batch dim (exit 0), names
# the dim, assumes 1 for the figures and says how to pin it.
echo "== inspect on torchvision exports with a symbolic batch dim"
/usr/bin/python3 "$here/export_symbolic.py" "$work/symbolic" >"$work/symbolic.log" 2>&1 ||
  { cat "$work/symbolic.log"; status=1; }
for model in "$work"/symbolic/*.onnx; do
  if out=$("$onnxc" inspect "$model") && grep -q "^input  image: float\[batch x 3 x 224 x 224\]" <<<"$out" &&
    grep -q "^  batch: input 'image' axis 0, output 'logits' axis 0" <<<"$out" &&
    grep -q "^pin them with: --dim batch=N" <<<"$out" && grep -q "^arena_bytes [1-9]" <<<"$out"; then
    echo "PASS         inspect $(basename "$model")"
  else
    echo "FAIL         inspect $(basename "$model"):"
    echo "$out"
    status=1
  fi
done
exit $status
