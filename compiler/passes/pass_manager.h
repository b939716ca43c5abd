// The pass manager: runs the passes of pass_list.h in order over a Module, skipping disabled
// ones, dumping the IR after the passes asked for and collecting each pass's counters. A pass
// reports errors to the Diagnostics; the pipeline stops after the first pass that reports any.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "support/diagnostics.h"

namespace onnxc {

// What a pass sees besides the module: where to report errors, and its counters.
class PassContext {
 public:
  explicit PassContext(Diagnostics& diag) : diag_(diag) {}
  Diagnostics& diag() { return diag_; }
  // Adds `n` to the counter `what` ("nodes folded", "tensors aliased").
  void count(const std::string& what, int64_t n = 1) { counters_[what] += n; }
  const std::map<std::string, int64_t>& counters() const { return counters_; }

 private:
  Diagnostics& diag_;
  std::map<std::string, int64_t> counters_;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual const char* name() const = 0;         // "fold-constants"
  virtual const char* description() const = 0;  // one line
  // False for passes later stages need (handlers, shapes, the memory plan).
  virtual bool can_disable() const { return true; }
  // Returns whether the graph (or its plan) changed. Errors go to ctx.diag().
  virtual bool run(Module& module, PassContext& ctx) = 0;
};

// One make_*_pass() per entry of ONNXC_PASS_LIST, defined in that pass's file.
#define ONNXC_DECLARE_PASS_FACTORY(factory) std::unique_ptr<Pass> factory();
#include "passes/pass_list.h"
ONNXC_PASS_LIST(ONNXC_DECLARE_PASS_FACTORY)
#undef ONNXC_DECLARE_PASS_FACTORY

// Every pass of the pipeline, in order.
std::vector<std::unique_ptr<Pass>> make_pipeline_passes();

struct PassOptions {
  std::set<std::string> disabled;  // pass names (--disable-pass)
  std::string print_after;         // a pass name, "all" or "" (--print-after)
  bool stats = false;              // --stats
  std::string stop_after;          // run up to and including this pass ("" = all; for tests)
};

// "" when every name in `options` is a known pass (and every disabled one may be disabled),
// else a one-line usage error.
std::string check_pass_options(const PassOptions& options);

// `onnxc --list-passes`: one line per pass: name, "(required)" when it cannot be disabled, and
// its description.
std::string list_passes_text();

struct PassRecord {
  std::string name;
  bool ran = false, changed = false;
  std::map<std::string, int64_t> counters;
};

class PassManager {
 public:
  explicit PassManager(PassOptions options = {});
  // Runs the pipeline. Returns false when a pass reported an error.
  bool run(Module& module, Diagnostics& diag);
  const std::vector<PassRecord>& records() const { return records_; }
  // The --stats table: one line per pass with whether it ran/changed and its counters.
  std::string stats_text() const;
  // Where --print-after dumps go (default: stdout).
  std::function<void(const std::string&)> dump;

 private:
  PassOptions options_;
  std::vector<PassRecord> records_;
};

}  // namespace onnxc
