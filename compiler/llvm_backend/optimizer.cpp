// The LLVM backend's optimisation pipeline: LLVM's default per-module pipeline at the command
// line's -O level, run by onnxc rather than inside clang, so that it runs after the runtime's
// inline functions and templates have become internal to the model's module
// (internalize_all_but_entry_points). The inliner then sees a runtime function called once as
// what it is, a static function with one call site, and inlines it into its caller with the
// caller's constant parameters (as g++ does with the same code), instead of keeping every
// instantiation a `linkonce_odr` body that another object might still call. The pipeline's
// options are the ones clang chose from the command line (-fno-unroll-loops, vectorizers); it
// decides nothing of its own.
#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>

#include "llvm_backend/llvm_internal.h"

namespace onnxc {
namespace {

llvm::OptimizationLevel pipeline_level(const MachineSettings& s) {
  switch (s.opt_level) {
    case 0:
      return llvm::OptimizationLevel::O0;
    case 1:
      return llvm::OptimizationLevel::O1;
    case 3:
      return llvm::OptimizationLevel::O3;
    default:
      return s.size_level == 2   ? llvm::OptimizationLevel::Oz
             : s.size_level == 1 ? llvm::OptimizationLevel::Os
                                 : llvm::OptimizationLevel::O2;
  }
}

}  // namespace

void optimize_module(llvm::Module& module, const MachineSettings& s, llvm::TargetMachine& machine) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = s.unroll_loops;
  tuning.LoopInterleaving = s.unroll_loops;  // as clang: -fno-unroll-loops also stops interleaving
  tuning.LoopVectorization = s.vectorize_loops;
  tuning.SLPVectorization = s.vectorize_slp;

  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager call_graph;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine, tuning);
  // The C library the target has, by its triple (clang's TargetLibraryInfo for no -fno-builtin).
  llvm::TargetLibraryInfoImpl library(llvm::Triple(module.getTargetTriple()));
  functions.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(call_graph);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, call_graph, modules);

  const llvm::OptimizationLevel level = pipeline_level(s);
  llvm::ModulePassManager passes = level == llvm::OptimizationLevel::O0
                                       ? builder.buildO0DefaultPipeline(level)
                                       : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, modules);
}

}  // namespace onnxc
