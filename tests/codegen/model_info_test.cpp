// The generated header's description of the model (codegen/model_info.cpp): producer, domain,
// version, doc strings and metadata_props reach a program as constants holding the model's exact
// bytes, however hostile (quotes, a comment end, a trigraph, control bytes followed by hex
// digits, invalid UTF-8, a bidi override), and each TrainingInfoProto is listed, not dropped.
// Built with g++ -Werror and run; the program prints every byte in hex, compared with the bytes
// the model was written with.
#include <catch2/catch.hpp>

#include "codegen/identifiers.h"
#include "driver/pipeline.h"
#include "harness/generated_program.h"
#include "harness/model_builder.h"

using namespace onnxc;
using onnxc::testing::ModelBuilder;

namespace {

constexpr int kFloat = onnx::TensorProto::FLOAT;

const std::string kHostile =
    "line1\n#define X 1 */ /* ??= \"q\" \\ \x01"
    "ab \x7f"
    "c caf\xc3\xa9 \xff\xfe \xe2\x80\xae!";

std::string hex(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += fmt::format("{:02x}", c);
  return out;
}

ModelBuilder described_model() {
  ModelBuilder mb(13);
  mb.input("x", kFloat, {2}).output("y", kFloat, {2});
  mb.node("Relu", {"x"}, {"y"}, "relu");
  onnx::ModelProto& m = mb.proto();
  m.set_producer_name("maker");
  m.set_producer_version("1.2");
  m.set_domain("ai.example");
  m.set_model_version(42);
  m.set_doc_string(kHostile);
  m.mutable_graph()->set_doc_string("graph doc");
  m.mutable_graph()->mutable_input(0)->set_doc_string("features");
  m.mutable_graph()->mutable_output(0)->set_doc_string(kHostile);
  auto* p = m.add_metadata_props();
  p->set_key("author");
  p->set_value(kHostile);
  auto* t = m.add_training_info();
  t->mutable_algorithm()->set_name("step");
  auto* out = t->mutable_algorithm()->add_output();
  out->set_name("x2");
  auto* n = t->mutable_algorithm()->add_node();
  n->set_op_type("Identity");
  n->set_name("copy");
  n->add_input("x2_in");
  n->add_output("x2");
  auto* in = t->mutable_algorithm()->add_input();
  in->set_name("x2_in");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
  out->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
  return mb;
}

}  // namespace

TEST_CASE("cpp_string_literal keeps every byte and never extends an escape", "[codegen]") {
  CHECK(cpp_string_literal("a\"b\\c?") == R"("a\"b\\c\?")");
  CHECK(cpp_string_literal("\x01"
                           "7f") == R"("\0017f")");
  CHECK(cpp_string_literal("\xff"
                           "1") == R"("\3771")");
  CHECK(cpp_string_literal("n\nt\t") == R"("n\nt\t")");
  CHECK(cpp_string_literal("caf\xc3\xa9 \xe2\x80\xae") == "\"caf\xc3\xa9 \\u202E\"");
}

TEST_CASE("the header describes the model with its exact bytes", "[codegen]") {
  Diagnostics diag;
  auto module = lower_model(described_model().write(), ImportOptions{}, diag);
  INFO(diag.str());
  REQUIRE(module);
  const GeneratedCode code = testing::generate_net(*module);
  CHECK_THAT(code.header, Catch::Contains("//   0: algorithm 'step' (1 nodes)"));
  const std::string out = testing::build_and_run(code, R"(
void hex(const char* s) {
  for (; *s; ++s) std::printf("%02x", static_cast<unsigned char>(*s));
  std::printf("|");
}
int main() {
  hex(net::kProducerName);
  hex(net::kProducerVersion);
  hex(net::kModelDomain);
  std::printf("%lld|", static_cast<long long>(net::kModelVersion));
  hex(net::kModelDocString);
  hex(net::kGraphName);
  hex(net::kGraphDocString);
  hex(net::kInputDocStrings[0]);
  hex(net::kOutputDocStrings[0]);
  std::printf("%d%d|", net::kInputDocStrings[1] == nullptr, net::kOutputDocStrings[1] == nullptr);
  for (std::size_t i = 0; i < net::kNumMetadataProps; ++i) {
    hex(net::kMetadataProps[i].key);
    hex(net::kMetadataProps[i].value);
  }
  std::printf("%d|%zu", net::kMetadataProps[net::kNumMetadataProps].key == nullptr,
              net::kNumTrainingInfos);
}
)");
  const std::string want = hex("maker") + "|" + hex("1.2") + "|" + hex("ai.example") + "|42|" +
                           hex(kHostile) + "|" + hex("test") + "|" + hex("graph doc") + "|" +
                           hex("features") + "|" + hex(kHostile) + "|11|" + hex("author") + "|" +
                           hex(kHostile) + "|1|1";
  CHECK(out == want);
}
