#include "llvm_backend/llvm_targets.h"

#include <sstream>

#include "ir/target.h"

namespace onnxc {

const std::vector<LlvmTarget>& all_llvm_targets() {
  static const std::vector<LlvmTarget> rows = {
#define ONNXC_LLVM_TARGET_ROW(target, triple, cpu, float_abi, hosted, multilib, clang_flags) \
  LlvmTarget{target, triple, cpu, float_abi, hosted, multilib, clang_flags},
      ONNXC_LLVM_TARGETS(ONNXC_LLVM_TARGET_ROW)
#undef ONNXC_LLVM_TARGET_ROW
  };
  return rows;
}

const LlvmTarget* find_llvm_target(std::string_view name) {
  for (const LlvmTarget& row : all_llvm_targets())
    if (row.target == name) return &row;
  return nullptr;
}

namespace {

// The words of ir/target.h's cxx_flags ("-mcpu=cortex-m4 -mthumb ...").
std::vector<std::string> split_flags(std::string_view flags) {
  std::istringstream in{std::string(flags)};
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

}  // namespace

std::vector<std::string> llvm_target_arguments(const LlvmTarget& row,
                                               const std::string& none_eabi_include,
                                               const std::string& none_eabi_gcc_version) {
  std::vector<std::string> args = {"--target=" + std::string(row.triple)};
  if (const Target* t = find_target(row.target))
    for (std::string& flag : split_flags(t->cxx_flags)) args.push_back(std::move(flag));
  for (std::string& flag : split_flags(row.clang_flags)) args.push_back(std::move(flag));
  args.push_back(kNoFpContraction);
  if (row.hosted) {
    args.push_back("-fPIC");
    return args;
  }
  // arm-none-eabi-gcc's ABI: enums as small as their values; its headers, not the host's.
  const std::string cxx = none_eabi_include + "/c++/" + none_eabi_gcc_version;
  for (const std::string& a :
       {std::string("-fshort-enums"), std::string("-nostdlibinc"), "-isystem" + cxx,
        "-isystem" + cxx + "/arm-none-eabi/" + std::string(row.multilib),
        "-isystem" + cxx + "/backward", "-isystem" + none_eabi_include})
    args.push_back(a);
  return args;
}

}  // namespace onnxc
