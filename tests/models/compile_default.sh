#!/usr/bin/env bash
# Builds models as a user does (issue 33): `onnxc MODEL -o NAME.cpp` with the default flags
# (--runtime inline, --target generic, embedded weights), then the .cpp on its own, with no
# include path, under g++ and arm-none-eabi-g++ (Cortex-M4F, hard float), -Wall -Wextra -Werror.
# Checks that the code compiles; `onnxc test` (inline by default) checks what it computes.
# Usage: compile_default.sh ONNXC WORK_DIR MODEL.onnx...
set -euo pipefail
onnxc=$1
work=$2
shift 2
mkdir -p "$work"
compilers=(g++)
command -v arm-none-eabi-g++ >/dev/null && compilers+=(arm-none-eabi-g++)
status=0
for model in "$@"; do
  name=$(basename "$(dirname "$model")")
  [[ $name == . ]] && name=$(basename "$model" .onnx)
  "$onnxc" "$model" -o "$work/$name.cpp" --name model
  for cxx in "${compilers[@]}"; do
    flags=(-std=c++17 -O1 -Wall -Wextra -Werror -c -o "$work/$name.$cxx.o")
    [[ $cxx == arm-none-eabi-g++ ]] &&
      flags+=(-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard)
    if (cd "$work" && "$cxx" "${flags[@]}" "$name.cpp" >"$name.$cxx.log" 2>&1); then
      echo "COMPILES     $name ($cxx)"
    else
      echo "FAIL         $name ($cxx): $(grep -m1 error "$work/$name.$cxx.log")"
      status=1
    fi
  done
done
exit $status
