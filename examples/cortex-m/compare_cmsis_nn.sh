#!/usr/bin/env bash
# Issue 39's yardstick: make_models.py's int8 QDQ models, the keyword-spotting DS-CNN
# (kws_int8.onnx) and the small image CNN (cnn_int8.onnx), each built by onnxc and run with Arm's
# CMSIS-NN, side by side on QEMU's Cortex-M4F (mps2-an386; CMSIS-NN's DSP-extension kernels),
# Cortex-M0+ (ARMv6-M code on mps2-an385 with unaligned accesses trapping; CMSIS-NN's portable C)
# and Cortex-M55 (mps3-an547, mps3_an547.ld; -mcpu=cortex-m55 defines __ARM_FEATURE_MVE, from which
# CMSIS-NN's arm_nn_math_types.h defines ARM_MATH_MVEI: its Helium kernels; onnxc's __mve rows):
#   onnxc     the generated MODEL.cpp, run by main.cpp (a models.h with only that model)
#   CMSIS-NN  cmsis_nn/network_cmsis.cpp (the layer calls, the same for every model) compiled with
#             the model's cmsis_params.h (its layer table, from cmsis_nn/export_cmsis.py), run by
#             cmsis_nn/main_cmsis.cpp, which measures as main.cpp does
# Prints a markdown table per model, a row per CPU and figure (cmsis_nn/compare.py):
#   instructions  one inference (float input to float logits, input quantization included), from
#                 SysTick under -icount shift=0, calibrated against a loop of known length
#   flash         code + constant data. onnxc: text + rodata of the model's object (as run_qemu.sh
#                 measures it). CMSIS-NN: text + rodata of network_cmsis.o (the layer calls and the
#                 weights, biases, multipliers and shifts) plus the CMSIS-NN sections the link
#                 kept after --gc-sections (summed from the link map). libc/libgcc helpers
#                 (memcpy, soft-float, 64-bit multiply) count on neither side.
#   RAM           onnxc: kWorkspaceSize + data + bss of the model's object + the painted stack
#                 peak. CMSIS-NN: the two ping-pong activation buffers + the scratch the
#                 *_get_buffer_size functions ask for + data/bss of network_cmsis.o and CMSIS-NN +
#                 the painted stack peak. The float input and logits (the caller's) count on
#                 neither.
# and per model the largest difference between the two builds' int8 logits in quantization steps
# (onnxc's float logits converted back with the logits' scale): they differ by requantization
# rounding. Fails when it is more than 2 steps or CMSIS-NN's logits differ between the CPUs.
# Usage: compare_cmsis_nn.sh ONNXC WORK_DIR; exit 77 (skipped) without arm-none-eabi-g++,
# qemu-system-arm or CMSIS-NN (../shared/third_party/cmsis-nn beside the repository, or
# $CMSIS_NN_DIR).
set -euo pipefail
onnxc=$(realpath "$1")
work=$2
here=$(cd "$(dirname "$0")" && pwd)
cmsis=${CMSIS_NN_DIR:-$here/../../../shared/third_party/cmsis-nn}
for tool in arm-none-eabi-g++ arm-none-eabi-gcc qemu-system-arm; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed (.ci/setup)"; exit 77; }
done
[[ -d $cmsis/Source ]] || { echo "skipped: no CMSIS-NN at $cmsis (set CMSIS_NN_DIR)"; exit 77; }
cmsis=$(realpath "$cmsis")
rm -rf "$work" && mkdir -p "$work" && cd "$work"

models=(kws_int8 cnn_int8)
/usr/bin/python3 "$here/make_models.py" .
for model in "${models[@]}"; do
  mkdir -p "$model"
  /usr/bin/python3 "$here/cmsis_nn/export_cmsis.py" "$model.onnx" "$model/cmsis_params.h"
done

m4_flags=(-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard)
m0_flags=(-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft)
m55_flags=(-mcpu=cortex-m55 -mthumb -mfloat-abi=hard)
# Both builds: -O2, a section per function and object, so that --gc-sections keeps what is used.
sections=(-O2 -ffunction-sections -fdata-sections)
# shellcheck disable=SC2054  # the commas belong to -Wl options
bare=(-std=c++17 "${sections[@]}" -fno-exceptions -fno-rtti --specs=rdimon.specs
      -T "$here/mps2.ld" -Wl,--gc-sections -Wl,--defsym=STACK_SIZE=8192)
# run_qemu.sh's warnings for the generated code.
strict=(-Wall -Wextra -Werror -Wcast-align=strict -Wdouble-promotion)
# The CMSIS-NN sources the network's calls reach, the kernels the wrappers can pick besides the
# ones they pick here included (they are linked either way).
cmsis_sources=(
  ConvolutionFunctions/arm_convolve_wrapper_s8.c
  ConvolutionFunctions/arm_convolve_s8.c
  ConvolutionFunctions/arm_convolve_1x1_s8_fast.c
  ConvolutionFunctions/arm_convolve_1x1_s8.c
  ConvolutionFunctions/arm_convolve_1_x_n_s8.c
  ConvolutionFunctions/arm_convolve_get_buffer_sizes_s8.c
  ConvolutionFunctions/arm_depthwise_conv_wrapper_s8.c
  ConvolutionFunctions/arm_depthwise_conv_3x3_s8.c
  ConvolutionFunctions/arm_depthwise_conv_s8_opt.c
  ConvolutionFunctions/arm_depthwise_conv_s8.c
  ConvolutionFunctions/arm_depthwise_conv_get_buffer_sizes_s8.c
  ConvolutionFunctions/arm_nn_mat_mult_kernel_s8_s16.c
  ConvolutionFunctions/arm_nn_mat_mult_kernel_row_offset_s8_s16.c
  PoolingFunctions/arm_avgpool_s8.c
  PoolingFunctions/arm_avgpool_get_buffer_sizes_s8.c
  FullyConnectedFunctions/arm_fully_connected_per_channel_s8.c
  FullyConnectedFunctions/arm_fully_connected_get_buffer_sizes_s8.c
  NNSupportFunctions/arm_nn_mat_mult_nt_t_s8.c
  NNSupportFunctions/arm_nn_vec_mat_mult_t_per_ch_s8.c
  NNSupportFunctions/arm_s8_to_s16_unordered_with_offset.c
  NNSupportFunctions/arm_q7_to_q15_with_offset.c
  # what the Helium (ARM_MATH_MVEI) paths of the above call besides
  NNSupportFunctions/arm_nn_depthwise_conv_nt_t_s8.c
  NNSupportFunctions/arm_nn_depthwise_conv_nt_t_padded_s8.c
  NNSupportFunctions/arm_nn_mat_mul_core_1x_s8.c
  NNSupportFunctions/arm_nn_mat_mul_core_4x_s8.c
  TransposeFunctions/arm_transpose_s8.c
  FullyConnectedFunctions/arm_vector_sum_s8.c
)

# size_line OBJECT: "text data bss" (Berkeley format: text includes rodata).
size_line() { arm-none-eabi-size "$1" | tail -1 | awk '{print $1, $2, $3}'; }
# header_constant HEADER NAME: the value of `constexpr std::size_t NAME = N;`.
header_constant() { sed -n "s/^constexpr std::size_t $2 = \([0-9]*\);/\1/p" "$1"; }

# The board's linker script: the MPS3 board's memory map differs from the MPS2 boards'.
ld_of() { [[ $1 == m55 ]] && echo mps3_an547.ld || echo mps2.ld; }

# build_onnxc MODEL CPU TARGET FLAGS...: MODEL/CPU/onnxc/app, onnxc's MODEL with main.cpp.
build_onnxc() {
  local model=$1 cpu=$2 target=$3 out=$1/$2 dir=$1/$2/onnxc
  shift 3
  mkdir -p "$dir"
  "$onnxc" "$model.onnx" -o "$dir/$model.cpp" --name "$model" --target "$target"
  printf '#include "%s.h"\n#define ONNXC_MODELS(X) X(%s)\n' "$model" "$model" >"$dir/models.h"
  arm-none-eabi-g++ "$@" "${strict[@]}" -std=c++17 "${sections[@]}" -c "$dir/$model.cpp" \
    -o "$dir/$model.o"
  echo "onnxc_object $(size_line "$dir/$model.o")" >>"$out/figures.txt"
  echo "onnxc_workspace $(header_constant "$dir/$model.h" kWorkspaceSize)" >>"$out/figures.txt"
  arm-none-eabi-g++ "$@" "${bare[@]/%mps2.ld/$(ld_of "$cpu")}" -I "$dir" "$here/startup.cpp" \
    "$here/main.cpp" "$dir/$model.o" -o "$dir/app"
}

# build_cmsis_library CPU FLAGS...: the CMSIS-NN objects, CPU/cmsis-nn/*.o (every model links
# them; --gc-sections keeps what each uses).
build_cmsis_library() {
  local obj=$1/cmsis-nn
  shift
  mkdir -p "$obj"
  for src in "${cmsis_sources[@]}"; do
    arm-none-eabi-gcc "$@" "${sections[@]}" -I "$cmsis/Include" -c "$cmsis/Source/$src" \
      -o "$obj/$(basename "$src" .c).o"
  done
}

# build_cmsis MODEL CPU FLAGS...: MODEL/CPU/app_cmsis (network_cmsis.cpp with MODEL's
# cmsis_params.h) and its link map MODEL/CPU/cmsis.map.
build_cmsis() {
  local model=$1 cpu=$2 obj=$2/cmsis-nn out=$1/$2
  shift 2
  arm-none-eabi-g++ "$@" -Wall -Wextra -Werror -std=c++17 "${sections[@]}" -fno-exceptions \
    -fno-rtti -I "$model" -I "$cmsis/Include" -c "$here/cmsis_nn/network_cmsis.cpp" \
    -o "$out/network_cmsis.o"
  echo "cmsis_object $(size_line "$out/network_cmsis.o")" >>"$out/figures.txt"
  arm-none-eabi-g++ "$@" "${bare[@]/%mps2.ld/$(ld_of "$cpu")}" -Wl,-Map="$out/cmsis.map" \
    -I "$model" "$here/startup.cpp" "$here/cmsis_nn/main_cmsis.cpp" "$out/network_cmsis.o" \
    "$obj"/*.o -o "$out/app_cmsis"
}

# build_cpu CPU TARGET FLAGS...: the CMSIS-NN objects, then both programs of every model for one
# CPU.
build_cpu() {
  local cpu=$1 target=$2 model
  shift 2
  build_cmsis_library "$cpu" "$@"
  for model in "${models[@]}"; do
    mkdir -p "$model/$cpu"
    build_onnxc "$model" "$cpu" "$target" "$@"
    build_cmsis "$model" "$cpu" "$@"
  done
}

# run_cpu CPU MACHINE: every model's two programs under QEMU; MODEL/CPU/onnxc.txt and
# MODEL/CPU/cmsis.txt get the output (a fault or a hang leaves them without "done 0", which
# compare.py reports).
run_cpu() {
  local cpu=$1 machine=$2 model app dir
  for model in "${models[@]}"; do
    dir=$model/$cpu
    for app in onnxc:onnxc/app cmsis:app_cmsis; do
      timeout 300 qemu-system-arm -M "$machine" -nographic -semihosting -icount shift=0 \
        -kernel "$dir/${app#*:}" >"$dir/${app%%:*}.txt" || echo "$dir ${app%%:*}: exited with $?"
    done
  done
}

start=$SECONDS
build_cpu m4f cortex-m4 "${m4_flags[@]}" &
m4=$!
build_cpu m0plus cortex-m0plus "${m0_flags[@]}" &
m0=$!
failed=0
wait "$m4" || failed=1
wait "$m0" || failed=1
build_cpu m55 cortex-m55 "${m55_flags[@]}" || failed=1
((failed == 0)) || { echo "a build failed"; exit 1; }
echo "built in $((SECONDS - start)) s"

start=$SECONDS
run_cpu m4f mps2-an386 &
m4=$!
run_cpu m0plus mps2-an385 &
m0=$!
run_cpu m55 mps3-an547
wait "$m4" "$m0"
echo "ran in $((SECONDS - start)) s"
echo
/usr/bin/python3 "$here/cmsis_nn/compare.py" . "${models[@]}"
