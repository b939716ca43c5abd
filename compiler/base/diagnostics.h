// Diagnostics: collects the errors found in a model so that they are reported together. Each error
// is one line naming the model, the node (name and op) where known, and the rule broken.
//
// Bounded (issue 18): a hostile model can trigger millions of errors or quote megabytes of its own
// text. Only the first max_errors() messages are kept (the rest are counted, in constant memory),
// and every message is made one bounded line before it is stored: a quoted or bracketed model value
// ('name', "text", {1, 2, ...}, [..]) over kMaxQuoted bytes is cut with "...", control bytes,
// backslashes and invalid UTF-8 become C escapes (\n, \x00, \\, \xFF), and the whole line is cut
// at kMaxLine bytes.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

namespace onnxc {

// The default of --max-errors.
inline constexpr size_t kDefaultMaxErrors = 20;

// `message` as one bounded line: quoted values cut, bytes escaped, length capped (see above).
std::string bound_message(std::string_view message);

class Diagnostics {
 public:
  static constexpr size_t kMaxQuoted = 80;  // bytes of a quoted model value kept
  static constexpr size_t kMaxLine = 600;   // bytes of one error line kept

  explicit Diagnostics(std::string model = "", size_t max_errors = kDefaultMaxErrors)
      : model_(std::move(model)), max_errors_(max_errors) {}

  void set_model(std::string model) { model_ = std::move(model); }
  const std::string& model() const { return model_; }
  // How many messages are kept (0: all of them); later ones are only counted.
  void set_max_errors(size_t n) { max_errors_ = n; }
  size_t max_errors() const { return max_errors_; }

  // Error not tied to a node (e.g. a graph input or the file itself).
  template <typename... Args>
  void error(fmt::format_string<Args...> f, Args&&... args) {
    if (full()) return drop();
    add(fmt::format(f, std::forward<Args>(args)...));
  }
  // Error tied to a node: "node 'NAME' (OP): ...".
  template <typename... Args>
  void node_error(const std::string& node_name, const std::string& op,
                  fmt::format_string<Args...> f, Args&&... args) {
    if (full()) return drop();
    add(fmt::format("node '{}' ({}): {}", node_name, op,
                    fmt::format(f, std::forward<Args>(args)...)));
  }

  bool ok() const { return count_ == 0; }
  // Every error reported, kept or not.
  size_t count() const { return count_; }
  // The kept messages (the first max_errors()), each "MODEL: message".
  const std::vector<std::string>& errors() const { return errors_; }
  // The kept errors one per line, then "... and K more errors" when some were dropped.
  std::string str() const;

 private:
  bool full() const { return max_errors_ != 0 && errors_.size() >= max_errors_; }
  void drop() { ++count_; }
  void add(const std::string& msg) {
    ++count_;
    errors_.push_back(bound_message(model_.empty() ? msg : model_ + ": " + msg));
  }
  std::string model_;
  size_t max_errors_;
  size_t count_ = 0;
  std::vector<std::string> errors_;
};

inline std::string Diagnostics::str() const {
  std::string s;
  for (const auto& e : errors_) s += e + "\n";
  if (count_ > errors_.size())
    s += fmt::format("... and {} more error{} (--max-errors N shows more)\n",
                     count_ - errors_.size(), count_ - errors_.size() == 1 ? "" : "s");
  return s;
}

}  // namespace onnxc
