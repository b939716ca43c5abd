// compile, check, inspect and ops subcommands.
#include "driver/commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "driver/pipeline.h"
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

void print_errors(const Diagnostics& diag) {
  std::fputs(diag.str().c_str(), stderr);
}

// Shared by compile, inspect and bench: flags -> options -> lowered module. Prints the
// --stats table after the passes ran.
std::unique_ptr<Module> lower_with_flags(const std::string& model,
                                         const std::vector<std::string>& dims,
                                         const std::vector<std::string>& shapes, int* exit_code,
                                         const PassFlags& flags, const std::string& target) {
  ImportOptions options;
  std::string error;
  PassOptions pass_options;
  pass_options.disabled.insert(flags.disable.begin(), flags.disable.end());
  pass_options.print_after = flags.print_after;
  pass_options.stats = flags.stats;
  if (!parse_dim_flags(dims, shapes, options, &error) ||
      !parse_target_flag(target, options, &error) ||
      !(error = check_pass_options(pass_options)).empty()) {
    std::fprintf(stderr, "onnxc: %s\n", error.c_str());
    *exit_code = kExitUsage;
    return nullptr;
  }
  Diagnostics diag;
  PassManager passes(pass_options);
  auto module = lower_model(model, options, diag, &passes);
  if (flags.stats) std::fputs(passes.stats_text().c_str(), stdout);
  if (!module) {
    print_errors(diag);
    *exit_code = kExitModelError;
  }
  return module;
}

// The flags that shape the generated files, for their banner: canonical (sorted, defaults spelled
// out) so that equivalent command lines give identical files. Paths (the model, -o) and flags that
// only print (--print-plan) are left out. A new flag that changes the output belongs here.
std::string output_flags(const CompileArgs& args, const std::string& name) {
  std::string flags = "--name " + name;
  std::vector<std::string> dims = args.dims, shapes = args.shapes;
  std::sort(dims.begin(), dims.end());
  std::sort(shapes.begin(), shapes.end());
  for (const auto& d : dims) flags += " --dim " + d;
  for (const auto& s : shapes) flags += " --shape " + s;
  flags += " --target " + std::string(find_target(args.target)->name);  // "native" resolved
  flags += " --weights " + args.weights + " --runtime " + args.runtime;
  std::vector<std::string> disabled = args.passes.disable;  // passes change the output too
  std::sort(disabled.begin(), disabled.end());
  for (const auto& p : disabled) flags += " --disable-pass " + p;
  return flags;
}

}  // namespace

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
    Shape shape;
    std::string dims_text = s.substr(eq + 1);
    size_t start = 0;
    while (!dims_text.empty()) {
      size_t x = dims_text.find_first_of("x,", start);
      int64_t v;
      if (!parse_int(dims_text.substr(start, x == std::string::npos ? x : x - start), v)) {
        *error = fmt::format("bad --shape '{}': dims must be non-negative integers", s);
        return false;
      }
      shape.push_back(v);
      if (x == std::string::npos) break;
      start = x + 1;
    }
    options.input_shapes[s.substr(0, eq)] = shape;
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

int run_compile(const CompileArgs& args) {
  int rc = kExitOk;
  auto module = lower_with_flags(args.model, args.dims, args.shapes, &rc, args.passes, args.target);
  if (!module) return rc;
  CodegenOptions options;
  options.name = args.name.empty() ? module->model_name : cpp_identifier(args.name);
  options.header_file = fs::path(args.output).stem().string() + ".h";
  options.weights = args.weights == "external" ? WeightsMode::kExternal : WeightsMode::kEmbedded;
  options.runtime = args.runtime == "include" ? RuntimeMode::kInclude : RuntimeMode::kInline;
  options.flags = output_flags(args, options.name);
  Diagnostics diag(args.model);
  GeneratedCode code;
  if (!generate_cpp(*module, options, code, diag) ||
      !write_generated(args.output, code, options, diag)) {
    print_errors(diag);
    return kExitModelError;
  }
  if (args.print_plan) std::fputs(code.memory_plan.c_str(), stdout);
  return kExitOk;
}

int run_check(const std::string& model) {
  Diagnostics diag;
  if (!check_model(model, diag)) {
    print_errors(diag);
    return kExitModelError;
  }
  std::printf("%s: valid\n", model.c_str());
  return kExitOk;
}

int run_inspect(const InspectArgs& args) {
  int rc = kExitOk;
  auto module = lower_with_flags(args.model, args.dims, args.shapes, &rc, args.passes, args.target);
  if (!module) return rc;
  const Graph& g = *module->graph;
  if (args.ir) {
    std::fputs(print_module(*module).c_str(), stdout);
    return kExitOk;
  }
  if (args.memory) {
    std::fputs(memory_report(*module, args.json).c_str(), stdout);
    return kExitOk;
  }
  std::string out =
      fmt::format("model {} (ir_version {}, producer '{}' {})\n", module->source_path,
                  module->ir_version, module->producer_name, module->producer_version);
  for (const Value* v : g.inputs)
    out += fmt::format("input  {}: {}\n", v->name, value_type_str(*v));
  for (const Value* v : g.outputs)
    out += fmt::format("output {}: {}\n", v->name, value_type_str(*v));
  std::map<std::string, int> histogram;
  for (const auto& n : g.nodes) histogram[n->op_type]++;
  out += "ops:";
  for (const auto& [op, count] : histogram) out += fmt::format(" {}={}", op, count);
  size_t params = 0;
  for (const auto& v : g.values)
    if (v->is_constant()) params += v->bytes();
  out += fmt::format("\nnodes {}\nparameter_bytes {}\narena_bytes {}\n", g.nodes.size(), params,
                     module->memory.arena_bytes);
  if (args.plan) out += print_memory_plan(*module);
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

int run_list_passes() {
  std::fputs(list_passes_text().c_str(), stdout);
  return kExitOk;
}

int run_ops(bool markdown) {
  const auto& rows = OpRegistry::instance().rows();
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
    const char* domain = *rows[i].domain ? rows[i].domain : "ai.onnx";
    if (markdown)
      std::printf("| %s | %s | %s |\n", domain, rows[i].op_type, ranges.c_str());
    else
      std::printf("%-10s %-28s %s\n", domain, rows[i].op_type, ranges.c_str());
    i = j;
  }
  return kExitOk;
}

int run_ops_kernels() {
  std::printf("%-28s %-10s %-9s %s\n", "variant", "family", "isa", "targets");
  for (const KernelVariant& v : all_kernel_variants()) {
    std::vector<std::string_view> targets;
    for (const Target& t : all_targets())
      if (isa_allows(t.isa, v.isa)) targets.push_back(t.name);
    std::printf("%-28s %-10s %-9s %s\n", v.name.c_str(), (v.dtype + "_" + v.op).c_str(),
                std::string(isa_name(v.isa)).c_str(),
                fmt::format("{}", fmt::join(targets, ", ")).c_str());
  }
  return kExitOk;
}

}  // namespace onnxc
