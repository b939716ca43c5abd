// --dim / --shape against the model: see pin_flags.h.
#include "frontend/pin_flags.h"

#include <fmt/format.h>

#include <set>

namespace onnxc {
namespace {

// "a, b, c" for at most the first five names (a hostile model may have a million inputs).
std::string name_list(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 5; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 5) out += fmt::format(", ... ({} in all)", names.size());
  return out.empty() ? "none" : out;
}

std::string shape_flag(const std::string& input, const Shape& shape) {
  return fmt::format("--shape {}={}", input, fmt::join(shape, "x"));
}

// The graph inputs that are not initializers: the ones a caller feeds.
std::vector<const onnx::ValueInfoProto*> fed_inputs(const onnx::GraphProto& g) {
  std::set<std::string> initializers;
  for (const auto& t : g.initializer()) initializers.insert(t.name());
  std::vector<const onnx::ValueInfoProto*> out;
  for (const auto& vi : g.input())
    if (!initializers.count(vi.name())) out.push_back(&vi);
  return out;
}

// A --shape for `vi`: without --override-shape it keeps the rank and every static dim.
void check_shape(const onnx::ValueInfoProto& vi, const Shape& shape, bool override_shape,
                 Diagnostics& diag) {
  if (override_shape || !vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
    return;
  const auto& declared = vi.type().tensor_type().shape();
  if (declared.dim_size() != static_cast<int>(shape.size())) {
    diag.error(
        "{}: input '{}' has rank {}, the flag gives rank {}; --shape only pins symbolic dims "
        "(add --override-shape to replace the declared shape)",
        shape_flag(vi.name(), shape), vi.name(), declared.dim_size(), shape.size());
    return;
  }
  for (int d = 0; d < declared.dim_size(); ++d) {
    const auto& dim = declared.dim(d);
    if (dim.has_dim_value() && dim.dim_value() != shape[d]) {
      diag.error(
          "{}: dim {} of input '{}' is static ({}); --shape only pins symbolic dims (add "
          "--override-shape to replace the declared shape)",
          shape_flag(vi.name(), shape), d, vi.name(), dim.dim_value());
      return;
    }
  }
}

}  // namespace

bool check_pin_flags(const onnx::ModelProto& model, const ImportOptions& options,
                     Diagnostics& diag) {
  const size_t before = diag.count();
  const auto inputs = fed_inputs(model.graph());
  std::vector<std::string> input_names, dim_names;
  std::set<std::string> dims;
  for (const auto* vi : inputs) {
    input_names.push_back(vi->name());
    if (!vi->type().has_tensor_type()) continue;
    for (const auto& dim : vi->type().tensor_type().shape().dim())
      if (dim.has_dim_param() && dims.insert(dim.dim_param()).second)
        dim_names.push_back(dim.dim_param());
  }
  for (const auto& [name, shape] : options.input_shapes) {
    const onnx::ValueInfoProto* found = nullptr;
    for (const auto* vi : inputs)
      if (vi->name() == name) found = vi;
    if (!found)
      diag.error("{}: the model has no input named '{}' (inputs: {})", shape_flag(name, shape),
                 name, name_list(input_names));
    else
      check_shape(*found, shape, options.override_shape, diag);
  }
  for (const auto& [name, value] : options.dims)
    if (!dims.count(name))
      diag.error("--dim {}={}: the model has no symbolic dim named '{}' (dims: {})", name, value,
                 name, name_list(dim_names));
  return diag.count() == before;
}

}  // namespace onnxc
