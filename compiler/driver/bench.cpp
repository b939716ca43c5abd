// `onnxc bench`: compiles the model for --target (default native) with -O3 (--opt-level), feeds
// deterministic inputs and reports the latency of one inference. Output, in order:
//   build: onnxc_s=.. cxx_s=.. cxx_peak_rss_mb=.. source_bytes=.. flops=..   (the build cost)
//   [--profile: a per-node table, heaviest first: time, share, GFLOP/s, op, node]
//   gflop_s=..                                                               (at the median)
//   median_ms=X min_ms=Y
// --emit obj compiles the model with the LLVM backend, in-process at -O3, into an object the
// harness links (onnxc_s then includes that compile; cxx_s is the harness's build).
// With --out DIR the timing program (DIR/bench, which also has a --serve mode for bench/run) and
// its inputs stay in DIR; --no-run stops after the build line.
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "base/temp_dir.h"
#include "codegen/cpp_emitter.h"
#include "driver/commands.h"
#include "driver/host_files.h"
#include "driver/llvm_emit.h"
#include "driver/lower_flags.h"
#include "driver/node_flops.h"
#include "driver/pipeline.h"
#include "driver/profile_picture.h"
#include "llvm_backend/llvm_targets.h"

namespace onnxc {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

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

void write_inputs(const Graph& g, const fs::path& dir) {
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    Tensor t = bench_input(*g.inputs[i]);
    std::ofstream(dir / fmt::format("input_{}.bin", i), std::ios::binary)
        .write(reinterpret_cast<const char*>(t.data.data()),
               static_cast<std::streamsize>(t.data.size()));
  }
}

// The translation unit the C++ compiler builds: the harness, which includes the model after
// defining the profiling hooks.
// With --emit obj it includes only the model's header: the model is an object file.
void write_main(const fs::path& dir, const Graph& g, bool profile, int threads, bool object) {
  std::ofstream main(dir / "main.cpp");
  main << "#define ONNXC_BENCH_MODEL bench_model\n#define ONNXC_BENCH_SOURCE \"bench_model."
       << (object ? "h" : "cpp") << "\"\n";
  main << "#define ONNXC_BENCH_THREADS " << threads << "\n";
  if (profile) main << "#define ONNXC_BENCH_PROFILE_NODES " << g.nodes.size() << "\n";
  main << "#include \"bench_main.cpp\"\n";
}

// --emit obj: the model's code through the LLVM backend at the -O3 the C++ build uses, into
// dir/bench_model.o. False after printing the backend's error.
bool compile_object(const fs::path& dir, const GeneratedCode& code, const CodegenOptions& cg,
                    const Target& target, const std::string& model) {
  LlvmOptions options;
  options.target = std::string(target.name);
  options.opt_level = 3;
  std::vector<char> bytes;
  const std::string error =
      compile_with_llvm(llvm_source(code, cg, "bench_model.cpp"), options, &bytes);
  std::ofstream out(dir / "bench_model.o", std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (error.empty() && out) return true;
  std::fprintf(stderr, "onnxc bench: %s: %s\n", model.c_str(),
               error.empty() ? "cannot write bench_model.o" : error.c_str());
  return false;
}

struct CompileCost {
  double seconds = 0;
  long peak_rss_kb = 0;  // the largest process the compiler ran (cc1plus)
};

// Runs the C++ compiler; its peak memory is the largest RSS among this process's waited-for
// descendants (onnxc bench runs no other child before it).
bool compile(const std::string& command, CompileCost& cost) {
  auto t0 = Clock::now();
  int rc = std::system(command.c_str());
  cost.seconds = seconds_since(t0);
  rusage usage{};
  if (getrusage(RUSAGE_CHILDREN, &usage) == 0) cost.peak_rss_kb = usage.ru_maxrss;
  return rc == 0;
}

// One line of the --profile table per node that took time, heaviest first.
void print_profile(const Graph& g, const std::vector<std::pair<size_t, double>>& node_ns) {
  std::vector<std::pair<size_t, double>> rows = node_ns;
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  double total = 0;
  for (const auto& r : rows) total += r.second;
  std::printf("%4s %10s %6s %10s %9s  %-20s %s\n", "rank", "ms", "share", "MFLOP", "GFLOP/s", "op",
              "node");
  int rank = 0;
  for (const auto& [index, ns] : rows) {
    const Node& n = *g.nodes[index];
    double flops = static_cast<double>(node_flops(n));
    std::printf("%4d %10.4f %5.1f%% %10.3f %9.2f  %-20s %s\n", ++rank, ns / 1e6,
                total > 0 ? 100.0 * ns / total : 0.0, flops / 1e6, ns > 0 ? flops / ns : 0.0,
                n.op_type.c_str(), n.name.c_str());
  }
}

// Runs the timing program and prints its result; with profiling, its per-node lines become the
// profile table.
bool run_timed(const fs::path& dir, const BenchArgs& args, const Module& module) {
  const int iters = args.iters;
  const bool profile = args.profile;
  std::string cmd = fmt::format("'{}' '{}' {}", (dir / "bench").string(), dir.string(), iters);
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return false;
  std::string out;
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, got);
  if (pclose(p) != 0) return false;
  std::vector<std::pair<size_t, double>> node_ns;
  std::string summary;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    size_t index;
    double ns;
    if (std::sscanf(line.c_str(), "node %zu %lf", &index, &ns) == 2 &&
        index < module.graph->nodes.size())
      node_ns.emplace_back(index, ns);
    else if (line.rfind("median_ms=", 0) == 0)
      summary = line;
  }
  if (summary.empty()) return false;
  if (profile) print_profile(*module.graph, node_ns);
  if (profile && !args.svg.empty()) {
    std::ofstream svg(args.svg, std::ios::binary);
    svg << layer_profile_svg(*module.graph, fs::path(args.model).filename().string(), node_ns,
                             args.peak_gflops);
    if (!svg) return false;
  }
  double median_ms = 0;
  std::sscanf(summary.c_str(), "median_ms=%lf", &median_ms);
  double flops = static_cast<double>(graph_flops(*module.graph));
  std::printf("gflop_s=%.3f\n%s\n", median_ms > 0 ? flops / (median_ms * 1e6) : 0.0,
              summary.c_str());
  return true;
}

}  // namespace

int run_bench(const BenchArgs& args) {
  if (!args.svg.empty() && !args.profile) {
    std::fprintf(stderr, "onnxc bench: --svg draws the per-layer profile: add --profile\n");
    return kExitUsage;
  }
  const bool object = args.emit == "obj";
  if (object) {
    const Target* target = find_target(args.lowering.target);
    std::string refusal = args.profile ? "--emit obj: --profile's hooks are macros of the C++ build"
                                       : llvm_emit_refusal("inline", target ? target->name : "");
    if (!refusal.empty()) {
      std::fprintf(stderr, "onnxc bench: %s\n", refusal.c_str());
      return kExitUsage;
    }
  }
  std::optional<TempDir> tmp;
  fs::path dir = args.out_dir;
  if (dir.empty()) {
    tmp.emplace("onnxc-bench-");  // removed on every return below
    if (!tmp->ok()) {
      std::fprintf(stderr, "onnxc bench: cannot create a temporary folder\n");
      return kExitModelError;
    }
    dir = tmp->path();
  } else {
    std::error_code ec;
    fs::create_directories(dir, ec);
  }
  auto t0 = Clock::now();
  int rc = kExitOk;
  auto module = lower_with_flags(args.model, args.lowering, {false, -1, /*runnable=*/true}, &rc);
  if (!module) return rc;
  const Target& target = *module->target;
  CodegenOptions cg;
  cg.name = "bench_model";
  cg.header_file = "bench_model.h";
  cg.flags = args.profile ? "(onnxc bench --profile)" : "(onnxc bench)";
  cg.profile = args.profile;
  if (object) cg.weights = WeightsMode::kLinked;
  GeneratedCode code;
  Diagnostics diag;
  if (!generate_cpp(*module, cg, code, diag) ||
      !write_generated((dir / "bench_model.cpp").string(), code, cg, diag)) {
    std::fputs(diag.str().c_str(), stderr);
    return kExitModelError;
  }
  if (object && !compile_object(dir, code, cg, target, args.model)) return kExitModelError;
  double onnxc_seconds = seconds_since(t0);
  write_inputs(*module->graph, dir);
  // The harness and, for --threads, the pool it runs the model's parts on (-I dir).
  if (!write_host_files(dir)) {
    std::fprintf(stderr, "onnxc bench: cannot write the harness into %s\n", dir.c_str());
    return kExitUsage;
  }
  const int threads = args.lowering.threads;
  write_main(dir, *module->graph, args.profile, threads, object);
  const char* env_cxx = std::getenv("CXX");
  std::string cxx = !args.cxx.empty() ? args.cxx : (env_cxx && *env_cxx ? env_cxx : "c++");
  CompileCost cost;
  if (!compile(fmt::format("{} -std=c++17 -O{} {} {}{} -I{} -o {} {}", cxx, args.opt_level,
                           target.cxx_flags, kNoFpContraction, threads > 1 ? " -pthread" : "",
                           dir.string(), (dir / "bench").string(),
                           (dir / "main.cpp").string() +
                               (object ? " " + (dir / "bench_model.o").string() : "")),
               cost)) {
    std::fprintf(stderr, "onnxc bench: %s: the C++ compiler failed on the generated code\n",
                 args.model.c_str());
    return kExitModelError;
  }
  std::error_code ec;
  std::printf("build: onnxc_s=%.3f cxx_s=%.3f cxx_peak_rss_mb=%.1f source_bytes=%llu flops=%lld\n",
              onnxc_seconds, cost.seconds, static_cast<double>(cost.peak_rss_kb) / 1024.0,
              static_cast<unsigned long long>(fs::file_size(dir / "bench_model.cpp", ec)),
              static_cast<long long>(graph_flops(*module->graph)));
  std::fflush(stdout);
  if (args.no_run) return kExitOk;
  return run_timed(dir, args, *module) ? kExitOk : kExitModelError;
}

}  // namespace onnxc
