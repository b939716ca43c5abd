// Pastes runtime headers into a generated .cpp (--runtime inline), keeping only what the
// generated code calls. Each header is cut into its top-level declarations (a struct, a function,
// a constant, a macro use, each with the comment above it); a declaration is kept when the code
// names something it declares, directly or through another kept declaration. Preprocessor lines,
// namespace braces and the first paragraph of each header's opening comment are always kept (the
// header itself documents the rest). Keeping too much is harmless (every overload and
// specialization of a used name stays); the generated code compiles the same as with the whole
// headers, only shorter.
#pragma once

#include <set>
#include <string>

namespace onnxc {

// The text of `headers` ("onnxc/conv.h", ...) and the onnxc/ headers they include, dependencies
// first, cut down to what `code` uses. Headers in `skip` (and their own includes) are assumed
// already pasted and are left out.
std::string inline_runtime(const std::set<std::string>& headers, const std::string& code,
                           const std::set<std::string>& skip);

// The runtime header a line of a runtime header includes: "onnxc/conv.h" for
// `#include "onnxc/conv.h"  // ConvParams`; "" when the line includes no onnxc/ header. Both
// inliners follow includes through this one reading, so that a comment after an include cannot
// hide a dependency (issue 33: quantize.h's were dropped, and quantized models did not compile).
std::string included_runtime_header(const std::string& line);

// The text of an embedded runtime header. An unknown path is a bug in onnxc (the headers include
// only each other, and tests/codegen/runtime_inliner_test.cpp resolves every include): it aborts
// with the path rather than paste nothing and emit code that does not compile.
std::string embedded_runtime_header(const std::string& path);

}  // namespace onnxc
