// The LLVM backend's internal interfaces, between its own translation units. Included only by
// onnxc_llvm's LLVM translation units (built with LLVM's flags): it names LLVM types.
#pragma once

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>
#include <vector>

#include "llvm_backend/llvm_backend.h"

namespace onnxc {

// What the TargetMachine must know that the module's functions do not carry: taken from the
// compiler invocation clang's driver built, so that code generation sees what clang decided.
struct MachineSettings {
  std::string triple, cpu;
  std::vector<std::string> features;  // "+avx2", "-neon", ...
  std::string float_abi;              // "hard", "soft", "softfp" or ""
  llvm::Reloc::Model relocation = llvm::Reloc::Static;
  unsigned opt_level = 2;   // -O0..-O3
  unsigned size_level = 0;  // 1 for -Os, 2 for -Oz
  bool unroll_loops = true, vectorize_loops = true, vectorize_slp = true;
};

// clang_frontend.cpp: compiles `source` with clang, in-process, from memory, with the driver
// arguments `command_line` (clang_command_line()), into a module of `context` that LLVM has not
// yet optimised (optimize_module does, after internalize_all_but_entry_points). On failure
// returns null and sets `error` to the first error line clang printed.
std::unique_ptr<llvm::Module> compile_source(const LlvmSource& source,
                                             const std::vector<std::string>& command_line,
                                             llvm::LLVMContext& context, MachineSettings* settings,
                                             std::string* error);

// module_passes.cpp: onnxc's passes over clang's module, in this order.
// Defines the weights' array from `source.weights`: one constant, 64-byte aligned, internal, in
// section .rodata.onnxc_weights. "" or an error line.
std::string define_weights(llvm::Module& module, const LlvmSource& source);
// Sets the module id and source file name to `source.file_name`, so that no path (and nothing
// of the machine that compiled) reaches the output.
void set_stable_names(llvm::Module& module, const LlvmSource& source);
// Gives every definition but the header's entry points (`NS::run`, `NS_run`) internal linkage
// and drops what nothing then uses: the inlined runtime's inline functions and templates are
// the model's own copies, so two models' objects link together without sharing them.
void internalize_all_but_entry_points(llvm::Module& module, const LlvmSource& source);
// Clones each small internal function called from 2 to 4 sites once per call site that passes
// constant globals (the generated code's `static constexpr` parameter structs), the clone reading
// the constants: g++'s IPA-CP cloning, which LLVM 14's pipeline lacks (its function specialization
// is off, and never for addresses). Each clone has one call site, so the inliner takes it into
// the caller with its parameters folded (squeezenet1_1's three MaxPools ran 3x slower without).
void specialize_constant_arguments(llvm::Module& module);
// optimizer.cpp: runs LLVM's default pipeline for `s`'s -O level and loop options over `module`,
// with `machine`'s cost model.
void optimize_module(llvm::Module& module, const MachineSettings& s, llvm::TargetMachine& machine);
// Drops unused declarations, then checks that every symbol left undefined is a C memory or
// string function (memcpy, memset, memmove, memcmp, bcmp, memchr, strlen) or libm: "" or one line
// naming the first other one.
// With `image_libs`, libwebp's and OpenJPEG's functions (WebP*, opj_*) are allowed too.
std::string check_undefined_symbols(llvm::Module& module, bool image_libs);

}  // namespace onnxc
