#include "ops/broadcast.h"

#include <fmt/format.h>

#include <algorithm>

#include "ops/op.h"  // labeled()

namespace onnxc {

bool broadcast_shapes(const std::vector<Shape>& shapes, Shape& out) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  out.assign(rank, 1);
  for (const auto& s : shapes)
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[rank - s.size() + i];
      int64_t d = s[i];
      if (d == o || d == 1) continue;
      if (o != 1) return false;
      o = d;
    }
  return true;
}

namespace {
void fill_strides(const Shape& out, const Shape& in, index_t* strides) {
  size_t rank = out.size(), offset = rank - in.size();
  index_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    if (i < offset) {
      strides[i] = 0;
      continue;
    }
    int64_t d = in[i - offset];
    strides[i] = (d == 1 && out[i] != 1) ? 0 : stride;
    stride *= d;
  }
}
}  // namespace

BroadcastParams make_broadcast_params(const Shape& out, const Shape& a, const Shape& b,
                                      const Shape* c) {
  BroadcastParams p{};
  p.rank = static_cast<int>(out.size());
  for (size_t i = 0; i < out.size(); ++i) p.dims[i] = out[i];
  fill_strides(out, a, p.a_strides);
  fill_strides(out, b, p.b_strides);
  if (c) fill_strides(out, *c, p.c_strides);
  p.numel = shape_numel(out);
  int64_t na = shape_numel(a), nb = shape_numel(b);
  if (!c && na == p.numel && nb == p.numel)
    p.kind = 1;
  else if (!c && nb == 1 && na == p.numel)
    p.kind = 2;
  else if (!c && na == 1 && nb == p.numel)
    p.kind = 3;
  else
    p.kind = 0;
  return p;
}

void coalesce_dims(BroadcastParams& p) {
  index_t* strides[3] = {p.a_strides, p.b_strides, p.c_strides};
  int rank = 0;
  for (int i = 0; i < p.rank; ++i) {
    if (p.dims[i] == 1) continue;
    const bool merge = rank > 0 && std::all_of(strides, strides + 3, [&](const index_t* s) {
                         return s[rank - 1] == s[i] * p.dims[i];
                       });
    if (merge) {
      p.dims[rank - 1] *= p.dims[i];
      for (index_t* s : strides) s[rank - 1] = s[i];
    } else {
      p.dims[rank] = p.dims[i];
      for (index_t* s : strides) s[rank] = s[i];
      ++rank;
    }
  }
  if (rank == 0) {  // a single element
    p.dims[0] = 1;
    for (index_t* s : strides) s[0] = 0;
    rank = 1;
  }
  for (int i = rank; i < p.rank; ++i) {
    p.dims[i] = 0;
    for (index_t* s : strides) s[i] = 0;
  }
  p.rank = rank;
}

std::string broadcast_params_decl(const BroadcastParams& p, const char* var) {
  auto arr = [&](const index_t* v) {
    return fmt::format("{{{}}}", fmt::join(v, v + p.rank, ", "));
  };
  return fmt::format("static constexpr onnxc::BroadcastParams {} = {};", var,
                     labeled({{"rank", fmt::format("{}", p.rank)},
                              {"dims", arr(p.dims)},
                              {"a_strides", arr(p.a_strides)},
                              {"b_strides", arr(p.b_strides)},
                              {"c_strides", arr(p.c_strides)},
                              {"numel", fmt::format("{}", p.numel)},
                              {"kind", fmt::format("{}", p.kind)}}));
}

}  // namespace onnxc
