// The op registry: one table of (domain, op, opset range) -> handler. It drives dispatch,
// `onnxc ops` and the README's support table. Each op family file contributes its rows.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ops/op.h"
#include "ops/op_families.h"

namespace onnxc {

constexpr int kMaxOpset = 28;  // newest ai.onnx opset in the spec this compiler was written against

struct OpRegistration {
  const char* domain;  // "" for ai.onnx
  const char* op_type;
  int since_version;  // first opset of the domain this handler accepts
  int until_version;  // last opset it accepts (kMaxOpset when current)
  const OpHandler* handler;
};

// Rows of each op family (ops/op_families.h), defined in compiler/ops/<domain>/<family>.cpp.
#define ONNXC_DECLARE_OP_FAMILY(family) std::vector<OpRegistration> family##_ops();
ONNXC_OP_FAMILIES(ONNXC_DECLARE_OP_FAMILY)
#undef ONNXC_DECLARE_OP_FAMILY

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
  // "domain:op" -> [first, last) of its rows in rows_: lookups stay cheap on million-node graphs.
  std::unordered_map<std::string, std::pair<size_t, size_t>> index_;
};

}  // namespace onnxc
