// The onnxc subcommands. Each returns the process exit code: 0 OK, 1 model or compile error,
// 2 usage error.
#pragma once

#include <string>
#include <vector>

#include "codegen/cpp_emitter.h"
#include "frontend/importer.h"

namespace onnxc {

enum ExitCode { kExitOk = 0, kExitModelError = 1, kExitUsage = 2 };

// Parses --dim NAME=VALUE and --shape INPUT=1x3x224x224 flags into `options`.
bool parse_dim_flags(const std::vector<std::string>& dims, const std::vector<std::string>& shapes,
                     ImportOptions& options, std::string* error);

struct CompileArgs {
  std::string model, output, name, weights = "embedded", runtime = "inline";
  std::vector<std::string> dims, shapes;
  bool print_plan = false;
  bool no_fusion = false;  // --no-fusion
  std::string command_line;
};
int run_compile(const CompileArgs& args);

int run_check(const std::string& model);

struct InspectArgs {
  std::string model;
  std::vector<std::string> dims, shapes;
  bool ir = false, plan = false;
  bool no_fusion = false;  // --no-fusion
};
int run_inspect(const InspectArgs& args);

struct TestArgs {
  std::vector<std::string> cases;  // case folders, or folders holding cases, or light_*.onnx files
  int jobs = 2;
  double rtol = 1e-3, atol = 1e-7;
  std::string report, expect, cache_dir, cxx, filter;
  int batch = 24;  // cases compiled per translation unit
  bool keep = false, verbose = false;
};
int run_test(const TestArgs& args);

struct BenchArgs {
  std::string model, cxx;
  std::vector<std::string> dims, shapes;
  int iters = 50, threads = 1;
  bool no_fusion = false;  // --no-fusion
};
int run_bench(const BenchArgs& args);

int run_ops(bool markdown);

}  // namespace onnxc
