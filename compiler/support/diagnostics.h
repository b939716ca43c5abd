// Diagnostics: collects every error found in a model so that all of them are reported together.
// Each error is one line naming the model, the node (name and op) where known, and the rule broken.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

namespace onnxc {

class Diagnostics {
 public:
  explicit Diagnostics(std::string model = "") : model_(std::move(model)) {}

  void set_model(std::string model) { model_ = std::move(model); }
  const std::string& model() const { return model_; }

  // Error not tied to a node (e.g. a graph input or the file itself).
  template <typename... Args>
  void error(fmt::format_string<Args...> f, Args&&... args) {
    add(fmt::format(f, std::forward<Args>(args)...));
  }
  // Error tied to a node: "node 'NAME' (OP): ...".
  template <typename... Args>
  void node_error(const std::string& node_name, const std::string& op,
                  fmt::format_string<Args...> f, Args&&... args) {
    add(fmt::format("node '{}' ({}): {}", node_name, op,
                    fmt::format(f, std::forward<Args>(args)...)));
  }

  bool ok() const { return errors_.empty(); }
  size_t count() const { return errors_.size(); }
  const std::vector<std::string>& errors() const { return errors_; }
  // Every error as "MODEL: message", one per line.
  std::string str() const;

 private:
  void add(std::string msg) { errors_.push_back(model_.empty() ? msg : model_ + ": " + msg); }
  std::string model_;
  std::vector<std::string> errors_;
};

inline std::string Diagnostics::str() const {
  std::string s;
  for (const auto& e : errors_) s += e + "\n";
  return s;
}

}  // namespace onnxc
