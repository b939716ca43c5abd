// Pastes runtime_support headers into a generated .cpp (--runtime inline), keeping only what the
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

}  // namespace onnxc
