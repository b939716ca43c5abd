#include "ops/registry.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace onnxc {

namespace {

std::string index_key(const std::string& domain, const std::string& op_type) {
  return domain + ":" + op_type;
}

}  // namespace

OpRegistry::OpRegistry() {
#define ONNXC_COLLECT_OP_FAMILY(family) \
  for (const auto& row : family##_ops()) rows_.push_back(row);
  ONNXC_OP_FAMILIES(ONNXC_COLLECT_OP_FAMILY)
#undef ONNXC_COLLECT_OP_FAMILY
  std::sort(rows_.begin(), rows_.end(), [](const OpRegistration& a, const OpRegistration& b) {
    int d = std::strcmp(a.domain, b.domain), o = std::strcmp(a.op_type, b.op_type);
    return std::tie(d, o, a.since_version) < std::make_tuple(0, 0, b.since_version);
  });
  for (size_t i = 0; i < rows_.size(); ++i) {
    auto [it, added] = index_.try_emplace(index_key(rows_[i].domain, rows_[i].op_type), i, i + 1);
    if (!added) it->second.second = i + 1;  // rows of one op are adjacent after the sort
  }
}

const OpRegistry& OpRegistry::instance() {
  static const OpRegistry registry;
  return registry;
}

const OpHandler* OpRegistry::find(const std::string& domain, const std::string& op_type,
                                  int opset) const {
  auto it = index_.find(index_key(domain, op_type));
  if (it == index_.end()) return nullptr;
  for (size_t i = it->second.first; i < it->second.second; ++i)
    if (opset >= rows_[i].since_version && opset <= rows_[i].until_version) return rows_[i].handler;
  return nullptr;
}

std::string OpRegistry::unsupported_reason(const std::string& domain, const std::string& op_type,
                                           int opset) const {
  std::string ranges;
  for (const auto& r : rows_)
    if (domain == r.domain && op_type == r.op_type)
      ranges +=
          fmt::format("{}{}-{}", ranges.empty() ? "" : ", ", r.since_version, r.until_version);
  std::string dom = domain.empty() ? "ai.onnx" : domain;
  if (ranges.empty()) return fmt::format("op {} ({}) is not supported", op_type, dom);
  return fmt::format("op {} ({}) is not supported at opset {} (supported: {})", op_type, dom, opset,
                     ranges);
}

}  // namespace onnxc
