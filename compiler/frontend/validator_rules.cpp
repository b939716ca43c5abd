// Validator rules over tensor contents and across functions (see validator_rules.h).
#include "frontend/validator_rules.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/checked_math.h"
#include "ir/dtype.h"

namespace onnxc {
namespace {

// The int64 entries of an int64 tensor, from int64_data or little-endian raw_data.
std::vector<int64_t> int64_entries(const onnx::TensorProto& t) {
  if (t.raw_data().empty()) return {t.int64_data().begin(), t.int64_data().end()};
  std::vector<int64_t> v(t.raw_data().size() / 8);
  std::memcpy(v.data(), t.raw_data().data(), v.size() * 8);
  return v;
}

// Elements the data fields of `t` hold (raw_data counted in whole elements).
int64_t stored_elements(const onnx::TensorProto& t) {
  auto type = static_cast<DataType>(t.data_type());
  if (!t.raw_data().empty()) {
    int64_t bits = is_valid_dtype(t.data_type()) ? dtype_info(type).bits : 8;
    return bits ? static_cast<int64_t>(t.raw_data().size()) * 8 / bits : 0;
  }
  int64_t n = t.float_data_size() + t.int32_data_size() + t.string_data_size() +
              t.int64_data_size() + t.double_data_size() + t.uint64_data_size();
  if (type == DataType::kComplex64 || type == DataType::kComplex128) n /= 2;
  return n;
}

}  // namespace

void check_sparse_indices(const onnx::SparseTensorProto& s, const std::string& what,
                          Diagnostics& diag) {
  const auto& values = s.values();
  const auto& indices = s.indices();
  if (values.dims_size() != 1) {
    diag.error("{}: sparse values must be 1-D [NNZ], not rank {}", what, values.dims_size());
    return;
  }
  const int64_t nnz = values.dims(0);
  const int64_t rank = s.dims_size();
  std::vector<int64_t> dense(s.dims().begin(), s.dims().end());
  std::optional<int64_t> numel = checked_numel(dense);
  if (!numel) return;                                           // check_dims reported the dims
  if (indices.data_type() != onnx::TensorProto::INT64) return;  // reported by the caller
  const bool linear = indices.dims_size() == 1 && indices.dims(0) == nnz;
  const bool coords = indices.dims_size() == 2 && indices.dims(0) == nnz && indices.dims(1) == rank;
  if (!linear && !coords) {
    diag.error("{}: sparse indices have shape [{}]; with {} values they must be [{}] or [{}, {}]",
               what, fmt::join(indices.dims(), ", "), nnz, nnz, nnz, rank);
    return;
  }
  std::vector<int64_t> idx = int64_entries(indices);
  const int64_t per = linear ? 1 : rank;
  if (static_cast<int64_t>(idx.size()) != nnz * per) return;  // check_tensor reported the size
  int64_t previous = -1;
  for (int64_t k = 0; k < nnz; ++k) {
    int64_t flat = 0;
    for (int64_t d = 0; d < per; ++d) {
      int64_t i = idx[static_cast<size_t>(k * per + d)];
      int64_t bound = linear ? *numel : dense[static_cast<size_t>(d)];
      if (i < 0 || i >= bound) {
        diag.error("{}: sparse index {} of value {} is out of range [0, {})", what, i, k, bound);
        return;
      }
      flat = linear ? i : flat * dense[static_cast<size_t>(d)] + i;
    }
    if (flat <= previous) {
      diag.error("{}: sparse indices must be strictly ascending; value {} is at {} after {}", what,
                 k, flat, previous);
      return;
    }
    previous = flat;
  }
}

void check_segment(const onnx::TensorProto& t, int64_t numel, const std::string& what,
                   Diagnostics& diag) {
  const int64_t begin = t.segment().begin(), end = t.segment().end();
  if (begin < 0 || end < begin || end > numel) {
    diag.error("{}: segment [{}, {}) is not within the tensor's {} elements", what, begin, end,
               numel);
    return;
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL) return;
  if (int64_t held = stored_elements(t); held != end - begin)
    diag.error("{}: segment [{}, {}) needs {} elements but its data holds {}", what, begin, end,
               end - begin, held);
}

namespace {

using FunctionId = std::tuple<std::string, std::string, std::string>;  // domain, name, overload

std::string function_label(const FunctionId& f) {
  return std::get<0>(f) + ":" + std::get<1>(f);
}

// The local functions the nodes call, subgraphs of their attributes included.
void collect_calls(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
                   const std::map<FunctionId, int>& index, std::set<int>& calls) {
  for (const auto& n : nodes) {
    auto it = index.find({n.domain(), n.op_type(), n.overload()});
    if (it != index.end()) calls.insert(it->second);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_calls(a.g().node(), index, calls);
      for (const auto& g : a.graphs()) collect_calls(g.node(), index, calls);
    }
  }
}

}  // namespace

void check_function_recursion(const onnx::ModelProto& model, Diagnostics& diag) {
  std::map<FunctionId, int> index;
  std::vector<FunctionId> ids;
  for (const auto& f : model.functions()) {
    FunctionId id{f.domain(), f.name(), f.overload()};
    if (index.emplace(id, static_cast<int>(ids.size())).second) ids.push_back(id);
  }
  std::vector<std::set<int>> calls(ids.size());
  for (const auto& f : model.functions())
    collect_calls(f.node(), index, calls[index.at({f.domain(), f.name(), f.overload()})]);
  // Depth-first search without recursion (a chain of 100k functions must not blow the stack).
  enum Color { kWhite, kGrey, kBlack };
  std::vector<Color> color(ids.size(), kWhite);
  for (size_t root = 0; root < ids.size(); ++root) {
    if (color[root] != kWhite) continue;
    std::vector<std::pair<int, std::set<int>::const_iterator>> stack;
    color[root] = kGrey;
    stack.emplace_back(static_cast<int>(root), calls[root].begin());
    while (!stack.empty()) {
      auto& [f, next] = stack.back();
      if (next == calls[static_cast<size_t>(f)].end()) {
        color[static_cast<size_t>(f)] = kBlack;
        stack.pop_back();
        continue;
      }
      int g = *next++;
      if (color[static_cast<size_t>(g)] == kGrey) {
        std::string cycle;
        size_t from = 0;
        while (stack[from].first != g) ++from;
        for (size_t k = from; k < stack.size(); ++k)
          cycle += function_label(ids[static_cast<size_t>(stack[k].first)]) + " -> ";
        diag.error("function '{}' calls itself ({}{}); recursive functions are not allowed",
                   function_label(ids[static_cast<size_t>(g)]), cycle,
                   function_label(ids[static_cast<size_t>(g)]));
      } else if (color[static_cast<size_t>(g)] == kWhite) {
        color[static_cast<size_t>(g)] = kGrey;
        stack.emplace_back(g, calls[static_cast<size_t>(g)].begin());
      }
    }
  }
}

namespace {

struct OpSchemaAttributes {
  const char* domain;
  const char* op;
  int since;
  const char* names;
};

constexpr OpSchemaAttributes kSchemas[] = {
#define OP(domain, op, since, names) {domain, op, since, names},
#include "frontend/op_attributes.inc"
#undef OP
};

}  // namespace

const char* declared_attributes(const std::string& domain, const std::string& op, int64_t version,
                                int* since) {
  const std::string d = domain == "ai.onnx" ? "" : domain;
  // The rows are sorted by (domain, op, since): the last row <= (d, op, version) is the schema.
  auto before = [](const OpSchemaAttributes& s,
                   const std::tuple<const char*, const char*, int64_t>& key) {
    int c = std::strcmp(s.domain, std::get<0>(key));
    if (c == 0) c = std::strcmp(s.op, std::get<1>(key));
    return c != 0 ? c < 0 : s.since <= std::get<2>(key);
  };
  const auto* end = std::end(kSchemas);
  const auto* it =
      std::partition_point(std::begin(kSchemas), end, [&](const OpSchemaAttributes& s) {
        return before(s, std::make_tuple(d.c_str(), op.c_str(), version));
      });
  if (it == std::begin(kSchemas)) return nullptr;
  --it;
  if (d != it->domain || op != it->op) return nullptr;
  *since = it->since;
  return it->names;
}

// Calls visit(name, type) for each "name:TYPE" entry of `declared`; stops when it returns true.
template <typename Visit>
void for_each_declared(const char* declared, Visit visit) {
  for (const char* p = declared; *p;) {
    const char* end = std::strchr(p, ' ');
    size_t len = end ? static_cast<size_t>(end - p) : std::strlen(p);
    std::string_view entry(p, len);
    size_t colon = entry.find(':');
    if (visit(entry.substr(0, colon), colon == entry.npos ? "" : entry.substr(colon + 1))) return;
    p += len + (end ? 1 : 0);
  }
}

std::string declared_type(const char* declared, const std::string& name) {
  std::string type;
  for_each_declared(declared, [&](std::string_view n, std::string_view t) {
    if (n != name) return false;
    type = t;
    return true;
  });
  return type;
}

std::string declared_names(const char* declared) {
  std::string names;
  for_each_declared(declared, [&](std::string_view n, std::string_view) {
    names += (names.empty() ? "" : " ") + std::string(n);
    return false;
  });
  return names;
}

}  // namespace onnxc
