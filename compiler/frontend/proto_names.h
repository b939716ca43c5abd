// Fresh names for the ModelProto rewrites that run before import (function inlining, the
// com.microsoft expansions): a node or value they add must not take a name the model uses.
#pragma once

#include <set>
#include <string>

#include "onnx.pb.h"

namespace onnxc {

// Adds every input, initializer, node and node-output name of `g` and of its subgraphs to `used`.
inline void collect_proto_names(const onnx::GraphProto& g, std::set<std::string>& used) {
  for (const auto& v : g.input()) used.insert(v.name());
  for (const auto& v : g.initializer()) used.insert(v.name());
  for (const auto& n : g.node()) {
    used.insert(n.name());
    for (const auto& o : n.output()) used.insert(o);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_proto_names(a.g(), used);
      for (const auto& sg : a.graphs()) collect_proto_names(sg, used);
    }
  }
}

// `want`, else want_2, want_3, ...: the first name not in `used`, which it is added to.
inline std::string fresh_proto_name(const std::string& want, std::set<std::string>& used) {
  std::string name = want;
  for (int k = 2; !used.insert(name).second; ++k) name = want + "_" + std::to_string(k);
  return name;
}

}  // namespace onnxc
