// The pass manager: runs the passes of pass_list.h in order over a Module, skipping disabled
// ones, dumping the IR after the passes asked for and collecting each pass's counters. A pass
// reports errors to the Diagnostics; the pipeline stops after the first pass that reports any.
// With verify_each, the IR verifier (ir/verify.h) checks the module after every pass and a
// broken invariant stops the pipeline with an error naming the pass (an onnxc bug).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "ir/ir.h"
#include "ir/verify.h"

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

enum class PassKind {
  kRequired,  // later stages need what it does; --disable-pass refuses it
  kOptional,  // an optimization: --disable-pass may skip it
};

// One row of pass_list.h: the whole declaration of a pass. The pass manager runs `run`; nothing
// else about a pass lives outside its row and its file.
struct PassInfo {
  const char* name;                    // "fold-constants"
  bool (*run)(Module&, PassContext&);  // whether the graph (or its plan) changed
  PassKind kind;
  IrStage stage;  // how far lowering has come once it ran: what --verify-each checks after it
  const char* description;  // one line
  bool can_disable() const { return kind == PassKind::kOptional; }
};

// Every pass of the pipeline, in order: the rows of ONNXC_PASS_LIST.
const std::vector<PassInfo>& pipeline_passes();

struct PassOptions {
  std::set<std::string> disabled;  // pass names (--disable-pass)
  std::string print_after;         // a pass name, "all" or "" (--print-after)
  bool stats = false;              // --stats
  std::string stop_after;          // run up to and including this pass ("" = all; for tests)
  bool verify_each = false;        // --verify-each: run the IR verifier after every pass
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
  // --verify-each: reports each broken invariant of `stage` as an error naming the pass `after`.
  static bool verify(const Module& module, IrStage stage, const char* after, Diagnostics& diag);

  PassOptions options_;
  std::vector<PassRecord> records_;
};

}  // namespace onnxc
