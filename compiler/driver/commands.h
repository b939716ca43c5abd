// The onnxc subcommands. Each returns the process exit code: 0 OK, 1 model or compile error,
// 2 usage error.
#pragma once

#include <string>
#include <vector>

#include "codegen/cpp_emitter.h"
#include "frontend/importer.h"

namespace onnxc {

enum ExitCode { kExitOk = 0, kExitModelError = 1, kExitUsage = 2 };

// --disable-pass (repeatable), --print-after=PASS|all, --stats.
struct PassFlags {
  std::vector<std::string> disable;
  std::string print_after;
  bool stats = false;
  bool verify_each = false;
};

// The flags that shape lowering, one struct for compile, inspect, test and bench, registered once
// by add_lowering_flags (driver/lower_flags.h). `onnxc test` takes the shapes, dims and string
// lengths from each case's data instead, and prints no IR.
struct LoweringFlags {
  std::string target = "generic";  // --target (bench: native)
  int threads = 1;                 // --threads: parts the heavy kernels split into
  size_t max_scratch = 0;          // --max-scratch: caps each kernel's tiles (0: target's budget)
  int64_t max_bytes = kMaxTensorBytes;          // --max-bytes
  size_t max_arena = 0;                         // --max-arena (0: no budget)
  std::vector<std::string> dims, shapes;        // --dim NAME=N, --shape INPUT=DIMS
  bool override_shape = false;                  // --shape may change static dims
  std::vector<std::string> max_string_lengths;  // --max-string-length INPUT=N
  std::vector<std::string> max_trip_counts;     // --max-trip-count NODE=N
  bool keep_sparse = false;                     // --keep-sparse
  size_t max_errors = kDefaultMaxErrors;        // --max-errors
  PassFlags passes;  // --disable-pass, --print-after, --stats, --verify-each
};

// Parses --dim NAME=VALUE and --shape INPUT=1x3x224x224 flags into `options`.
bool parse_dim_flags(const std::vector<std::string>& dims, const std::vector<std::string>& shapes,
                     ImportOptions& options, std::string* error);
// Resolves --target NAME (see ir/target.h) into `options`; `runnable`: onnxc runs the result here.
bool parse_target_flag(const std::string& name, ImportOptions& options, std::string* error,
                       bool runnable = false);
// Applies --threads N to the target in `options` (after parse_target_flag): 1 to 64, and 1 on a
// microcontroller.
bool parse_threads_flag(int threads, ImportOptions& options, std::string* error);
// Flags NAME=N with 0 <= N <= 2^30 into `out`: --max-string-length INPUT=N (the most bytes one
// element of a string input holds), --max-trip-count NODE=N (the most iterations a Loop runs).
bool parse_name_counts(const std::vector<std::string>& flags, const char* flag, const char* what,
                       std::map<std::string, int64_t>& out, std::string* error);

struct CompileArgs {
  std::string model, output, name, weights = "embedded", runtime = "inline";
  // --emit: cpp, or llvm, bc, asm, obj through the LLVM backend (llvm_backend/llvm_backend.h).
  std::string emit = "cpp";
  LoweringFlags lowering;
  bool print_plan = false;
  bool check_bounds = false;  // --check-bounds: arena guard zones and checks in the output
};
int run_compile(const CompileArgs& args);

int run_check(const std::string& model, size_t max_errors = kDefaultMaxErrors);

struct InspectArgs {
  std::string model;
  LoweringFlags lowering;
  bool ir = false, plan = false;
  bool memory = false, json = false;  // --memory [--json]: the memory report
  std::string svg;                    // --memory --svg FILE: the arena plan as a picture
};
int run_inspect(const InspectArgs& args);

struct TestArgs {
  std::vector<std::string> cases;  // case folders, or folders holding cases, or light_*.onnx files
  LoweringFlags lowering;          // target, threads, limits, sparse, trip counts, passes
  int jobs = 2;
  double rtol = 1e-3, atol = 1e-7;
  std::string report, expect, cache_dir, cxx, filter;
  int batch = 24;  // cases compiled per translation unit
  bool keep = false, verbose = false;
  bool partial = false;  // --partial: listed cases that were not run are not regressions
  // --fpu: compile as for --target with this FPU instead ("single": float kernels accumulate in
  // float, as on a Cortex-M4F), still built and run on this machine. Empty: the target's own.
  std::string fpu;
  std::string case_list;      // --cases FILE: only the cases named there (see keep_listed_cases)
  bool sanitize = false;      // --sanitize: ASan+UBSan on the generated code and the harness
  bool check_bounds = false;  // --check-bounds: compile every case with arena guard checks
  // --runtime: inline (the default, what a user gets: each case's .cpp builds on its own) or
  // include (the .cpp #includes runtime/; cases share one translation unit, faster).
  std::string runtime = "inline";
  // --emit: cpp (the C++ compiler builds each case) or obj (the LLVM backend, in-process).
  std::string emit = "cpp";
};
int run_test(const TestArgs& args);

struct BenchArgs {
  std::string model, cxx;
  std::string opt_level = "3";  // --opt-level: the C++ build's -O (the default path's is 2)
  LoweringFlags lowering;       // its target defaults to native
  int iters = 50;
  bool profile = false;      // --profile: per-node timing hooks and table
  std::string svg;           // --profile --svg FILE: the table as a picture
  double peak_gflops = 0;    // --peak-gflops: the picture's %-of-peak bars
  std::string out_dir;       // --out: build here and keep it (else a temp dir)
  bool no_run = false;       // --no-run: build only
  std::string emit = "cpp";  // --emit obj: the model through the LLVM backend at -O3
};
int run_bench(const BenchArgs& args);

int run_ops(bool markdown);
// `onnxc ops --kernels`: one line per kernel variant: name, family, ISA, the targets allowing it.
int run_ops_kernels();

// `onnxc --list-passes`: the pipeline in order with each pass's description.
int run_list_passes();

}  // namespace onnxc
