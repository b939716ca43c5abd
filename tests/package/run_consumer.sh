#!/usr/bin/env bash
# The installed-package test (issue 16 point 4): installs the onnxc build to a fresh prefix, then
# builds examples/consumer from a clean build directory knowing only CMAKE_PREFIX_PATH=<prefix>:
#   host  two models (CNN, embedded weights; MLP, external weights loaded with mmap) in one
#         program, checked against PyTorch's outputs (expected.h) by the program itself;
#   m4f   the same project cross-compiled with examples/cortex-m/arm-none-eabi.cmake, the
#         installed host onnxc generating code for --target cortex-m4, run under
#         qemu-system-arm -M mps2-an386; its outputs must also match the host run within 1e-5.
# With the LLVM backend in the installed onnxc, both are built again with EMIT obj (onnxc writes
# the models' objects) and must print the same outputs bit for bit.
# Each build is run a second time and must do nothing: no "onnxc:" step, "no work to do". As a
# control, touching one model must rerun onnxc for that model only. Then the installed onnxc,
# moved elsewhere, compiles, benches and tests with the source and build trees out of view.
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

# same_outputs A.txt B.txt: the "out" lines of two runs, bit for bit (the hex words).
same_outputs() {
  [[ -n $(grep '^out ' "$1") ]] && diff <(grep '^out ' "$1") <(grep '^out ' "$2") >/dev/null
}
# Issue 36: with the LLVM backend in the installed onnxc, the same project with EMIT obj (onnxc
# writes the models' objects, no C++ compile of them) must print the EMIT cpp build's outputs,
# bit for bit (onnxc_add_model builds the .cpp with -ffp-contract=off).
llvm=no
if prefix/bin/onnxc host/tiny_cnn.onnx --dim batch=1 --emit obj -o probe.o >/dev/null 2>&1; then
  llvm=yes
  configure_and_build host-obj -DMODEL_EMIT=obj
  host-obj/consumer >host-obj.txt || { cat host-obj.txt; fail "host-obj: the consumer failed"; }
  same_outputs host.txt host-obj.txt || fail "host-obj: EMIT obj outputs differ from EMIT cpp's"
  echo "host-obj: EMIT obj outputs bit-identical to EMIT cpp's"
fi

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

# Issue 38: the installed onnxc needs nothing from its source or build tree. The prefix is copied
# to a fresh folder (moved), then, in a private mount namespace where an empty tmpfs hides both
# trees, it compiles a model (g++ builds the output on its own), benches it on 2 threads, and
# tests a case (its reference from numpy) in both runtime modes.
moved=$(mktemp -d /tmp/onnxc-moved.XXXXXX)
trap 'rm -rf "$moved"' EXIT
cp -a prefix "$moved/prefix"
cp host/tiny_cnn.onnx "$moved/"
$python - "$moved/case_relu" <<'PY'
import os, sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
out = sys.argv[1]
os.makedirs(os.path.join(out, "test_data_set_0"))
graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(out, "model.onnx"))
x = np.array([[-1.5, 0.0, 2.0], [3.25, -0.5, 1.0]], dtype=np.float32)
for name, value in (("input_0", x), ("output_0", np.maximum(x, 0))):
    with open(os.path.join(out, "test_data_set_0", name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(value).SerializeToString())
PY
unshare -rm bash -euo pipefail -c '
  mount -t tmpfs none "$2"  # the build tree first: it may lie inside the source tree
  mount -t tmpfs none "$1"
  [[ -z $(ls -A "$1") ]] && [[ ! -e $2 || -z $(ls -A "$2") ]]
  cd "$3"
  onnxc=prefix/bin/onnxc
  $onnxc tiny_cnn.onnx -o model.cpp --dim batch=1
  g++ -std=c++17 -Wall -Wextra -Werror -c model.cpp
  $onnxc bench tiny_cnn.onnx --dim batch=1 --iters 3 --threads 2 | grep -q "^median_ms="
  for runtime in inline include; do
    $onnxc test --runtime $runtime --cache cache case_relu | grep -q "^1 passed, 0 failed"
  done' _ "$src" "$build" "$moved" || fail "the installed onnxc, moved, with the source and build trees hidden"
echo "installed onnxc, moved, source and build trees hidden: compile, bench and test work"

for tool in arm-none-eabi-g++ qemu-system-arm; do
  command -v $tool >/dev/null || { echo "skipped: $tool is not installed (.ci/setup)"; exit 77; }
done
configure_and_build m4f -DCMAKE_TOOLCHAIN_FILE="$src/examples/cortex-m/arm-none-eabi.cmake" \
  -DCMAKE_BUILD_TYPE=Release
timeout 120 qemu-system-arm -M mps2-an386 -nographic -semihosting -kernel m4f/consumer >m4f.txt ||
  { cat m4f.txt; fail "m4f: the consumer failed under QEMU"; }
grep "^check" m4f.txt
arm-none-eabi-size m4f/consumer

if [[ $llvm == yes ]]; then
  configure_and_build m4f-obj -DCMAKE_TOOLCHAIN_FILE="$src/examples/cortex-m/arm-none-eabi.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DMODEL_EMIT=obj
  timeout 120 qemu-system-arm -M mps2-an386 -nographic -semihosting -kernel m4f-obj/consumer \
    >m4f-obj.txt || { cat m4f-obj.txt; fail "m4f-obj: the consumer failed under QEMU"; }
  same_outputs m4f.txt m4f-obj.txt || fail "m4f-obj: EMIT obj outputs differ from EMIT cpp's"
  echo "m4f-obj: cross-built with EMIT obj, outputs bit-identical to EMIT cpp's"
  arm-none-eabi-size m4f-obj/consumer
fi

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
