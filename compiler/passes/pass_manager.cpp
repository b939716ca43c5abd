#include "passes/pass_manager.h"

#include <fmt/format.h>

#include <cstdio>

#include "ir/printer.h"

namespace onnxc {

std::vector<std::unique_ptr<Pass>> make_pipeline_passes() {
  std::vector<std::unique_ptr<Pass>> passes;
#define ONNXC_MAKE_PASS(factory) passes.push_back(factory());
  ONNXC_PASS_LIST(ONNXC_MAKE_PASS)
#undef ONNXC_MAKE_PASS
  return passes;
}

std::string check_pass_options(const PassOptions& options) {
  auto passes = make_pipeline_passes();
  auto find = [&](const std::string& name) -> const Pass* {
    for (const auto& p : passes)
      if (name == p->name()) return p.get();
    return nullptr;
  };
  std::string names;
  for (const auto& p : passes) names += fmt::format("{}{}", names.empty() ? "" : ", ", p->name());
  for (const auto& d : options.disabled) {
    const Pass* p = find(d);
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
  for (const auto& p : make_pipeline_passes())
    s += fmt::format("{:<16} {:<10} {}\n", p->name(), p->can_disable() ? "" : "(required)",
                     p->description());
  return s;
}

PassManager::PassManager(PassOptions options) : options_(std::move(options)) {
  dump = [](const std::string& text) { std::fputs(text.c_str(), stdout); };
}

bool PassManager::run(Module& module, Diagnostics& diag) {
  records_.clear();
  for (auto& pass : make_pipeline_passes()) {
    PassRecord rec;
    rec.name = pass->name();
    bool disabled = pass->can_disable() && options_.disabled.count(rec.name);
    if (!disabled) {
      PassContext ctx(diag);
      size_t errors = diag.count();
      rec.ran = true;
      rec.changed = pass->run(module, ctx);
      rec.counters = ctx.counters();
      records_.push_back(rec);
      if (diag.count() != errors || !diag.ok()) return false;
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
