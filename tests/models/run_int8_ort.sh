#!/usr/bin/env bash
# CTest `int8_ort` (issue 39): the int8 QDQ models of the Cortex-M comparison (kws_int8, cnn_int8)
# and a residual block (res_int8; make_int8_cases.py) run under onnxruntime-node (bench/ort_reference.js) for the expected
# outputs, then through `onnxc test` (default target: lower-qdq, the integer kernels) with an
# absolute tolerance of one quantization step of each model's logits. Exits 77 (CTest
# SKIP_RETURN_CODE) only when python3 lacks numpy/onnx, or node or onnxruntime-node is missing.
# Usage: run_int8_ort.sh ONNXC WORK_DIR
set -euo pipefail
test_name=int8_ort
source "$(dirname "$0")/ort_prerequisites.sh"
onnxc=$1
work=$2

source "$here/ort_int8_exact.sh"
if ! ort_int8_exact; then
  echo "int8_ort: not run: $ORT_INT8_SKIP_REASON"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
cases=$work/cases
/usr/bin/python3 "$here/make_int8_cases.py" "$cases"
(cd "$bench" && node ort_reference.js "$cases")
/usr/bin/python3 "$here/make_int8_cases.py" --expect "$cases"
for case in "$cases"/*/; do
  "$onnxc" test --rtol 0 --atol "$(cat "$case/atol")" "$case"
done
# res_int8's residual Add runs in integers (lower-qdq's QLinearAdd) and its MaxPool on the int8
# tensor, not in float between DQ and Q.
"$onnxc" "$cases/res_int8/model.onnx" -o "$work/res_int8.cpp"
grep -q "onnxc::qlinear_add_ref(" "$work/res_int8.cpp"
grep -q "onnxc::maxpool_ref<int8_t>(" "$work/res_int8.cpp"
