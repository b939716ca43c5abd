#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build for SECONDS each (default 60), each from a corpus
# seeded with the conformance suite (../shared/onnx-backend-tests, or $ONNX_BACKEND_TESTS) and the
# committed corpus (tests/fuzz/corpus/<target>: seeds and every input that once failed).
# Fails on the first crash, leak, timeout or sanitizer report; the failing input is left in
# BUILD/fuzz-artifacts/ (add it to tests/fuzz/corpus/<target>/ with the fix).
#   tests/fuzz/run_fuzzers.sh BUILD [SECONDS] [TARGET...]
# BUILD is a build folder configured as in tests/CMakeLists.txt (clang, ONNXC_BUILD_FUZZERS=ON).
# Prints each target's final libFuzzer line (executions, coverage, corpus size). FUZZ_JOBS
# (default 2) targets run at a time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "$1")
seconds=${2:-60}
shift $(($# > 1 ? 2 : 1))
targets=("$@")
((${#targets[@]})) || targets=(model_loader compile test_data identifiers image_decoder)
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

# run TARGET: one target for $seconds; its log in BUILD/fuzz-TARGET.log.
run() {
  local target=$1 corpus=$build/fuzz-corpus/$1
  [[ -d $corpus ]] || seed "$target" "$corpus"
  if ! "$build/tests/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$target-" \
    "$corpus" "$here/corpus/$target" >"$build/fuzz-$target.log" 2>&1; then
    tail -40 "$build/fuzz-$target.log"
    echo "fuzz_$target FAILED (input in $build/fuzz-artifacts/)"
    return 1
  fi
  echo "== fuzz_$target: $seconds s, $(grep -E "^#[0-9]+.*DONE" "$build/fuzz-$target.log" | tail -1)"
}

# FUZZ_JOBS targets at a time (default 2: one per core of the CI machine).
mkdir -p "$build/fuzz-artifacts"
failed=0
running=0
for target in "${targets[@]}"; do
  if ((running >= ${FUZZ_JOBS:-2})); then
    wait -n || failed=1
    ((running--))
  fi
  run "$target" &
  ((++running))
done
while ((running > 0)); do
  wait -n || failed=1
  ((running--))
done
exit $failed
