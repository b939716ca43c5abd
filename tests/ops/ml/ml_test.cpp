// ai.onnx.ml handlers (ops/ml/ml_preprocess.cpp, ops/ml/ml_tree.cpp): output types and shapes,
// folding checked against values worked out by hand from the spec's formulas, and the refusals.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
const float kNaN = std::numeric_limits<float>::quiet_NaN();

InferHarness ml(const std::string& op, int opset = 1) {
  InferHarness h(op, opset);
  h.node().domain = "ai.onnx.ml";
  return h;
}
void set_strings(InferHarness& h, const std::string& name, std::vector<std::string> v) {
  Attribute& a = h.node().attributes[name];
  a.kind = Attribute::Kind::kStrings;
  a.strings = std::move(v);
}
void set_floats(InferHarness& h, const std::string& name, std::vector<float> v) {
  Attribute& a = h.node().attributes[name];
  a.kind = Attribute::Kind::kFloats;
  a.floats = std::move(v);
}
template <typename T>
std::vector<T> values(const Tensor& t) {
  return std::vector<T>(t.as<T>(), t.as<T>() + t.numel());
}
}  // namespace

TEST_CASE("ArrayFeatureExtractor picks features of the last axis", "[ml]") {
  auto h = ml("ArrayFeatureExtractor");
  h.constant<float>(DataType::kFloat, {2, 3}, {0, 1, 2, 3, 4, 5});
  h.constant<int64_t>(DataType::kInt64, {2}, {2, 0});
  REQUIRE(h.infer());
  CHECK(h.out().shape == Shape{2, 2});
  REQUIRE(h.fold());
  CHECK(values<float>(h.folded()) == std::vector<float>{2, 0, 5, 3});

  auto flat = ml("ArrayFeatureExtractor");
  flat.input(DataType::kInt64, {4});
  flat.input(DataType::kInt64, {3});
  REQUIRE(flat.infer());
  CHECK(flat.out().shape == Shape{1, 3});  // a 1-D X gives one row

  auto bad = ml("ArrayFeatureExtractor");
  bad.input(DataType::kFloat, {2, 3});
  bad.constant<int64_t>(DataType::kInt64, {1}, {3});
  CHECK_FALSE(bad.infer());
  CHECK(bad.error().find("index 3 is outside the 3 features") != std::string::npos);
}

TEST_CASE("Binarizer, Scaler, Normalizer and Imputer fold to the spec's formulas", "[ml]") {
  auto b = ml("Binarizer");
  b.constant<float>(DataType::kFloat, {4}, {-1, 0.5f, 0.6f, 2});
  b.attr_float("threshold", 0.5f);
  REQUIRE(b.infer());
  REQUIRE(b.fold());
  CHECK(values<float>(b.folded()) == std::vector<float>{0, 0, 1, 1});

  auto s = ml("Scaler");
  s.constant<int64_t>(DataType::kInt64, {2, 2}, {3, 4, 1, 6});
  set_floats(s, "offset", {1, 2});
  set_floats(s, "scale", {2, 0.5f});
  REQUIRE(s.infer());
  CHECK(s.out().dtype == DataType::kFloat);
  REQUIRE(s.fold());
  CHECK(values<float>(s.folded()) == std::vector<float>{4, 1, 0, 2});

  auto l1 = ml("Normalizer");
  l1.constant<float>(DataType::kFloat, {2, 2}, {1, -3, 0, 0});
  l1.attr_string("norm", "L1");
  REQUIRE(l1.infer());
  REQUIRE(l1.fold());
  CHECK(values<float>(l1.folded()) == std::vector<float>{0.25f, -0.75f, 0, 0});  // 0 row kept
  auto l2 = ml("Normalizer");
  l2.constant<double>(DataType::kDouble, {2}, {3, 4});
  l2.attr_string("norm", "L2");
  REQUIRE(l2.infer());
  REQUIRE(l2.fold());
  CHECK(values<float>(l2.folded()) == std::vector<float>{0.6f, 0.8f});
  auto mx = ml("Normalizer");
  mx.constant<int32_t>(DataType::kInt32, {1, 2}, {2, 4});
  REQUIRE(mx.infer());
  REQUIRE(mx.fold());
  CHECK(values<float>(mx.folded()) == std::vector<float>{0.5f, 1});

  auto imp = ml("Imputer");
  imp.constant<float>(DataType::kFloat, {2, 2}, {kNaN, 1, 2, kNaN});
  set_floats(imp, "imputed_value_floats", {7, 8});
  imp.attr_float("replaced_value_float", kNaN);
  REQUIRE(imp.infer());
  REQUIRE(imp.fold());
  CHECK(values<float>(imp.folded()) == std::vector<float>{7, 1, 2, 8});
  auto ii = ml("Imputer");
  ii.constant<int64_t>(DataType::kInt64, {2}, {-1, 5});
  ii.attr_ints("imputed_value_int64s", {0});
  ii.attr_int("replaced_value_int64", -1);
  REQUIRE(ii.infer());
  REQUIRE(ii.fold());
  CHECK(values<int64_t>(ii.folded()) == std::vector<int64_t>{0, 5});
  auto wrong = ml("Imputer");
  wrong.input(DataType::kInt64, {2});
  set_floats(wrong, "imputed_value_floats", {1});
  CHECK_FALSE(wrong.infer());
  CHECK(wrong.error().find("needs imputed_value_int64s") != std::string::npos);
}

namespace {
// Tree 0: x0 <= 0.5 ? leaf 1 (target 0 += 10) : leaf 2 (target 0 += 20, target 1 += 1).
// Tree 1: a single leaf voting target 0 += 100. base_values {1, 2}.
void two_trees(InferHarness& h, const char* aggregate) {
  h.attr_ints("nodes_treeids", {0, 0, 0, 1});
  h.attr_ints("nodes_nodeids", {0, 1, 2, 0});
  h.attr_ints("nodes_featureids", {0, 0, 0, 0});
  set_strings(h, "nodes_modes", {"BRANCH_LEQ", "LEAF", "LEAF", "LEAF"});
  set_floats(h, "nodes_values", {0.5f, 0, 0, 0});
  h.attr_ints("nodes_truenodeids", {1, 0, 0, 0});
  h.attr_ints("nodes_falsenodeids", {2, 0, 0, 0});
  h.attr_ints("target_treeids", {0, 0, 0, 1});
  h.attr_ints("target_nodeids", {1, 2, 2, 0});
  h.attr_ints("target_ids", {0, 0, 1, 0});
  set_floats(h, "target_weights", {10, 20, 1, 100});
  set_floats(h, "base_values", {1, 2});
  h.attr_int("n_targets", 2);
  h.attr_string("aggregate_function", aggregate);
}
}  // namespace

TEST_CASE("TreeEnsembleRegressor walks every tree and aggregates the leaves' votes", "[ml]") {
  auto sum = ml("TreeEnsembleRegressor", 3);
  sum.constant<float>(DataType::kFloat, {2, 1}, {0.2f, 0.9f});
  two_trees(sum, "SUM");
  REQUIRE(sum.infer());
  CHECK(sum.out().shape == Shape{2, 2});
  REQUIRE(sum.fold());
  // Row 0 casts no vote for target 1: it stays 0, base value not added (as onnxruntime does).
  CHECK(values<float>(sum.folded()) == std::vector<float>{111, 0, 121, 3});

  auto avg = ml("TreeEnsembleRegressor", 3);
  avg.constant<float>(DataType::kFloat, {2, 1}, {0.2f, 0.9f});
  two_trees(avg, "AVERAGE");
  REQUIRE(avg.infer());
  REQUIRE(avg.fold());
  CHECK(values<float>(avg.folded()) == std::vector<float>{56, 0, 61, 2.5f});

  auto cyc = ml("TreeEnsembleRegressor", 3);
  cyc.input(DataType::kFloat, {2, 1});
  two_trees(cyc, "SUM");
  cyc.attr_ints("nodes_nodeids", {0, 1, 2, 3});
  set_strings(cyc, "nodes_modes", {"BRANCH_LEQ", "BRANCH_LEQ", "LEAF", "LEAF"});
  cyc.attr_ints("nodes_truenodeids", {1, 0, 0, 0});  // 0 -> 1 -> 0
  cyc.attr_ints("target_treeids", {0});
  cyc.attr_ints("target_nodeids", {2});
  cyc.attr_ints("target_ids", {0});
  set_floats(cyc, "target_weights", {1});
  CHECK_FALSE(cyc.infer());
}

TEST_CASE("TreeEnsemble (opset 5) refuses PROBIT and float16", "[ml]") {
  auto setup = [](InferHarness& h) {
    h.attr_ints("tree_roots", {0});
    Attribute& modes = h.node().attributes["nodes_modes"];
    modes.kind = Attribute::Kind::kTensor;
    Tensor m = Tensor::zeros(DataType::kUint8, {1});
    modes.t = std::make_shared<const Tensor>(m);
    set_floats(h, "nodes_splits", {0.5f});
    h.attr_ints("nodes_featureids", {0});
    h.attr_ints("nodes_trueleafs", {1});
    h.attr_ints("nodes_truenodeids", {0});
    h.attr_ints("nodes_falseleafs", {1});
    h.attr_ints("nodes_falsenodeids", {1});
    h.attr_ints("leaf_targetids", {0, 0});
    set_floats(h, "leaf_weights", {3, 4});
  };
  auto ok = ml("TreeEnsemble", 5);
  ok.constant<float>(DataType::kFloat, {2, 1}, {0.5f, 0.7f});
  setup(ok);
  REQUIRE(ok.infer());
  REQUIRE(ok.fold());
  CHECK(values<float>(ok.folded()) == std::vector<float>{3, 4});  // 0.5 <= 0.5 goes true

  auto probit = ml("TreeEnsemble", 5);
  probit.input(DataType::kFloat, {2, 1});
  setup(probit);
  probit.attr_int("post_transform", 4);
  CHECK_FALSE(probit.infer());
  CHECK(probit.error().find("PROBIT") != std::string::npos);

  auto half = ml("TreeEnsemble", 5);
  half.input(DataType::kFloat16, {2, 1});
  setup(half);
  CHECK_FALSE(half.infer());
}

TEST_CASE("LinearRegressor and LinearClassifier score rows of X", "[ml]") {
  auto r = ml("LinearRegressor");
  r.constant<float>(DataType::kFloat, {1, 2}, {1, 1});
  set_floats(r, "coefficients", {1, 2, -1, 0});
  set_floats(r, "intercepts", {0.5f, 0});
  r.attr_int("targets", 2);
  REQUIRE(r.infer());
  CHECK(r.out().shape == Shape{1, 2});
  REQUIRE(r.fold());
  CHECK(values<float>(r.folded()) == std::vector<float>{3.5f, -1});

  // Binary: one score row; label 7 when the score is > 0; scores [1 - z, z] (what ORT gives).
  auto c = ml("LinearClassifier");
  c.constant<float>(DataType::kFloat, {2, 2}, {1, 0, 0, 1});
  set_floats(c, "coefficients", {1, -2});
  set_floats(c, "intercepts", {0.5f});
  c.attr_ints("classlabels_ints", {3, 7});
  c.outputs(2);
  REQUIRE(c.infer());
  CHECK(c.out(1).shape == Shape{2, 2});
  REQUIRE(c.fold());
  CHECK(values<int64_t>(c.folded(0)) == std::vector<int64_t>{7, 3});
  CHECK(values<float>(c.folded(1)) == std::vector<float>{-0.5f, 1.5f, 2.5f, -1.5f});

  auto s = ml("LinearClassifier");
  s.input(DataType::kFloat, {2, 2});
  set_floats(s, "coefficients", {1, -2});
  set_strings(s, "classlabels_strings", {"no", "yes"});
  s.outputs(2);
  CHECK_FALSE(s.infer());
  CHECK(s.error().find("classlabels_strings is not supported") != std::string::npos);
}

TEST_CASE("LabelEncoder, OneHotEncoder and FeatureVectorizer", "[ml]") {
  auto le = ml("LabelEncoder", 2);
  le.constant<int64_t>(DataType::kInt64, {4}, {3, 9, 1, 3});
  le.attr_ints("keys_int64s", {1, 3, 3});  // a repeated key: the last one wins (the spec)
  set_floats(le, "values_floats", {0.5f, 1.5f, 2.5f});
  le.attr_float("default_float", -1);
  REQUIRE(le.infer());
  CHECK(le.out().dtype == DataType::kFloat);
  REQUIRE(le.fold());
  CHECK(values<float>(le.folded()) == std::vector<float>{2.5f, -1, 0.5f, 2.5f});
  auto str = ml("LabelEncoder", 2);
  str.input(DataType::kInt64, {4});
  set_strings(str, "keys_strings", {"a"});
  str.attr_ints("values_int64s", {1});
  CHECK_FALSE(str.infer());  // string keys need a string input
  CHECK(str.error().find("input type int64 differs from the keys' type string") !=
        std::string::npos);

  auto oh = ml("OneHotEncoder");
  oh.constant<int32_t>(DataType::kInt32, {2}, {3, 5});
  oh.attr_ints("cats_int64s", {5, 3, 1});
  REQUIRE(oh.infer());
  CHECK(oh.out().shape == Shape{2, 3});
  REQUIRE(oh.fold());
  CHECK(values<float>(oh.folded()) == std::vector<float>{0, 1, 0, 1, 0, 0});
  auto strict = ml("OneHotEncoder");
  strict.input(DataType::kInt64, {2});
  strict.attr_ints("cats_int64s", {1});
  strict.attr_int("zeros", 0);
  CHECK_FALSE(strict.infer());

  auto fv = ml("FeatureVectorizer");
  fv.constant<float>(DataType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  fv.constant<int64_t>(DataType::kInt64, {2, 1}, {7, 8});
  fv.attr_ints("inputdimensions", {2, 2});  // input 0 cut to 2 columns, input 1 padded to 2
  REQUIRE(fv.infer());
  CHECK(fv.out().shape == Shape{2, 4});
  REQUIRE(fv.fold());
  CHECK(values<float>(fv.folded()) == std::vector<float>{1, 2, 7, 0, 4, 5, 8, 0});
}
