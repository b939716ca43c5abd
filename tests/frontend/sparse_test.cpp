// Sparse tensors (issue 14): a graph's sparse initializers and Constant's sparse_value are
// densified at import (frontend/importer.cpp dense_from_sparse) and then are constants like any
// other. Checked by building and running the generated code; the expected values are the
// sparse tensors written out by hand (COO indices: linear for W, coordinates for C).
#include <catch2/catch.hpp>

#include "driver/pipeline.h"
#include "frontend/importer.h"
#include "harness/generated_program.h"
#include "harness/model_builder.h"

using namespace onnxc;
using onnx::TensorProto;

namespace {

// A SparseTensorProto of `dims` with float `values` at `indices` ([NNZ] or [NNZ, rank]).
void fill_sparse(onnx::SparseTensorProto* sp, const std::string& name,
                 const std::vector<int64_t>& dims, const std::vector<float>& values,
                 const std::vector<int64_t>& indices, bool coords) {
  for (int64_t d : dims) sp->add_dims(d);
  auto* v = sp->mutable_values();
  v->set_name(name);
  v->set_data_type(TensorProto::FLOAT);
  v->add_dims(static_cast<int64_t>(values.size()));
  for (float f : values) v->add_float_data(f);
  auto* i = sp->mutable_indices();
  i->set_data_type(TensorProto::INT64);
  i->add_dims(static_cast<int64_t>(values.size()));
  if (coords) i->add_dims(static_cast<int64_t>(dims.size()));
  for (int64_t x : indices) i->add_int64_data(x);
}

// y = x + W (W a sparse initializer [2, 3]); c = Constant(sparse_value [2, 2]).
testing::ModelBuilder sparse_model() {
  testing::ModelBuilder mb(13);
  mb.input("x", TensorProto::FLOAT, {2, 3});
  mb.output("y", TensorProto::FLOAT, {2, 3}).output("c", TensorProto::FLOAT, {2, 2});
  fill_sparse(mb.proto().mutable_graph()->add_sparse_initializer(), "W", {2, 3}, {5, -2}, {1, 5},
              false);
  mb.node("Add", {"x", "W"}, {"y"}, "add");
  auto& n = mb.node("Constant", {}, {"c"}, "constant");
  auto* a = n.add_attribute();
  a->set_name("sparse_value");
  a->set_type(onnx::AttributeProto::SPARSE_TENSOR);
  fill_sparse(a->mutable_sparse_tensor(), "C", {2, 2}, {7, 9}, {0, 1, 1, 0}, true);
  return mb;
}

}  // namespace

TEST_CASE("sparse initializers and sparse_value constants are densified", "[frontend][sparse]") {
  testing::ModelBuilder mb = sparse_model();
  Diagnostics diag;
  auto module = lower_model(mb.write(), ImportOptions{}, diag);
  INFO(diag.str());
  REQUIRE(module);
  const std::string out = testing::build_and_run(testing::generate_net(*module), R"(
int main() {
  const float x[6] = {1, 1, 1, 1, 1, 1};
  float y[6], c[4];
  alignas(64) static unsigned char arena[net::kWorkspaceSize + 64];
  const int rc = net::run({x}, {y, c}, arena);
  std::printf("%d|", rc);
  for (float v : y) std::printf("%g ", double(v));
  std::printf("|");
  for (float v : c) std::printf("%g ", double(v));
}
)");
  // W = [[0, 5, 0], [0, 0, -2]] (linear indices 1 and 5); C = [[0, 7], [9, 0]] ((0,1), (1,0)).
  CHECK(out == "0|1 6 1 1 1 -1 |0 7 9 0 ");
}

TEST_CASE("a sparse tensor too large to densify is refused", "[frontend][sparse]") {
  onnx::SparseTensorProto sp;
  fill_sparse(&sp, "huge", {1 << 20, 1 << 20}, {1}, {3}, false);
  Tensor t;
  std::string error;
  CHECK_FALSE(dense_from_sparse(sp, int64_t{1} << 30, t, &error));
  CHECK(error ==
        "sparse tensor 'huge' of shape 1048576x1048576 is more than 1073741824 bytes "
        "dense");
}

TEST_CASE("keep_sparse keeps a large sparse tensor in COO form, built at run time",
          "[frontend][sparse]") {
  // y = x + W, W [16, 32] with 3 values (1024 dense bytes, 18 COO); c = Constant(sparse_value
  // [8, 16], 2 values by coordinates); the small W of sparse_model() stays dense even so.
  testing::ModelBuilder mb(13);
  mb.input("x", TensorProto::FLOAT, {16, 32});
  mb.output("y", TensorProto::FLOAT, {16, 32}).output("c", TensorProto::FLOAT, {8, 16});
  fill_sparse(mb.proto().mutable_graph()->add_sparse_initializer(), "W", {16, 32}, {5, -2, 3},
              {0, 100, 511}, false);
  mb.node("Add", {"x", "W"}, {"y"}, "add");
  auto& n = mb.node("Constant", {}, {"c"}, "constant");
  auto* a = n.add_attribute();
  a->set_name("sparse_value");
  a->set_type(onnx::AttributeProto::SPARSE_TENSOR);
  fill_sparse(a->mutable_sparse_tensor(), "C", {8, 16}, {7, 9}, {0, 1, 7, 15}, true);
  ImportOptions options;
  options.keep_sparse = true;
  Diagnostics diag;
  auto module = lower_model(mb.write(), options, diag);
  INFO(diag.str());
  REQUIRE(module);
  const GeneratedCode generated = testing::generate_net(*module);
  const std::string& code = generated.source;
  CHECK(code.find("onnxc::sparse_to_dense_ref<float, uint16_t>(") != std::string::npos);
  CHECK(code.find("/*nnz=*/3);") != std::string::npos);
  CHECK(code.find("/*nnz=*/2);") != std::string::npos);
  const std::string out = testing::build_and_run(generated, R"(
int main() {
  static float x[512], y[512], c[128];
  for (int i = 0; i < 512; ++i) x[i] = 1;
  alignas(64) static unsigned char arena[net::kWorkspaceSize + 64];
  const int rc = net::run({x}, {y, c}, arena);
  std::printf("%d|", rc);
  for (int i = 0; i < 512; ++i)
    if (y[i] != 1) std::printf("y%d=%g ", i, double(y[i]));
  for (int i = 0; i < 128; ++i)
    if (c[i] != 0) std::printf("c%d=%g ", i, double(c[i]));
}
)");
  // W: 5 at 0, -2 at 100, 3 at 511; C: 7 at (0, 1) = 1, 9 at (7, 15) = 127.
  CHECK(out == "0|y0=6 y100=-1 y511=4 c1=7 c127=9 ");

  Diagnostics small_diag;
  auto small = lower_model(sparse_model().write(), options, small_diag);
  REQUIRE(small);
  CHECK(testing::generate_net(*small).source.find("sparse_to_dense") == std::string::npos);
}
