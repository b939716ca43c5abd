// Shared pieces of the string op handlers (ops/text/strings.cpp, ops/text/strings_regex.cpp): slot
// capacities, host-side slot buffers for evaluate(), C++ string literals, and the dispatcher that
// lets an op's numeric handler (Equal, Identity, LabelEncoder) hand string nodes to a string one.
// The representation is described in runtime/onnxc/strings.h.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "ops/op.h"

namespace onnxc {

// The handler that runs `numeric` for nodes without strings and the string handler of `op_type`
// (ops/text/strings.cpp) for nodes with a string input or a string-valued attribute.
const OpHandler* with_strings(const OpHandler* numeric, const char* op_type);

// Bytes one element of string value v holds (its slot minus the NUL).
inline int64_t string_capacity(const Value* v) {
  return v->string_slot() - 1;
}
// Types output i as a string tensor of `shape` whose elements hold up to `capacity` bytes.
bool set_string_output(InferContext& ctx, size_t i, Shape shape, int64_t capacity);

// A string tensor as the slot array generated code sees, and back (evaluate()).
std::vector<char> to_slots(const Tensor& t, int64_t slot);
void from_slots(const std::vector<char>& slots, int64_t slot, Tensor& t);

// "\"abc\"" with every byte that is not plain printable ASCII escaped in octal.
std::string cpp_string_literal(const std::string& s);

// Regex: `pattern` (RE2 syntax, the subset ops/text/strings_regex.cpp documents) compiled to the
// Pike-VM program of onnxc/strings.h. On an unsupported or malformed pattern returns false and
// sets `error`.
struct RegexProgramData {
  std::vector<uint8_t> ops;
  std::vector<int32_t> args, args2;
  std::vector<std::array<uint32_t, 8>> classes;
};
bool compile_regex(const std::string& pattern, RegexProgramData& out, std::string* error);
// The RegexFullMatch handler (ops/text/strings_regex.cpp).
const OpHandler* regex_full_match_handler();

}  // namespace onnxc
