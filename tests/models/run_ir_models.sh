#!/usr/bin/env bash
# CTest `ir_models`: builds the issue-14 test models (make_ir_models.py: model-local functions and
# ai.onnx.ml ops), runs them under onnxruntime-node (bench/ort_reference.js) for the expected
# outputs, checks that ORT gives the function model and its hand-inlined twin the same outputs, then
# checks onnxc against ORT with `onnxc test`. Exits 77 (CTest SKIP_RETURN_CODE) only when python3
# lacks numpy/onnx, or protoc, node or onnxruntime-node is missing. About 10 s.
# Usage: run_ir_models.sh ONNXC WORK_DIR
set -euo pipefail
test_name=ir_models
source "$(dirname "$0")/ort_prerequisites.sh"
onnxc=$1
work=$2
command -v protoc >/dev/null || skip "protoc not found (apt install protobuf-compiler)"

rm -rf "$work" && mkdir -p "$work"
cases=$work/cases
/usr/bin/python3 "$here/make_ir_models.py" "$cases"
(cd "$bench" && node ort_reference.js "$cases")
/usr/bin/python3 "$here/make_ir_models.py" --expect "$cases"
/usr/bin/python3 "$here/make_ir_models.py" --check "$cases"
"$onnxc" test -j 2 --rtol 1e-3 --atol 1e-5 "$cases"/*
# sequence_grow passed above specialized to M = 3 (its Loop unrolled); with a bound its sequences
# grow to a run-time length instead (M = 3 fills the bound):
"$onnxc" test --rtol 1e-3 --atol 1e-5 --max-trip-count grow=3 "$cases"/sequence_grow
"$onnxc" test -j 2 --rtol 1e-3 --atol 1e-5 --keep-sparse "$cases"/sparse_pruned
# ... where both sparse tensors must really have stayed COO:
test "$("$onnxc" inspect --keep-sparse --ir "$cases"/sparse_pruned/model.onnx | grep -c SparseToDense)" = 2
