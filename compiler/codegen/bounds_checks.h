// --check-bounds: the guard-zone and checksum statements of the generated run(). plan-memory
// decides where the guard zones lie (MemorySummary::guards); this only prints the statements that
// fill a zone before the first node writing its buffer, verify after each top-level node the zones
// of the buffers it wrote, and
// verify before each node that its arena inputs still hold the bytes they had when produced (a
// checksum per value, kept in one local array). A failure calls ONNXC_BOUNDS_FAILURE(node, value)
// (definable by the user; by default it prints to stderr where there is one and aborts) and then
// run() returns onnxc::kErrorBoundsCheck (4). It does not check inside control-flow bodies
// (only their region's guard), graph inputs or outputs (the caller's buffers), or constants.
// Without the flag every call prints "".
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace onnxc {

class BoundsChecks {
 public:
  // `arena_offset`: every arena value's absolute offset (views at their root's plus their own).
  BoundsChecks(const Module& module, const std::map<const Value*, size_t>& arena_offset);

  bool enabled() const { return enabled_; }
  // The local name the statements declare in run() (the caller reserves it).
  static const char* local_name() { return "bounds_ck"; }

  // Before the model's namespace: the failure hook macro and the helpers (once per translation
  // unit, so several models can share one).
  std::string prelude() const;
  // At the top of run(), after `arena` is declared: the checksum array.
  std::string entry() const;
  // Just before top-level node n's block: the guard zones of the buffers it is the first to write
  // are filled, and its arena inputs are unchanged since produced.
  std::string before_node(const Node& n);
  // Just after top-level node n's block (or its "no code" line): the guards of what it wrote are
  // intact; then the checksums of its arena outputs are taken.
  std::string after_node(const Node& n);

 private:
  std::string guard_check(size_t offset, const Node& n, const std::string& what) const;
  std::string fill(size_t offset) const;
  std::string failure(const Node& n, const std::string& what) const;

  bool enabled_ = false;
  size_t guard_bytes_ = 0;
  std::set<const Value*> filled_;  // roots whose guard zone is filled (in emission order)
  std::map<const Value*, size_t> root_guard_;
  std::map<const Node*, size_t> scratch_guard_, region_guard_;
  const std::map<const Value*, size_t>& arena_offset_;
  std::map<const Value*, size_t> slot_;  // index in the checksum array
};

}  // namespace onnxc
