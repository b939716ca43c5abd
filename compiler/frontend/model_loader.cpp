// Model loading. External data follows ExternalData.md and the containment rules of
// ExternalDataSecurity.md: a location must be relative, free of "..", and its canonical path
// (symlinks followed) must stay inside the model's folder; offset and length must fit the file.
#include "frontend/model_loader.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

namespace onnxc {
namespace fs = std::filesystem;

namespace {

// Reads a whole regular file; on failure returns false and sets `why` to a short reason. Only a
// regular file is read: the type is checked on the open descriptor (no race with a swap), and the
// open does not block, so a FIFO or a device given as a model fails at once instead of hanging.
bool read_file(const fs::path& path, std::string& bytes, std::string& why) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    why = errno == ENOENT ? "no such file" : std::strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    why = "is a directory";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    why = "not a regular file";
    return false;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    why = std::strerror(errno);
    return false;
  }
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!ok) why = "not a regular file";
  if (ok) {
    bytes.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (ok && done < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      ok = n > 0;
      if (ok) done += static_cast<size_t>(n);
    }
    if (!ok) why = "read error (the file shrank or is unreadable)";
  }
  ::close(fd);
  return ok;
}

// Nesting depth a model may reach (protobuf's default recursion limit: a hostile model cannot
// overflow the parser's stack, nor the validator's and importer's walks over subgraphs); and the
// deeper limit used only to explain a refusal.
constexpr int kProtobufDepthLimit = 100;
constexpr int kDiagnoseDepthLimit = 2000;

bool parse_with_depth(const std::string& bytes, google::protobuf::Message& msg, int depth) {
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(INT_MAX);
  stream.SetRecursionLimit(depth);
  return msg.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

// Parses one message from `bytes`. Older protobuf releases cap a parse at 64 MB by default; the
// limit is raised to the 2 GB a serialized message may reach. Sets `why` on failure.
bool parse_message(const std::string& bytes, google::protobuf::Message& msg, std::string& why) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    why = "file is " + std::to_string(bytes.size()) +
          " bytes, over protobuf's 2 GB message limit (store large tensors as external data)";
    return false;
  }
  if (parse_with_depth(bytes, msg, kProtobufDepthLimit)) return true;
  why = "not a valid " + msg.GetTypeName() + " (" + std::to_string(bytes.size()) + " bytes)";
  // Tell a too deep nesting (e.g. If branches holding Ifs, ~3 levels each) from broken bytes: a
  // deeper limit, still far from the stack's, parses it. The model stays refused either way.
  if (parse_with_depth(bytes, msg, kDiagnoseDepthLimit))
    why += ": its messages nest deeper than " + std::to_string(kProtobufDepthLimit) +
           " levels (the protobuf recursion limit; subgraphs nest at most ~30 deep)";
  else
    why += ": malformed or truncated bytes, or messages nested over " +
           std::to_string(kDiagnoseDepthLimit) + " levels deep";
  msg.Clear();
  return false;
}

// A non-negative decimal integer, the whole string.
bool parse_size(const std::string& text, int64_t& value) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end && !text.empty() && value >= 0;
}

bool is_inside(const fs::path& base, const fs::path& path) {
  auto base_it = base.begin();
  for (auto it = path.begin(); base_it != base.end(); ++it, ++base_it) {
    // A trailing "" element (from a trailing '/') on the base matches anything.
    if (base_it->empty() && std::next(base_it) == base.end()) return true;
    if (it == path.end() || *it != *base_it) return false;
  }
  return true;
}

// Replaces the external data of every tensor in a model by its bytes, read from files next to
// the model. Each refused or unreadable tensor gets one error naming it and the rule.
class ExternalDataResolver {
 public:
  ExternalDataResolver(const fs::path& model_dir, Diagnostics& diag) : diag_(diag) {
    std::error_code ec;
    base_ = fs::weakly_canonical(model_dir.empty() ? fs::path(".") : model_dir, ec);
    if (ec) base_ = fs::absolute(model_dir, ec);
  }

  void resolve_model(onnx::ModelProto& model) {
    if (model.has_graph()) resolve_graph(*model.mutable_graph(), "");
    for (auto& function : *model.mutable_functions())
      resolve_nodes(*function.mutable_node(), "function '" + function.name() + "' ");
    for (auto& info : *model.mutable_training_info()) {
      if (info.has_initialization()) resolve_graph(*info.mutable_initialization(), "training ");
      if (info.has_algorithm()) resolve_graph(*info.mutable_algorithm(), "training ");
    }
  }

 private:
  void resolve_graph(onnx::GraphProto& graph, const std::string& where) {
    for (auto& t : *graph.mutable_initializer())
      resolve(t, [&] { return where + "initializer '" + t.name() + "'"; });
    for (auto& sparse : *graph.mutable_sparse_initializer())
      resolve_sparse(sparse,
                     [&] { return where + "sparse initializer '" + sparse.values().name() + "'"; });
    resolve_nodes(*graph.mutable_node(), where);
  }

  void resolve_nodes(google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
                     const std::string& where) {
    for (int i = 0; i < nodes.size(); ++i) {
      onnx::NodeProto& node = nodes[i];
      for (auto& attr : *node.mutable_attribute()) {
        std::string node_where = where + "node '" +
                                 (node.name().empty() ? "#" + std::to_string(i) : node.name()) +
                                 "' (" + node.op_type() + ") attribute '" + attr.name() + "'";
        auto label = [&] { return "tensor in " + node_where; };
        if (attr.has_t()) resolve(*attr.mutable_t(), label);
        for (auto& t : *attr.mutable_tensors()) resolve(t, label);
        if (attr.has_sparse_tensor()) resolve_sparse(*attr.mutable_sparse_tensor(), label);
        for (auto& s : *attr.mutable_sparse_tensors()) resolve_sparse(s, label);
        if (attr.has_g()) resolve_graph(*attr.mutable_g(), node_where + ": ");
        for (auto& g : *attr.mutable_graphs()) resolve_graph(g, node_where + ": ");
      }
    }
  }

  template <typename Label>
  void resolve_sparse(onnx::SparseTensorProto& sparse, const Label& label) {
    if (sparse.has_values()) resolve(*sparse.mutable_values(), label);
    if (sparse.has_indices())
      resolve(*sparse.mutable_indices(), [&] { return label() + " indices"; });
  }

  // `label` builds the tensor's description; it is only called for external tensors.
  template <typename Label>
  void resolve(onnx::TensorProto& t, const Label& label) {
    if (t.data_location() == onnx::TensorProto::EXTERNAL) load(t, label());
  }

  void load(onnx::TensorProto& t, const std::string& what) {
    // Inline data besides external data: which one is the tensor? Refused, never overwritten.
    if (!t.raw_data().empty() || t.float_data_size() || t.int32_data_size() ||
        t.string_data_size() || t.int64_data_size() || t.double_data_size() ||
        t.uint64_data_size()) {
      diag_.error("{}: holds inline data and external data; a tensor stores its data in one place",
                  what);
      return;
    }
    std::string location;
    int64_t offset = 0, length = -1;
    std::set<std::string> seen;
    for (const auto& kv : t.external_data()) {
      if (kv.key() != "location" && kv.key() != "offset" && kv.key() != "length" &&
          kv.key() != "checksum") {
        diag_.error(
            "{}: unknown external data key '{}' (ExternalData.md allows location, offset, "
            "length, checksum)",
            what, kv.key());
        return;
      }
      if (!seen.insert(kv.key()).second) {
        diag_.error("{}: external data key '{}' is given twice", what, kv.key());
        return;
      }
      if (kv.key() == "location") {
        location = kv.value();
      } else if ((kv.key() == "offset" && !parse_size(kv.value(), offset)) ||
                 (kv.key() == "length" && !parse_size(kv.value(), length))) {
        diag_.error("{}: external data '{}' must be a non-negative integer, got '{}'", what,
                    kv.key(), kv.value());
        return;
      }
    }
    if (location.empty()) {
      diag_.error("{}: external data has no 'location'", what);
      return;
    }
    fs::path relative(location);
    if (relative.is_absolute() || relative.has_root_name() || relative.has_root_directory()) {
      diag_.error(
          "{}: external data location '{}' is absolute; it must be relative to the model's folder",
          what, location);
      return;
    }
    for (const auto& part : relative) {
      if (part == "..") {
        diag_.error(
            "{}: external data location '{}' contains '..'; it must stay inside the model's folder",
            what, location);
        return;
      }
    }
    std::error_code ec;
    fs::path full = fs::weakly_canonical(base_ / relative, ec);
    if (ec) {
      diag_.error("{}: cannot resolve external data location '{}': {}", what, location,
                  ec.message());
      return;
    }
    if (!is_inside(base_, full)) {
      diag_.error(
          "{}: external data location '{}' resolves (through a symlink) to '{}', outside "
          "the model's folder",
          what, location, full.string());
      return;
    }
    if (!fs::exists(full, ec)) {
      diag_.error("{}: external data file '{}' does not exist", what, location);
      return;
    }
    if (!fs::is_regular_file(full, ec)) {
      diag_.error("{}: external data location '{}' is not a regular file", what, location);
      return;
    }
    std::ifstream in(full, std::ios::binary | std::ios::ate);
    int64_t size = in ? static_cast<int64_t>(in.tellg()) : -1;
    if (size < 0) {
      diag_.error("{}: cannot open external data file '{}': {}", what, location,
                  std::strerror(errno));
      return;
    }
    if (offset > size || (length >= 0 && length > size - offset)) {
      diag_.error("{}: external data offset {} length {} is past the end of '{}' ({} bytes)", what,
                  offset, length, location, size);
      return;
    }
    if (length < 0) length = size - offset;
    std::string data(static_cast<size_t>(length), '\0');
    in.seekg(offset);
    if (!in.read(data.data(), length)) {
      diag_.error("{}: read error in external data file '{}'", what, location);
      return;
    }
    t.set_raw_data(std::move(data));
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto::DEFAULT);
  }

  fs::path base_;
  Diagnostics& diag_;
};

}  // namespace

bool load_model_from_bytes(const std::string& bytes, const std::string& model_dir,
                           onnx::ModelProto& model, Diagnostics& diag) {
  std::string why;
  if (bytes.empty()) {
    diag.error("cannot parse model: the file is empty");
    return false;
  }
  if (!parse_message(bytes, model, why)) {
    diag.error("cannot parse model: {}", why);
    return false;
  }
  size_t before = diag.count();
  ExternalDataResolver(model_dir, diag).resolve_model(model);
  return diag.count() == before;
}

bool load_model(const std::string& path, onnx::ModelProto& model, Diagnostics& diag) {
  std::string bytes, why;
  if (!read_file(path, bytes, why)) {
    // The pipeline names the model in every error already (Diagnostics::set_model).
    if (diag.model() == path)
      diag.error("cannot read model file: {}", why);
    else
      diag.error("cannot read model file '{}': {}", path, why);
    return false;
  }
  return load_model_from_bytes(bytes, fs::path(path).parent_path().string(), model, diag);
}

bool load_tensor_proto(const std::string& path, onnx::TensorProto& tensor, std::string* error) {
  std::string bytes, why;
  if (!read_file(path, bytes, why)) {
    *error = "cannot read file: " + why;
    return false;
  }
  if (!parse_message(bytes, tensor, why)) {
    *error = why;
    return false;
  }
  return true;
}

}  // namespace onnxc
