// proto/onnx.proto covers every field the ONNX backend-test files use: each model.onnx and each
// test-data .pb file parses and leaves no unknown field anywhere in the message tree.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "onnx.pb.h"

namespace fs = std::filesystem;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

namespace {

bool unknown_fields_at(const Message& msg, const std::string& where, std::string* path) {
  const auto* refl = msg.GetReflection();
  const auto& unknown = refl->GetUnknownFields(msg);
  if (unknown.field_count() > 0) {
    if (path) *path = where + ": unknown field #" + std::to_string(unknown.field(0).number());
    return true;
  }
  std::vector<const FieldDescriptor*> fields;
  refl->ListFields(msg, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    const std::string sub = where + "." + f->name();
    if (!f->is_repeated()) {
      if (unknown_fields_at(refl->GetMessage(msg, f), sub, path)) return true;
      continue;
    }
    for (int i = 0; i < refl->FieldSize(msg, f); ++i)
      if (unknown_fields_at(refl->GetRepeatedMessage(msg, f, i),
                            sub + "[" + std::to_string(i) + "]", path))
        return true;
  }
  return false;
}

// True if `msg` or any message nested in it (repeated fields included) carries unknown fields;
// then `path` (if given) names the first one, e.g. "ModelProto.graph.node[2]: unknown field #42".
bool has_unknown_fields(const Message& msg, std::string* path) {
  return unknown_fields_at(msg, msg.GetDescriptor()->name(), path);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The message a test-data file holds: `CASE/test_data_set_N/{input,output}_K.pb` holds a value of
// the type of graph input/output K of `CASE/model.onnx`. Anything else (e.g. light/) is a tensor.
std::unique_ptr<Message> message_for(const fs::path& pb) {
  const fs::path model_path = pb.parent_path().parent_path() / "model.onnx";
  const std::string stem = pb.stem().string();  // "input_0" / "output_1"
  const auto us = stem.rfind('_');
  onnx::ModelProto model;
  if (us != std::string::npos && fs::exists(model_path) &&
      model.ParseFromString(read_file(model_path))) {
    const bool is_input = stem.compare(0, us, "input") == 0;
    const auto& vis = is_input ? model.graph().input() : model.graph().output();
    const int k = std::stoi(stem.substr(us + 1));
    if (k < vis.size()) {
      switch (vis[k].type().value_case()) {
        case onnx::TypeProto::kSequenceType:
          return std::make_unique<onnx::SequenceProto>();
        case onnx::TypeProto::kOptionalType:
          return std::make_unique<onnx::OptionalProto>();
        case onnx::TypeProto::kMapType:
          return std::make_unique<onnx::MapProto>();
        case onnx::TypeProto::kSparseTensorType:
          return std::make_unique<onnx::SparseTensorProto>();
        default:
          break;
      }
    }
  }
  return std::make_unique<onnx::TensorProto>();
}

}  // namespace

TEST_CASE("has_unknown_fields finds unknown fields in nested repeated messages", "[proto]") {
  onnx::ModelProto model;
  auto* tensor = model.mutable_graph()->add_initializer();
  std::string path;
  CHECK_FALSE(has_unknown_fields(model, &path));
  tensor->GetReflection()->MutableUnknownFields(tensor)->AddVarint(999, 1);
  REQUIRE(has_unknown_fields(model, &path));
  CHECK(path == "ModelProto.graph.initializer[0]: unknown field #999");
}

TEST_CASE("backend-test protobuf files have no unknown fields", "[proto]") {
  const fs::path root = ONNXC_BACKEND_TESTS_DIR;
  if (!fs::is_directory(root)) {
    WARN("ONNX backend tests not found at " << root << "; skipping");
    return;
  }
  size_t models = 0, data_files = 0;
  std::vector<std::string> failures;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const fs::path& p = entry.path();
    const bool is_model = p.extension() == ".onnx";
    if (!entry.is_regular_file() || (!is_model && p.extension() != ".pb")) continue;
    std::unique_ptr<Message> msg;
    if (is_model) {
      msg = std::make_unique<onnx::ModelProto>();
      ++models;
    } else {
      msg = message_for(p);
      ++data_files;
    }
    std::string where;
    if (!msg->ParseFromString(read_file(p)))
      failures.push_back(p.string() + ": does not parse as " + msg->GetDescriptor()->full_name());
    else if (has_unknown_fields(*msg, &where))
      failures.push_back(p.string() + ": " + where);
  }
  INFO(models << " models, " << data_files << " data files");
  CHECK(models > 0);
  for (const auto& f : failures) FAIL_CHECK(f);
  CHECK(failures.empty());
}
