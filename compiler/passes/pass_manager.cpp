#include "passes/pass_manager.h"

#include <fmt/format.h>

#include <cstdio>

#include "ir/printer.h"
#include "passes/passes.h"

namespace onnxc {

const std::vector<PassInfo>& pipeline_passes() {
#define ONNXC_PASS_ROW(name, entry, kind, stage, description) \
  PassInfo{name, run_##entry, PassKind::kind, IrStage::stage, description},
  static const std::vector<PassInfo> passes = {ONNXC_PASS_LIST(ONNXC_PASS_ROW)};
#undef ONNXC_PASS_ROW
  return passes;
}

std::string check_pass_options(const PassOptions& options) {
  const auto& passes = pipeline_passes();
  auto find = [&](const std::string& name) -> const PassInfo* {
    for (const PassInfo& p : passes)
      if (name == p.name) return &p;
    return nullptr;
  };
  std::string names;
  for (const PassInfo& p : passes) names += fmt::format("{}{}", names.empty() ? "" : ", ", p.name);
  for (const auto& d : options.disabled) {
    const PassInfo* p = find(d);
    if (!p) return fmt::format("--disable-pass: unknown pass '{}' (passes: {})", d, names);
    if (!p->can_disable())
      return fmt::format("--disable-pass: pass '{}' is required and cannot be disabled", d);
  }
  if (!options.print_after.empty() && options.print_after != "all" && !find(options.print_after))
    return fmt::format("--print-after: unknown pass '{}' (passes: {}, or all)", options.print_after,
                       names);
  return "";
}

std::string list_passes_text() {
  std::string s;
  for (const PassInfo& p : pipeline_passes())
    s += fmt::format("{:<16} {:<10} {}\n", p.name, p.can_disable() ? "" : "(required)",
                     p.description);
  return s;
}

PassManager::PassManager(PassOptions options) : options_(std::move(options)) {
  dump = [](const std::string& text) { std::fputs(text.c_str(), stdout); };
}

bool PassManager::run(Module& module, Diagnostics& diag) {
  records_.clear();
  IrStage stage = IrStage::kImported;
  if (options_.verify_each && !verify(module, stage, "import", diag)) return false;
  for (const PassInfo& pass : pipeline_passes()) {
    PassRecord rec;
    rec.name = pass.name;
    bool disabled = pass.can_disable() && options_.disabled.count(rec.name);
    if (!disabled) {
      PassContext ctx(diag);
      size_t errors = diag.count();
      rec.ran = true;
      rec.changed = pass.run(module, ctx);
      rec.counters = ctx.counters();
      records_.push_back(rec);
      if (diag.count() != errors || !diag.ok()) return false;
      stage = pass.stage;
      if (options_.verify_each && !verify(module, stage, pass.name, diag)) return false;
    } else {
      records_.push_back(rec);
    }
    if (options_.print_after == "all" || options_.print_after == rec.name)
      dump(fmt::format("// -----// IR after {}{} //----- //\n{}", rec.name,
                       disabled ? " (disabled)" : "", print_module(module)));
    if (rec.name == options_.stop_after) break;
  }
  return true;
}

bool PassManager::verify(const Module& module, IrStage stage, const char* after,
                         Diagnostics& diag) {
  const std::vector<std::string> problems = verify_module(module, stage);
  for (const std::string& p : problems)
    diag.error("IR verifier, after {} (an onnxc bug): {}", after, p);
  return problems.empty();
}

std::string PassManager::stats_text() const {
  std::string s = "pass statistics:\n";
  for (const auto& r : records_) {
    std::string counters;
    for (const auto& [what, n] : r.counters)
      counters += fmt::format("{}{} {}", counters.empty() ? "" : ", ", n, what);
    s += fmt::format("  {:<16} {:<10} {}\n", r.name,
                     !r.ran      ? "disabled"
                     : r.changed ? "changed"
                                 : "unchanged",
                     counters);
  }
  return s;
}

}  // namespace onnxc
