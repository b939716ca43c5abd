// SHA-256 of a byte string, as lowercase hex. Used for model hashes and the test cache keys.
#pragma once

#include <string>

namespace onnxc {

std::string sha256_hex(const std::string& bytes);

}  // namespace onnxc
