#!/usr/bin/env bash
# The embedded CI test: compiles five models (a conformance-sized graph, the README's CNN, a
# keyword-spotting DS-CNN, its int8 QDQ form and a small int8 image CNN; make_models.py) with a
# host onnxc for five CPUs, runs them and compares every output with the host build's (the int8
# models' bit for bit: their integer kernels differ per CPU, the Cortex-M4F's using the DSP
# extension, the Cortex-M55's Helium, but not their results):
#   host     --target generic, g++, run natively (the reference)
#   m4f      --target cortex-m4, arm-none-eabi-g++ (hard float), qemu-system-arm -M mps2-an386
#   m0plus   --target cortex-m0plus (ARMv6-M, soft float), qemu-system-arm -M mps2-an385 with
#            unaligned accesses trapping
#   m55      --target cortex-m55 (Helium, hard float), qemu-system-arm -M mps3-an547
#            (mps3_an547.ld: its TCMs)
#   aarch64  --target aarch64, aarch64-linux-gnu-g++ -static, qemu-aarch64
# Stack: the header's kMaxStackBytes is a bound from onnxc's table (compiler/ir/stack_bound.h).
# Every model's deepest static call path (-fcallgraph-info=su, stack_depth.py) must stay within it
# on all five CPUs, and on the microcontrollers each inference runs on a stack of exactly
# kMaxStackBytes at the bottom of RAM, so that an overflow faults (and the start-up code turns a
# fault into a failed run); main's own stack is STACK_SIZE. `onnxc inspect --memory` must state
# the header's arena and stack before any build. The other targets of the table (x86-64-v2/v3/v4,
# cortex-a7, cortex-m7, cortex-m3) get the static check only.
# Budgets: prints per model flash (text + rodata), RAM (arena + data + bss), the stack bound, its
# static and painted measures, and instructions per inference (SysTick under -icount shift=0, one
# instruction per virtual ns, calibrated against a loop of known length). Fails when a figure is
# more than 1% above examples/cortex-m/budgets.tsv and says when one fell (update the file then).
# Usage: run_qemu.sh ONNXC WORK_DIR [STACK_SIZE]; exit 77 (skipped) without the toolchains.
set -euo pipefail
onnxc=$(realpath "$1")
work=$2
stack=${3:-8192}
here=$(cd "$(dirname "$0")" && pwd)
for tool in arm-none-eabi-g++ qemu-system-arm qemu-aarch64 aarch64-linux-gnu-g++; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed (.ci/setup)"; exit 77; }
done
rm -rf "$work" && mkdir -p "$work/models" && cd "$work"

/usr/bin/python3 "$here/../make_example_model.py" models/tiny_cnn.onnx
/usr/bin/python3 "$here/make_models.py" models
# The README's CNN and the int8 models once more under a RAM budget (X_rows: the patch-rows pass
# runs their stems in bands of rows), at least 2x below their layer-by-layer bound; check_runs.py
# checks that their outputs equal the unbanded models' bit for bit.
for m in tiny_cnn kws_int8 cnn_int8; do cp "models/$m.onnx" "models/${m}_rows.onnx"; done
models=(small tiny_cnn kws kws_int8 cnn_int8 tiny_cnn_rows kws_int8_rows cnn_int8_rows)
# Flags per model (or per CONFIG:MODEL, which wins): only the README's CNN has a symbolic batch
# dim; the banded ones get half their layer-by-layer bound on that target as the budget.
declare -A pins=([tiny_cnn]="--dim batch=1" [tiny_cnn_rows]="--dim batch=1 --max-arena 45000"
  [m4f:tiny_cnn_rows]="--dim batch=1 --max-arena 23000"
  [m0plus:tiny_cnn_rows]="--dim batch=1 --max-arena 23000"
  [m55:tiny_cnn_rows]="--dim batch=1 --max-arena 23000"
  [cortex-m3:tiny_cnn_rows]="--dim batch=1 --max-arena 23000"
  [kws_int8_rows]="--max-arena 8000" [cnn_int8_rows]="--max-arena 10000")
flags_of() { echo "${pins[$1:$2]:-${pins[$2]:-}}"; }

m4_flags=(-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard)
m0_flags=(-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft)
m55_flags=(-mcpu=cortex-m55 -mthumb -mfloat-abi=hard)
bare=(-std=c++17 -O2 -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti
      --specs=rdimon.specs -T "$here/mps2.ld" -Wl,--gc-sections "-Wl,--defsym=STACK_SIZE=$stack")
bare_an547=("${bare[@]/%mps2.ld/mps3_an547.ld}")  # the same on the MPS3 board's memory map
# The generated code must compile cleanly for each CPU, with no implicit double math and no
# pointer casts that raise alignment.
strict=(-Wall -Wextra -Werror -Wcast-align=strict -Wdouble-promotion)

# header_constant HEADER NAME: the value of `constexpr std::size_t NAME = N;`.
header_constant() { sed -n "s/^constexpr std::size_t $2 = \([0-9]*\);/\1/p" "$1"; }
# size_of CONFIG OBJECT: `size` (Berkeley format: text includes rodata) for CONFIG's CPU.
size_of() {
  case $1 in
  host) size "$2" ;;
  aarch64) aarch64-linux-gnu-size "$2" ;;
  *) arm-none-eabi-size "$2" ;;
  esac
}

# build CONFIG TARGET COMPILER FLAGS...: generates the models for TARGET and links CONFIG/app;
# CONFIG/figures.txt gets per model: config, model, flash, RAM, stack bound, static stack depth.
build() {
  local config=$1 target=$2 cxx=$3
  shift 3
  mkdir -p "$config"
  {
    for m in "${models[@]}"; do
      "$onnxc" "models/$m.onnx" -o "$config/$m.cpp" --name "$m" --target "$target" $(flags_of "$config" "$m")
      echo "#include \"$m.h\""
    done
    echo "#define ONNXC_MODELS(X) $(printf 'X(%s) ' "${models[@]}")"
  } >"$config/models.h"
  # -ffp-contract=off: as onnxc_add_model, onnxc test and the LLVM backend build the models.
  for m in "${models[@]}"; do
    "$cxx" "$@" "${strict[@]}" -std=c++17 -O2 -ffp-contract=off -ffunction-sections \
      -fdata-sections -fcallgraph-info=su -c "$config/$m.cpp" -o "$config/$m.o"
    local flash data bss arena bound depth memory
    read -r flash data bss _ < <(size_of "$config" "$config/$m.o" | tail -1)
    arena=$(header_constant "$config/$m.h" kWorkspaceSize)
    bound=$(header_constant "$config/$m.h" kMaxStackBytes)
    depth=$(/usr/bin/python3 "$here/stack_depth.py" "$config/$m.ci" "${m}_run")
    memory=$("$onnxc" inspect --memory "models/$m.onnx" --target "$target" $(flags_of "$config" "$m"))
    if ! grep -qx "arena_bytes $arena" <<<"$memory" ||
      ! grep -qx "max_stack_bytes $bound" <<<"$memory"; then
      echo "$config $m: onnxc inspect --memory disagrees with the header (arena $arena, stack $bound)"
      return 1
    fi
    echo "$config $m $flash $((arena + data + bss)) $bound $depth" >>"$config/figures.txt"
  done
  local extra=()
  [[ $config == m4f || $config == m0plus || $config == m55 ]] && extra=("$here/startup.cpp")
  "$cxx" "$@" -std=c++17 -O2 -I "$config" "${extra[@]}" "$here/main.cpp" "$config"/*.o \
    -o "$config/app"
  if [[ -n ${extra[*]} ]]; then  # the same with a 128-byte inference stack: must fault
    "$cxx" "$@" -std=c++17 -O2 -DONNXC_UNDERSTATE_STACK -I "$config" "${extra[@]}" \
      "$here/main.cpp" "$config"/*.o -o "$config/app_understated"
  fi
}

# static_stack TARGET COMPILER FLAGS...: for a target no run covers, only the stack check: each
# model's deepest static call path must stay within the header's kMaxStackBytes.
static_stack() {
  local target=$1 dir="static-$1"
  shift
  mkdir -p "$dir"
  for m in "${models[@]}"; do
    "$onnxc" "models/$m.onnx" -o "$dir/$m.cpp" --name "$m" --target "$target" $(flags_of "$target" "$m")
    "$@" -std=c++17 -O2 -fcallgraph-info=su -c "$dir/$m.cpp" -o "$dir/$m.o"
    local depth bound
    depth=$(/usr/bin/python3 "$here/stack_depth.py" "$dir/$m.ci" "${m}_run")
    bound=$(header_constant "$dir/$m.h" kMaxStackBytes)
    echo "$target $m $depth $bound" >>"$dir/stack.txt"
    ((depth <= bound)) || { echo "$target $m: static stack $depth B > kMaxStackBytes $bound B"; return 1; }
  done
  touch "$dir/ok"
}

start=$SECONDS
static_stack x86-64-v3 g++ -march=x86-64-v3 &
static_stack x86-64-v4 g++ -march=x86-64-v4 &
wait -n
wait -n
static_stack cortex-a7 arm-none-eabi-g++ -mcpu=cortex-a7 -mfpu=neon-vfpv4 -mfloat-abi=hard &
static_stack cortex-m7 arm-none-eabi-g++ -mcpu=cortex-m7 -mthumb -mfpu=fpv5-d16 -mfloat-abi=hard &
wait -n
wait -n
static_stack cortex-m3 arm-none-eabi-g++ -mcpu=cortex-m3 -mthumb -mfloat-abi=soft &
static_stack x86-64-v2 g++ -march=x86-64-v2 &
wait -n
wait -n
for target in x86-64-v2 x86-64-v3 x86-64-v4 cortex-a7 cortex-m7 cortex-m3; do
  [[ -f static-$target/ok ]] || { echo "$target: the stack check failed"; exit 1; }
done
echo "static stack (deepest path / kMaxStackBytes):" $(awk '{printf "%s %s %s/%s, ", $1, $2, $3, $4}' static-*/stack.txt)
echo "checked the other targets' stacks in $((SECONDS - start)) s"

start=$SECONDS
build host generic g++ &
build m4f cortex-m4 arm-none-eabi-g++ "${m4_flags[@]}" "${bare[@]}" &
wait -n
wait -n
build m0plus cortex-m0plus arm-none-eabi-g++ "${m0_flags[@]}" "${bare[@]}" &
build aarch64 aarch64 aarch64-linux-gnu-g++ -static &
wait -n
wait -n
build m55 cortex-m55 arm-none-eabi-g++ "${m55_flags[@]}" "${bare_an547[@]}"
for config in host m4f m0plus aarch64 m55; do
  [[ -f $config/app ]] || { echo "$config: the build failed"; exit 1; }
done
echo "built in $((SECONDS - start)) s"

# run NAME COMMAND...: NAME.txt gets the output; a fault (exit 1 through semihosting) or a hang
# leaves it without its "done 0" line, which the comparison reports.
run() {
  local name=$1 rc=0
  shift
  timeout 300 "$@" >"$name.txt" || rc=$?
  ((rc == 0)) || echo "$name: exited with status $rc (1 on a fault such as a stack overflow)"
}
start=$SECONDS
run host host/app
run m4f qemu-system-arm -M mps2-an386 -nographic -semihosting -icount shift=0 -kernel m4f/app
run m0plus qemu-system-arm -M mps2-an385 -nographic -semihosting -icount shift=0 -kernel m0plus/app
run aarch64 qemu-aarch64 aarch64/app
run m55 qemu-system-arm -M mps3-an547 -nographic -semihosting -icount shift=0 -kernel m55/app
# On a 128-byte stack (every model needs more), the guard below the stack must stop the run.
for board in "m4f mps2-an386" "m0plus mps2-an385" "m55 mps3-an547"; do
  read -r config machine <<<"$board"
  if timeout 300 qemu-system-arm -M "$machine" -nographic -semihosting \
    -kernel "$config/app_understated" >"$config-understated.txt"; then
    echo "$config: a run on a 128-byte stack did not fault: the stack guard does not work"
    exit 1
  fi
done
echo "ran in $((SECONDS - start)) s"

# Outputs within 1e-5 (relative to max(1, |host|)) of the host's, the banded models' equal to the
# unbanded ones'; every run complete; then the budget table, checked against the committed budgets.
cat host/figures.txt m4f/figures.txt m0plus/figures.txt aarch64/figures.txt m55/figures.txt \
  >figures.txt
/usr/bin/python3 "$here/check_runs.py" figures.txt "$here/budgets.tsv" budgets.tsv
