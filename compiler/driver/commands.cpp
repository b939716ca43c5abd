// compile, check, inspect and ops subcommands.
#include "driver/commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "codegen/identifiers.h"
#include "codegen/model_info.h"
#include "driver/llvm_emit.h"
#include "driver/lower_flags.h"
#include "driver/pipeline.h"
#include "frontend/contrib_expander.h"
#include "ir/printer.h"
#include "ops/kernel_variants.h"
#include "ops/registry.h"
#include "passes/memory_planner.h"
#include "passes/memory_report.h"

namespace onnxc {
namespace fs = std::filesystem;

namespace {

bool parse_int(const std::string& s, int64_t& out) {
  try {
    size_t pos = 0;
    out = std::stoll(s, &pos);
    return pos == s.size() && out >= 0;
  } catch (...) {
    return false;
  }
}

// The flags that shape the generated files, for their banner: canonical (sorted, defaults spelled
// out) so that equivalent command lines give identical files. Paths (the model, -o) and flags that
// only print (--print-plan) are left out. A new flag that changes the output belongs here.
std::string output_flags(const CompileArgs& args, const std::string& name) {
  const LoweringFlags& l = args.lowering;
  std::string flags = "--name " + name;
  std::vector<std::string> dims = l.dims, shapes = l.shapes;
  std::sort(dims.begin(), dims.end());
  std::sort(shapes.begin(), shapes.end());
  for (const auto& d : dims) flags += " --dim " + d;
  for (const auto& s : shapes) flags += " --shape " + s;
  if (l.override_shape) flags += " --override-shape";
  std::vector<std::string> lengths = l.max_string_lengths;
  std::sort(lengths.begin(), lengths.end());
  for (const auto& len : lengths) flags += " --max-string-length " + len;
  std::vector<std::string> trips = l.max_trip_counts;
  std::sort(trips.begin(), trips.end());
  for (const auto& t : trips) flags += " --max-trip-count " + t;
  // "native" resolved to its table row, and the host's cache budget where it is not the row's
  // (the one thing that row's code would not reproduce)
  const Target& target = *find_target(l.target);
  flags += " --target " + std::string(target.name);
  if (target.cache_bytes != find_target(target.name)->cache_bytes)
    flags += fmt::format(" (native: {}-byte cache budget)", target.cache_bytes);
  if (l.max_bytes != kMaxTensorBytes) flags += fmt::format(" --max-bytes {}", l.max_bytes);
  if (l.max_scratch) flags += " --max-scratch " + std::to_string(l.max_scratch);
  if (l.max_arena) flags += " --max-arena " + std::to_string(l.max_arena);
  if (l.threads != 1) flags += " --threads " + std::to_string(l.threads);
  if (args.check_bounds) flags += " --check-bounds";
  if (l.keep_sparse) flags += " --keep-sparse";
  flags += " --weights " + args.weights + " --runtime " + args.runtime;
  if (args.emit != "cpp") flags += " --emit " + args.emit;
  std::vector<std::string> disabled = l.passes.disable;  // passes change the output too
  std::sort(disabled.begin(), disabled.end());
  for (const auto& p : disabled) flags += " --disable-pass " + p;
  return flags;
}

// Two paths naming one file: the same canonical path, or (both existing) the same inode.
bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec1, ec2;
  if (fs::exists(a, ec1) && fs::exists(b, ec2)) return fs::equivalent(a, b, ec1) && !ec1;
  fs::path ca = fs::weakly_canonical(a, ec1), cb = fs::weakly_canonical(b, ec2);
  return !ec1 && !ec2 && ca == cb;
}

// Why the files `compile` writes (the -o .cpp, the .h beside it, the .bin of --weights external)
// cannot be written: the header's name cannot be #included, one of them is the input model, or
// two of them are one file. "" if they can.
std::string output_clash(const CompileArgs& args) {
  const fs::path cpp(args.output);
  // The .cpp #includes its header by file name, and a name with a double quote, a backslash or
  // a control character cannot be spelled in `#include "..."` (a newline ends the directive; what
  // \ and " mean there is up to the compiler): refused rather than emitted broken (issue 38).
  const std::string header = cpp.stem().string() + ".h";
  for (const unsigned char c : header)
    if (c == '"' || c == '\\' || c < 0x20 || c == 0x7f)
      return fmt::format(
          "-o '{}': the header '{}' could not be #included (a double quote, backslash or control "
          "character in the file name): choose another name",
          escape_model_text(args.output), escape_model_text(header));
  std::vector<fs::path> outputs = {cpp, cpp.parent_path() / (cpp.stem().string() + ".h")};
  if (args.weights == "external") outputs.push_back(fs::path(cpp).replace_extension(".bin"));
  for (const auto& out : outputs)
    if (same_file(out, args.model))
      return fmt::format("output '{}' is the input model '{}': choose another -o", out.string(),
                         args.model);
  for (size_t i = 1; i < outputs.size(); ++i)
    if (same_file(outputs[0], outputs[i]))
      return fmt::format("-o '{}' is also where the {} goes: give the .cpp another name",
                         args.output, i == 1 ? "header" : "weights .bin");
  return "";
}

// --emit llvm|bc|asm|obj: the generated code through the LLVM backend, at -O2, into -o.
int emit_with_llvm(const CompileArgs& args, const GeneratedCode& code,
                   const CodegenOptions& options, Diagnostics& diag) {
  LlvmOptions llvm;
  parse_llvm_emit(args.emit, &llvm.emit);
  llvm.target = std::string(find_target(args.lowering.target)->name);
  const std::string file_name = fs::path(args.output).stem().string() + ".cpp";
  std::vector<char> bytes;
  const std::string error = compile_with_llvm(llvm_source(code, options, file_name), llvm, &bytes);
  if (!error.empty()) {
    std::fprintf(stderr, "onnxc: %s: %s\n", args.model.c_str(), error.c_str());
    return kExitModelError;
  }
  if (!write_llvm_generated(args.output, bytes, code, options, diag)) {
    print_errors(diag);
    return kExitModelError;
  }
  if (args.print_plan) std::fputs(code.memory_plan.c_str(), stdout);
  return kExitOk;
}

}  // namespace

bool parse_name_counts(const std::vector<std::string>& flags, const char* flag, const char* what,
                       std::map<std::string, int64_t>& out, std::string* error) {
  for (const auto& f : flags) {
    auto eq = f.rfind('=');
    int64_t v;
    if (eq == std::string::npos || eq == 0 || !parse_int(f.substr(eq + 1), v) || v > (1 << 30)) {
      *error = fmt::format("bad {} '{}': expected {}=N with 0 <= N <= 2^30", flag, f, what);
      return false;
    }
    out[f.substr(0, eq)] = v;
  }
  return true;
}

// "1x3x224x224" (or "1,3,224,224"; "" is a scalar) into `shape`.
static bool parse_shape(const std::string& text, Shape& shape) {
  size_t start = 0;
  while (!text.empty()) {
    size_t x = text.find_first_of("x,", start);
    int64_t v;
    if (!parse_int(text.substr(start, x == std::string::npos ? x : x - start), v)) return false;
    shape.push_back(v);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  return true;
}

bool parse_dim_flags(const std::vector<std::string>& dims, const std::vector<std::string>& shapes,
                     ImportOptions& options, std::string* error) {
  for (const auto& d : dims) {
    auto eq = d.rfind('=');
    int64_t v;
    if (eq == std::string::npos || eq == 0 || !parse_int(d.substr(eq + 1), v)) {
      *error = fmt::format("bad --dim '{}': expected NAME=VALUE with VALUE >= 0", d);
      return false;
    }
    options.dims[d.substr(0, eq)] = v;
  }
  for (const auto& s : shapes) {
    auto eq = s.rfind('=');
    if (eq == std::string::npos || eq == 0) {
      *error = fmt::format("bad --shape '{}': expected INPUT=1x3x224x224", s);
      return false;
    }
    const std::string name = s.substr(0, eq), text = s.substr(eq + 1);
    // Sequence and optional inputs: INPUT=[2x3;4x3] (element shapes), INPUT=none (empty).
    if (text == "none") {
      options.container_inputs[name].absent = true;
      continue;
    }
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
      ContainerLayout& layout = options.container_inputs[name];
      std::string list = text.substr(1, text.size() - 2);
      for (size_t start = 0; !list.empty() && start <= list.size();) {
        size_t semi = list.find(';', start);
        Shape shape;
        if (!parse_shape(list.substr(start, semi == std::string::npos ? semi : semi - start),
                         shape)) {
          *error = fmt::format("bad --shape '{}': expected INPUT=[2x3;4x3] for a sequence", s);
          return false;
        }
        layout.shapes.push_back(shape);
        if (semi == std::string::npos) break;
        start = semi + 1;
      }
      continue;
    }
    Shape shape;
    if (!parse_shape(text, shape)) {
      *error = fmt::format("bad --shape '{}': dims must be non-negative integers", s);
      return false;
    }
    options.input_shapes[name] = shape;
  }
  return true;
}

bool parse_target_flag(const std::string& name, ImportOptions& options, std::string* error,
                       bool runnable) {
  const Target* target = find_target(name);
  if (!target) {
    *error = fmt::format("unknown --target '{}': expected one of {}", name, target_names());
    return false;
  }
  if (runnable && !host_can_run(*target)) {
    *error = fmt::format(
        "--target {}: code for it does not run on this machine (cross-compile with `onnxc "
        "MODEL -o model.cpp --target {}` and run it on the target or under QEMU)",
        target->name, target->name);
    return false;
  }
  options.target = target;
  return true;
}

bool parse_threads_flag(int threads, ImportOptions& options, std::string* error) {
  if (threads < 1 || threads > kMaxThreads) {
    *error = fmt::format("--threads {}: expected 1 to {}", threads, kMaxThreads);
    return false;
  }
  if (threads > 1 && options.target->is_microcontroller()) {
    *error = fmt::format(
        "--threads {}: --target {} runs one thread (no thread code is emitted "
        "for microcontrollers)",
        threads, options.target->name);
    return false;
  }
  options.target = with_threads(*options.target, threads);
  return true;
}

int run_compile(const CompileArgs& args) {
  const std::string clash = output_clash(args);
  if (!clash.empty()) {
    std::fprintf(stderr, "onnxc: %s\n", clash.c_str());
    return kExitUsage;
  }
  if (args.emit != "cpp") {  // before any work: the backend, the runtime mode, the target
    const Target* target = find_target(args.lowering.target);
    const std::string refusal =
        llvm_emit_refusal(args.runtime, target ? target->name : args.lowering.target);
    if (!refusal.empty()) {
      std::fprintf(stderr, "onnxc: %s\n", refusal.c_str());
      return kExitUsage;
    }
  }
  int rc = kExitOk;
  auto module = lower_with_flags(args.model, args.lowering, {args.check_bounds}, &rc);
  if (!module) return rc;
  CodegenOptions options;
  options.name = args.name.empty() ? module->model_name : cpp_identifier(args.name);
  options.header_file = fs::path(args.output).stem().string() + ".h";
  options.weights = args.weights == "external" ? WeightsMode::kExternal
                    : args.emit != "cpp"       ? WeightsMode::kLinked
                                               : WeightsMode::kEmbedded;
  options.runtime = args.runtime == "include" ? RuntimeMode::kInclude : RuntimeMode::kInline;
  options.flags = output_flags(args, options.name);
  Diagnostics diag(args.model, args.lowering.max_errors);
  GeneratedCode code;
  if (!generate_cpp(*module, options, code, diag)) {
    print_errors(diag);
    return kExitModelError;
  }
  if (args.emit != "cpp") return emit_with_llvm(args, code, options, diag);
  if (!write_generated(args.output, code, options, diag)) {
    print_errors(diag);
    return kExitModelError;
  }
  if (args.print_plan) std::fputs(code.memory_plan.c_str(), stdout);
  return kExitOk;
}

int run_check(const std::string& model, size_t max_errors) {
  Diagnostics diag("", max_errors);
  if (!check_model(model, diag)) {
    print_errors(diag);
    return kExitModelError;
  }
  std::printf("%s: valid\n", model.c_str());
  return kExitOk;
}

int run_list_passes() {
  std::fputs(list_passes_text().c_str(), stdout);
  return kExitOk;
}

int run_ops(bool markdown) {
  const auto& rows = OpRegistry::instance().rows();
  auto print = [&](const char* domain, const char* op, const std::string& ranges) {
    if (markdown)
      std::printf("| %s | %s | %s |\n", domain, op, ranges.c_str());
    else
      std::printf("%-10s %-28s %s\n", domain, op, ranges.c_str());
  };
  // Most com.microsoft ops have no handler: they are expanded into standard nodes before import
  // (frontend/contrib_expander.cpp). Listed in domain order among the registry's rows, once each:
  // those with a handler (the integer ops lower-qdq makes, DynamicQuantizeLSTM) from their rows.
  const char* kContrib = "com.microsoft";
  std::set<std::string> contrib_handled;
  for (const auto& row : rows)
    if (std::string(row.domain) == kContrib) contrib_handled.insert(row.op_type);
  bool contrib_listed = false;
  auto list_contrib = [&] {
    for (const std::string& op : expanded_contrib_ops())
      if (!contrib_handled.count(op)) print(kContrib, op.c_str(), "1-1");
    // ONNX Runtime's own ops in the ai.onnx domain (no ONNX op has their names).
    for (const std::string& op : expanded_contrib_ops(""))
      print("ai.onnx", op.c_str(), "1-1 (ONNX Runtime's)");
    contrib_listed = true;
  };
  if (markdown) std::printf("| domain | op | opsets |\n|---|---|---|\n");
  for (size_t i = 0; i < rows.size();) {
    // One line per op with all its version ranges.
    std::string ranges;
    size_t j = i;
    for (; j < rows.size() && rows[j].domain == std::string(rows[i].domain) &&
           rows[j].op_type == std::string(rows[i].op_type);
         ++j)
      ranges += fmt::format("{}{}-{}", ranges.empty() ? "" : ", ", rows[j].since_version,
                            rows[j].until_version);
    if (!contrib_listed && std::string(rows[i].domain) > kContrib) list_contrib();
    print(*rows[i].domain ? rows[i].domain : "ai.onnx", rows[i].op_type, ranges);
    i = j;
  }
  if (!contrib_listed) list_contrib();
  return kExitOk;
}

// One line per row of the kernel-variant table, in preference order: what it requires (isa),
// takes (fits, weights) and is meant for (class), its panel and rate, and the targets that may
// use it (target_may_use).
int run_ops_kernels() {
  std::printf("%-30s %-16s %-9s %-13s %-8s %-6s %-5s %-6s %s\n", "variant", "family", "isa", "fits",
              "weights", "class", "panel", "gflops", "targets");
  for (const KernelVariant& v : all_kernel_variants()) {
    std::vector<std::string_view> targets;
    for (const Target& t : all_targets())
      if (target_may_use(v, t)) targets.push_back(t.name);
    std::printf("%-30s %-16s %-9s %-13s %-8s %-6s %-5lld %-6g %s\n", v.name.c_str(),
                (v.dtype + "_" + v.op).c_str(), std::string(isa_name(v.isa)).c_str(),
                std::string(kernel_fit_name(v.fits)).c_str(),
                v.constant_weights ? "constant" : "any",
                std::string(target_class_name(v.targets)).c_str(), static_cast<long long>(v.panel),
                v.gflops, fmt::format("{}", fmt::join(targets, ", ")).c_str());
  }
  return kExitOk;
}

}  // namespace onnxc
