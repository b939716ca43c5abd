// patch-rows on IR text (FileCheck-style), numerically (the banded code's outputs equal the
// unbanded code's bit for bit, both built with g++ and run) and by its RAM figure (the arena
// within --max-arena, at most half the layer-by-layer bound of the unbanded plan).
#include <catch2/catch.hpp>
#include <random>

#include "codegen/cpp_emitter.h"
#include "driver/pipeline.h"
#include "harness/filecheck.h"
#include "harness/generated_program.h"
#include "harness/model_builder.h"
#include "ir/printer.h"

using namespace onnxc;
using onnx::TensorProto;
using onnxc::testing::filecheck;
using onnxc::testing::ModelBuilder;

namespace {

std::vector<float> values(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

std::vector<int32_t> ints(size_t n, unsigned seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

onnx::NodeProto& conv(ModelBuilder& mb, const std::string& x, const std::string& w,
                      const std::string& y, const std::string& name, std::vector<int64_t> pads,
                      int64_t stride, int64_t group = 1) {
  auto& n = mb.node("Conv", {x, w}, {y}, name);
  ModelBuilder::ints_attr(n, "pads", pads);
  ModelBuilder::ints_attr(n, "strides", {stride, stride});
  if (group > 1) ModelBuilder::int_attr(n, "group", group);
  return n;
}

// A float CNN stem of odd sizes: 3x3 pad 1, depthwise 3x3 stride 2, 1x1 stride 2 (a window
// shorter than its step), MaxPool 3x3 pad 1, 3x3 without padding, then a global pool.
ModelBuilder float_cnn() {
  ModelBuilder mb(13);
  mb.input("x", TensorProto::FLOAT, {1, 3, 45, 9});
  mb.initializer("w1", {8, 3, 3, 3}, values(216, 1));
  mb.initializer("w2", {8, 1, 3, 3}, values(72, 2));
  mb.initializer("w3", {12, 8, 1, 1}, values(96, 3));
  mb.initializer("w4", {6, 12, 3, 3}, values(648, 4));
  conv(mb, "x", "w1", "c1", "c1", {1, 1, 1, 1}, 1);
  mb.node("Relu", {"c1"}, {"r1"}, "relu1");
  conv(mb, "r1", "w2", "c2", "dw2", {1, 1, 1, 1}, 2, 8);
  conv(mb, "c2", "w3", "c3", "pw3", {0, 0, 0, 0}, 2);
  auto& pool = mb.node("MaxPool", {"c3"}, {"p3"}, "pool3");
  ModelBuilder::ints_attr(pool, "kernel_shape", {3, 3});
  ModelBuilder::ints_attr(pool, "pads", {1, 1, 1, 1});
  conv(mb, "p3", "w4", "y", "c4", {0, 0, 0, 0}, 1);
  mb.output("y", TensorProto::FLOAT, {1, 6, 10, 1});
  return mb;
}

void quantize_io(ModelBuilder& mb, const std::string& x, const std::string& xq, const char* scale,
                 const char* zp, const std::string& xd) {
  mb.node("QuantizeLinear", {x, scale, zp}, {xq});
  mb.node("DequantizeLinear", {xq, scale, zp}, {xd});
}

// An int8 QDQ CNN as lower-qdq makes integer: conv 3x3, depthwise 3x3 stride 2, pointwise,
// global average pool (which then adds up the bands' rows).
ModelBuilder int8_cnn() {
  ModelBuilder mb(13);
  mb.input("x", TensorProto::FLOAT, {1, 2, 30, 12});
  mb.initializer("xs", {}, {0.02f}).int_initializer("xz", TensorProto::INT8, {}, {3});
  const std::pair<const char*, std::vector<int64_t>> weights[] = {
      {"w1", {8, 2, 3, 3}}, {"w2", {8, 1, 3, 3}}, {"w3", {16, 8, 1, 1}}};
  unsigned seed = 10;
  for (const auto& [name, dims] : weights) {
    const int64_t n = dims[0] * dims[1] * dims[2] * dims[3];
    mb.int_initializer(name, TensorProto::INT8, dims,
                       ints(static_cast<size_t>(n), seed++, -90, 90));
    mb.initializer(std::string(name) + "s", {dims[0]},
                   values(static_cast<size_t>(dims[0]), seed++, 0.002f, 0.006f));
    auto& dq =
        mb.node("DequantizeLinear", {name, std::string(name) + "s"}, {std::string(name) + "d"});
    ModelBuilder::int_attr(dq, "axis", 0);
  }
  mb.initializer("s1", {}, {0.05f}).int_initializer("z1", TensorProto::INT8, {}, {-100});
  mb.initializer("s2", {}, {0.04f}).int_initializer("z2", TensorProto::INT8, {}, {-90});
  mb.initializer("s3", {}, {0.06f}).int_initializer("z3", TensorProto::INT8, {}, {-5});
  mb.initializer("s4", {}, {0.01f}).int_initializer("z4", TensorProto::INT8, {}, {-20});
  quantize_io(mb, "x", "xq", "xs", "xz", "xd");
  conv(mb, "xd", "w1d", "c1", "c1", {1, 1, 1, 1}, 1);
  mb.node("Relu", {"c1"}, {"r1"}, "relu1");
  quantize_io(mb, "r1", "q1", "s1", "z1", "d1");
  conv(mb, "d1", "w2d", "c2", "dw2", {1, 1, 1, 1}, 2, 8);
  mb.node("Relu", {"c2"}, {"r2"}, "relu2");
  quantize_io(mb, "r2", "q2", "s2", "z2", "d2");
  conv(mb, "d2", "w3d", "c3", "pw3", {0, 0, 0, 0}, 1);
  quantize_io(mb, "c3", "q3", "s3", "z3", "d3");
  mb.node("GlobalAveragePool", {"d3"}, {"g"}, "gap");
  quantize_io(mb, "g", "q4", "s4", "z4", "y");
  mb.output("y", TensorProto::FLOAT, {1, 16, 1, 1});
  return mb;
}

std::unique_ptr<Module> lower(ModelBuilder& mb, size_t max_arena, Diagnostics& diag,
                              const char* target = "generic") {
  ImportOptions options;
  options.max_arena = max_arena;
  options.target = find_target(target);
  auto module = lower_model(mb.write(), options, diag);
  INFO(fmt::format("{}", fmt::join(diag.errors(), "\n")));
  return module;
}

// Runs the model on a fixed input and prints its output's bytes in hex.
std::string run_bytes(const Module& module) {
  const Value* in = module.graph->inputs[0];
  const std::string driver = fmt::format(R"(#include <cstring>
int main() {{
  static float x[{0}];
  for (int i = 0; i < {0}; ++i) x[i] = static_cast<float>((i * 7919) % 1000) / 250.0f - 2.0f;
  static float y[net::kOutputBytes[0] / sizeof(float)];
  alignas(64) static unsigned char arena[net::kWorkspaceSize + 64];
  if (net::run({{x}}, {{y}}, arena) != 0) return 1;
  for (float v : y) {{
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::printf("%08x ", static_cast<unsigned>(bits));
  }}
}}
)",
                                         in->numel());
  return testing::build_and_run(testing::generate_net(module), driver);
}

}  // namespace

TEST_CASE("patch-rows: a float CNN stem runs in bands, bit-identical, in half the RAM",
          "[passes][patch-rows]") {
  ModelBuilder mb = float_cnn();
  Diagnostics diag;
  auto plain = lower(mb, 0, diag);
  REQUIRE(plain);
  const size_t bound = plain->memory.live_bytes_lower_bound;
  auto banded = lower(mb, bound / 2, diag);
  INFO(diag.str());
  REQUIRE(banded);
  CHECK(banded->rows.applied);
  CHECK(banded->rows.stages == "c1, dw2, pw3, pool3, c4");  // relu1 fused into c1
  CHECK(banded->memory.arena_bytes <= bound / 2);
  const std::string ir = print_graph(*banded->graph, 0);
  INFO(ir);
  CHECK(filecheck(ir, {"CHECK: %y: float[1x6x10x1] = onnxc.RowPipeline@1(%x)",
                       "CHECK: %r1_band: float[1x8x4x9] = Conv@13(%x_window, %w1)",
                       "CHECK-SAME: pads=[0, 1, 0, 1]", "CHECK: = MaxPool@13(%c3_window)",
                       "CHECK-SAME: pads=[0, 1, 0, 1]", "CHECK: iterations=[-3, 9], mode=\"rows\"",
                       "CHECK-NOT: = Conv@13(%r1,"}) == "");
  CHECK(run_bytes(*banded) == run_bytes(*plain));
}

TEST_CASE("patch-rows: an int8 CNN ending in a global average pool adds up its bands",
          "[passes][patch-rows]") {
  ModelBuilder mb = int8_cnn();
  Diagnostics diag;
  for (const char* target : {"generic", "cortex-m4"}) {
    INFO(target);
    auto plain = lower(mb, 0, diag, target);
    REQUIRE(plain);
    const size_t bound = plain->memory.live_bytes_lower_bound;
    auto banded = lower(mb, bound / 2, diag, target);
    INFO(diag.str());
    REQUIRE(banded);
    CHECK(banded->rows.applied);
    CHECK(banded->rows.extra_macs * 5 < banded->rows.chain_macs);  // under 20% more MACs
    CHECK(banded->memory.arena_bytes <= bound / 2);
    const std::string ir = print_graph(*banded->graph, 0);
    INFO(ir);
    CHECK(filecheck(ir,
                    {"CHECK: %q3_sums: uint32[1x16x1x1] = onnxc.RowPipeline@1(%x)",
                     "CHECK: = QuantizeLinear@13(%x_window,", "CHECK: = QLinearConv@13(%xq_window,",
                     "CHECK: mode=\"sums\"", "CHECK-SAME: sum_offset=-5",
                     "CHECK: com.microsoft.QLinearGlobalAveragePool@1(%q3_sums,",
                     "CHECK-SAME: onnxc.mean_of_sums=90"}) == "");
    if (std::string(target) == "generic") CHECK(run_bytes(*banded) == run_bytes(*plain));
  }
}

TEST_CASE("patch-rows: a budget no banding meets is refused, naming what it reached",
          "[passes][patch-rows]") {
  ModelBuilder mb = float_cnn();
  Diagnostics diag;
  CHECK_FALSE(lower(mb, 64, diag));
  CHECK_THAT(
      diag.str(),
      Catch::Contains("more than --max-arena 64 (with c1, dw2, pw3, pool3, c4 in bands of 1 rows"));
  Diagnostics quiet;
  auto unbudgeted = lower(mb, 0, quiet);
  REQUIRE(unbudgeted);
  CHECK_FALSE(unbudgeted->rows.applied);  // no budget: the pass does nothing
}
