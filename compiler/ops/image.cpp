// Image ops: GridSample, AffineGrid (more to come).
#include "ops/registry.h"

namespace onnxc {

std::vector<OpRegistration> image_ops() {
  return {};
}

}  // namespace onnxc
