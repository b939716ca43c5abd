// `onnxc bench`: compiles the model with -O3 -march=native, feeds deterministic inputs and reports
// the latency of one inference as `median_ms=X min_ms=Y`.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "driver/commands.h"
#include "driver/pipeline.h"
#include "support/temp_dir.h"

namespace onnxc {
namespace fs = std::filesystem;

namespace {

// Deterministic, well-conditioned input values: small floats, small non-negative integers.
Tensor bench_input(const Value& v) {
  Tensor t = Tensor::zeros(v.dtype, v.shape);
  int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    double x = static_cast<double>((i * 7919) % 1000) / 1000.0 - 0.5;
    switch (v.dtype) {
      case DataType::kFloat:
        t.as<float>()[i] = static_cast<float>(x);
        break;
      case DataType::kDouble:
        t.as<double>()[i] = x;
        break;
      case DataType::kInt64:
        t.as<int64_t>()[i] = i % 4;
        break;
      case DataType::kInt32:
        t.as<int32_t>()[i] = static_cast<int32_t>(i % 4);
        break;
      default:
        break;  // zeros
    }
  }
  return t;
}

}  // namespace

int run_bench(const BenchArgs& args) {
  ImportOptions options;
  std::string error;
  if (!parse_dim_flags(args.dims, args.shapes, options, &error) ||
      !parse_target_flag(args.target, options, &error, /*runnable=*/true)) {
    std::fprintf(stderr, "onnxc: %s\n", error.c_str());
    return kExitUsage;
  }
  if (args.threads != 1)
    std::fprintf(stderr, "onnxc bench: generated code is single-threaded; --threads %d ignored\n",
                 args.threads);
  PassOptions pass_options;
  pass_options.disabled.insert(args.disable_passes.begin(), args.disable_passes.end());
  if (!(error = check_pass_options(pass_options)).empty()) {
    std::fprintf(stderr, "onnxc bench: %s\n", error.c_str());
    return kExitUsage;
  }
  Diagnostics diag;
  PassManager passes(pass_options);
  auto module = lower_model(args.model, options, diag, &passes);
  CodegenOptions cg;
  cg.name = "bench_model";
  cg.header_file = "bench_model.h";
  cg.flags = "(onnxc bench)";
  GeneratedCode code;
  TempDir tmp("onnxc-bench-");  // removed on every return below
  if (!tmp.ok()) {
    std::fprintf(stderr, "onnxc bench: cannot create a temporary folder\n");
    return kExitModelError;
  }
  const fs::path& dir = tmp.path();
  if (!module || !generate_cpp(*module, cg, code, diag) ||
      !write_generated((dir / "bench_model.cpp").string(), code, cg, diag)) {
    std::fputs(diag.str().c_str(), stderr);
    return kExitModelError;
  }
  for (size_t i = 0; i < module->graph->inputs.size(); ++i) {
    Tensor t = bench_input(*module->graph->inputs[i]);
    std::ofstream(dir / fmt::format("input_{}.bin", i), std::ios::binary)
        .write(reinterpret_cast<const char*>(t.data.data()),
               static_cast<std::streamsize>(t.data.size()));
  }
  {
    std::ofstream main(dir / "main.cpp");
    main << "#include \"bench_model.cpp\"\n#define ONNXC_BENCH_MODEL bench_model\n"
         << "#include \"bench_main.cpp\"\n";
  }
  const char* env_cxx = std::getenv("CXX");
  std::string cxx = !args.cxx.empty() ? args.cxx : (env_cxx && *env_cxx ? env_cxx : "c++");
  std::string build = fmt::format("{} -std=c++17 -O3 {} -I{} -I{} -o {} {}", cxx,
                                  options.target->cxx_flags, dir.string(), ONNXC_TEMPLATES_DIR,
                                  (dir / "bench").string(), (dir / "main.cpp").string());
  int rc = std::system(build.c_str());
  if (rc == 0)
    rc = std::system(
        fmt::format("{} {} {}", (dir / "bench").string(), dir.string(), args.iters).c_str());
  return rc == 0 ? kExitOk : kExitModelError;
}

}  // namespace onnxc
