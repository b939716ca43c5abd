#!/usr/bin/env bash
# CTest `contrib_ort` (issue 35): small models of every com.microsoft op onnxc expands
# (make_contrib_cases.py), run under onnxruntime-node (bench/ort_reference.js) for the expected
# outputs, then through `onnxc test` at the default tolerance (quantized outputs compare exactly;
# DynamicQuantizeLSTM runs ORT's integer kernel, its float gates within the default tolerance).
# Exits 77 (CTest SKIP_RETURN_CODE) only when python3 lacks numpy/onnx, or node or
# onnxruntime-node is missing. About 30 s.
# Usage: run_contrib_cases.sh ONNXC WORK_DIR
set -euo pipefail
test_name=contrib_ort
source "$(dirname "$0")/ort_prerequisites.sh"
onnxc=$1
work=$2

rm -rf "$work" && mkdir -p "$work"
cases=$work/cases
/usr/bin/python3 "$here/make_contrib_cases.py" "$cases"
(cd "$bench" && node ort_reference.js "$cases")
/usr/bin/python3 "$here/make_contrib_cases.py" --expect "$cases"
# The cases whose products go through ORT's u8 x s8 GEMM are compared only where ORT computes
# them exactly (ort_int8_exact.sh); elsewhere they are listed as not run.
source "$here/ort_int8_exact.sh"
run=()
for c in "$cases"/*/; do
  name=$(basename "$c")
  if ! ort_int8_exact && [[ $name == dynamic_quantize_lstm* || $name == qattention* ||
    $name == matmul_integer_to_float* ]]; then
    echo "NOT RUN      $name: $ORT_INT8_SKIP_REASON"
  else
    run+=("${c%/}")
  fi
done
"$onnxc" test -j 2 "${run[@]}"
