// A small FileCheck: `patterns` are lines "CHECK: text" (must appear, after the previous match),
// "CHECK-NEXT: text" (on the line after the previous match), "CHECK-SAME: text" (on the line of
// the previous match) and "CHECK-NOT: text" (must not appear between the previous match and the
// next one). Returns "" or what failed.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace onnxc::testing {

inline std::string filecheck(const std::string& text, const std::vector<std::string>& patterns) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  size_t pos = 0;  // first line the next CHECK may match
  std::vector<std::string> pending_not;
  auto find_from = [&](const std::string& needle, size_t from) {
    for (size_t i = from; i < lines.size(); ++i)
      if (lines[i].find(needle) != std::string::npos) return i;
    return lines.size();
  };
  for (const auto& p : patterns) {
    auto colon = p.find(": ");
    std::string kind = p.substr(0, colon), needle = p.substr(colon + 2);
    if (kind == "CHECK-NOT") {
      pending_not.push_back(needle);
      continue;
    }
    size_t at = kind == "CHECK-NEXT"   ? pos
                : kind == "CHECK-SAME" ? (pos ? pos - 1 : lines.size())
                                       : find_from(needle, pos);
    if (at >= lines.size() || lines[at].find(needle) == std::string::npos)
      return "no match for '" + p + "' in:\n" + text;
    for (const auto& n : pending_not)
      for (size_t i = pos; i < at; ++i)
        if (lines[i].find(n) != std::string::npos)
          return "CHECK-NOT '" + n + "' matched: " + lines[i];
    pending_not.clear();
    pos = at + 1;
  }
  for (const auto& n : pending_not)
    for (size_t i = pos; i < lines.size(); ++i)
      if (lines[i].find(n) != std::string::npos)
        return "CHECK-NOT '" + n + "' matched: " + lines[i];
  return "";
}

}  // namespace onnxc::testing
