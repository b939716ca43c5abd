// `onnxc test`: runs ONNX backend-test cases. Phases, each parallel over -j workers:
//   1. lower and generate C++ for every case (in-process), pinning input shapes from the data;
//   2. build batches of cases as one translation unit + harness each (cached by content);
//   3. run each case's data sets through its batch binary and compare outputs in-process.
// A batch that fails to build is split and rebuilt case by case, so one bad case fails alone.
// Random ops (those whose handler reports random_range()): outputs that depend on one are checked
// on type, shape and range only, and the case is reported PASS-RANDOM, counted on its own summary
// line and never as a PASS. For the ratchet (--expect) a PASS-RANDOM case meets its listed
// expectation (it keeps all that can be checked of it), and newly range-passing cases are counted
// apart from the newly passing ones.
// --emit obj compiles each case's .cpp in-process with the LLVM backend (at the -O1 the C++
// compiler gets, for the same target flags) and links the objects with the same harness.
// --sanitize builds the generated code and the harness with ASan+UBSan (flags part of the cache
// key); a sanitizer report in a run fails that case, is counted on its own line, and makes the
// exit code 1 even where the ratchet would pass.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "base/sha256.h"
#include "base/temp_dir.h"
#include "base/version.h"
#include "driver/commands.h"
#include "driver/compare.h"
#include "driver/host_files.h"
#include "driver/llvm_emit.h"
#include "driver/pipeline.h"
#include "driver/progress.h"
#include "driver/test_case.h"
#include "frontend/model_loader.h"
#include "llvm_backend/llvm_targets.h"
#include "ops/op.h"
#include "ops/strings.h"

namespace onnxc {
namespace fs = std::filesystem;

namespace {

template <typename F>
void parallel_for(size_t n, int jobs, F&& fn) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < std::max(1, jobs); ++w)
    workers.emplace_back([&] {
      for (size_t i = next++; i < n; i = next++) fn(i);
    });
  for (auto& t : workers) t.join();
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// Creates one folder inside the work folder, whose parent must exist. Never create_directories:
// a worker thread still running after the signal handler removed the work folder would bring the
// work folder back, and it would outlive onnxc.
void make_work_folder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directory(dir, ec);
}

// Runs a shell command, capturing combined output; returns the exit status.
int run_command(const std::string& cmd, std::string* output) {
  std::string full = cmd + " 2>&1";
  FILE* pipe = popen(full.c_str(), "r");
  if (!pipe) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0)
    if (output && output->size() < 20000) output->append(buf, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// What a case that calls ImageDecoder's runtime, with its library-backed decoders
// (onnxc/image_system.h: WebP through libwebp, JPEG 2000 through OpenJPEG) is built with: the macro
// that turns them on, and pkg-config's compile and link flags. Empty when pkg-config does not know
// both libraries; such cases are then built without them, and refuse WebP and JPEG 2000 images at
// run time.
struct ImageLibraryFlags {
  std::string cflags, libs;
};
const ImageLibraryFlags& image_library_flags() {
  static const ImageLibraryFlags flags = [] {
    ImageLibraryFlags f;
    std::string cflags, libs;
    if (run_command("pkg-config --cflags libwebp libopenjp2", &cflags) == 0 &&
        run_command("pkg-config --libs libwebp libopenjp2", &libs) == 0) {
      auto trim = [](std::string s) {
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
        return s;
      };
      f.cflags = "-DONNXC_IMAGE_LIBS " + trim(cflags);
      f.libs = trim(libs);
    }
    return f;
  }();
  return flags;
}

// The sanitizer flags of --sanitize: no recovery, so the first report ends the run with a nonzero
// exit; frame pointers for readable stacks. The baseline copy of each kernel only
// (ONNXC_NO_ISA_DISPATCH, onnxc/base.h): the default target's AVX2 and AVX-512 copies, flattened
// at -O3, took 30-40x as long to build instrumented (a 1-channel Conv case 100 s instead of 3);
// they run the same C++ or are the ISA tiles whose overruns the variant checkers' guard words
// catch (tests/runtime/conv_variants_check.cpp).
constexpr const char* kSanitizeFlags =
    "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer "
    "-DONNXC_NO_ISA_DISPATCH";
// The run's environment under --sanitize: leaks are reported too; the user's own settings, if
// any, come last and win.
constexpr const char* kSanitizeEnv =
    "ASAN_OPTIONS=detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS} "
    "UBSAN_OPTIONS=print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS} ";

// The first line of a sanitizer report in a run's output, or "" if there is none. Looked for
// whatever the exit code, so that halt_on_error=0 in the user's options cannot turn it into a pass.
std::string sanitizer_report(const std::string& output) {
  static const char* const kMarkers[] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                                         "runtime error:", "WARNING: AddressSanitizer"};
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    for (const char* marker : kMarkers)
      if (line.find(marker) != std::string::npos) return line;
  return "";
}

std::string first_line(const std::string& s) {
  auto pos = s.find('\n');
  return pos == std::string::npos ? s : s.substr(0, pos);
}

struct Prepared {
  bool ok = false;
  std::vector<size_t> bound_inputs;  // data inputs compiled in as constants (see prepare())
  std::string symbol;                // namespace of the generated code
  fs::path cpp;                      // generated source
  std::vector<uint8_t> weights;      // --emit obj: the bytes the LLVM backend defines them from
  std::vector<DataType> output_types;
  std::vector<Shape> output_shapes;
  std::vector<int64_t> input_slots, output_slots;         // string tensors' slot bytes (strings.h)
  std::vector<std::optional<ValueRange>> random_outputs;  // per output: drawn at random, its range
};

// Which graph outputs depend on a random op, and the range each can be checked on: a random op's
// own output has the op's range; anything computed from one is only checked to be finite.
// Per graph input (by position), the longest string any data set feeds it: the capacity string
// inputs are compiled for (like --max-string-length; 0 for numeric inputs).
std::vector<int64_t> longest_input_strings(const TestCase& tc) {
  std::vector<int64_t> longest;
  for (const TestData& d : tc.datasets) {
    longest.resize(std::max(longest.size(), d.input_layout.size()), 0);
    for (size_t k = 0; k < d.input_layout.size(); ++k)
      for (size_t i = d.input_layout[k].first;
           i < d.input_layout[k].first + d.input_layout[k].count && i < d.inputs.size(); ++i)
        for (const std::string& s : d.inputs[i].strings)
          longest[k] = std::max(longest[k], static_cast<int64_t>(s.size()));
  }
  return longest;
}

std::vector<std::optional<ValueRange>> random_outputs(const Graph& g) {
  std::map<const Value*, ValueRange> drawn;
  for (const auto& node : g.nodes) {
    bool from_random = false;
    for (const Value* in : node->inputs) from_random = from_random || (in && drawn.count(in));
    for (size_t k = 0; k < node->outputs.size(); ++k) {
      const Value* out = node->outputs[k];
      if (!out) continue;
      const RandomRange r = node->handler ? node->handler->random_range(*node, k) : RandomRange{};
      if (r.random)
        drawn[out] = ValueRange{r.low, r.high, r.integral};
      else if (from_random)
        drawn[out] = ValueRange{};
    }
  }
  std::vector<std::optional<ValueRange>> result;
  for (const Value* v : g.outputs)
    result.push_back(drawn.count(v) ? std::optional<ValueRange>(drawn[v]) : std::nullopt);
  return result;
}

class TestRunner {
 public:
  explicit TestRunner(const TestArgs& args) : args_(args) {
    const char* env_cxx = std::getenv("CXX");
    cxx_ = !args.cxx.empty() ? args.cxx : (env_cxx && *env_cxx ? env_cxx : "c++");
    cache_ = args.cache_dir;
    if (cache_.empty()) {
      const char* home = std::getenv("HOME");
      cache_ = fs::path(home ? home : "/tmp") / ".cache" / "onnxc" / "test";
    }
    fs::create_directories(cache_);
    work_ = work_dir_.path();  // removed on scope exit and on SIGINT/SIGTERM (base/temp_dir.h)
    if (args_.keep) work_dir_.keep();
  }

  int run() {
    if (!work_dir_.ok()) {
      std::fprintf(stderr, "onnxc test: cannot create a temporary folder\n");
      return kExitUsage;
    }
    std::string error;
    PassOptions pass_options;
    pass_options.disabled.insert(args_.lowering.passes.disable.begin(),
                                 args_.lowering.passes.disable.end());
    error = check_pass_options(pass_options);
    if (!error.empty()) {
      std::fprintf(stderr, "onnxc test: %s\n", error.c_str());
      return kExitUsage;
    }
    ImportOptions target_options;
    if (!parse_target_flag(args_.lowering.target, target_options, &error, /*runnable=*/true) ||
        !parse_threads_flag(args_.lowering.threads, target_options, &error)) {
      std::fprintf(stderr, "onnxc test: %s\n", error.c_str());
      return kExitUsage;
    }
    target_ = with_max_scratch(*target_options.target, args_.lowering.max_scratch);
    if (!parse_name_counts(args_.lowering.max_trip_counts, "--max-trip-count", "NODE", trip_counts_,
                           &error)) {
      std::fprintf(stderr, "onnxc test: %s\n", error.c_str());
      return kExitUsage;
    }
    if (!args_.fpu.empty()) {  // the compiler's FPU-driven decisions, checked on the host
      fpu_target_ = *target_;
      fpu_target_.fpu = args_.fpu == "double"   ? Fpu::kDouble
                        : args_.fpu == "single" ? Fpu::kSingle
                                                : Fpu::kNone;
      target_ = &fpu_target_;
    }
    if (emit_obj()) {
      if (args_.sanitize) error = "--emit obj: --sanitize needs the C++ compiler's instrumentation";
      if (error.empty()) error = llvm_emit_refusal(args_.runtime, target_->name);
      if (!error.empty()) {
        std::fprintf(stderr, "onnxc test: %s\n", error.c_str());
        return kExitUsage;
      }
    }
    cases_ = discover_test_cases(args_.cases, args_.filter, &error);
    if (error.empty() && !args_.case_list.empty())
      keep_listed_cases(cases_, args_.case_list, &error);
    if (!error.empty()) {
      std::fprintf(stderr, "onnxc test: %s\n", error.c_str());
      return kExitUsage;
    }
    if (!write_host_files(work_ / "host")) {
      std::fprintf(stderr, "onnxc test: cannot write the harness into %s\n", work_.c_str());
      return kExitUsage;
    }
    results_.assign(cases_.size(), CaseResult{});
    sanitizer_found_.assign(cases_.size(), 0);
    prepared_.assign(cases_.size(), Prepared{});
    generate_all();
    build_and_run();
    return report();
  }

 private:
  void prepare(size_t i) {
    TestCase& tc = cases_[i];
    CaseResult& r = results_[i];
    std::string error;
    if (!load_case_data(tc, &error)) {
      r = {CaseStatus::kUnsupported, error};
      return;
    }
    ImportOptions options;
    options.target = target_;
    options.check_bounds = args_.check_bounds;
    options.keep_sparse = args_.lowering.keep_sparse;
    options.max_bytes = args_.lowering.max_bytes;
    options.max_arena = args_.lowering.max_arena;
    options.max_trip_counts = trip_counts_;
    options.default_dim = tc.light ? 1 : -1;
    if (!tc.datasets.empty()) {  // shapes from the first data set; containers' layouts too
      const TestData& d = tc.datasets[0];
      for (size_t k = 0; k < d.input_layout.size(); ++k) {
        const DataLayout& l = d.input_layout[k];
        options.positional_input_shapes.push_back(
            l.kind == ValueKind::kTensor ? d.inputs[l.first].shape : Shape{});
        if (l.kind == ValueKind::kTensor) continue;
        ContainerLayout& c = options.positional_containers[k];
        c.absent = l.absent;
        for (size_t i = 0; i < l.count; ++i) c.shapes.push_back(d.inputs[l.first + i].shape);
      }
      options.positional_string_lengths = longest_input_strings(tc);
    }
    Diagnostics diag;
    PassOptions pass_options;
    pass_options.disabled.insert(args_.lowering.passes.disable.begin(),
                                 args_.lowering.passes.disable.end());
    pass_options.verify_each = args_.lowering.passes.verify_each;
    PassManager passes(pass_options);
    auto module = lower_model(tc.model.string(), options, diag, &passes);
    Prepared& p = prepared_[i];
    // An op that needs a compile-time value (Reshape's shape, Slice's starts) fed from a graph
    // input: specialize the model to this case's small inputs and say so in the result.
    if (!module && !tc.datasets.empty() && !diag.errors().empty() &&
        diag.errors()[0].find("must be a constant") != std::string::npos) {
      onnx::ModelProto proto;
      Diagnostics load_diag;
      if (load_model(tc.model.string(), proto, load_diag)) {
        std::set<std::string> initializers;
        for (const auto& init : proto.graph().initializer()) initializers.insert(init.name());
        size_t position = 0;
        for (const auto& in : proto.graph().input()) {
          if (initializers.count(in.name())) continue;
          const TestData& d = tc.datasets[0];
          const bool tensor = position < d.input_layout.size() &&
                              d.input_layout[position].kind == ValueKind::kTensor;
          const Tensor* data = tensor ? &d.inputs[d.input_layout[position].first] : nullptr;
          if (data && data->numel() <= 64) {
            options.constant_inputs[in.name()] = *data;
            p.bound_inputs.push_back(position);
          }
          ++position;
        }
        diag = Diagnostics();
        module = lower_model(tc.model.string(), options, diag, &passes);
      }
    }
    p.symbol = fmt::format("case{}", i);
    CodegenOptions cg;
    cg.name = p.symbol;
    cg.header_file = p.symbol + ".h";
    cg.runtime = inline_runtime() ? RuntimeMode::kInline : RuntimeMode::kInclude;
    if (emit_obj()) cg.weights = WeightsMode::kLinked;
    std::string trips;
    for (const auto& t : args_.lowering.max_trip_counts) trips += " --max-trip-count " + t;
    cg.flags = fmt::format("(onnxc test{}{}{})", args_.check_bounds ? " --check-bounds" : "",
                           args_.lowering.keep_sparse ? " --keep-sparse" : "", trips);
    GeneratedCode code;
    if (module && tc.light) synthesize_light_inputs(tc, *module->graph);
    if (!module || !generate_cpp(*module, cg, code, diag)) {
      std::string msg = diag.errors().empty() ? "compile error" : diag.errors()[0];
      bool unsupported = msg.find("not supported") != std::string::npos ||
                         msg.find("unsupported") != std::string::npos;
      r = {unsupported ? CaseStatus::kUnsupported : CaseStatus::kFail, msg};
      return;
    }
    for (const Value* v : module->graph->outputs) {
      p.output_types.push_back(v->dtype);
      p.output_shapes.push_back(v->shape);
      p.output_slots.push_back(v->dtype == DataType::kString ? v->string_slot() : 0);
    }
    for (const Value* v : module->graph->inputs)
      p.input_slots.push_back(v->dtype == DataType::kString ? v->string_slot() : 0);
    p.random_outputs = random_outputs(*module->graph);
    fs::path dir = work_ / p.symbol;
    make_work_folder(dir);
    p.cpp = dir / (p.symbol + ".cpp");
    write_generated(p.cpp.string(), code, cg, diag);
    p.weights = std::move(code.weights);
    p.ok = diag.ok();
  }

  bool inline_runtime() const { return args_.runtime != "include"; }
  bool emit_obj() const { return args_.emit == "obj"; }

  // --emit obj: compiles case `k`'s generated code with the LLVM backend into `object`, at the
  // -O level compile_flags() gives the C++ compiler. False (the error in `log`) on failure.
  // image_libs: the case's ImageDecoder decodes WebP and JPEG 2000 (image_library_flags()).
  bool compile_with_llvm_backend(size_t k, bool image_libs, const fs::path& object,
                                 std::string* log) const {
    const Prepared& p = prepared_[k];
    GeneratedCode code;
    code.source = read_text(p.cpp);
    code.header = read_text(p.cpp.parent_path() / (p.symbol + ".h"));
    code.weights = p.weights;
    CodegenOptions cg;
    cg.name = p.symbol;
    cg.header_file = p.symbol + ".h";
    cg.weights = WeightsMode::kLinked;
    LlvmOptions options;
    options.emit = LlvmEmit::kObject;
    options.target = std::string(target_->name);
    options.opt_level = 1;
    if (image_libs) {
      options.image_libs = true;
      std::istringstream flags(image_library_flags().cflags);
      for (std::string flag; flags >> flag;)
        if (flag.rfind("-I", 0) == 0) options.image_include_dirs.push_back(flag.substr(2));
    }
    std::vector<char> bytes;
    const std::string error =
        compile_with_llvm(llvm_source(code, cg, p.symbol + ".cpp"), options, &bytes);
    if (!error.empty()) {
      *log += p.symbol + ".cpp: error: " + error + "\n";
      return false;
    }
    std::ofstream out(object, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
  }

  // Flags for the generated code; the harness adds -I for its template and the runtime's thread
  // pool. Inline-mode code gets no -I of the runtime: it must build on its own, as a user's does.
  std::string compile_flags() const {
    return fmt::format(
        "-std=c++17 -O1 {} {} {}{}-Wall -Wextra -Werror", target_->cxx_flags, kNoFpContraction,
        args_.sanitize ? std::string(kSanitizeFlags) + " " : "",
        args_.lowering.threads > 1
            ? fmt::format("-pthread -DONNXC_HARNESS_THREADS={} ", args_.lowering.threads)
            : "");
  }
  // The harness template and the runtime headers, written once per run (driver/host_files.h).
  std::string harness_includes() const { return " -I" + (work_ / "host").string(); }

  // Builds a binary for `members` (indices into cases_); returns its path or "" on failure.
  // Include mode builds one translation unit: every case's .cpp and the harness (the runtime's
  // include guards let the cases share it). Inline mode builds each case's .cpp as its own
  // translation unit, as a user would, since each pastes its own cut of the runtime (no guards);
  // the harness, including only the cases' headers, is one more.
  fs::path build_batch(const std::vector<size_t>& members, std::string* log) {
    std::string unity, models, src;
    for (size_t k : members) {
      const Prepared& p = prepared_[k];
      unity += read_text(p.cpp.parent_path() / (p.symbol + ".h"));
      unity += read_text(p.cpp);
      models += fmt::format(" X({})", p.symbol);
      const fs::path own = p.cpp.parent_path() / (p.symbol + (inline_runtime() ? ".h" : ".cpp"));
      src += fmt::format("#include \"{}\"\n", own.string());
    }
    src += fmt::format("#define ONNXC_HARNESS_MODELS{}\n#include \"test_harness.cpp\"\n", models);
    // ImageDecoder's runtime, #included or inlined.
    const bool image_libs = unity.find("\"onnxc/image_decoder.h\"") != std::string::npos ||
                            unity.find("ONNXC_IMAGE_LIBS") != std::string::npos;
    const std::string cflags =
        compile_flags() + (image_libs ? " " + image_library_flags().cflags : std::string());
    const std::string libs = image_libs ? image_library_flags().libs : std::string();
    std::string weights;  // --emit obj: the weights are not in the sources
    for (size_t k : members)
      if (emit_obj())
        weights +=
            sha256_hex(std::string(prepared_[k].weights.begin(), prepared_[k].weights.end()));
    std::string key = sha256_hex(fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}", kOnnxcBuildId, cxx_,
                                             cflags, libs, args_.runtime, args_.emit, weights,
                                             unity, src.substr(src.rfind("#define"))));
    fs::path bin = cache_ / (key.substr(0, 32) + ".bin");
    if (fs::exists(bin)) return bin;
    fs::path batch_dir = work_ / fmt::format("batch_{}", key.substr(0, 16));
    make_work_folder(batch_dir);
    fs::path batch_src = batch_dir / "harness.cpp";
    write_text(batch_src, src);
    fs::path tmp = bin;
    tmp += fmt::format(".tmp{}", getpid());
    std::string objects;
    if (emit_obj()) {
      for (size_t k : members) {
        const fs::path object = batch_dir / (prepared_[k].symbol + ".o");
        if (!compile_with_llvm_backend(k, !libs.empty(), object, log)) return {};
        objects += " " + object.string();
      }
    } else if (inline_runtime()) {
      std::string cmd = fmt::format("cd {} && {} {} -c", batch_dir.string(), cxx_, cflags);
      for (size_t k : members) {
        cmd += " " + prepared_[k].cpp.string();
        objects += " " + (batch_dir / (prepared_[k].symbol + ".o")).string();
      }
      if (run_command(cmd, log) != 0) return {};
    }
    std::string cmd = fmt::format("{} {}{} -o {} {}{}", cxx_, cflags, harness_includes(),
                                  tmp.string(), batch_src.string(), objects);
    for (size_t k : members) cmd += " -I" + prepared_[k].cpp.parent_path().string();
    if (!libs.empty()) cmd += " " + libs;
    if (run_command(cmd, log) != 0) return {};
    fs::rename(tmp, bin);
    return bin;
  }

  // Phase 1 over every case, with a progress line (driver/progress.h).
  void generate_all() {
    Progress progress("cases lowered to C++", cases_.size());
    std::atomic<size_t> done{0}, refused{0};
    parallel_for(cases_.size(), args_.jobs, [&](size_t i) {
      prepare(i);
      refused += !prepared_[i].ok;
      const size_t n = ++done;
      progress.update(n, fmt::format("{} not compiled", refused.load()), n == cases_.size());
    });
    progress.finish();
  }

  void build_and_run() {
    std::vector<size_t> ready;
    for (size_t i = 0; i < cases_.size(); ++i)
      if (prepared_[i].ok) ready.push_back(i);
    std::vector<std::vector<size_t>> batches;
    for (size_t k = 0; k < ready.size(); k += static_cast<size_t>(args_.batch))
      batches.emplace_back(
          ready.begin() + static_cast<long>(k),
          ready.begin() + static_cast<long>(std::min(ready.size(), k + args_.batch)));
    Progress progress("cases built and run", ready.size());
    std::atomic<size_t> done{0}, passed{0}, failed{0};
    parallel_for(batches.size(), args_.jobs, [&](size_t b) {
      build_and_run_batch(batches[b]);
      for (size_t i : batches[b]) {
        const CaseStatus s = results_[i].status;
        (s == CaseStatus::kPass || s == CaseStatus::kPassRandom ? passed : failed)++;
      }
      const size_t n = done += batches[b].size();
      progress.update(n, fmt::format("{} passed, {} failed", passed.load(), failed.load()), true);
    });
    progress.finish();
  }

  // Builds one batch and runs its cases; a batch that does not build is split case by case.
  void build_and_run_batch(const std::vector<size_t>& batch) {
    std::string log;
    fs::path bin = build_batch(batch, &log);
    if (!bin.empty()) {
      for (size_t k = 0; k < batch.size(); ++k) run_case(batch[k], bin, k);
      return;
    }
    for (size_t i : batch) {  // isolate the case(s) that do not build
      std::string own_log;
      fs::path own = batch.size() > 1 ? build_batch({i}, &own_log) : fs::path{};
      if (own.empty()) {
        const std::string& l = batch.size() > 1 ? own_log : log;
        results_[i] = {CaseStatus::kFail, "generated code does not build: " + first_error(l)};
        if (args_.verbose) std::fprintf(stderr, "%s\n", l.c_str());
      } else {
        run_case(i, own, 0);
      }
    }
  }

  static std::string first_error(const std::string& log) {
    std::istringstream in(log);
    std::string line;
    while (std::getline(in, line))
      if (line.find("error") != std::string::npos) return line;
    return first_line(log);
  }

  void run_case(size_t i, const fs::path& bin, size_t index) {
    const TestCase& tc = cases_[i];
    const Prepared& p = prepared_[i];
    // A case with nothing to compare proves nothing: it fails instead of passing vacuously.
    const bool any_output = std::any_of(tc.datasets.begin(), tc.datasets.end(),
                                        [](const TestData& d) { return !d.outputs.empty(); });
    if (!any_output) {
      results_[i] = {CaseStatus::kFail,
                     tc.datasets.empty()
                         ? "nothing compared: the case has no test_data_set_* folder"
                         : "nothing compared: no test_data_set_* holds an output_*.pb"};
      return;
    }
    for (size_t d = 0; d < tc.datasets.size(); ++d) {
      const TestData& data = tc.datasets[d];
      fs::path dir = work_ / p.symbol / fmt::format("data{}", d);
      make_work_folder(dir);
      size_t written = 0;  // sequences and optionals go in flattened (DataLayout)
      for (size_t k = 0; k < data.input_layout.size(); ++k) {
        if (std::count(p.bound_inputs.begin(), p.bound_inputs.end(), k)) continue;
        const DataLayout& l = data.input_layout[k];
        for (size_t i = l.first; i < l.first + l.count; ++i) {
          const int64_t slot = written < p.input_slots.size() ? p.input_slots[written] : 0;
          const std::vector<char> bytes =
              data.inputs[i].dtype == DataType::kString
                  ? to_slots(data.inputs[i], slot)
                  : std::vector<char>(data.inputs[i].data.begin(), data.inputs[i].data.end());
          std::ofstream(dir / fmt::format("input_{}.bin", written++), std::ios::binary)
              .write(bytes.data(), static_cast<std::streamsize>(
                                       data.inputs[i].dtype == DataType::kString
                                           ? static_cast<size_t>(data.inputs[i].numel() * slot)
                                           : bytes.size()));
        }
      }
      std::string out;
      int rc = run_command(fmt::format("{}timeout 120 {} {} {}", args_.sanitize ? kSanitizeEnv : "",
                                       bin.string(), index, dir.string()),
                           &out);
      const std::string finding = sanitizer_report(out);
      if (!finding.empty()) {
        sanitizer_found_[i] = 1;
        results_[i] = {CaseStatus::kFail,
                       fmt::format("data set {}: sanitizer report (exit {}): {}", d, rc, finding)};
        if (args_.verbose) std::fprintf(stderr, "%s\n", out.c_str());
        return;
      }
      if (rc != 0) {
        results_[i] = {CaseStatus::kFail,
                       fmt::format("data set {}: generated code exited with {}{}", d, rc,
                                   rc == 124 ? " (timeout)" : "")};
        return;
      }
      const bool containers =
          std::any_of(data.output_layout.begin(), data.output_layout.end(),
                      [](const DataLayout& l) { return l.kind != ValueKind::kTensor; });
      if (containers && data.outputs.size() != p.output_types.size()) {  // count tensors
        results_[i] = {CaseStatus::kFail,
                       fmt::format("data set {}: the model gives {} output tensors, {} expected", d,
                                   p.output_types.size(), data.outputs.size())};
        return;
      }
      for (size_t k = 0; k < data.outputs.size(); ++k) {
        if (k >= p.output_types.size()) {
          results_[i] = {CaseStatus::kFail, fmt::format("model has no output {}", k)};
          return;
        }
        Tensor actual = Tensor::zeros(p.output_types[k], p.output_shapes[k]);
        std::string bytes = read_text(dir / fmt::format("output_{}.bin", k));
        const bool strings = actual.dtype == DataType::kString;
        const size_t want =
            strings ? static_cast<size_t>(actual.numel() * p.output_slots[k]) : actual.data.size();
        if (bytes.size() != want) {
          results_[i] = {CaseStatus::kFail, fmt::format("output {}: {} bytes written, {} expected",
                                                        k, bytes.size(), want)};
          return;
        }
        if (strings) {
          for (size_t e = 0; e < actual.strings.size(); ++e) {
            const char* slot = bytes.data() + e * static_cast<size_t>(p.output_slots[k]);
            actual.strings[e] = std::string(slot, strnlen(slot, p.output_slots[k]));
          }
        } else {
          std::copy(bytes.begin(), bytes.end(), actual.data.begin());
        }
        Tolerance tol{tc.rtol > 0 ? tc.rtol : args_.rtol, args_.atol};
        const auto& range = p.random_outputs[k];
        Comparison c = range ? compare_random(actual, data.outputs[k], *range)
                             : compare_tensors(actual, data.outputs[k], tol);
        if (!c.ok) {
          results_[i] = {CaseStatus::kFail,
                         fmt::format("data set {} output {}: {}", d, k, c.detail)};
          return;
        }
      }
    }
    const bool random = std::any_of(p.random_outputs.begin(), p.random_outputs.end(),
                                    [](const auto& r) { return r.has_value(); });
    if (random) {
      results_[i] = {CaseStatus::kPassRandom,
                     "random op: checked on type, shape and range only (onnxc's own generator)"};
      return;
    }
    results_[i] = {
        CaseStatus::kPass,
        p.bound_inputs.empty()
            ? ""
            : fmt::format("specialized to the values of {} small input(s)", p.bound_inputs.size()),
        !p.bound_inputs.empty()};
  }

  int report() {
    size_t passed = 0, failed = 0, skipped = 0, random = 0, specialized = 0;
    std::string tsv = "case\tstatus\tdetail\n";
    for (size_t i = 0; i < cases_.size(); ++i) {
      const CaseResult& r = results_[i];
      const char* status = r.status == CaseStatus::kPass         ? "PASS"
                           : r.status == CaseStatus::kPassRandom ? "PASS-RANDOM"
                           : r.status == CaseStatus::kFail       ? "FAIL"
                                                                 : "UNSUPPORTED";
      (r.status == CaseStatus::kPass         ? passed
       : r.status == CaseStatus::kPassRandom ? random
       : r.status == CaseStatus::kFail       ? failed
                                             : skipped)++;
      specialized += r.specialized;
      std::printf("%-12s %s%s%s\n", status, cases_[i].name.c_str(), r.detail.empty() ? "" : ": ",
                  r.detail.c_str());
      tsv += fmt::format("{}\t{}\t{}\n", cases_[i].name, status, r.detail);
    }
    if (!args_.report.empty()) write_text(args_.report, tsv);
    int rc = (failed == 0 && skipped == 0) ? kExitOk : kExitModelError;
    if (!args_.expect.empty()) rc = check_expectations();
    std::printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
    if (specialized)  // run-time shape inputs (README): counted apart
      std::printf("%zu of the passed specialized to the values of small run-time inputs\n",
                  specialized);
    const auto findings = std::count(sanitizer_found_.begin(), sanitizer_found_.end(), 1);
    if (args_.sanitize) std::printf("sanitizers: %td case(s) with a report\n", findings);
    if (findings) rc = kExitModelError;  // never hidden by the ratchet
    if (random)
      std::printf("%zu passed on type, shape and range only (random ops; not counted as passed)\n",
                  random);
    return rc;
  }

  // The ratchet: every listed case must pass. Newly passing cases are pointed out.
  int check_expectations() {
    std::ifstream in(args_.expect);
    if (!in) {
      std::fprintf(stderr, "onnxc test: cannot read %s\n", args_.expect.c_str());
      return kExitUsage;
    }
    std::set<std::string> expected;
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line[0] != '#') expected.insert(line);
    int regressions = 0, news = 0, random_news = 0;
    std::set<std::string> seen;
    for (size_t i = 0; i < cases_.size(); ++i) {
      const bool pass = results_[i].status == CaseStatus::kPass;
      const bool random = results_[i].status == CaseStatus::kPassRandom;  // meets a listing too
      seen.insert(cases_[i].name);
      if (expected.count(cases_[i].name) && !pass && !random) {
        std::printf("REGRESSION   %s\n", cases_[i].name.c_str());
        ++regressions;
      }
      if (!expected.count(cases_[i].name) && pass) ++news;
      if (!expected.count(cases_[i].name) && random) ++random_news;
    }
    for (const auto& e : expected)
      if (!seen.count(e) && !args_.partial) {
        std::printf("MISSING      %s (listed in %s but not run)\n", e.c_str(),
                    args_.expect.c_str());
        ++regressions;
      }
    std::printf("ratchet: %zu expected, %d regressed, %d newly passing (add them to %s)\n",
                expected.size(), regressions, news, args_.expect.c_str());
    if (random_news)
      std::printf("ratchet: %d newly passing on range only (random ops; they may be listed too)\n",
                  random_news);
    return regressions ? kExitModelError : kExitOk;
  }

  const TestArgs& args_;
  std::map<std::string, int64_t> trip_counts_;  // --max-trip-count
  std::string cxx_;
  TempDir work_dir_{"onnxc-test-"};
  fs::path cache_, work_;
  const Target* target_ = &default_target();
  Target fpu_target_{};  // --fpu: a copy of the target with another FPU
  std::vector<TestCase> cases_;
  std::vector<CaseResult> results_;
  std::vector<Prepared> prepared_;
  std::vector<char> sanitizer_found_;  // per case: a run printed a sanitizer report
};

}  // namespace

int run_test(const TestArgs& args) {
  return TestRunner(args).run();
}

}  // namespace onnxc
