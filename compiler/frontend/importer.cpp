#include "frontend/importer.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <type_traits>

#include "base/checked_math.h"

namespace onnxc {
namespace {

template <typename Src, typename Dst>
void copy_cast(const google::protobuf::RepeatedField<Src>& src, Tensor& t) {
  t.data.resize(src.size() * sizeof(Dst));
  Dst* d = t.as<Dst>();
  for (int i = 0; i < src.size(); ++i) d[i] = static_cast<Dst>(src.Get(i));
}

// Typed-field storage: which repeated field holds the values of each dtype, and at what width.
bool decode_typed_fields(const onnx::TensorProto& p, Tensor& t, int64_t numel) {
  const int bits = dtype_info(t.dtype).bits;
  switch (t.dtype) {
    case DataType::kFloat:
      copy_cast<float, float>(p.float_data(), t);
      break;
    case DataType::kComplex64:  // two float_data entries per element (dtype_bytes counts both)
      copy_cast<float, float>(p.float_data(), t);
      break;
    case DataType::kDouble:
      copy_cast<double, double>(p.double_data(), t);
      break;
    case DataType::kComplex128:
      copy_cast<double, double>(p.double_data(), t);
      break;
    case DataType::kInt64:
      copy_cast<int64_t, int64_t>(p.int64_data(), t);
      break;
    case DataType::kUint32:
      copy_cast<uint64_t, uint32_t>(p.uint64_data(), t);
      break;
    case DataType::kUint64:
      copy_cast<uint64_t, uint64_t>(p.uint64_data(), t);
      break;
    case DataType::kInt32:
      copy_cast<int32_t, int32_t>(p.int32_data(), t);
      break;
    default:
      if (bits == 16) {
        copy_cast<int32_t, uint16_t>(p.int32_data(), t);
      } else if (bits == 8) {
        copy_cast<int32_t, uint8_t>(p.int32_data(), t);
      } else {
        // Sub-byte types: each int32_data entry holds one byte of packed elements.
        copy_cast<int32_t, uint8_t>(p.int32_data(), t);
        return t.data.size() == dtype_bytes(t.dtype, numel);
      }
  }
  return static_cast<int64_t>(t.data.size()) == static_cast<int64_t>(dtype_bytes(t.dtype, numel));
}

}  // namespace

bool tensor_from_proto(const onnx::TensorProto& p, Tensor& t, std::string* error) {
  if (!is_valid_dtype(p.data_type())) {
    *error = fmt::format("tensor '{}' has invalid data_type {}", p.name(), p.data_type());
    return false;
  }
  t.dtype = static_cast<DataType>(p.data_type());
  t.shape.assign(p.dims().begin(), p.dims().end());
  for (int64_t d : t.shape)
    if (d < 0) {
      *error = fmt::format("tensor '{}' has negative dim {}", p.name(), d);
      return false;
    }
  std::optional<int64_t> checked = checked_numel(t.shape);
  std::optional<int64_t> bytes =
      checked ? checked_bytes(*checked, dtype_info(t.dtype).bits) : checked;
  if (!bytes || *bytes > kMaxTensorBytes) {
    *error = fmt::format("tensor '{}' of shape {} is larger than 2^40 bytes (1 TiB)", p.name(),
                         shape_str(t.shape));
    return false;
  }
  const int64_t numel = *checked;
  if (p.data_location() == onnx::TensorProto::EXTERNAL && !p.has_raw_data()) {
    *error = fmt::format("tensor '{}' has unresolved external data", p.name());
    return false;
  }
  if (t.dtype == DataType::kString) {
    t.strings.assign(p.string_data().begin(), p.string_data().end());
    if (static_cast<int64_t>(t.strings.size()) != numel) {
      *error = fmt::format("tensor '{}' has {} strings for shape {}", p.name(), t.strings.size(),
                           shape_str(t.shape));
      return false;
    }
    return true;
  }
  const size_t want = dtype_bytes(t.dtype, numel);
  if (p.has_raw_data()) {
    t.data.assign(p.raw_data().begin(), p.raw_data().end());
    if (t.data.size() != want) {
      *error = fmt::format("tensor '{}' has {} bytes of raw_data, shape {} of {} needs {}",
                           p.name(), t.data.size(), shape_str(t.shape), dtype_name(t.dtype), want);
      return false;
    }
    return true;
  }
  if (!decode_typed_fields(p, t, numel)) {
    *error = fmt::format("tensor '{}' holds {} bytes of data, shape {} of {} needs {}", p.name(),
                         t.data.size(), shape_str(t.shape), dtype_name(t.dtype), want);
    return false;
  }
  return true;
}

namespace {

// The linear index of each value of a sparse tensor of `shape`: `indices` is [NNZ] (linear
// already) or [NNZ, rank] (coordinates).
std::vector<int64_t> linear_sparse_indices(const Tensor& indices, const Shape& shape) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const bool coords = indices.shape.size() == 2;
  const int64_t nnz = indices.shape.empty() ? 0 : indices.shape[0];
  std::vector<int64_t> linear(static_cast<size_t>(nnz));
  for (int64_t k = 0; k < nnz; ++k) {
    int64_t at = 0;
    if (coords)
      for (int64_t d = 0; d < rank; ++d) at = at * shape[d] + indices.int_at(k * rank + d);
    else
      at = indices.int_at(k);
    linear[static_cast<size_t>(k)] = at;
  }
  return linear;
}

}  // namespace

bool dense_from_sparse(const onnx::SparseTensorProto& p, int64_t max_bytes, Tensor& t,
                       std::string* error) {
  Tensor values, indices;
  if (!tensor_from_proto(p.values(), values, error) ||
      !tensor_from_proto(p.indices(), indices, error))
    return false;
  const std::string& name = p.values().name();
  const int bits = dtype_info(values.dtype).bits;
  if (values.dtype != DataType::kString && bits % 8) {
    *error = fmt::format("sparse tensor '{}' of {}: sub-byte element types are not supported", name,
                         dtype_name(values.dtype));
    return false;
  }
  t.dtype = values.dtype;
  t.shape.assign(p.dims().begin(), p.dims().end());
  std::optional<int64_t> numel = checked_numel(t.shape);
  std::optional<int64_t> bytes = numel ? checked_bytes(*numel, bits ? bits : 8) : numel;
  if (!numel || !bytes || *bytes > max_bytes) {
    *error = fmt::format("sparse tensor '{}' of shape {} is more than {} bytes dense", name,
                         shape_str(t.shape), max_bytes);
    return false;
  }
  const int64_t nnz = values.numel();
  if (t.dtype == DataType::kString)
    t.strings.assign(static_cast<size_t>(*numel), "");
  else
    t.data.assign(static_cast<size_t>(*bytes), 0);
  const size_t elem = static_cast<size_t>(bits / 8);
  const std::vector<int64_t> linear = linear_sparse_indices(indices, t.shape);
  for (int64_t k = 0; k < nnz; ++k) {
    const int64_t at = linear[static_cast<size_t>(k)];
    if (t.dtype == DataType::kString)
      t.strings[static_cast<size_t>(at)] = values.strings[static_cast<size_t>(k)];
    else
      std::memcpy(t.data.data() + static_cast<size_t>(at) * elem,
                  values.data.data() + static_cast<size_t>(k) * elem, elem);
  }
  return true;
}

namespace {

class Importer {
 public:
  Importer(const ImportOptions& options, Diagnostics& diag,
           const std::map<std::string, int>& opsets)
      : options_(options), diag_(diag), opsets_(opsets) {}

  // --max-trip-count must name a Loop node (at any depth).
  void check_trip_count_flags() {
    for (const auto& [name, bound] : options_.max_trip_counts)
      if (!bounded_loops_.count(name))
        diag_.error("--max-trip-count {}={}: the model has no Loop node named '{}'", name, bound,
                    name);
  }

  // `outer` is the chain of enclosing graphs' scopes, innermost last (empty for the main graph).
  std::unique_ptr<Graph> import_graph(const onnx::GraphProto& g, bool is_main,
                                      std::vector<const std::map<std::string, Value*>*> outer) {
    auto graph = std::make_unique<Graph>();
    graph->name = g.name();
    std::map<std::string, Value*> scope;
    for (const auto& init : g.initializer()) {
      Tensor t;
      std::string err;
      if (!tensor_from_proto(init, t, &err)) diag_.error("initializer: {}", err);
      Value* v = graph->add_constant(init.name(), std::move(t));
      scope[v->name] = v;
    }
    for (const auto& sparse : g.sparse_initializer()) {  // densified, or kept COO
      if (options_.keep_sparse) {
        auto n = std::make_unique<Node>();
        n->name = sparse.values().name();
        if (coo_node(sparse, n->name, *n, *graph)) {
          Value* v = graph->add_value(sparse.values().name());
          v->producer = n.get();
          n->outputs.push_back(v);
          graph->add_node(std::move(n));
          scope[v->name] = v;
          continue;
        }
      }
      Tensor t;
      std::string err;
      if (!dense_from_sparse(sparse, options_.max_bytes, t, &err))
        diag_.error("sparse initializer: {}", err);
      Value* v = graph->add_constant(sparse.values().name(), std::move(t));
      scope[v->name] = v;
    }
    size_t position = 0;  // index among the graph inputs that are not initializers
    for (const auto& in : g.input()) {
      if (auto shadowed = scope.find(in.name()); shadowed != scope.end()) {
        check_shadowed_input(in, *shadowed->second);  // IR < 4 lists initializers as inputs too
        continue;
      }
      auto bound =
          is_main ? options_.constant_inputs.find(in.name()) : options_.constant_inputs.end();
      if (bound != options_.constant_inputs.end()) {
        Value* v = graph->add_constant(in.name(), bound->second);
        scope[v->name] = v;
        ++position;
        continue;
      }
      if (is_main && is_container_type(in.type())) {
        scope[in.name()] = import_container_input(in, *graph, position++);
        continue;
      }
      Value* v = graph->add_value(in.name());
      v->is_graph_input = is_main;  // a subgraph's inputs are fed by its control-flow node
      import_value_info(in, *v, is_main, position);
      if (is_main) v->doc_string = in.doc_string();
      if (v->dtype == DataType::kString)
        v->string_capacity = max_string_length(in.name(), position);
      ++position;
      check_input_size(*v);
      graph->inputs.push_back(v);
      scope[v->name] = v;
    }
    if (is_main) check_string_length_flags(*graph);
    outer.push_back(&scope);  // visible to this graph's subgraphs
    for (int i = 0; i < g.node_size(); ++i) import_node(g.node(i), i, *graph, scope, outer);
    outer.pop_back();
    for (const auto& out : g.output()) {
      auto it = scope.find(out.name());
      Value* v = it != scope.end() ? it->second : nullptr;
      if (!v) v = capture(*graph, scope, outer, out.name());
      if (!v) {
        diag_.error("graph output '{}' is never produced", out.name());
        continue;
      }
      if (is_main) v->is_graph_output = true;  // a subgraph's outputs are read by its node
      if (is_main && is_container_type(out.type()) && !v->is_graph_input)
        v->is_graph_output = false;  // infer-shapes exposes its tensors (flattened) instead
      if (v->dtype == DataType::kUndefined && out.type().has_tensor_type())
        v->dtype = static_cast<DataType>(out.type().tensor_type().elem_type());
      graph->outputs.push_back(v);
      if (is_main) {
        if (!out.doc_string().empty()) v->doc_string = out.doc_string();
        graph->declared_outputs.push_back(declared_type(out));
        // --override-shape changes static input dims on purpose: declared output shapes no
        // longer hold then, the declared types still do.
        if (options_.override_shape) graph->declared_outputs.back().has_shape = false;
      }
    }
    return graph;
  }

 private:
  // --keep-sparse: makes `n` a SparseToDense node (ops/tensor/constant.cpp) reading two new
  // constants of `graph`, the values and their linear indices (uint16, uint32 or int64: the
  // narrowest type that spans the tensor), when that COO form takes at most half the bytes of the
  // dense tensor and the dense tensor at least kMinKeptSparseBytes; the dense tensor is then built
  // in the arena at run time (less flash, more RAM). Returns false and leaves `n` alone otherwise
  // (strings and sub-byte types included): the tensor is densified at compile time.
  bool coo_node(const onnx::SparseTensorProto& p, const std::string& name, Node& n, Graph& graph) {
    constexpr int64_t kMinKeptSparseBytes = 256;
    Tensor values, indices;
    std::string error;  // dense_from_sparse reports it
    if (!tensor_from_proto(p.values(), values, &error) ||
        !tensor_from_proto(p.indices(), indices, &error))
      return false;
    const int bits = dtype_info(values.dtype).bits;
    if (values.dtype == DataType::kString || bits % 8 || values.shape.size() != 1) return false;
    const Shape shape(p.dims().begin(), p.dims().end());
    std::optional<int64_t> numel = checked_numel(shape);
    std::optional<int64_t> dense = numel ? checked_bytes(*numel, bits) : numel;
    if (!dense || *dense > options_.max_bytes || *dense < kMinKeptSparseBytes) return false;
    const DataType index_type = *numel <= (int64_t{1} << 16)   ? DataType::kUint16
                                : *numel <= (int64_t{1} << 32) ? DataType::kUint32
                                                               : DataType::kInt64;
    const int64_t nnz = values.numel();
    const int64_t coo = nnz * (bits / 8 + dtype_info(index_type).bits / 8);
    if (2 * coo > *dense) return false;
    const std::vector<int64_t> at = linear_sparse_indices(indices, shape);
    Tensor linear = Tensor::zeros(index_type, {nnz});
    auto store = [&](auto* out) {
      for (int64_t k = 0; k < nnz; ++k)
        out[k] = static_cast<std::remove_pointer_t<decltype(out)>>(at[static_cast<size_t>(k)]);
    };
    if (index_type == DataType::kUint16) store(linear.as<uint16_t>());
    if (index_type == DataType::kUint32) store(linear.as<uint32_t>());
    if (index_type == DataType::kInt64) store(linear.as<int64_t>());
    n.op_type = "SparseToDense";
    n.domain = kSparseDomain;
    n.opset = 1;
    n.attributes.clear();
    Attribute& dims = n.attributes["shape"];
    dims.kind = Attribute::Kind::kInts;
    dims.ints = shape;
    n.inputs = {graph.add_constant(name + ".values", std::move(values)),
                graph.add_constant(name + ".indices", std::move(linear))};
    return true;
  }

  // A name a subgraph uses from an enclosing graph resolves to that graph's Value itself (the
  // innermost enclosing definition), so passes see the real producer, type and shape.
  Value* capture(Graph& /*graph*/, std::map<std::string, Value*>& scope,
                 const std::vector<const std::map<std::string, Value*>*>& outer,
                 const std::string& name) {
    Value* o = nullptr;
    for (auto it = outer.rbegin(); it != outer.rend() && !o; ++it) {
      auto found = (*it)->find(name);
      if (found != (*it)->end()) o = found->second;
    }
    if (o) scope[name] = o;
    return o;
  }

  // A graph output's declared type and shape (symbolic dims as -1), checked after inference.
  static Graph::DeclaredType declared_type(const onnx::ValueInfoProto& vi) {
    Graph::DeclaredType d;
    if (!vi.type().has_tensor_type()) return d;
    const auto& tt = vi.type().tensor_type();
    d.dtype = static_cast<DataType>(tt.elem_type());
    d.has_shape = tt.has_shape();
    for (const auto& dim : tt.shape().dim())
      d.dims.push_back(dim.has_dim_value() && dim.dim_value() >= 0 ? dim.dim_value() : -1);
    return d;
  }

  // An initializer that shares a graph input's name is the input's default value (IR >= 4) or
  // its listing (IR < 4); either way the input's declared type must be the initializer's, and a
  // static declared dim must match, or the caller would feed bytes of another type or size.
  void check_shadowed_input(const onnx::ValueInfoProto& in, const Value& init) {
    if (!in.type().has_tensor_type()) return;
    const auto& tt = in.type().tensor_type();
    auto declared = static_cast<DataType>(tt.elem_type());
    bool same_shape =
        !tt.has_shape() || tt.shape().dim_size() == static_cast<int>(init.shape.size());
    for (int d = 0; same_shape && d < tt.shape().dim_size(); ++d)
      same_shape =
          !tt.shape().dim(d).has_dim_value() || tt.shape().dim(d).dim_value() == init.shape[d];
    if ((declared == DataType::kUndefined || declared == init.dtype) && same_shape) return;
    std::string dims;
    for (int d = 0; d < tt.shape().dim_size(); ++d) {
      const auto& dim = tt.shape().dim(d);
      dims += (d ? "x" : "") +
              (dim.has_dim_value() ? std::to_string(dim.dim_value()) : std::string("?"));
    }
    diag_.error(
        "graph input '{}' is declared {}[{}] but the initializer of that name is {}[{}]: an "
        "initializer that shadows an input must have the input's type and shape",
        in.name(), dtype_name(declared), tt.has_shape() ? (dims.empty() ? "scalar" : dims) : "?",
        dtype_name(init.dtype), shape_str(init.shape));
  }

  static bool is_container_type(const onnx::TypeProto& t) {
    return t.has_sequence_type() || t.has_optional_type() || t.has_map_type();
  }
  // The element type of a tensor, sequence-of-tensor or optional type (undefined for others).
  static DataType elem_dtype(const onnx::TypeProto& t) {
    if (t.has_tensor_type()) return static_cast<DataType>(t.tensor_type().elem_type());
    if (t.has_sequence_type()) return elem_dtype(t.sequence_type().elem_type());
    if (t.has_optional_type()) return elem_dtype(t.optional_type().elem_type());
    if (t.has_map_type()) return elem_dtype(t.map_type().value_type());
    return DataType::kUndefined;
  }

  // A sequence or optional input of the main graph: a container value (not a graph input) whose
  // tensors are graph inputs, one per element, named NAME.0, NAME.1, ... (a sequence) or NAME (a
  // present optional tensor), shaped by the layout the options give; none for an empty optional.
  Value* import_container_input(const onnx::ValueInfoProto& vi, Graph& graph, size_t position) {
    if (vi.type().has_map_type()) return import_map_input(vi, graph, position);
    Value* c = graph.add_value(vi.name());
    const onnx::TypeProto& t = vi.type();
    c->kind = t.has_sequence_type() ? ValueKind::kSequence : ValueKind::kOptional;
    c->dtype = elem_dtype(t);
    c->has_shape = true;
    const bool opt_seq = t.has_optional_type() && t.optional_type().elem_type().has_sequence_type();
    c->contained = opt_seq ? ValueKind::kSequence : ValueKind::kTensor;
    auto named = options_.container_inputs.find(vi.name());
    auto positional = options_.positional_containers.find(position);
    const ContainerLayout* layout = named != options_.container_inputs.end() ? &named->second
                                    : positional != options_.positional_containers.end()
                                        ? &positional->second
                                        : nullptr;
    ContainerLayout present;  // an optional tensor pinned with a plain --shape NAME=DIMS
    auto shape = options_.input_shapes.find(vi.name());
    if (!layout && c->kind == ValueKind::kOptional && !opt_seq &&
        shape != options_.input_shapes.end()) {
      present.shapes.push_back(shape->second);
      layout = &present;
    }
    if (!layout) {
      diag_.error(
          "graph input '{}' is {}: its layout must be known at compile time; pin it with "
          "--shape {}=[2x3;4x3] (element shapes) or --shape {}=none (an empty optional); "
          "sequence lengths and optional presence known only at run time are not supported",
          vi.name(), c->kind == ValueKind::kSequence ? "a sequence" : "an optional", vi.name(),
          vi.name());
      return c;
    }
    if (c->kind == ValueKind::kOptional && layout->absent) return c;
    Value* seq = c;
    if (opt_seq) {
      seq = graph.add_value(vi.name() + ".value");
      seq->kind = ValueKind::kSequence;
      seq->dtype = c->dtype;
      seq->has_shape = true;
    }
    if (c->kind == ValueKind::kOptional && !opt_seq && layout->shapes.size() != 1) {
      diag_.error("graph input '{}': an optional tensor holds one tensor, the layout gives {}",
                  vi.name(), layout->shapes.size());
      return c;
    }
    for (size_t i = 0; i < layout->shapes.size(); ++i) {
      Value* e = graph.add_value(seq == c && c->kind == ValueKind::kOptional
                                     ? vi.name()
                                     : fmt::format("{}.{}", vi.name(), i));
      e->dtype = c->dtype;
      e->shape = layout->shapes[i];
      e->has_shape = true;
      e->is_graph_input = true;
      check_input_size(*e);
      graph.inputs.push_back(e);
      seq->elements.push_back(e);
    }
    if (seq != c) c->elements.push_back(seq);
    return c;
  }

  // A map input of the main graph: a map value (not a graph input) whose keys and values are graph
  // inputs NAME.keys and NAME.values, 1-D, of the entry count `--shape NAME=N` gives (a map's
  // size known only at run time is not supported, as for sequences).
  Value* import_map_input(const onnx::ValueInfoProto& vi, Graph& graph, size_t position) {
    Value* m = graph.add_value(vi.name());
    m->kind = ValueKind::kMap;
    m->dtype = elem_dtype(vi.type());
    m->has_shape = true;
    auto shape = options_.input_shapes.find(vi.name());
    if (shape == options_.input_shapes.end() || shape->second.size() != 1) {
      diag_.error(
          "graph input '{}' is a map: its entry count must be known at compile time; pin it with "
          "--shape {}=N",
          vi.name(), vi.name());
      return m;
    }
    const DataType key = static_cast<DataType>(vi.type().map_type().key_type());
    for (const auto& [suffix, dtype] : {std::pair<const char*, DataType>{"keys", key},
                                        std::pair<const char*, DataType>{"values", m->dtype}}) {
      Value* e = graph.add_value(fmt::format("{}.{}", vi.name(), suffix));
      e->dtype = dtype;
      e->shape = shape->second;
      e->has_shape = true;
      e->is_graph_input = true;
      if (dtype == DataType::kString) e->string_capacity = max_string_length(e->name, position);
      check_input_size(*e);
      graph.inputs.push_back(e);
      m->elements.push_back(e);
    }
    return m;
  }

  // A graph input's dims come from the model or the command line: refuse a size that overflows
  // or exceeds kMaxTensorBytes before anything is sized from it (2^31 x 2^31 x 2^31 wraps int64).
  void check_input_size(const Value& v) {
    if (!v.has_shape) return;
    std::optional<int64_t> numel = checked_numel(v.shape);
    std::optional<int64_t> bytes = numel ? checked_bytes(*numel, dtype_info(v.dtype).bits) : numel;
    if (numel && bytes && *bytes <= kMaxTensorBytes) return;
    diag_.error("graph input '{}' of shape {} has {}: a tensor may hold at most 2^40 bytes (1 TiB)",
                v.name, shape_str(v.shape),
                !numel   ? std::string("a negative dim or more elements than int64 can count")
                : !bytes ? fmt::format("{} elements, more than 2^63 bytes", *numel)
                         : fmt::format("{} elements, {} bytes", *numel, *bytes));
  }

  // --max-string-length must name a string graph input.
  void check_string_length_flags(const Graph& g) {
    for (const auto& flag : options_.max_string_lengths) {
      const std::string& name = flag.first;  // a plain reference: lambdas may not capture bindings
      const int64_t length = flag.second;
      auto it = std::find_if(g.inputs.begin(), g.inputs.end(),
                             [&](const Value* v) { return v->name == name; });
      if (it == g.inputs.end() || (*it)->dtype != DataType::kString)
        diag_.error("--max-string-length {}={}: the model has no string graph input '{}'", name,
                    length, name);
    }
  }

  int64_t max_string_length(const std::string& name, size_t position) const {
    auto named = options_.max_string_lengths.find(name);
    if (named != options_.max_string_lengths.end()) return named->second;
    if (position < options_.positional_string_lengths.size())
      return options_.positional_string_lengths[position];
    return options_.default_max_string_length;
  }

  void import_value_info(const onnx::ValueInfoProto& vi, Value& v, bool pin, size_t position) {
    if (!vi.type().has_tensor_type()) {
      if (!pin) return;  // a subgraph's sequence/optional input: the op that owns it decides
      diag_.error(
          "graph input '{}' is not a tensor (sequence/map/optional inputs are not "
          "supported)",
          vi.name());
      return;
    }
    const auto& tt = vi.type().tensor_type();
    v.dtype = static_cast<DataType>(tt.elem_type());
    auto forced = options_.input_shapes.find(v.name);
    if (forced != options_.input_shapes.end()) {
      v.shape = forced->second;
      v.has_shape = true;
      return;
    }
    if (pin && position < options_.positional_input_shapes.size()) {
      v.shape = options_.positional_input_shapes[position];
      v.has_shape = true;
      return;
    }
    if (!tt.has_shape()) {
      if (pin)
        diag_.error("graph input '{}' has no shape; pin it with --shape {}=DIMS", v.name, v.name);
      return;
    }
    bool resolved = true;
    for (int d = 0; d < tt.shape().dim_size(); ++d) {
      const auto& dim = tt.shape().dim(d);
      v.dim_params.push_back(dim.has_dim_param() ? dim.dim_param() : "");
      if (dim.has_dim_value()) {
        v.shape.push_back(dim.dim_value());
        continue;
      }
      auto it = dim.has_dim_param() ? options_.dims.find(dim.dim_param()) : options_.dims.end();
      if (it != options_.dims.end()) {
        v.shape.push_back(it->second);
        continue;
      }
      if (options_.default_dim >= 0) {
        v.shape.push_back(options_.default_dim);
        continue;
      }
      resolved = false;
      v.shape.push_back(-1);
      if (pin)
        diag_.error(
            "unresolved dim '{}' of graph input '{}' (axis {}); pin it with --dim {}=N or "
            "--shape {}=DIMS",
            dim.has_dim_param() ? dim.dim_param() : "?", v.name, d,
            dim.has_dim_param() ? dim.dim_param() : "NAME", v.name);
    }
    v.has_shape = resolved;
  }

  void import_node(const onnx::NodeProto& p, int index, Graph& graph,
                   std::map<std::string, Value*>& scope,
                   const std::vector<const std::map<std::string, Value*>*>& outer) {
    auto n = std::make_unique<Node>();
    n->name = p.name().empty() ? fmt::format("#{}", index) : p.name();
    n->op_type = p.op_type();
    n->domain = p.domain() == "ai.onnx" ? "" : p.domain();
    auto os = opsets_.find(n->domain);
    n->opset = os == opsets_.end() ? 0 : os->second;
    for (const auto& name : p.input()) {
      if (name.empty()) {
        n->inputs.push_back(nullptr);
        continue;
      }
      auto it = scope.find(name);
      Value* v = it != scope.end() ? it->second : nullptr;
      if (!v && outer.size() > 1) v = capture(graph, scope, {outer.begin(), outer.end() - 1}, name);
      if (!v) diag_.node_error(n->name, n->op_type, "input '{}' is not defined", name);
      n->inputs.push_back(v);
    }
    for (const auto& a : p.attribute()) import_attribute(a, *n, outer);
    if (options_.keep_sparse && n->op_type == "Constant" && n->domain.empty() &&
        p.attribute_size() == 1 && p.attribute(0).name() == "sparse_value" &&
        p.attribute(0).has_sparse_tensor())
      coo_node(p.attribute(0).sparse_tensor(), p.output_size() ? p.output(0) : n->name, *n, graph);
    auto bound = options_.max_trip_counts.find(n->name);
    if (bound != options_.max_trip_counts.end() && n->op_type == "Loop" && n->domain.empty()) {
      Attribute& a = n->attributes[kMaxTripCountAttribute];
      a.kind = Attribute::Kind::kInt;
      a.i = bound->second;
      bounded_loops_.insert(n->name);
    }
    Node* node = graph.add_node(std::move(n));
    for (const auto& name : p.output()) {
      if (name.empty()) {
        node->outputs.push_back(nullptr);
        continue;
      }
      Value* v = graph.add_value(name);
      v->producer = node;
      node->outputs.push_back(v);
      scope[name] = v;
    }
  }

  void import_attribute(const onnx::AttributeProto& a, Node& n,
                        const std::vector<const std::map<std::string, Value*>*>& outer) {
    Attribute attr;
    using K = Attribute::Kind;
    std::string err;
    auto tensor = [&](const onnx::TensorProto& tp) {
      auto t = std::make_shared<Tensor>();
      if (!tensor_from_proto(tp, *t, &err))
        diag_.node_error(n.name, n.op_type, "attribute '{}': {}", a.name(), err);
      return t;
    };
    switch (a.type()) {
      case onnx::AttributeProto::FLOAT:
        attr.kind = K::kFloat;
        attr.f = a.f();
        break;
      case onnx::AttributeProto::INT:
        attr.kind = K::kInt;
        attr.i = a.i();
        break;
      case onnx::AttributeProto::STRING:
        attr.kind = K::kString;
        attr.s = a.s();
        break;
      case onnx::AttributeProto::TENSOR:
        attr.kind = K::kTensor;
        attr.t = tensor(a.t());
        break;
      case onnx::AttributeProto::GRAPH:
        attr.kind = K::kGraph;
        attr.g = import_graph(a.g(), false, outer);
        break;
      case onnx::AttributeProto::FLOATS:
        attr.kind = K::kFloats;
        attr.floats.assign(a.floats().begin(), a.floats().end());
        break;
      case onnx::AttributeProto::INTS:
        attr.kind = K::kInts;
        attr.ints.assign(a.ints().begin(), a.ints().end());
        break;
      case onnx::AttributeProto::STRINGS:
        attr.kind = K::kStrings;
        attr.strings.assign(a.strings().begin(), a.strings().end());
        break;
      case onnx::AttributeProto::TENSORS:
        attr.kind = K::kTensors;
        for (const auto& t : a.tensors()) attr.tensors.push_back(tensor(t));
        break;
      case onnx::AttributeProto::GRAPHS:
        attr.kind = K::kGraphs;
        for (const auto& g : a.graphs()) attr.graphs.push_back(import_graph(g, false, outer));
        break;
      case onnx::AttributeProto::SPARSE_TENSOR: {
        attr.kind = K::kSparseTensor;
        auto t = std::make_shared<Tensor>();
        if (!dense_from_sparse(a.sparse_tensor(), options_.max_bytes, *t, &err))
          diag_.node_error(n.name, n.op_type, "attribute '{}': {}", a.name(), err);
        attr.t = std::move(t);  // densified
        break;
      }
      case onnx::AttributeProto::SPARSE_TENSORS:
        attr.kind = K::kSparseTensors;
        break;
      case onnx::AttributeProto::TYPE_PROTO:
        attr.kind = K::kTypeProto;
        break;
      case onnx::AttributeProto::TYPE_PROTOS:
        attr.kind = K::kTypeProtos;
        break;
      default:
        diag_.node_error(n.name, n.op_type, "attribute '{}' has unknown type {}", a.name(),
                         static_cast<int>(a.type()));
        return;
    }
    n.attributes[a.name()] = std::move(attr);
  }

  const ImportOptions& options_;
  std::set<std::string> bounded_loops_;  // the Loop nodes --max-trip-count named
  Diagnostics& diag_;
  const std::map<std::string, int>& opsets_;
};

}  // namespace

std::unique_ptr<Module> import_model(const onnx::ModelProto& model, const ImportOptions& options,
                                     Diagnostics& diag) {
  auto m = std::make_unique<Module>();
  m->ir_version = model.ir_version();
  m->producer_name = model.producer_name();
  m->producer_version = model.producer_version();
  for (const auto& os : model.opset_import())
    m->opsets[os.domain() == "ai.onnx" ? "" : os.domain()] = static_cast<int>(os.version());
  // IR version 1-2 models have no opset_import; they mean ai.onnx opset 1.
  if (m->opsets.empty()) m->opsets[""] = 1;
  m->domain = model.domain();
  m->model_version = model.model_version();
  m->doc_string = model.doc_string();
  m->graph_name = model.graph().name();
  m->graph_doc_string = model.graph().doc_string();
  auto key_values = [](const auto& entries) {
    Module::KeyValues kv;
    for (const auto& e : entries) kv.emplace_back(e.key(), e.value());
    return kv;
  };
  m->metadata_props = key_values(model.metadata_props());
  m->graph_metadata_props = key_values(model.graph().metadata_props());
  for (const auto& t : model.training_info()) {
    Module::TrainingInfo info;
    info.algorithm = t.algorithm().name();
    info.algorithm_nodes = static_cast<size_t>(t.algorithm().node_size());
    if (t.has_initialization()) {
      info.initialization = t.initialization().name();
      info.initialization_nodes = static_cast<size_t>(t.initialization().node_size());
    }
    info.initialization_binding = key_values(t.initialization_binding());
    info.update_binding = key_values(t.update_binding());
    m->training_info.push_back(std::move(info));
  }
  Importer importer(options, diag, m->opsets);
  m->graph = importer.import_graph(model.graph(), true, {});
  importer.check_trip_count_flags();
  return m;
}

}  // namespace onnxc
