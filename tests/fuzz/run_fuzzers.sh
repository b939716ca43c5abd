#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build for SECONDS each (default 60), each from a corpus
# seeded with the conformance suite (../shared/onnx-backend-tests, or $ONNX_BACKEND_TESTS) and the
# committed corpus (tests/fuzz/corpus/<target>: seeds and every input that once failed).
# Fails on the first crash, leak, timeout or sanitizer report; the failing input is left in
# BUILD/fuzz-artifacts/ (add it to tests/fuzz/corpus/<target>/ with the fix).
#   tests/fuzz/run_fuzzers.sh BUILD [SECONDS] [TARGET...]
# BUILD is a build folder configured as in tests/CMakeLists.txt (clang, ONNXC_BUILD_FUZZERS=ON).
# Prints each target's final libFuzzer statistics (executions, coverage, corpus size).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "$1")
seconds=${2:-60}
shift $(($# > 1 ? 2 : 1))
targets=("$@")
((${#targets[@]})) || targets=(model_loader compile test_data identifiers)
suite=${ONNX_BACKEND_TESTS:-$here/../../../shared/onnx-backend-tests}

# seed TARGET DIR: the suite's files that TARGET reads, small ones only (under 256 KiB: the
# light/ models are hundreds of MiB and only slow every run down).
seed() {
  local target=$1 dir=$2
  mkdir -p "$dir"
  [[ -d $suite ]] || return 0
  case $target in
    model_loader | compile) pattern='model.onnx' ;;
    test_data) pattern='*.pb' ;;
    *) return 0 ;;
  esac
  find "$suite"/{node,simple,pytorch-converted,pytorch-operator} -name "$pattern" -size -256k \
    -print0 | while IFS= read -r -d '' f; do
    cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-16)"
  done
}

mkdir -p "$build/fuzz-artifacts"
for target in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$target
  [[ -d $corpus ]] || seed "$target" "$corpus"
  echo "== fuzz_$target: $seconds s, $(ls "$corpus" | wc -l) seed files"
  "$build/tests/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$target-" \
    "$corpus" "$here/corpus/$target" 2>"$build/fuzz-$target.log" || {
    tail -40 "$build/fuzz-$target.log"
    echo "fuzz_$target FAILED (input in $build/fuzz-artifacts/)"
    exit 1
  }
  grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|cov:" \
    "$build/fuzz-$target.log" | tail -3
done
