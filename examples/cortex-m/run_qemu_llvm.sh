#!/usr/bin/env bash
# The embedded test of the LLVM backend (issue 36): run_qemu.sh's five models built for the
# Cortex-M4F, the Cortex-M0+ and aarch64 twice, once from the .cpp by the target's g++ and once as
# `onnxc --emit obj` objects (no C++ compile of the models), each linked with the same main.cpp
# and run under QEMU. Every output word of the two builds must be the same, bit for bit: the g++
# build gets -ffp-contract=off, as onnxc test and bench give it (kNoFpContraction of
# compiler/llvm_backend/llvm_targets.h; g++ fuses a * b + c by default in C++, and its outputs then
# differ from clang's in the last bit). Prints each model's flash (text + data, `size`) from both
# builds and the ratio, and on the M profile its instructions per inference (SysTick ticks under
# -icount shift=0); the LLVM builds' figures are budgets.tsv's rows CONFIG-llvm, and the test
# fails when one is more than 1% above its row (check_runs.py --budgets-only), or when a Cortex-M
# model's LLVM flash is more than 5% above its g++ flash.
# Usage: run_qemu_llvm.sh ONNXC WORK_DIR; exit 77 (skipped) without the toolchains.
set -euo pipefail
onnxc=$(realpath "$1")
work=$2
here=$(cd "$(dirname "$0")" && pwd)
for tool in arm-none-eabi-g++ qemu-system-arm qemu-aarch64 aarch64-linux-gnu-g++; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed (.ci/setup)"; exit 77; }
done
rm -rf "$work" && mkdir -p "$work/models" && cd "$work"
/usr/bin/python3 "$here/../make_example_model.py" models/tiny_cnn.onnx
/usr/bin/python3 "$here/make_models.py" models
models=(small tiny_cnn kws kws_int8 cnn_int8)
declare -A pins=([tiny_cnn]="--dim batch=1")

bare=(-std=c++17 -O2 -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti
      --specs=rdimon.specs -T "$here/mps2.ld" -Wl,--gc-sections "-Wl,--defsym=STACK_SIZE=8192")

# build CONFIG EMIT TARGET COMPILER FLAGS...: the models for TARGET, by the compiler from the
# .cpp (EMIT cpp) or by the LLVM backend (EMIT obj), linked into CONFIG-EMIT/app.
build() {
  local config=$1 emit=$2 target=$3 cxx=$4 dir=$1-$2
  shift 4
  mkdir -p "$dir"
  {
    for m in "${models[@]}"; do
      if [[ $emit == cpp ]]; then
        "$onnxc" "models/$m.onnx" -o "$dir/$m.cpp" --name "$m" --target "$target" ${pins[$m]:-}
        "$cxx" "$@" -c "$dir/$m.cpp" -o "$dir/$m.o"
      else
        "$onnxc" "models/$m.onnx" --emit obj -o "$dir/$m.o" --name "$m" --target "$target" \
          ${pins[$m]:-}
      fi
      echo "#include \"$m.h\""
    done
    echo "#define ONNXC_MODELS(X) $(printf 'X(%s) ' "${models[@]}")"
  } >"$dir/models.h"
  local extra=()
  [[ $config != aarch64 ]] && extra=("$here/startup.cpp")
  "$cxx" "$@" -I "$dir" "${extra[@]}" "$here/main.cpp" "$dir"/*.o -o "$dir/app"
}

start=$SECONDS
for emit in cpp obj; do
  build m4f $emit cortex-m4 arm-none-eabi-g++ -ffp-contract=off -mcpu=cortex-m4 -mthumb \
    -mfpu=fpv4-sp-d16 -mfloat-abi=hard "${bare[@]}" &
  build m0plus $emit cortex-m0plus arm-none-eabi-g++ -ffp-contract=off -mcpu=cortex-m0plus \
    -mthumb -mfloat-abi=soft "${bare[@]}" &
  wait -n
  wait -n
  build aarch64 $emit aarch64 aarch64-linux-gnu-g++ -ffp-contract=off -std=c++17 -O2 -static
done
for dir in {m4f,m0plus,aarch64}-{cpp,obj}; do
  [[ -f $dir/app ]] || { echo "$dir: the build failed"; exit 1; }
done
echo "built in $((SECONDS - start)) s"

failed=0
# ratio A B: A / B to three decimals.
ratio() { awk "BEGIN {printf \"%.3f\", $1 / $2}"; }
# insns_of RUN_OUTPUT MODEL: instructions per inference, ticks * 2,000,000 / calibrate (main.cpp's
# calibration, check_runs.py's CALIBRATION_INSNS).
insns_of() {
  awk -v m="$2" '$1 == "calibrate" {c = $2} $1 == "ticks" && $2 == m {t = $3}
    END {printf "%d", t * 2000000 / c + 0.5}' "$1"
}
# budgets.tsv's rows CONFIG-llvm: flash (`size` text, as run_qemu.sh's) and, on the M profile,
# instructions per inference.
printf 'config\tmodel\tflash\tram\tstack_bound\tstack_static\tstack_peak\tinsns\n' >budgets.tsv
for config in m4f m0plus aarch64; do
  for emit in cpp obj; do
    case $config in
    m4f) cmd=(qemu-system-arm -M mps2-an386 -nographic -semihosting -icount shift=0
              -kernel "$config-$emit/app") ;;
    m0plus) cmd=(qemu-system-arm -M mps2-an385 -nographic -semihosting -icount shift=0
                 -kernel "$config-$emit/app") ;;
    aarch64) cmd=(qemu-aarch64 "$config-$emit/app") ;;
    esac
    timeout 300 "${cmd[@]}" >"$config-$emit.txt" || echo "$config-$emit: exited with status $?"
  done
  outputs=$(grep -c '^out ' "$config-cpp.txt" || true)
  if ((outputs == 0)) || ! diff <(grep '^out ' "$config-cpp.txt") <(grep '^out ' "$config-obj.txt") >/dev/null; then
    echo "$config: the LLVM-built outputs differ from the g++-built ones ($outputs words)"
    failed=1
  else
    echo "$config: $outputs output words bit-identical"
  fi
  size_tool=arm-none-eabi-size
  [[ $config == aarch64 ]] && size_tool=aarch64-linux-gnu-size
  for m in "${models[@]}"; do
    flash_gxx=$($size_tool "$config-cpp/$m.o" | awk 'END {print $1}')
    flash_llvm=$($size_tool "$config-obj/$m.o" | awk 'END {print $1}')
    echo "flash $config $m: g++ $flash_gxx B, LLVM $flash_llvm B ($(ratio "$flash_llvm" "$flash_gxx")x)"
    insns=-
    if [[ $config != aarch64 ]]; then
      if ((flash_llvm * 100 > flash_gxx * 105)); then
        echo "flash $config $m: the LLVM build is more than 5% larger than the g++ build (issue 36)"
        failed=1
      fi
      insns_gxx=$(insns_of "$config-cpp.txt" "$m")
      insns=$(insns_of "$config-obj.txt" "$m")
      echo "instructions $config $m: g++ $insns_gxx, LLVM $insns ($(ratio "$insns" "$insns_gxx")x)"
    fi
    printf '%s-llvm\t%s\t%s\t-\t-\t-\t-\t%s\n' "$config" "$m" "$flash_llvm" "$insns" >>budgets.tsv
  done
done
/usr/bin/python3 "$here/check_runs.py" --budgets-only budgets.tsv "$here/budgets.tsv" || failed=1
exit $failed
