// Hostile sizes end to end (issue 17): models whose element counts overflow int64 or exceed the
// 2^40-byte tensor limit are refused by the onnxc binary with one line naming the node, the op and
// the rule, exit 1. No crash (std::bad_alloc used to abort with exit 134), no huge allocation.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "base/temp_dir.h"
#include "harness/model_builder.h"
#include "harness/run_onnxc.h"

using onnxc::testing::ModelBuilder;

namespace {

using onnxc::testing::Run;

// Compiles `mb` with the onnxc binary into a temporary folder.
Run compile(const ModelBuilder& mb) {
  std::string model = mb.write();
  onnxc::TempDir out("onnxc-hostile-");
  REQUIRE(out.ok());
  return onnxc::testing::run_onnxc(model + " -o " + (out.path() / "m.cpp").string());
}

size_t lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

void int64_initializer(ModelBuilder& mb, const std::string& name, const std::vector<int64_t>& dims,
                       const std::vector<int64_t>& values) {
  auto* t = mb.proto().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
}

constexpr int kF = onnx::TensorProto::FLOAT;
constexpr int64_t k2p31 = int64_t{1} << 31;

}  // namespace

TEST_CASE("graph input dims 2^31 x 2^31 x 2^31 are refused, exit 1", "[cli][sizes]") {
  ModelBuilder mb;
  mb.input("x", kF, {k2p31, k2p31, k2p31}).output("y", kF, {k2p31, k2p31, k2p31});
  mb.node("Relu", {"x"}, {"y"}, "relu0");
  Run r = compile(mb);
  CHECK(r.exit_code == 1);
  CHECK(lines(r.output) == 1);
  CHECK(has(r.output, "graph input 'x' of shape 2147483648x2147483648x2147483648 has"));
  CHECK(has(r.output, "a tensor may hold at most 2^40 bytes"));
}

TEST_CASE("ConstantOfShape [2^40] is a clean error, not std::bad_alloc", "[cli][sizes]") {
  ModelBuilder mb;
  mb.output("y", kF, {int64_t{1} << 40});
  int64_initializer(mb, "shape", {1}, {int64_t{1} << 40});
  mb.node("ConstantOfShape", {"shape"}, {"y"}, "splat");
  Run r = compile(mb);
  CHECK(r.exit_code == 1);
  CHECK(lines(r.output) == 1);
  CHECK(has(r.output,
            "node 'splat' (ConstantOfShape): output 'y' of shape 1099511627776 has "
            "1099511627776 elements, 4398046511104 bytes: a tensor may hold at most "
            "2^40 bytes (1 TiB)"));
}

TEST_CASE("Expand to 2^32 x 2^32 is refused, exit 1", "[cli][sizes]") {
  ModelBuilder mb(13);
  mb.input("x", kF, {1, 1}).output("y", kF, {-1, -1}, {"a", "b"});
  int64_initializer(mb, "shape", {2}, {int64_t{1} << 32, int64_t{1} << 32});
  mb.node("Expand", {"x", "shape"}, {"y"}, "grow");
  Run r = compile(mb);
  CHECK(r.exit_code == 1);
  CHECK(lines(r.output) == 1);
  CHECK(has(r.output,
            "node 'grow' (Expand): output 'y' of shape 4294967296x4294967296 has more "
            "elements than int64 can count"));
}

TEST_CASE("Tile by 2^50 is refused, exit 1", "[cli][sizes]") {
  ModelBuilder mb(13);
  mb.input("x", kF, {8}).output("y", kF, {-1}, {"n"});
  int64_initializer(mb, "repeats", {1}, {int64_t{1} << 50});
  mb.node("Tile", {"x", "repeats"}, {"y"}, "tile0");
  Run r = compile(mb);
  CHECK(r.exit_code == 1);
  CHECK(lines(r.output) == 1);
  CHECK(has(r.output,
            "node 'tile0' (Tile): output 'y' of shape 9007199254740992 has "
            "9007199254740992 elements"));
  CHECK(has(r.output, "a tensor may hold at most 2^40 bytes"));
}

TEST_CASE("Range from 0 to 1e30 is refused, exit 1", "[cli][sizes]") {
  ModelBuilder mb(11);
  mb.output("y", kF, {-1}, {"n"});
  mb.initializer("start", {}, {0.0f})
      .initializer("limit", {}, {1e30f})
      .initializer("delta", {}, {1.0f});
  mb.node("Range", {"start", "limit", "delta"}, {"y"}, "rng");
  Run r = compile(mb);
  CHECK(r.exit_code == 1);
  CHECK(lines(r.output) == 1);
  CHECK(has(r.output, "node 'rng' (Range): the range from 0 to "));
  CHECK(has(r.output, "more than int64 can count"));
}

TEST_CASE("Reshape to 2^62 x 4 is refused, not reported as 0 elements", "[cli][sizes]") {
  ModelBuilder mb(13);
  mb.input("x", kF, {2, 3}).output("y", kF, {-1, -1}, {"a", "b"});
  int64_initializer(mb, "shape", {2}, {int64_t{1} << 62, 4});
  mb.node("Reshape", {"x", "shape"}, {"y"}, "rs");
  Run r = compile(mb);
  CHECK(r.exit_code == 1);
  CHECK(lines(r.output) == 1);
  CHECK(has(r.output,
            "node 'rs' (Reshape): shape {4611686018427387904, 4} has more elements than "
            "int64 can count"));
  CHECK_FALSE(has(r.output, "(0 elements)"));
}
