#include "codegen/weights.h"

#include <catch2/catch.hpp>

using namespace onnxc;

TEST_CASE("weight bytes become an exact string literal", "[codegen]") {
  std::vector<uint8_t> bytes = {'a', '"', '\\', '?', 0, '7', 0xff, '\n'};
  std::string out;
  append_string_literal(out, bytes);
  // Escapes are three octal digits, so the '7' after \000 stays a separate character.
  CHECK(out == "    \"a\\042\\134\\077\\0007\\377\\012\"");
}

TEST_CASE("weights are laid out 64-byte aligned in value order", "[codegen]") {
  Graph g;
  Value* a = g.add_value("a");
  Value* b = g.add_value("b");
  for (Value* v : {a, b}) {
    Tensor t = Tensor::zeros(DataType::kFloat, {3});
    v->constant = std::make_shared<const Tensor>(t);
  }
  WeightBlob blob = layout_weights(g, {b, a}, false);
  CHECK(blob.offsets.at(a) == 0);
  CHECK(blob.offsets.at(b) == 64);
  CHECK(blob.bytes.size() == 64 + 12);
}
