// onnxc command line: `onnxc MODEL.onnx -o model.cpp` plus the check, inspect, test, bench and
// ops subcommands.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>

#include "base/temp_dir.h"
#include "base/version.h"
#include "driver/commands.h"
#include "driver/lower_flags.h"

namespace {

// `onnxc test`: its flags, written into `test`.
CLI::App* add_test_command(CLI::App& app, onnxc::TestArgs& test, const char* bounds_help) {
  using namespace onnxc;
  CLI::App* tst = app.add_subcommand("test", "Compile, run and check ONNX backend-test cases");
  tst->add_option("cases", test.cases,
                  "Case folders (model.onnx + test_data_set_*), or folders of them")
      ->required();
  add_lowering_flags(*tst, test.lowering, LoweringScope::kSuite);
  tst->add_option("-j,--jobs", test.jobs, "Parallel jobs")->check(CLI::Range(1, 256));
  tst->add_option("--rtol", test.rtol, "Relative tolerance");
  tst->add_option("--atol", test.atol, "Absolute tolerance");
  tst->add_option("--report", test.report, "Write a TSV report: case, status, detail");
  tst->add_option("--expect", test.expect,
                  "Ratchet file: exit 0 iff every case listed passes (others may fail)");
  tst->add_option("--cache", test.cache_dir, "Cache of built cases (default ~/.cache/onnxc/test)");
  tst->add_option("--cxx", test.cxx, "C++ compiler (default $CXX, else c++)");
  tst->add_option("--batch", test.batch, "Cases per translation unit")->check(CLI::Range(1, 1000));
  tst->add_option("--filter", test.filter, "Only cases whose name contains this");
  tst->add_flag("--keep", test.keep, "Keep the build folder");
  tst->add_flag("-v,--verbose", test.verbose, "Print compiler output of failed builds");
  tst->add_flag("--check-bounds", test.check_bounds, bounds_help);
  tst->add_flag("--partial", test.partial,
                "With --expect: a subset run; listed cases that were not run are not regressions");
  tst->add_option("--fpu", test.fpu,
                  "Compile as if the target's FPU were this one (single: float kernels accumulate "
                  "in float, as on cortex-m4), and still run on this machine")
      ->check(CLI::IsMember({"double", "single", "none"}));
  tst->add_option("--cases", test.case_list,
                  "Run only the cases named in FILE (one folder/case a line), found in the paths");
  tst->add_option("--runtime", test.runtime,
                  "Build each case as compile's --runtime does: inline (default: each .cpp on "
                  "its own, as users build it) or include (one translation unit per batch)")
      ->check(CLI::IsMember({"inline", "include"}));
  tst->add_option("--emit", test.emit,
                  "cpp (the default: each case's .cpp built by the C++ compiler) or obj (compiled "
                  "in-process by the LLVM backend, linked with the harness)")
      ->check(CLI::IsMember({"cpp", "obj"}));
  tst->add_flag("--sanitize", test.sanitize,
                "Build generated code and harness with -fsanitize=address,undefined; a sanitizer "
                "report fails its case");

  return tst;
}

// `onnxc bench`: its flags, written into `bench`.
CLI::App* add_bench_command(CLI::App& app, onnxc::BenchArgs& bench) {
  using namespace onnxc;
  bench.lowering.target = "native";
  CLI::App* bch =
      app.add_subcommand("bench", "Compile with -O3 (--opt-level) for --target and time inference");
  bch->add_option("model", bench.model, "ONNX model")->required();
  add_lowering_flags(*bch, bench.lowering, LoweringScope::kModel);
  bch->add_option("--iters", bench.iters, "Timed inferences")->check(CLI::Range(1, 1000000));
  bch->add_option("--cxx", bench.cxx, "C++ compiler (default $CXX, else c++)");
  bch->add_option("--opt-level", bench.opt_level,
                  "The C++ compiler's optimization level, -O<LEVEL> (default 3; a user's "
                  "RelWithDebInfo build is 2)")
      ->check(CLI::IsMember({"0", "1", "2", "3", "s"}));
  bch->add_option("--svg", bench.svg,
                  "With --profile: also draw the per-layer times into this SVG file");
  bch->add_option("--peak-gflops", bench.peak_gflops,
                  "The machine's peak GFLOP/s: --svg adds %-of-peak bars")
      ->check(CLI::PositiveNumber);
  bch->add_flag("--profile", bench.profile,
                "Time every node (hooks emitted only with this flag); table heaviest first");
  bch->add_option("--out", bench.out_dir,
                  "Build the timing program in this folder and keep it (bench/run serves it)");
  bch->add_flag("--no-run", bench.no_run, "Stop after the build (prints its cost)");
  bch->add_option("--emit", bench.emit,
                  "cpp (the default: the C++ compiler builds the model) or obj (the LLVM backend "
                  "compiles it in-process at -O3; the harness is still built by the C++ compiler)")
      ->check(CLI::IsMember({"cpp", "obj"}));

  return bch;
}

int run_main(int argc, char** argv) {
  using namespace onnxc;
  CLI::App app{"onnxc: ahead-of-time compiler from ONNX models to C++"};
  app.set_version_flag("--version",
                       std::string("onnxc ") + kOnnxcVersion + " (build " + kOnnxcBuildId + ")");
  app.require_subcommand(0, 1);

  const char* bounds_help =
      "Guard zones after every arena buffer and checksums of live values, checked after each node "
      "(a debugging build: a planner bug or kernel overrun fails loudly)";

  CompileArgs compile;
  app.add_option("model", compile.model, "ONNX model to compile");
  app.add_option("-o,--output", compile.output, "Generated .cpp (the .h is written beside it)");
  app.add_option("--name", compile.name, "C++ namespace (default: the model file's stem)");
  app.add_option("--weights", compile.weights, "embedded (in the .cpp) or external (a .bin)")
      ->check(CLI::IsMember({"embedded", "external"}));
  app.add_option("--runtime", compile.runtime,
                 "inline (paste runtime into the .cpp) or include (#include it)")
      ->check(CLI::IsMember({"inline", "include"}));
  app.add_option("--emit", compile.emit,
                 "cpp (the default: a .cpp), or through the LLVM backend llvm (.ll), bc, asm or "
                 "obj (-o names that file; the .h is written beside it)")
      ->check(CLI::IsMember({"cpp", "llvm", "bc", "asm", "obj"}));
  app.add_flag("--print-plan", compile.print_plan, "Print the arena memory plan");
  app.add_flag("--check-bounds", compile.check_bounds, bounds_help);
  add_lowering_flags(app, compile.lowering, LoweringScope::kModel);
  bool list_passes = false;
  app.add_flag("--list-passes", list_passes, "List the passes of the pipeline, in order");

  auto* check = app.add_subcommand("check", "Validate a model against the ONNX IR spec");
  std::string check_model;
  check->add_option("model", check_model, "ONNX model")->required();
  size_t check_max_errors = kDefaultMaxErrors;
  check->add_option("--max-errors", check_max_errors,
                    "Print at most N errors, then how many more (0: all)");

  InspectArgs inspect;
  auto* insp =
      app.add_subcommand("inspect", "Print inputs, outputs, op histogram, weights and arena size");
  insp->add_option("model", inspect.model, "ONNX model")->required();
  add_lowering_flags(*insp, inspect.lowering, LoweringScope::kModel);
  insp->add_flag("--ir", inspect.ir, "Print the IR after inference and folding");
  insp->add_flag("--plan", inspect.plan, "Print the arena memory plan");
  insp->add_flag(
      "--memory", inspect.memory,
      "Memory report: arena, live-bytes lower bound, weights, scratch, per-tensor storage");
  insp->add_flag("--json", inspect.json, "With --memory: as JSON");
  insp->add_option("--svg", inspect.svg,
                   "With --memory: also draw the arena plan (buffers over steps and offsets) "
                   "into this SVG file");

  TestArgs test;
  CLI::App* tst = add_test_command(app, test, bounds_help);
  BenchArgs bench;
  CLI::App* bch = add_bench_command(app, bench);

  bool markdown = false;
  auto* ops = app.add_subcommand("ops", "List supported ops and opset ranges");
  ops->add_flag("--markdown", markdown, "As a Markdown table (the README's support table)");
  bool kernels = false;
  ops->add_flag("--kernels", kernels,
                "List the kernel variants (onnxc/variants.h) and the targets that may use each");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  if (*check) return run_check(check_model, check_max_errors);
  if (*insp) return run_inspect(inspect);
  // test and bench work in temporary folders: an interrupt must not leave them behind.
  if (*tst || *bch) remove_temp_dirs_on_signals();
  if (*tst) return run_test(test);
  if (*bch) return run_bench(bench);
  if (*ops) return kernels ? run_ops_kernels() : run_ops(markdown);
  if (list_passes) return run_list_passes();
  if (compile.model.empty() || compile.output.empty()) {
    std::fprintf(stderr, "onnxc: usage: onnxc MODEL.onnx -o model.cpp (see --help)\n");
    return kExitUsage;
  }
  return run_compile(compile);
}

}  // namespace

// The last resort: the size checks (base/checked_math.h) should make these unreachable, but no
// std::bad_alloc or other exception may reach the user as an abort (exit 134).
int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "onnxc: out of memory (a tensor or buffer is too large)\n");
  } catch (const std::length_error& e) {
    std::fprintf(stderr, "onnxc: a tensor or buffer is too large (%s)\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "onnxc: internal error: %s\n", e.what());
  }
  return onnxc::kExitModelError;
}
