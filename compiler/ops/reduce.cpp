// Placeholder until the reduce family is written: registers no ops.
#include "ops/registry.h"

namespace onnxc {

std::vector<OpRegistration> reduce_ops() { return {}; }

}  // namespace onnxc
