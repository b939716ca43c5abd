// The map ops of ai.onnx.ml (ops/ml/ml_map.cpp): ZipMap, DictVectorizer and CastMap, compiled,
// built with g++ and run. onnxruntime-node cannot feed or return maps ("Non tensor type is
// temporarily not supported"), so the expected values are worked by hand from the operator
// spec (DictVectorizer's is the spec's own example), with onnxruntime's choices where the spec
// is silent (keys outside the vocabulary are skipped, CastMap SPARSE pads strings with "0.f").
#include <catch2/catch.hpp>

#include "codegen/cpp_emitter.h"
#include "driver/pipeline.h"
#include "harness/generated_program.h"
#include "harness/model_builder.h"
#include "ir/printer.h"

using namespace onnxc;
using onnx::TensorProto;

namespace {

onnx::TypeProto tensor_type(int elem) {
  onnx::TypeProto t;
  t.mutable_tensor_type()->set_elem_type(elem);
  return t;
}
// A [1, n] tensor output (n symbolic: the op decides it).
onnx::TypeProto row_type(int elem) {
  onnx::TypeProto t = tensor_type(elem);
  t.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(1);
  t.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("n");
  return t;
}
onnx::TypeProto map_type(int key, int value) {
  onnx::TypeProto t;
  t.mutable_map_type()->set_key_type(key);
  *t.mutable_map_type()->mutable_value_type() = tensor_type(value);
  return t;
}

// A model of one ai.onnx.ml node `op` from input "m" of type `in` to output "y" of type `out`.
struct MapModel {
  testing::ModelBuilder mb{17};
  onnx::NodeProto* node;
  MapModel(const char* op, const onnx::TypeProto& in, const onnx::TypeProto& out) {
    auto* os = mb.proto().add_opset_import();
    os->set_domain("ai.onnx.ml");
    os->set_version(3);
    auto* i = mb.proto().mutable_graph()->add_input();
    i->set_name("m");
    *i->mutable_type() = in;
    auto* o = mb.proto().mutable_graph()->add_output();
    o->set_name("y");
    *o->mutable_type() = out;
    node = &mb.node(op, {"m"}, {"y"}, "op");
    node->set_domain("ai.onnx.ml");
  }
  void ints(const char* name, std::vector<int64_t> v) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  void strings(const char* name, std::vector<std::string> v) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRINGS);
    for (const auto& x : v) a->add_strings(x);
  }
  void string(const char* name, const std::string& v) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }
  void integer(const char* name, int64_t v) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
};

// Compiles the model (a map input "m" of m_shape[0] entries; a tensor "m" when m_shape is empty),
// builds it with `driver` (main() printing what it checks) and returns what the program printed.
std::string build_and_run(MapModel& model, const Shape& m_shape, const std::string& driver) {
  Diagnostics diag;
  ImportOptions options;
  if (!m_shape.empty()) options.input_shapes["m"] = m_shape;
  auto module = lower_model(model.mb.write(), options, diag);
  INFO(fmt::format("{}", fmt::join(diag.errors(), "\n")));
  REQUIRE(module);
  const GeneratedCode code = testing::generate_net(*module);
  // The string slots of the inputs and outputs (the header documents them in comments).
  std::string slots;
  for (size_t i = 0; i < module->graph->inputs.size(); ++i)
    slots += fmt::format("#define IN_SLOT_{} {}\n", i, module->graph->inputs[i]->string_slot());
  for (size_t i = 0; i < module->graph->outputs.size(); ++i)
    slots += fmt::format("#define OUT_SLOT_{} {}\n", i, module->graph->outputs[i]->string_slot());
  return testing::build_and_run(code, slots + driver);
}

std::string compile_error(MapModel& model, const Shape& m_shape) {
  Diagnostics diag;
  ImportOptions options;
  if (!m_shape.empty()) options.input_shapes["m"] = m_shape;
  auto module = lower_model(model.mb.write(), options, diag);
  return module ? std::string() : fmt::format("{}", fmt::join(diag.errors(), "\n"));
}

onnx::TypeProto seq_of(const onnx::TypeProto& t) {
  onnx::TypeProto s;
  *s.mutable_sequence_type()->mutable_elem_type() = t;
  return s;
}

}  // namespace

TEST_CASE("ZipMap gives one map per row, keyed by the class labels", "[ops][ml][map]") {
  onnx::TypeProto x = tensor_type(TensorProto::FLOAT);
  x.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  x.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(3);
  SECTION("int64 labels") {
    MapModel model("ZipMap", x, seq_of(map_type(TensorProto::INT64, TensorProto::FLOAT)));
    model.ints("classlabels_int64s", {10, 20, 30});
    const std::string out = build_and_run(model, {}, R"(
int main() {
  const float x[6] = {0.1f, 0.2f, 0.7f, 0.5f, 0.25f, 0.25f};
  std::int64_t k0[3], k1[3];
  float v0[3], v1[3];
  alignas(64) static unsigned char arena[net::kWorkspaceSize + 64];
  const int rc = net::run({x}, {k0, v0, k1, v1}, arena);
  std::printf("%d|%lld %lld %lld|%g %g %g|%lld %lld %lld|%g %g %g", rc, (long long)k0[0],
              (long long)k0[1], (long long)k0[2], double(v0[0]), double(v0[1]), double(v0[2]),
              (long long)k1[0], (long long)k1[1], (long long)k1[2], double(v1[0]), double(v1[1]),
              double(v1[2]));
}
)");
    CHECK(out == "0|10 20 30|0.1 0.2 0.7|10 20 30|0.5 0.25 0.25");
  }
  SECTION("string labels") {
    MapModel model("ZipMap", x, seq_of(map_type(TensorProto::STRING, TensorProto::FLOAT)));
    model.strings("classlabels_strings", {"cat", "dog", "bird"});
    const std::string out = build_and_run(model, {}, R"(
int main() {
  const float x[6] = {1, 2, 3, 4, 5, 6};
  char k0[3 * OUT_SLOT_0], k1[3 * OUT_SLOT_2];
  float v0[3], v1[3];
  alignas(64) static unsigned char arena[net::kWorkspaceSize + 64];
  const int rc = net::run({x}, {k0, v0, k1, v1}, arena);
  const int s = int(OUT_SLOT_0);
  std::printf("%d|%s %s %s|%g %g|%s|%g", rc, k0, k0 + s, k0 + 2 * s, double(v0[0]), double(v0[2]),
              k1 + 2 * s, double(v1[1]));
}
)");
    CHECK(out == "0|cat dog bird|1 3|bird|5");
  }
}

TEST_CASE("DictVectorizer places each value at its key's vocabulary index", "[ops][ml][map]") {
  onnx::TypeProto y = row_type(TensorProto::FLOAT);
  SECTION("the spec's example: string keys") {
    MapModel model("DictVectorizer", map_type(TensorProto::STRING, TensorProto::FLOAT), y);
    model.strings("string_vocabulary", {"a", "c", "b", "z"});
    const std::string out = build_and_run(model, {2}, R"(
int main() {
  char keys[2 * IN_SLOT_0] = {};
  const int s = int(IN_SLOT_0);
  keys[0] = 'a';
  keys[s] = 'c';
  const float values[2] = {4, 8};
  float y[4] = {-1, -1, -1, -1};
  const int rc = net::run({keys, values}, {y}, nullptr);
  std::printf("%d|%g %g %g %g", rc, double(y[0]), double(y[1]), double(y[2]), double(y[3]));
}
)");
    CHECK(out == "0|4 8 0 0");  // {"a": 4, "c": 8} -> [4, 8, 0, 0]
  }
  SECTION("int64 keys, a key outside the vocabulary skipped") {
    MapModel model("DictVectorizer", map_type(TensorProto::INT64, TensorProto::DOUBLE),
                   row_type(TensorProto::DOUBLE));
    model.ints("int64_vocabulary", {5, 3, 9});
    const std::string out = build_and_run(model, {3}, R"(
int main() {
  const std::int64_t keys[3] = {3, 7, 9};
  const double values[3] = {2.5, 1.0, -1.0};
  double y[3] = {-7, -7, -7};
  const int rc = net::run({keys, values}, {y}, nullptr);
  std::printf("%d|%g %g %g", rc, y[0], y[1], y[2]);
}
)");
    CHECK(out == "0|0 2.5 -1");
  }
  SECTION("int64 keys to strings") {
    MapModel model("DictVectorizer", map_type(TensorProto::INT64, TensorProto::STRING),
                   row_type(TensorProto::STRING));
    model.ints("int64_vocabulary", {1, 2});
    const std::string out = build_and_run(model, {1}, R"(
int main() {
  const std::int64_t keys[1] = {2};
  char values[IN_SLOT_1] = "xyz";
  char y[2 * OUT_SLOT_0];
  const int rc = net::run({keys, values}, {y}, nullptr);
  std::printf("%d|[%s] [%s]", rc, y, y + OUT_SLOT_0);
}
)");
    CHECK(out == "0|[] [xyz]");
  }
  SECTION("the map's size must be pinned, the vocabulary match the keys") {
    MapModel a("DictVectorizer", map_type(TensorProto::INT64, TensorProto::FLOAT), y);
    a.ints("int64_vocabulary", {1});
    CHECK_THAT(compile_error(a, {}),
               Catch::Contains("graph input 'm' is a map: its entry count must be known at "
                               "compile time; pin it with --shape m=N"));
    MapModel b("DictVectorizer", map_type(TensorProto::INT64, TensorProto::FLOAT), y);
    b.strings("string_vocabulary", {"a"});
    CHECK_THAT(compile_error(b, {2}),
               Catch::Contains("node 'op' (DictVectorizer): a map with int64 keys needs "
                               "int64_vocabulary"));
  }
}

TEST_CASE("CastMap orders values by key, dense or sparse", "[ops][ml][map]") {
  const char* driver = R"(
int main() {
  const std::int64_t keys[3] = {5, 2, 9};
  const float values[3] = {1.5f, 2.75f, -1.0f};
  OUT y[SIZE];
  const int rc = net::run({keys, values}, {y}, nullptr);
  std::printf("%d|", rc);
  for (int i = 0; i < SIZE; ++i) std::printf(FMT " ", (CAST)y[i]);
}
)";
  auto driver_for = [&](const char* out, int size, const char* fmt, const char* cast) {
    return fmt::format("#define OUT {}\n#define SIZE {}\n#define FMT \"{}\"\n#define CAST {}\n{}",
                       out, size, fmt, cast, driver);
  };
  SECTION("DENSE to float") {
    MapModel model("CastMap", map_type(TensorProto::INT64, TensorProto::FLOAT),
                   row_type(TensorProto::FLOAT));
    CHECK(build_and_run(model, {3}, driver_for("float", 3, "%g", "double")) == "0|2.75 1.5 -1 ");
  }
  SECTION("DENSE to int64") {
    MapModel model("CastMap", map_type(TensorProto::INT64, TensorProto::FLOAT),
                   row_type(TensorProto::INT64));
    model.string("cast_to", "TO_INT64");
    CHECK(build_and_run(model, {3}, driver_for("std::int64_t", 3, "%lld", "long long")) ==
          "0|2 1 -1 ");
  }
  SECTION("SPARSE: the key is the position, zeros elsewhere") {
    MapModel model("CastMap", map_type(TensorProto::INT64, TensorProto::FLOAT),
                   row_type(TensorProto::FLOAT));
    model.string("map_form", "SPARSE");
    model.integer("max_map", 11);
    CHECK(build_and_run(model, {3}, driver_for("float", 11, "%g", "double")) ==
          "0|0 0 2.75 0 0 1.5 0 0 0 -1 0 ");
  }
  SECTION("SPARSE with a key past max_map: kErrorMapKey") {
    MapModel model("CastMap", map_type(TensorProto::INT64, TensorProto::FLOAT),
                   row_type(TensorProto::FLOAT));
    model.string("map_form", "SPARSE");
    model.integer("max_map", 9);  // key 9 does not fit
    const std::string out = build_and_run(model, {3}, driver_for("float", 9, "%g", "double"));
    CHECK(out.substr(0, 2) == "8|");
  }
  SECTION("strings, SPARSE padding with onnxruntime's \"0.f\"") {
    MapModel model("CastMap", map_type(TensorProto::INT64, TensorProto::STRING),
                   row_type(TensorProto::STRING));
    model.string("cast_to", "TO_STRING");
    model.string("map_form", "SPARSE");
    model.integer("max_map", 3);
    const std::string out = build_and_run(model, {2}, R"(
int main() {
  const std::int64_t keys[2] = {2, 0};
  char values[2 * IN_SLOT_1] = {};
  values[0] = 'h';
  values[IN_SLOT_1] = 'z';
  char y[3 * OUT_SLOT_0];
  const int rc = net::run({keys, values}, {y}, nullptr);
  const int s = int(OUT_SLOT_0);
  std::printf("%d|%s %s %s", rc, y, y + s, y + 2 * s);
}
)");
    CHECK(out == "0|z 0.f h");
  }
  SECTION("string and number values do not convert") {
    MapModel model("CastMap", map_type(TensorProto::INT64, TensorProto::FLOAT),
                   row_type(TensorProto::STRING));
    model.string("cast_to", "TO_STRING");
    CHECK_THAT(compile_error(model, {2}),
               Catch::Contains("casting map values of float TO_STRING is not supported"));
  }
}

TEST_CASE("a map input prints as a map in the IR", "[ops][ml][map]") {
  MapModel model("DictVectorizer", map_type(TensorProto::INT64, TensorProto::FLOAT),
                 row_type(TensorProto::FLOAT));
  model.ints("int64_vocabulary", {1, 2});
  Diagnostics diag;
  ImportOptions options;
  options.input_shapes["m"] = {4};
  auto module = lower_model(model.mb.write(), options, diag);
  REQUIRE(module);
  const std::string ir = print_graph(*module->graph, 0);
  CHECK_THAT(ir, Catch::Contains("%m.keys: int64[4], %m.values: float[4]"));
  CHECK_THAT(ir, Catch::Contains("ai.onnx.ml.DictVectorizer@3(%m.keys, %m.values)"));
}
