#!/usr/bin/env bash
# The installed-package test (issue 16 point 4): installs the onnxc build to a fresh prefix, then
# builds examples/consumer from a clean build directory knowing only CMAKE_PREFIX_PATH=<prefix>:
#   host  two models (CNN, embedded weights; MLP, external weights loaded with mmap) in one
#         program, checked against PyTorch's outputs (expected.h) by the program itself;
#   m4f   the same project cross-compiled with examples/cortex-m/arm-none-eabi.cmake, the
#         installed host onnxc generating code for --target cortex-m4, run under
#         qemu-system-arm -M mps2-an386; its outputs must also match the host run within 1e-5.
# Each build is run a second time and must do nothing: no "onnxc:" step, "no work to do". As a
# control, touching one model must rerun onnxc for that model only.
# Usage: run_consumer.sh ONNXC_BUILD_DIR SOURCE_DIR WORK_DIR
# Exit 77 (skipped) after the host part when the arm-none-eabi toolchain or QEMU is missing.
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
work=$3
python=/usr/bin/python3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
start=$SECONDS

fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >install.log
[[ -x prefix/bin/onnxc && -f prefix/lib/cmake/onnxc/onnxcConfigVersion.cmake &&
   -f prefix/include/onnxc/types.h ]] || fail "the install lacks onnxc, its version file or headers"

# configure_and_build DIR [CMAKE ARGS...]: a clean configure given only the prefix (and the Python
# that writes the models), a build that must run onnxc for both models, and a second build
# that must do nothing.
configure_and_build() {
  local dir=$1
  shift
  cmake -S "$src/examples/consumer" -B "$dir" -G Ninja \
    -DCMAKE_PREFIX_PATH="$work/prefix" -DPYTHON=$python "$@" >"$dir.configure.log"
  cmake --build "$dir" >"$dir.build.log" || { cat "$dir.build.log"; fail "$dir: build failed"; }
  [[ $(grep -c "onnxc: compiling" "$dir.build.log") == 2 ]] || fail "$dir: onnxc did not run twice"
  cmake --build "$dir" >"$dir.rebuild.log"
  ! grep -q "onnxc:" "$dir.rebuild.log" || fail "$dir: the second build ran onnxc"
  grep -q "no work to do" "$dir.rebuild.log" || fail "$dir: the second build did work"
  echo "$dir: built; the second build did nothing"
}

configure_and_build host
host/consumer >host.txt || { cat host.txt; fail "host: the consumer failed"; }
grep "^check" host.txt

# Controls (dry runs): a changed model reruns onnxc for that model only; a changed onnxc or
# changed options rerun it for both.
onnxc_steps() { ninja -C host -n | grep -o "onnxc: compiling [^ ]*" | sed 's|.*/||' | sort | xargs; }
touch host/mlp.onnx
[[ $(onnxc_steps) == "mlp.onnx" ]] || fail "a changed mlp.onnx did not rerun onnxc for it alone"
cmake --build host >/dev/null
touch prefix/bin/onnxc
[[ $(onnxc_steps) == "mlp.onnx tiny_cnn.onnx" ]] || fail "a changed onnxc did not rerun both models"
cmake --build host >/dev/null
cmake -S "$src/examples/consumer" -B host "-DMODEL_OPTIONS=--max-scratch;65536" >/dev/null
[[ $(onnxc_steps) == "mlp.onnx tiny_cnn.onnx" ]] || fail "changed options did not rerun both models"
echo "host: onnxc reruns for a changed model, onnxc or options, and only then"

for tool in arm-none-eabi-g++ qemu-system-arm; do
  command -v $tool >/dev/null || { echo "skipped: $tool is not installed (.ci/setup)"; exit 77; }
done
configure_and_build m4f -DCMAKE_TOOLCHAIN_FILE="$src/examples/cortex-m/arm-none-eabi.cmake" \
  -DCMAKE_BUILD_TYPE=Release
timeout 120 qemu-system-arm -M mps2-an386 -nographic -semihosting -kernel m4f/consumer >m4f.txt ||
  { cat m4f.txt; fail "m4f: the consumer failed under QEMU"; }
grep "^check" m4f.txt
arm-none-eabi-size m4f/consumer

# The Cortex-M4F outputs within 1e-5 (relative to max(1, |host|)) of the host's.
$python - <<'PY'
import struct, sys
def outs(path):
    return {(f[1], f[2]): struct.unpack("<f", bytes.fromhex(f[3])[::-1])[0]
            for f in (line.split() for line in open(path)) if f and f[0] == "out"}
host, m4f = outs("host.txt"), outs("m4f.txt")
worst = max(abs(m4f.get(k, float("nan")) - v) / max(1.0, abs(v)) for k, v in host.items())
print(f"m4f vs host: {len(m4f)} of {len(host)} outputs, max relative error {worst:.2e}")
sys.exit(0 if set(m4f) == set(host) and worst <= 1e-5 else 1)
PY
echo "package test passed in $((SECONDS - start)) s"
