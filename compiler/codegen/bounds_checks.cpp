#include "codegen/bounds_checks.h"

#include <fmt/format.h>

#include <set>

#include "codegen/identifiers.h"
#include "passes/memory_planner.h"

namespace onnxc {
namespace {

// The hook and helpers the statements call. Guarded so that several generated models in one
// translation unit (onnxc test's batches) define them once. The fill pattern varies per byte so
// that a kernel copying a neighbouring guard zone still breaks this one.
constexpr const char* kPrelude = R"(
// --check-bounds: define ONNXC_BOUNDS_FAILURE(node, value) before this file to handle a corrupted
// arena buffer yourself (node and value are ONNX names, as string literals); run() then returns
// onnxc::kErrorBoundsCheck. By default it prints one line to stderr (hosted builds) and aborts, or
// traps.
#ifndef ONNXC_BOUNDS_CHECK_HELPERS
#define ONNXC_BOUNDS_CHECK_HELPERS
#if defined(__STDC_HOSTED__) && __STDC_HOSTED__ && !defined(ONNXC_BOUNDS_NO_STDIO)
#include <cstdio>
#include <cstdlib>
#endif
namespace onnxc {
namespace bounds_check {
inline unsigned char pattern(std::size_t i) {
  return static_cast<unsigned char>(0xA5u ^ (i * 29u));
}
inline void fill(unsigned char* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) p[i] = pattern(i);
}
inline bool intact(const unsigned char* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (p[i] != pattern(i)) return false;
  return true;
}
// FNV-1a: cheap, and any single changed byte changes it.
inline std::uint32_t checksum(const unsigned char* p, std::size_t n) {
  std::uint32_t h = 2166136261u;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}
inline void report_failure(const char* node, const char* value) {
#if defined(__STDC_HOSTED__) && __STDC_HOSTED__ && !defined(ONNXC_BOUNDS_NO_STDIO)
  std::fprintf(stderr,
               "onnxc --check-bounds: node '%s': value '%s' was corrupted (guard zone overwritten "
               "or changed while live)\n",
               node, value);
  std::abort();
#else
  static_cast<void>(node);
  static_cast<void>(value);
  __builtin_trap();
#endif
}
}  // namespace bounds_check
}  // namespace onnxc
#endif
#ifndef ONNXC_BOUNDS_FAILURE
#define ONNXC_BOUNDS_FAILURE(node, value) ::onnxc::bounds_check::report_failure(node, value)
#endif
)";

// The node's name (its op when it has none) as a C++ string literal.
std::string node_label(const Node& n) {
  return cpp_string_literal(n.name.empty() ? n.op_type : n.name);
}

}  // namespace

BoundsChecks::BoundsChecks(const Module& module, const std::map<const Value*, size_t>& arena_offset)
    : enabled_(module.check_bounds && !module.memory.guards.empty()),
      guard_bytes_(module.memory.guard_bytes),
      arena_offset_(arena_offset) {
  for (const auto& g : module.memory.guards) {
    if (g.root) root_guard_[g.root] = g.offset;
    if (g.scratch_of) scratch_guard_[g.scratch_of] = g.offset;
    if (g.region_of) region_guard_[g.region_of] = g.offset;
  }
}

std::string BoundsChecks::prelude() const {
  return enabled_ ? kPrelude : "";
}

std::string BoundsChecks::entry() const {
  if (!enabled_ || slot_.empty()) return "";
  return fmt::format(
      "  std::uint32_t {0}[{1}] = {{}};  // --check-bounds: checksums of live values\n"
      "  (void){0};  // the last values' checksums may never be read\n",
      local_name(), slot_.size());
}

std::string BoundsChecks::fill(size_t offset) const {
  return fmt::format("  onnxc::bounds_check::fill(arena + {}, {});\n", offset, guard_bytes_);
}

std::string BoundsChecks::failure(const Node& n, const std::string& what) const {
  return fmt::format(
      "{{\n    ONNXC_BOUNDS_FAILURE({}, {});\n    return onnxc::kErrorBoundsCheck;\n  }}\n",
      node_label(n), cpp_string_literal(what));
}

std::string BoundsChecks::guard_check(size_t offset, const Node& n, const std::string& what) const {
  return fmt::format("  if (!onnxc::bounds_check::intact(arena + {}, {})) ", offset, guard_bytes_) +
         failure(n, what);
}

std::string BoundsChecks::before_node(const Node& n) {
  if (!enabled_) return "";
  // A guard zone is filled just before the first node that writes its buffer: the planner reuses
  // arena bytes, so a zone filled earlier may lie in a buffer that died since.
  std::string s;
  AliasChains chains;
  for (const Value* v : n.outputs) {
    auto g = v ? root_guard_.find(chains.root(v)) : root_guard_.end();
    if (g != root_guard_.end() && filled_.insert(g->first).second) s += fill(g->second);
  }
  if (auto g = scratch_guard_.find(&n); g != scratch_guard_.end()) s += fill(g->second);
  if (auto g = region_guard_.find(&n); g != region_guard_.end()) s += fill(g->second);
  std::vector<const Value*> reads(n.inputs.begin(), n.inputs.end());
  for (const Value* v : implicit_inputs(n)) reads.push_back(v);  // control-flow bodies read them
  std::set<const Value*> seen;
  for (const Value* v : reads) {
    auto it = v ? slot_.find(v) : slot_.end();
    if (it == slot_.end() || !seen.insert(v).second) continue;
    s += fmt::format("  if (onnxc::bounds_check::checksum(arena + {}, {}) != {}[{}]) ",
                     arena_offset_.at(v), v->bytes(), local_name(), it->second) +
         failure(n, v->name);
  }
  return s;
}

std::string BoundsChecks::after_node(const Node& n) {
  if (!enabled_) return "";
  std::string s;
  std::set<size_t> checked;
  AliasChains chains;
  for (const Value* v : n.outputs) {
    auto g = v ? root_guard_.find(chains.root(v)) : root_guard_.end();
    if (g != root_guard_.end() && checked.insert(g->second).second)
      s += guard_check(g->second, n, v->name);
  }
  if (auto g = scratch_guard_.find(&n); g != scratch_guard_.end())
    s += guard_check(g->second, n, "scratch of " + n.name);
  if (auto g = region_guard_.find(&n); g != region_guard_.end())
    s += guard_check(g->second, n, "subgraph values of " + n.name);
  for (const Value* v : n.outputs) {
    if (!v || !arena_offset_.count(v) || v->bytes() == 0 || slot_.count(v)) continue;
    const size_t slot = slot_.size();
    slot_[v] = slot;
    s += fmt::format("  {}[{}] = onnxc::bounds_check::checksum(arena + {}, {});\n", local_name(),
                     slot, arena_offset_.at(v), v->bytes());
  }
  return s;
}

}  // namespace onnxc
