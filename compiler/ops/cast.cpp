// Placeholder until the cast family is written: registers no ops.
#include "ops/registry.h"

namespace onnxc {

std::vector<OpRegistration> cast_ops() { return {}; }

}  // namespace onnxc
