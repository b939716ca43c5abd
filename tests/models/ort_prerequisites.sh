# Sourced by the CTest scripts that check onnxc against onnxruntime-node (run_real_models.sh,
# run_ir_models.sh, run_contrib_cases.sh): sets $here and $bench, and exits 77 (CTest
# SKIP_RETURN_CODE) naming what is missing when /usr/bin/python3 cannot import the modules of
# $ort_python_modules (default onnx numpy), or node or onnxruntime-node is missing; .ci/setup
# installs all of them. The caller sets $test_name first.
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
bench=$(cd "$here/../../bench" && pwd)
skip() {
  echo "$test_name: SKIPPED: $*"
  exit 77
}
modules=${ort_python_modules:-onnx numpy}
/usr/bin/python3 -c "import ${modules// /, }" 2>/dev/null ||
  skip "/usr/bin/python3 cannot import ${modules// //} (apt install python3-onnx python3-torch)"
command -v node >/dev/null || skip "node not found (apt install nodejs)"
(cd "$bench" && node -e "require('onnxruntime-node')" 2>/dev/null) ||
  skip "onnxruntime-node not installed (cd bench && npm ci --ignore-scripts)"
