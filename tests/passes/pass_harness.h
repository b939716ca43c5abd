// Runs the pass pipeline on a ModelBuilder model for FileCheck-style pass tests: the IR text after
// any pass (the same dump as `onnxc inspect --print-after=PASS`), with chosen passes disabled.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "frontend/importer.h"
#include "harness/model_builder.h"
#include "ir/printer.h"
#include "passes/pass_manager.h"

namespace onnxc::testing {

struct Lowered {
  std::unique_ptr<Module> module;
  Diagnostics diag;
  bool ok = false;
  std::map<std::string, std::string> ir_after;  // pass name -> print_module() after it
  std::string stats;
};

inline Lowered run_passes(ModelBuilder& mb, PassOptions options = {}) {
  Lowered r;
  options.print_after = "all";
  options.verify_each = true;  // every pass test also checks the IR's invariants after each pass
  r.module = import_model(mb.proto(), ImportOptions{}, r.diag);
  if (!r.module || !r.diag.ok()) return r;
  PassManager pm(options);
  std::string* current = nullptr;
  pm.dump = [&](const std::string& text) {
    // "// -----// IR after NAME //----- //" or "... NAME (disabled) ..."
    auto begin = text.find("after ") + 6;
    auto end = text.find_first_of(" ", begin);
    current = &r.ir_after[text.substr(begin, end - begin)];
    *current = text;
  };
  r.ok = pm.run(*r.module, r.diag);
  r.stats = pm.stats_text();
  return r;
}

inline PassOptions disable(std::initializer_list<const char*> names) {
  PassOptions o;
  for (const char* n : names) o.disabled.insert(n);
  return o;
}

}  // namespace onnxc::testing
