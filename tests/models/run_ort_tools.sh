#!/usr/bin/env bash
# CTest `ort_tools`: the models ONNX Runtime's own tools wrote (../shared/ort-tools: optimizer,
# quantizer, sessions saved at `extended`) through `onnxc test` in the default --runtime inline,
# against the outputs onnxruntime 1.30 stored with them. The cases listed in
# tests/conformance/ort_tools_expected.txt must pass (all of them since issue 35 added the
# com.microsoft ops); then the QDQ-quantized ones are built as a user builds them (compile_default.sh).
# Usage: run_ort_tools.sh ONNXC ORT_TOOLS_DIR WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
onnxc=$1
cases=$2
work=$3
rm -rf "$work" && mkdir -p "$work"
status=0
"$onnxc" test -j 2 --expect "$here/../conformance/ort_tools_expected.txt" "$cases" ||
  status=1
"$here/compile_default.sh" "$onnxc" "$work" "$cases"/*_qdq/model.onnx || status=1
exit $status
