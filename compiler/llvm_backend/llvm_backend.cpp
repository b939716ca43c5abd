// compile_with_llvm: the LLVM backend's pipeline. clang compiles the generated C++ into a module
// (clang_frontend.cpp); onnxc's module passes make all but the model's entry points internal and
// specialize small kernels for the constant parameters of their few call sites; LLVM's
// optimisation pipeline runs (optimizer.cpp); onnxc's passes place the weights, check the
// undefined symbols and name the module (module_passes.cpp); the verifier checks it; and the
// module is printed (.ll), written as bitcode (.bc) or handed to the target's TargetMachine (.s,
// .o). It decides nothing about the code: the -O level and the target's flags come from the
// command line that clang_command_line() builds (llvm_command_line.cpp).
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <mutex>

#include "llvm_backend/llvm_internal.h"

namespace onnxc {
namespace {

void initialize_llvm_targets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

llvm::CodeGenOpt::Level codegen_level(unsigned opt_level) {
  switch (opt_level) {
    case 0:
      return llvm::CodeGenOpt::None;
    case 1:
      return llvm::CodeGenOpt::Less;
    case 3:
      return llvm::CodeGenOpt::Aggressive;
    default:
      return llvm::CodeGenOpt::Default;
  }
}

// The machine code options clang itself would set for these settings (clang's BackendUtil):
// the float ABI, no floating-point contraction (-ffp-contract=off), .init_array on ELF.
llvm::TargetOptions machine_options(const MachineSettings& s) {
  llvm::TargetOptions options;
  options.FloatABIType = s.float_abi == "hard" ? llvm::FloatABI::Hard
                         : s.float_abi == "soft" || s.float_abi == "softfp"
                             ? llvm::FloatABI::Soft
                             : llvm::FloatABI::Default;
  options.AllowFPOpFusion = llvm::FPOpFusion::Strict;
  options.UseInitArray = true;
  return options;
}

// The TargetMachine of the settings clang's driver chose, or null with `error` set.
std::unique_ptr<llvm::TargetMachine> target_machine(const MachineSettings& s, std::string* error) {
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(s.triple, *error);
  if (!target) {
    *error = "LLVM has no target for '" + s.triple + "': " + *error;
    return nullptr;
  }
  std::unique_ptr<llvm::TargetMachine> machine(
      target->createTargetMachine(s.triple, s.cpu, llvm::join(s.features, ","), machine_options(s),
                                  s.relocation, llvm::None, codegen_level(s.opt_level)));
  if (!machine) *error = "LLVM cannot generate code for '" + s.triple + "'";
  return machine;
}

// Writes `module` as assembly or an object file.
std::string emit_machine_code(llvm::Module& module, llvm::TargetMachine& machine, LlvmEmit emit,
                              std::vector<char>* out) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  const auto file_type =
      emit == LlvmEmit::kAssembly ? llvm::CGFT_AssemblyFile : llvm::CGFT_ObjectFile;
  if (machine.addPassesToEmitFile(passes, stream, nullptr, file_type))
    return "LLVM cannot write this file type for '" + module.getTargetTriple() + "'";
  passes.run(module);
  out->assign(buffer.begin(), buffer.end());
  return "";
}

std::string emit_module(llvm::Module& module, llvm::TargetMachine& machine, LlvmEmit emit,
                        std::vector<char>* out) {
  if (emit == LlvmEmit::kAssembly || emit == LlvmEmit::kObject)
    return emit_machine_code(module, machine, emit, out);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  if (emit == LlvmEmit::kBitcode)
    llvm::WriteBitcodeToFile(module, stream);
  else
    module.print(stream, nullptr);
  out->assign(buffer.begin(), buffer.end());
  return "";
}

}  // namespace

bool llvm_backend_enabled() {
  return true;
}

std::string llvm_backend_disabled_message() {
  return "";
}

std::string compile_with_llvm(const LlvmSource& source, const LlvmOptions& options,
                              std::vector<char>* out) {
  const std::vector<std::string> command_line = clang_command_line(options, source.file_name);
  if (command_line.empty())
    return "--emit: the LLVM backend has no row for --target " + options.target +
           " (compiler/llvm_backend/llvm_targets.h)";
  initialize_llvm_targets();
  llvm::LLVMContext context;
  MachineSettings settings;
  std::string error;
  std::unique_ptr<llvm::Module> module =
      compile_source(source, command_line, context, &settings, &error);
  if (!module) return error;
  std::unique_ptr<llvm::TargetMachine> machine = target_machine(settings, &error);
  if (!machine) return error;
  module->setDataLayout(machine->createDataLayout());
  internalize_all_but_entry_points(*module, source);
  if (settings.size_level == 0 && settings.opt_level >= 2) specialize_constant_arguments(*module);
  optimize_module(*module, settings, *machine);
  // After the optimiser: it need not scan (or fold loads from) megabytes of weights.
  error = define_weights(*module, source);
  if (!error.empty()) return error;
  error = check_undefined_symbols(*module, options.image_libs);
  if (!error.empty()) return error;
  set_stable_names(*module, source);
  std::string broken;
  llvm::raw_string_ostream broken_stream(broken);
  if (llvm::verifyModule(*module, &broken_stream)) {
    broken_stream.flush();
    return "internal: the LLVM module does not verify: " + broken.substr(0, broken.find('\n'));
  }
  return emit_module(*module, *machine, options.emit, out);
}

}  // namespace onnxc
