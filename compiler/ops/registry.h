// The op registry: one table of (domain, op, opset range) -> handler. It drives dispatch,
// `onnxc ops` and the README's support table. Each op family file contributes its rows.
#pragma once

#include <string>
#include <vector>

#include "ops/op.h"

namespace onnxc {

constexpr int kMaxOpset = 28;  // newest ai.onnx opset in the spec this compiler was written against

struct OpRegistration {
  const char* domain;  // "" for ai.onnx
  const char* op_type;
  int since_version;  // first opset of the domain this handler accepts
  int until_version;  // last opset it accepts (kMaxOpset when current)
  const OpHandler* handler;
};

// Rows of each op family, defined in compiler/ops/<family>.cpp.
std::vector<OpRegistration> elementwise_ops();     // ops/elementwise.cpp
std::vector<OpRegistration> cast_ops();            // ops/cast.cpp
std::vector<OpRegistration> constant_ops();        // ops/constant.cpp
std::vector<OpRegistration> conv_ops();            // ops/conv.cpp
std::vector<OpRegistration> pool_ops();            // ops/pool.cpp
std::vector<OpRegistration> matmul_ops();          // ops/matmul.cpp
std::vector<OpRegistration> normalization_ops();   // ops/normalization.cpp
std::vector<OpRegistration> softmax_ops();         // ops/softmax.cpp
std::vector<OpRegistration> reduce_ops();          // ops/reduce.cpp
std::vector<OpRegistration> shape_ops();           // ops/shape_ops.cpp
std::vector<OpRegistration> data_movement_ops();   // ops/data_movement.cpp
std::vector<OpRegistration> attention_ops();       // ops/attention.cpp, ops/rotary.cpp
std::vector<OpRegistration> scatter_gather_ops();  // ops/scatter_gather.cpp
std::vector<OpRegistration> scan_ops();            // ops/scan_ops.cpp
std::vector<OpRegistration> bitwise_ops();         // ops/bitwise.cpp
std::vector<OpRegistration> misc_ops();            // ops/misc_ops.cpp
std::vector<OpRegistration> resize_ops();          // ops/resize.cpp
std::vector<OpRegistration> image_ops();           // ops/image.cpp
std::vector<OpRegistration> quantize_ops();        // ops/quantize.cpp
std::vector<OpRegistration> qlinear_ops();         // ops/qlinear.cpp
std::vector<OpRegistration> recurrent_ops();       // ops/recurrent.cpp
std::vector<OpRegistration> signal_ops();          // ops/signal.cpp
std::vector<OpRegistration> einsum_ops();          // ops/einsum.cpp
std::vector<OpRegistration> detection_ops();       // ops/detection.cpp
std::vector<OpRegistration> random_ops();          // ops/random.cpp
std::vector<OpRegistration> training_ops();        // ops/training.cpp
std::vector<OpRegistration> tfidf_ops();           // ops/tfidf.cpp
std::vector<OpRegistration> control_flow_ops();    // ops/control_flow.cpp
std::vector<OpRegistration> sequence_ops();        // ops/sequence.cpp
std::vector<OpRegistration> optional_ops();        // ops/optional.cpp
std::vector<OpRegistration> gradient_ops();        // ops/gradient.cpp (Gradient's lowering helpers)

class OpRegistry {
 public:
  static const OpRegistry& instance();
  // The handler for `op_type` in `domain` at `opset`, or nullptr.
  const OpHandler* find(const std::string& domain, const std::string& op_type, int opset) const;
  // Why find() returned nullptr: "op 'X' is not supported" or "... supported for opset A-B only".
  std::string unsupported_reason(const std::string& domain, const std::string& op_type,
                                 int opset) const;
  // Every row, sorted by domain, op and version.
  const std::vector<OpRegistration>& rows() const { return rows_; }

 private:
  OpRegistry();
  std::vector<OpRegistration> rows_;
};

}  // namespace onnxc
