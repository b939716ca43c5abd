#include "ops/registry.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace onnxc {

OpRegistry::OpRegistry() {
  for (auto family :
       {elementwise_ops,   cast_ops,          constant_ops,       conv_ops,      pool_ops,
        matmul_ops,        normalization_ops, softmax_ops,        reduce_ops,    shape_ops,
        data_movement_ops, attention_ops,     scatter_gather_ops, scan_ops,      bitwise_ops,
        misc_ops,          resize_ops,        image_ops,          quantize_ops,  qlinear_ops,
        recurrent_ops,     signal_ops,        einsum_ops,         detection_ops, random_ops,
        training_ops,      gradient_ops,      control_flow_ops,   tfidf_ops,     sequence_ops,
        optional_ops}) {
    auto rows = family();
    rows_.insert(rows_.end(), rows.begin(), rows.end());
  }
  std::sort(rows_.begin(), rows_.end(), [](const OpRegistration& a, const OpRegistration& b) {
    int d = std::strcmp(a.domain, b.domain), o = std::strcmp(a.op_type, b.op_type);
    return std::tie(d, o, a.since_version) < std::make_tuple(0, 0, b.since_version);
  });
}

const OpRegistry& OpRegistry::instance() {
  static const OpRegistry registry;
  return registry;
}

const OpHandler* OpRegistry::find(const std::string& domain, const std::string& op_type,
                                  int opset) const {
  for (const auto& r : rows_)
    if (domain == r.domain && op_type == r.op_type && opset >= r.since_version &&
        opset <= r.until_version)
      return r.handler;
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
