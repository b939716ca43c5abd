#!/usr/bin/env bash
# Rewrites expected_pass.txt from a full conformance run: every case that passes now. Run it after
# making more cases pass; CI then fails if any of them stops passing.
# Usage: tests/conformance/update_ratchet.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
suite=$here/../../../shared/onnx-backend-tests
report=$(mktemp)
"$build/onnxc" test -j "$(nproc)" --report "$report" \
  "$suite/node" "$suite/simple" "$suite/pytorch-converted" "$suite/pytorch-operator" "$suite/light" \
  | tail -1 || true
{
  echo "# Conformance cases that pass (tests/conformance/update_ratchet.sh). CI fails if one stops passing."
  awk -F'\t' '$2 == "PASS" {print $1}' "$report" | sort
} > "$here/expected_pass.txt"
echo "$(grep -vc '^#' "$here/expected_pass.txt") cases in expected_pass.txt"
rm -f "$report"
