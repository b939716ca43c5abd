// The clang front end of the LLVM backend: builds a compiler invocation with clang's driver (which
// finds the target's C++ headers, as `clang++` would) and compiles the generated C++ from memory
// into an llvm::Module: the IR of the command line's -O level before LLVM's passes (optimizer.cpp
// runs them). It writes no file and reads none of its own: the .cpp and .h are served from an
// in-memory file system laid over the real one (the real one only for the standard headers). It
// does not optimise, does not generate code for a machine (llvm_backend.cpp does) and does not
// touch the module afterwards (module_passes.cpp, optimizer.cpp).
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Frontend/Utils.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include "llvm_backend/llvm_internal.h"

namespace onnxc {
namespace {

// The real file system with the generated .cpp and .h laid over it, at the working folder (the
// names the driver and the #include use are relative, so no folder reaches the output).
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> source_file_system(const LlvmSource& source) {
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> overlay(
      new llvm::vfs::OverlayFileSystem(llvm::vfs::getRealFileSystem()));
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory(new llvm::vfs::InMemoryFileSystem);
  overlay->pushOverlay(memory);  // takes the overlay's working folder
  memory->addFile(source.file_name, 0,
                  llvm::MemoryBuffer::getMemBufferCopy(source.source, source.file_name));
  memory->addFile(source.header_name, 0,
                  llvm::MemoryBuffer::getMemBufferCopy(source.header, source.header_name));
  return overlay;
}

// The first line of clang's output that says "error", else its first line.
std::string first_error(const std::string& output) {
  size_t at = output.find("error:");
  size_t begin = at == std::string::npos ? 0 : output.rfind('\n', at);
  begin = begin == std::string::npos || at == std::string::npos ? 0 : begin + 1;
  size_t end = output.find('\n', begin);
  return output.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

MachineSettings settings_of(const clang::CompilerInvocation& invocation) {
  MachineSettings s;
  s.triple = invocation.getTargetOpts().Triple;
  s.cpu = invocation.getTargetOpts().CPU;
  s.features = invocation.getTargetOpts().Features;
  s.float_abi = invocation.getCodeGenOpts().FloatABI;
  s.relocation = invocation.getCodeGenOpts().RelocationModel;
  s.opt_level = invocation.getCodeGenOpts().OptimizationLevel;
  s.size_level = invocation.getCodeGenOpts().OptimizeSize;
  s.unroll_loops = invocation.getCodeGenOpts().UnrollLoops;
  s.vectorize_loops = invocation.getCodeGenOpts().VectorizeLoop;
  s.vectorize_slp = invocation.getCodeGenOpts().VectorizeSLP;
  return s;
}

}  // namespace

std::unique_ptr<llvm::Module> compile_source(const LlvmSource& source,
                                             const std::vector<std::string>& command_line,
                                             llvm::LLVMContext& context, MachineSettings* settings,
                                             std::string* error) {
  std::string output;
  llvm::raw_string_ostream output_stream(output);
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> options(new clang::DiagnosticOptions);
  clang::TextDiagnosticPrinter printer(output_stream, options.get());
  llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> diagnostics(new clang::DiagnosticsEngine(
      new clang::DiagnosticIDs, options.get(), &printer, /*ShouldOwnClient=*/false));
  auto files = source_file_system(source);

  std::vector<const char*> argv;
  for (const std::string& arg : command_line) argv.push_back(arg.c_str());
  std::shared_ptr<clang::CompilerInvocation> invocation =
      clang::createInvocationFromCommandLine(argv, diagnostics, files);
  if (!invocation) {
    output_stream.flush();
    *error = "clang: " +
             (output.empty() ? std::string("cannot build the invocation") : first_error(output));
    return nullptr;
  }
  invocation->getFrontendOpts().DisableFree = false;   // the driver's default leaks, per compile
  invocation->getDiagnosticOpts().ShowCarets = false;  // else "N errors generated." on stderr
  // The IR of -O2 (type-based alias metadata, lifetimes, no optnone), not yet optimised:
  // optimize_module runs the pipeline once the runtime's functions are internal.
  invocation->getCodeGenOpts().DisableLLVMPasses = true;
  *settings = settings_of(*invocation);

  clang::CompilerInstance compiler;
  compiler.setInvocation(std::move(invocation));
  compiler.createDiagnostics(&printer, /*ShouldOwnClient=*/false);
  compiler.createFileManager(files);
  clang::EmitLLVMOnlyAction action(&context);
  const bool ok = compiler.ExecuteAction(action);
  output_stream.flush();
  if (!ok || compiler.getDiagnostics().hasErrorOccurred()) {
    *error = "clang: " + first_error(output);
    return nullptr;
  }
  return action.takeModule();
}

}  // namespace onnxc
