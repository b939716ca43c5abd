#!/usr/bin/env bash
# The embedded CI test: compiles three models (a conformance-sized graph, the README's CNN and a
# keyword-spotting DS-CNN) with a host onnxc for four CPUs, runs them and compares every output
# with the host build's:
#   host     --target generic, g++, run natively (the reference)
#   m4f      --target cortex-m4, arm-none-eabi-g++ (hard float), qemu-system-arm -M mps2-an386
#   m0plus   --target cortex-m0plus (ARMv6-M, soft float), qemu-system-arm -M mps2-an385 with
#            unaligned accesses trapping
#   aarch64  --target aarch64, aarch64-linux-gnu-g++ -static, qemu-aarch64
# Bare-metal runs get a STACK_SIZE stack placed at the bottom of RAM, so an overflow faults (and
# the start-up code turns a fault into a failed run). Prints flash, RAM and peak stack per model.
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
models=(small tiny_cnn kws)
declare -A pins=([tiny_cnn]="--dim batch=1")  # only the README's CNN has a symbolic batch dim

m4_flags=(-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard)
m0_flags=(-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft)
bare=(-std=c++17 -O2 -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti
      --specs=rdimon.specs -T "$here/mps2.ld" -Wl,--gc-sections "-Wl,--defsym=STACK_SIZE=$stack")
# The generated code must compile cleanly for each CPU, with no implicit double math and no
# pointer casts that raise alignment.
strict=(-Wall -Wextra -Werror -Wcast-align=strict -Wdouble-promotion)

# build CONFIG TARGET COMPILER FLAGS...: generates the models for TARGET and links CONFIG/app.
build() {
  local config=$1 target=$2 cxx=$3
  shift 3
  mkdir -p "$config"
  {
    for m in "${models[@]}"; do
      "$onnxc" "models/$m.onnx" -o "$config/$m.cpp" --name "$m" --target "$target" ${pins[$m]:-}
      echo "#include \"$m.h\""
    done
    echo "#define ONNXC_MODELS(X) $(printf 'X(%s) ' "${models[@]}")"
  } >"$config/models.h"
  for m in "${models[@]}"; do
    "$cxx" "$@" "${strict[@]}" -std=c++17 -O2 -ffunction-sections -fdata-sections -c \
      "$config/$m.cpp" -o "$config/$m.o"
  done
  local extra=()
  [[ $config == m4f || $config == m0plus ]] && extra=("$here/startup.cpp")
  "$cxx" "$@" -std=c++17 -O2 -I "$config" "${extra[@]}" "$here/main.cpp" "$config"/*.o \
    -o "$config/app"
}

start=$SECONDS
build host generic g++ &
build m4f cortex-m4 arm-none-eabi-g++ "${m4_flags[@]}" "${bare[@]}" &
wait -n
wait -n
build m0plus cortex-m0plus arm-none-eabi-g++ "${m0_flags[@]}" "${bare[@]}" &
build aarch64 aarch64 aarch64-linux-gnu-g++ -static &
wait -n
wait -n
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
run m4f qemu-system-arm -M mps2-an386 -nographic -semihosting -kernel m4f/app
run m0plus qemu-system-arm -M mps2-an385 -nographic -semihosting -kernel m0plus/app
run aarch64 qemu-aarch64 aarch64/app
echo "ran in $((SECONDS - start)) s"

# Outputs within 1e-5 (relative to max(1, |host|)) of the host's; every run complete.
/usr/bin/python3 - "${models[@]}" <<'PY'
import struct, sys
def read(path):
    outs, stacks, done = {}, {}, False
    for line in open(path):
        f = line.split()
        if f[0] == "out":
            outs[(f[1], f[2], f[3])] = struct.unpack("<f", bytes.fromhex(f[4])[::-1])[0]
        elif f[0] == "stack":
            stacks[f[1]] = int(f[2])
        elif f[0] == "done":
            done = f[1] == "0"
    return outs, stacks, done
host, _, ok = read("host.txt")
assert ok and host, "the host run failed"
failed = False
for run in ("m4f", "m0plus", "aarch64"):
    outs, stacks, done = read(run + ".txt")
    worst = max((abs(outs.get(k, float("nan")) - v) / max(1.0, abs(v)) for k, v in host.items()),
                default=float("nan"))
    good = done and set(outs) == set(host) and worst <= 1e-5
    failed |= not good
    print(f"{run:8} {'PASS' if good else 'FAIL'}  {len(outs)} outputs, max relative error {worst:.2e}")
    if stacks:
        print("         peak stack: " + ", ".join(f"{m} {stacks[m]} B" for m in sys.argv[1:] if m in stacks))
sys.exit(1 if failed else 0)
PY

# Flash (text + rodata) and RAM (arena + data + bss) of each model on the Cortex-M4F.
printf '%-10s %10s %10s %10s\n' model flash arena data+bss
for m in "${models[@]}"; do
  read -r text data bss _ < <(arm-none-eabi-size "m4f/$m.o" | tail -1)
  arena=$(sed -n 's/^constexpr std::size_t kWorkspaceSize = \([0-9]*\);/\1/p' "m4f/$m.h")
  printf '%-10s %10s %10s %10s\n' "$m" "$text" "$arena" "$((data + bss))"
done
