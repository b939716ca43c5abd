#include "frontend/model_loader.h"

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "base/temp_dir.h"
#include "harness/model_builder.h"

using namespace onnxc;
using onnxc::testing::ModelBuilder;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A fresh folder, removed when the test binary exits.
fs::path fresh_dir() {
  static std::vector<std::unique_ptr<TempDir>> dirs;
  dirs.push_back(std::make_unique<TempDir>("onnxc-loader-"));
  REQUIRE(dirs.back()->ok());
  return dirs.back()->path();
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// Little-endian bytes of floats, as raw_data and external data files hold them.
std::string float_bytes(const std::vector<float>& values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// A model computing y = x + w, where w's data is external with the given key/values.
ModelBuilder external_model(const std::vector<std::pair<std::string, std::string>>& keys) {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
  auto* w = mb.proto().mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(2);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  for (const auto& [k, v] : keys) {
    auto* kv = w->add_external_data();
    kv->set_key(k);
    kv->set_value(v);
  }
  mb.node("Add", {"x", "w"}, {"y"}, "add0");
  return mb;
}

// Loads `path`, expecting exactly one error; returns it.
std::string single_error(const std::string& path) {
  Diagnostics diag;
  onnx::ModelProto model;
  CHECK_FALSE(load_model(path, model, diag));
  REQUIRE(diag.count() == 1);
  return diag.errors()[0];
}

}  // namespace

TEST_CASE("load_model reads a model", "[loader]") {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {3}).output("y", onnx::TensorProto::FLOAT, {3});
  mb.initializer("b", {3}, {1, 2, 3});
  mb.node("Add", {"x", "b"}, {"y"}, "add0");
  Diagnostics diag;
  onnx::ModelProto model;
  REQUIRE(load_model(mb.write(), model, diag));
  CHECK(diag.ok());
  CHECK(model.graph().node(0).op_type() == "Add");
  CHECK(model.graph().initializer(0).float_data(2) == 3.0f);
}

TEST_CASE("load_model_from_bytes parses bytes in memory", "[loader]") {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {1}).output("x", onnx::TensorProto::FLOAT, {1});
  Diagnostics diag;
  onnx::ModelProto model;
  REQUIRE(load_model_from_bytes(mb.proto().SerializeAsString(), ".", model, diag));
  CHECK(model.graph().input(0).name() == "x");
  // A model without a graph stays without one, for the validator to report.
  mb.proto().clear_graph();
  REQUIRE(load_model_from_bytes(mb.proto().SerializeAsString(), ".", model, diag));
  CHECK_FALSE(model.has_graph());
}

TEST_CASE("external data is read at its offset and length", "[loader]") {
  ModelBuilder mb =
      external_model({{"location", "weights/w.bin"}, {"offset", "4"}, {"length", "8"}});
  // A Constant inside an If branch also points at external data: nested graphs are resolved.
  auto& if_node = mb.node("If", {"c"}, {"z"}, "if0");
  auto* branch = if_node.add_attribute();
  branch->set_name("then_branch");
  branch->set_type(onnx::AttributeProto::GRAPH);
  auto* constant = branch->mutable_g()->add_node();
  constant->set_op_type("Constant");
  auto* value = constant->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  *value->mutable_t() = mb.proto().graph().initializer(0);
  std::string path = mb.write();
  write_bytes(fs::path(path).parent_path() / "weights" / "w.bin", float_bytes({9, 1.5f, -2, 7}));

  Diagnostics diag;
  onnx::ModelProto model;
  REQUIRE(load_model(path, model, diag));
  for (const onnx::TensorProto* t :
       {&model.graph().initializer(0),
        &model.graph().node(1).attribute(0).g().node(0).attribute(0).t()}) {
    CHECK(t->raw_data() == float_bytes({1.5f, -2}));
    CHECK(t->external_data_size() == 0);
    CHECK(t->data_location() == onnx::TensorProto::DEFAULT);
  }
}

TEST_CASE("external data without length runs to the end of the file", "[loader]") {
  std::string path = external_model({{"location", "w.bin"}, {"offset", "4"}}).write();
  write_bytes(fs::path(path).parent_path() / "w.bin", float_bytes({0, 3, 4}));
  Diagnostics diag;
  onnx::ModelProto model;
  REQUIRE(load_model(path, model, diag));
  CHECK(model.graph().initializer(0).raw_data() == float_bytes({3, 4}));
}

TEST_CASE("external data locations outside the model's folder are refused", "[loader]") {
  SECTION("'..'") {
    std::string error = single_error(external_model({{"location", "../w.bin"}}).write());
    CHECK(contains(error, "initializer 'w'"));
    CHECK(contains(error, "'../w.bin' contains '..'"));
  }
  SECTION("'..' in the middle") {
    std::string error = single_error(external_model({{"location", "a/../../w.bin"}}).write());
    CHECK(contains(error, "contains '..'"));
  }
  SECTION("absolute") {
    std::string error = single_error(external_model({{"location", "/etc/passwd"}}).write());
    CHECK(contains(error, "initializer 'w'"));
    CHECK(contains(error, "'/etc/passwd' is absolute"));
  }
  SECTION("a symlink to a file outside") {
    fs::path outside = fresh_dir() / "secret.bin";
    write_bytes(outside, float_bytes({1, 2}));
    std::string path = external_model({{"location", "link.bin"}}).write();
    fs::create_symlink(outside, fs::path(path).parent_path() / "link.bin");
    std::string error = single_error(path);
    CHECK(contains(error, "initializer 'w'"));
    CHECK(contains(error, "outside the model's folder"));
  }
  SECTION("a symlinked folder leading outside") {
    fs::path outside = fresh_dir();
    write_bytes(outside / "secret.bin", float_bytes({1, 2}));
    std::string path = external_model({{"location", "sub/secret.bin"}}).write();
    fs::create_directory_symlink(outside, fs::path(path).parent_path() / "sub");
    CHECK(contains(single_error(path), "outside the model's folder"));
  }
}

TEST_CASE("a symlink that stays inside the model's folder is followed", "[loader]") {
  std::string path = external_model({{"location", "link.bin"}}).write();
  fs::path dir = fs::path(path).parent_path();
  write_bytes(dir / "real.bin", float_bytes({5, 6}));
  fs::create_symlink(dir / "real.bin", dir / "link.bin");
  Diagnostics diag;
  onnx::ModelProto model;
  REQUIRE(load_model(path, model, diag));
  CHECK(model.graph().initializer(0).raw_data() == float_bytes({5, 6}));
}

TEST_CASE("bad external data is reported, naming the tensor", "[loader]") {
  SECTION("missing file") {
    std::string error = single_error(external_model({{"location", "nope.bin"}}).write());
    CHECK(contains(error, "initializer 'w': external data file 'nope.bin' does not exist"));
  }
  SECTION("no location") {
    CHECK(contains(single_error(external_model({{"offset", "0"}}).write()), "no 'location'"));
  }
  SECTION("offset and length past the end") {
    for (auto [offset, length] : {std::pair{"4", "8"}, std::pair{"12", "0"}}) {
      std::string path =
          external_model({{"location", "w.bin"}, {"offset", offset}, {"length", length}}).write();
      write_bytes(fs::path(path).parent_path() / "w.bin", float_bytes({1, 2}));
      std::string error = single_error(path);
      CHECK(contains(error, "initializer 'w'"));
      CHECK(contains(error, "past the end of 'w.bin' (8 bytes)"));
    }
  }
  SECTION("offset not a non-negative integer") {
    for (const char* offset : {"-4", "4x", "", "99999999999999999999"}) {
      std::string path = external_model({{"location", "w.bin"}, {"offset", offset}}).write();
      CHECK(contains(single_error(path), "'offset' must be a non-negative integer"));
    }
  }
}

TEST_CASE("unreadable and unparsable model files give one clean error", "[loader]") {
  fs::path dir = fresh_dir();
  SECTION("missing") {
    CHECK(contains(single_error((dir / "none.onnx").string()), "cannot read model file"));
  }
  SECTION("a directory") {
    CHECK(contains(single_error(dir.string()), "is a directory"));
  }
  SECTION("empty") {
    write_bytes(dir / "empty.onnx", "");
    CHECK(contains(single_error((dir / "empty.onnx").string()), "cannot parse model"));
  }
  SECTION("garbage") {
    write_bytes(dir / "garbage.onnx", std::string("\xff\xff\xff\xff\x0f garbage", 13));
    CHECK(contains(single_error((dir / "garbage.onnx").string()), "cannot parse model"));
  }
  SECTION("truncated") {
    ModelBuilder mb;
    mb.input("x", onnx::TensorProto::FLOAT, {64}).output("y", onnx::TensorProto::FLOAT, {64});
    mb.initializer("b", {64}, std::vector<float>(64, 1.0f));
    mb.node("Add", {"x", "b"}, {"y"});
    std::string bytes = mb.proto().SerializeAsString();
    write_bytes(dir / "cut.onnx", bytes.substr(0, bytes.size() / 2));
    CHECK(contains(single_error((dir / "cut.onnx").string()), "cannot parse model: not a valid"));
  }
}

TEST_CASE("load_tensor_proto reads a TensorProto file", "[loader]") {
  fs::path dir = fresh_dir();
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(2);
  t.set_raw_data(float_bytes({1, 2}));
  write_bytes(dir / "input_0.pb", t.SerializeAsString());
  onnx::TensorProto read;
  std::string error;
  REQUIRE(load_tensor_proto((dir / "input_0.pb").string(), read, &error));
  CHECK(read.raw_data() == t.raw_data());
  CHECK_FALSE(load_tensor_proto((dir / "missing.pb").string(), read, &error));
  CHECK(contains(error, "no such file"));
  write_bytes(dir / "bad.pb", "\xff\xff\xff");
  CHECK_FALSE(load_tensor_proto((dir / "bad.pb").string(), read, &error));
  CHECK(contains(error, "not a valid onnx.TensorProto"));
}
