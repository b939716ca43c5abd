// TfIdfVectorizer handler: output shapes for 1-D and 2-D input, the pool split into counted grams,
// refusals (string pools, malformed pools), and folding checked against counts worked out by hand.
#include <catch2/catch.hpp>

#include "ops/infer_harness.h"

using namespace onnxc;
using onnxc::testing::InferHarness;

namespace {
// The spec's example pool: unigrams 2 3 5 4, bigrams (5 6) (7 8) (6 7); coordinates 0..6.
void spec_pool(InferHarness& h, int64_t min_n, int64_t max_n, int64_t skip, const char* mode) {
  h.attr_int("min_gram_length", min_n);
  h.attr_int("max_gram_length", max_n);
  h.attr_int("max_skip_count", skip);
  h.attr_string("mode", mode);
  h.attr_ints("ngram_counts", {0, 4});
  h.attr_ints("ngram_indexes", {0, 1, 2, 3, 4, 5, 6});
  h.attr_ints("pool_int64s", {2, 3, 5, 4, 5, 6, 7, 8, 6, 7});
}
}  // namespace

TEST_CASE("TfIdfVectorizer shapes and emitted pool", "[tfidf]") {
  InferHarness h("TfIdfVectorizer", 9);
  h.input(DataType::kInt32, {2, 6});
  spec_pool(h, 2, 2, 0, "TF");
  REQUIRE(h.infer());
  CHECK(h.out().dtype == DataType::kFloat);
  CHECK(h.out().shape == Shape{2, 7});
  const std::string code = h.emit();
  CHECK(code.find("tfidf_items[6] = {5, 6, 7, 8, 6, 7};") != std::string::npos);
  CHECK(code.find("tfidf_out[3] = {4, 5, 6};") != std::string::npos);
  CHECK(code.find("onnxc::tfidf_ref<int32_t>(p, x0, y0);") != std::string::npos);

  InferHarness one("TfIdfVectorizer", 9);
  one.input(DataType::kInt64, {12});
  spec_pool(one, 1, 2, 5, "TF");
  REQUIRE(one.infer());
  CHECK(one.out().shape == Shape{7});
}

TEST_CASE("TfIdfVectorizer refuses string pools and malformed pools", "[tfidf]") {
  InferHarness s("TfIdfVectorizer", 9);
  s.input(DataType::kInt32, {4});
  spec_pool(s, 1, 2, 0, "TF");
  Attribute& a = s.node().attributes["pool_strings"];
  a.kind = Attribute::Kind::kStrings;
  a.strings = {"a", "b"};
  CHECK_FALSE(s.infer());
  CHECK(s.error().find("pool_strings is not supported") != std::string::npos);

  InferHarness odd("TfIdfVectorizer", 9);
  odd.input(DataType::kInt32, {4});
  spec_pool(odd, 1, 2, 0, "TF");
  odd.attr_ints("pool_int64s", {2, 3, 5, 4, 5, 6, 7});
  CHECK_FALSE(odd.infer());
  CHECK(odd.error().find("not a whole number of grams") != std::string::npos);

  InferHarness m("TfIdfVectorizer", 9);
  m.input(DataType::kInt32, {4});
  spec_pool(m, 1, 2, 0, "BM25");
  CHECK_FALSE(m.infer());
  CHECK(m.error().find("mode 'BM25' is not one of TF, IDF, TFIDF") != std::string::npos);
}

TEST_CASE("TfIdfVectorizer folds TF, IDF and TFIDF", "[tfidf]") {
  // Row [5 6 7 8 6 7 5]: skip 0 bigrams 56 67 78 86 67 75 -> (5 6)=1, (7 8)=1, (6 7)=2.
  // Skip 1 adds pairs at distance 2: 57 68 76 87 65 -> none in the pool.
  // Unigrams (counted once): 5 twice, the others absent.
  const std::vector<int64_t> row = {5, 6, 7, 8, 6, 7, 5};
  InferHarness tf("TfIdfVectorizer", 9);
  tf.constant<int64_t>(DataType::kInt64, {7}, row);
  spec_pool(tf, 1, 2, 1, "TF");
  REQUIRE(tf.infer());
  REQUIRE(tf.fold());
  const std::vector<float> want_tf = {0, 0, 2, 0, 1, 1, 2};
  for (size_t i = 0; i < 7; ++i) CHECK(tf.folded().as<float>()[i] == want_tf[i]);

  InferHarness idf("TfIdfVectorizer", 9);
  idf.constant<int64_t>(DataType::kInt64, {7}, row);
  spec_pool(idf, 1, 2, 1, "IDF");
  Attribute& w = idf.node().attributes["weights"];
  w.kind = Attribute::Kind::kFloats;
  w.floats = {1, 2, 3, 4, 5, 6, 7};
  REQUIRE(idf.infer());
  REQUIRE(idf.fold());
  const std::vector<float> want_idf = {0, 0, 3, 0, 5, 6, 7};
  for (size_t i = 0; i < 7; ++i) CHECK(idf.folded().as<float>()[i] == want_idf[i]);

  InferHarness both("TfIdfVectorizer", 9);
  both.constant<int64_t>(DataType::kInt64, {7}, row);
  spec_pool(both, 1, 2, 1, "TFIDF");
  both.node().attributes["weights"] = w;
  REQUIRE(both.infer());
  REQUIRE(both.fold());
  const std::vector<float> want_tfidf = {0, 0, 6, 0, 5, 6, 14};
  for (size_t i = 0; i < 7; ++i) CHECK(both.folded().as<float>()[i] == want_tfidf[i]);
}
