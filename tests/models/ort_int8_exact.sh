# Sourced by the ORT comparison scripts. ort_int8_exact: whether onnxruntime's CPU kernels compute
# uint8 x int8 products exactly on this machine. On x86-64 with AVX2 and neither AVX-512 VNNI nor
# AVX-VNNI, MLAS multiplies u8 x s8 with vpmaddubsw, which saturates each pair's sum at int16
# (found on a Zen 3, 2026-11-27: com.microsoft MatMulIntegerToFloat's element 11 is 5.858 exactly,
# as onnxc computes it, and 1.345 from ORT), so ORT's outputs are no reference there for the
# models whose products go through that kernel. Elsewhere (VNNI, aarch64) they are exact.
ort_int8_exact() {
  [[ $(uname -m) != x86_64 ]] && return 0
  grep -qwE 'avx512_vnni|avx_vnni' /proc/cpuinfo && return 0
  grep -qw avx2 /proc/cpuinfo && return 1
  return 0
}
ORT_INT8_SKIP_REASON="onnxruntime's u8 x s8 kernels saturate int16 pair sums on this CPU (AVX2 without VNNI): its outputs are no reference here"
