// com.microsoft ops (issue 35), expanded into standard nodes before import
// (frontend/contrib_expander*.cpp). Each case builds a small model, compiles it, runs the code and
// compares with values computed here from ORT's documented formula (docs/ContribOperators.md and
// the CPU kernels it cites), never with onnxc itself.
#include "frontend/contrib_expander.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>

#include "driver/pipeline.h"
#include "frontend/importer.h"
#include "harness/generated_program.h"
#include "harness/model_builder.h"

using namespace onnxc;
using onnx::TensorProto;
using testing::ModelBuilder;

namespace {

// A tensor passed to or read from run(): C type and values (outputs: only the size matters).
struct Buf {
  std::string ctype;
  std::vector<double> values;
};

ModelBuilder contrib_model(int opset = 17) {
  ModelBuilder mb(opset);
  auto* os = mb.proto().add_opset_import();
  os->set_domain("com.microsoft");
  os->set_version(1);
  return mb;
}
onnx::NodeProto& ms_node(ModelBuilder& mb, const std::string& op,
                         const std::vector<std::string>& in, const std::vector<std::string>& out) {
  auto& n = mb.node(op, in, out);
  n.set_domain("com.microsoft");
  return n;
}
void float_attr(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
void floats_attr(onnx::NodeProto& n, const std::string& name, const std::vector<float>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float x : v) a->add_floats(x);
}
void string_attr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

// Lowers, compiles and runs the model; returns each output's values.
std::vector<std::vector<double>> run_model(ModelBuilder& mb, const std::vector<Buf>& ins,
                                           const std::vector<Buf>& outs) {
  Diagnostics diag;
  auto module = lower_model(mb.write(), ImportOptions{}, diag);
  INFO(diag.str());
  REQUIRE(module);
  std::ostringstream d;
  d << "int main() {\n";
  for (size_t i = 0; i < ins.size(); ++i) {
    d << "  static const " << ins[i].ctype << " in" << i << "[] = {";
    for (double v : ins[i].values) d << "(" << ins[i].ctype << ")(" << v << "), ";
    d << "};\n";
  }
  for (size_t i = 0; i < outs.size(); ++i)
    d << "  static " << outs[i].ctype << " out" << i << "[" << outs[i].values.size() << "];\n";
  d << "  alignas(64) static unsigned char arena[net::kWorkspaceSize + 64];\n";
  d << "  const int rc = net::run({";
  for (size_t i = 0; i < ins.size(); ++i) d << (i ? ", " : "") << "in" << i;
  d << "}, {";
  for (size_t i = 0; i < outs.size(); ++i) d << (i ? ", " : "") << "out" << i;
  d << "}, arena);\n  std::printf(\"%d\\n\", rc);\n";
  for (size_t i = 0; i < outs.size(); ++i)
    d << "  for (auto v : out" << i << ") std::printf(\"%.9g \", double(v));\n"
      << "  std::printf(\"\\n\");\n";
  d << "}\n";
  std::istringstream out(testing::build_and_run(testing::generate_net(*module), d.str()));
  int rc = -1;
  out >> rc;
  REQUIRE(rc == 0);
  std::vector<std::vector<double>> result;
  for (const auto& o : outs) {
    result.emplace_back();
    for (size_t k = 0; k < o.values.size(); ++k) {
      double v = 0;
      out >> v;
      result.back().push_back(v);
    }
  }
  return result;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want,
                 double tol = 1e-5) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).margin(tol).epsilon(tol));
  }
}

Buf f32(std::vector<double> v) {
  return {"float", std::move(v)};
}
Buf f32_out(size_t n) {
  return {"float", std::vector<double>(n)};
}

// Y[c, i, j] = sum_kh,kw X[i + kh, j + kw] W[c, kh, kw] + B[c] (1 input channel, 2x2 kernel).
std::vector<double> conv_ref(const std::vector<double>& x, const std::vector<double>& w,
                             const std::vector<double>& b) {
  std::vector<double> y;
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        double s = b.empty() ? 0 : b[c];
        for (int kh = 0; kh < 2; ++kh)
          for (int kw = 0; kw < 2; ++kw) s += x[(i + kh) * 3 + j + kw] * w[c * 4 + kh * 2 + kw];
        y.push_back(s);
      }
  return y;
}

}  // namespace

TEST_CASE("FusedConv: activation(Conv(X, W, B) + Z) with Clip and LeakyRelu params",
          "[frontend][contrib]") {
  const std::vector<double> x = {1, -2, 3, 0.5, 4, -1, 2, 2, -3};
  const std::vector<double> w = {1, 0.5, -1, 2, -0.5, 1, 1.5, -2}, b = {0.25, -0.5};
  const std::vector<double> z = {1, -1, 2, 0, -3, 0.5, 1, 4};
  ModelBuilder mb = contrib_model();
  mb.input("x", TensorProto::FLOAT, {1, 1, 3, 3}).input("z", TensorProto::FLOAT, {1, 2, 2, 2});
  mb.initializer("w", {2, 1, 2, 2}, {w.begin(), w.end()})
      .initializer("b", {2}, {b.begin(), b.end()});
  mb.output("y1", TensorProto::FLOAT, {1, 2, 2, 2}).output("y2", TensorProto::FLOAT, {1, 2, 2, 2});
  auto& clip = ms_node(mb, "FusedConv", {"x", "w", "b", "z"}, {"y1"});
  string_attr(clip, "activation", "Clip");
  floats_attr(clip, "activation_params", {0.0f, 6.0f});
  ModelBuilder::ints_attr(clip, "kernel_shape", {2, 2});
  auto& leaky = ms_node(mb, "FusedConv", {"x", "w"}, {"y2"});
  string_attr(leaky, "activation", "LeakyRelu");
  floats_attr(leaky, "activation_params", {0.1f});
  auto got = run_model(mb, {f32(x), f32(z)}, {f32_out(8), f32_out(8)});
  std::vector<double> y1 = conv_ref(x, w, b), y2 = conv_ref(x, w, {});
  for (size_t i = 0; i < 8; ++i) {
    y1[i] = std::min(6.0, std::max(0.0, y1[i] + z[i]));
    y2[i] = y2[i] < 0 ? 0.1 * y2[i] : y2[i];
  }
  check_close(got[0], y1);
  check_close(got[1], y2);
}

TEST_CASE("Gelu, BiasGelu, FastGelu and QuickGelu follow ORT's formulas", "[frontend][contrib]") {
  const std::vector<double> x = {-3, -1.5, -0.25, 0, 0.7, 2.5}, b = {0.5, -0.5, 1, 0.25, -1, 0};
  ModelBuilder mb = contrib_model();
  mb.input("x", TensorProto::FLOAT, {6}).initializer("b", {6}, {b.begin(), b.end()});
  for (const char* y : {"g", "bg", "fg", "qg"}) mb.output(y, TensorProto::FLOAT, {6});
  ms_node(mb, "Gelu", {"x"}, {"g"});
  ms_node(mb, "BiasGelu", {"x", "b"}, {"bg"});
  ms_node(mb, "FastGelu", {"x", "b"}, {"fg"});
  ms_node(mb, "QuickGelu", {"x"}, {"qg"});
  auto got = run_model(mb, {f32(x)}, {f32_out(6), f32_out(6), f32_out(6), f32_out(6)});
  std::vector<double> g, bg, fg, qg;
  auto gelu = [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); };
  for (size_t i = 0; i < 6; ++i) {
    const double v = x[i] + b[i];
    g.push_back(gelu(x[i]));
    bg.push_back(gelu(v));
    fg.push_back(0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))));
    qg.push_back(x[i] / (1 + std::exp(-1.702 * x[i])));
  }
  check_close(got[0], g);
  check_close(got[1], bg);
  check_close(got[2], fg);
  check_close(got[3], qg);
}

TEST_CASE("SkipLayerNormalization and SkipSimplifiedLayerNormalization", "[frontend][contrib]") {
  const std::vector<double> x = {1, 2, -1, 0.5, 3, -2, 0, 1};
  const std::vector<double> skip = {0.5, -1, 2, 1, -1, 0.25, 1, 2};
  const std::vector<double> gamma = {1, 0.5, 2, -1}, beta = {0, 0.1, -0.2, 0.3};
  const std::vector<double> bias = {0.1, 0.2, 0.3, 0.4};
  for (int opset : {17, 13}) {  // LayerNormalization, and its function body before opset 17
    INFO("opset " << opset);
    ModelBuilder mb = contrib_model(opset);
    mb.input("x", TensorProto::FLOAT, {1, 2, 4}).input("skip", TensorProto::FLOAT, {1, 2, 4});
    mb.initializer("gamma", {4}, {gamma.begin(), gamma.end()})
        .initializer("beta", {4}, {beta.begin(), beta.end()})
        .initializer("bias", {4}, {bias.begin(), bias.end()});
    for (const char* y : {"y", "sum", "rms"}) mb.output(y, TensorProto::FLOAT, {1, 2, 4});
    auto& sln = ms_node(mb, "SkipLayerNormalization", {"x", "skip", "gamma", "beta", "bias"},
                        {"y", "", "", "sum"});
    float_attr(sln, "epsilon", 1e-5f);
    float_attr(ms_node(mb, "SkipSimplifiedLayerNormalization", {"x", "skip", "gamma"}, {"rms"}),
               "epsilon", 1e-5f);
    auto got = run_model(mb, {f32(x), f32(skip)}, {f32_out(8), f32_out(8), f32_out(8)});
    std::vector<double> y, sum, rms;
    for (int r = 0; r < 2; ++r) {
      double s[4], mean = 0, var = 0, sq = 0;
      for (int i = 0; i < 4; ++i) {
        s[i] = x[r * 4 + i] + skip[r * 4 + i] + bias[i];
        sum.push_back(s[i]);
        mean += s[i] / 4;
      }
      for (int i = 0; i < 4; ++i) {
        var += (s[i] - mean) * (s[i] - mean) / 4;
        sq += (x[r * 4 + i] + skip[r * 4 + i]) * (x[r * 4 + i] + skip[r * 4 + i]) / 4;
      }
      for (int i = 0; i < 4; ++i) {
        y.push_back((s[i] - mean) / std::sqrt(var + 1e-5) * gamma[i] + beta[i]);
        rms.push_back((x[r * 4 + i] + skip[r * 4 + i]) / std::sqrt(sq + 1e-5) * gamma[i]);
      }
    }
    check_close(got[0], y, 1e-4);
    check_close(got[1], sum);
    check_close(got[2], rms, 1e-4);
  }
}

TEST_CASE("Attention: packed QKV weights, 1-D mask_index end positions", "[frontend][contrib]") {
  constexpr int B = 2, S = 3, H = 4, N = 2, h = 2;
  std::vector<double> x, w, bias;
  for (int i = 0; i < B * S * H; ++i) x.push_back(std::sin(0.7 * i) * 1.5);
  for (int i = 0; i < H * 3 * H; ++i) w.push_back(std::cos(0.3 * i + 1) * 0.8);
  for (int i = 0; i < 3 * H; ++i) bias.push_back(0.05 * i - 0.3);
  const std::vector<int> end = {3, 2};  // batch 1 sees keys 0 and 1 only
  ModelBuilder mb = contrib_model();
  mb.input("x", TensorProto::FLOAT, {B, S, H}).input("mask", TensorProto::INT32, {B});
  mb.initializer("w", {H, 3 * H}, {w.begin(), w.end()})
      .initializer("bias", {3 * H}, {bias.begin(), bias.end()});
  mb.output("y", TensorProto::FLOAT, {B, S, H});
  ModelBuilder::int_attr(ms_node(mb, "Attention", {"x", "w", "bias", "mask"}, {"y"}), "num_heads",
                         N);
  auto got = run_model(mb, {f32(x), Buf{"int32_t", {3, 2}}}, {f32_out(B * S * H)});
  // qkv[b, s, :] = x[b, s, :] W + bias; head n of Q is columns n*h .. n*h+h-1, K +H, V +2H.
  std::vector<double> qkv(B * S * 3 * H), y(B * S * H);
  for (int r = 0; r < B * S; ++r)
    for (int c = 0; c < 3 * H; ++c) {
      double s = bias[c];
      for (int k = 0; k < H; ++k) s += x[r * H + k] * w[k * 3 * H + c];
      qkv[r * 3 * H + c] = s;
    }
  for (int b = 0; b < B; ++b)
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < S; ++i) {
        double p[S], total = 0, top = -1e30;
        for (int j = 0; j < S; ++j) {
          double dot = 0;
          for (int d = 0; d < h; ++d)
            dot += qkv[(b * S + i) * 3 * H + n * h + d] * qkv[(b * S + j) * 3 * H + H + n * h + d];
          p[j] = dot / std::sqrt(double(h)) + (j < end[b] ? 0.0 : -10000.0);
          top = std::max(top, p[j]);
        }
        for (double& v : p) total += (v = std::exp(v - top));
        for (int d = 0; d < h; ++d) {
          double s = 0;
          for (int j = 0; j < S; ++j)
            s += p[j] / total * qkv[(b * S + j) * 3 * H + 2 * H + n * h + d];
          y[(b * S + i) * H + n * h + d] = s;
        }
      }
  check_close(got[0], y, 1e-4);
}

namespace {

// ORT's requantization: round half to even, then saturate to uint8.
double quant_u8(double v, double scale, double zp) {
  return std::min(255.0, std::max(0.0, std::nearbyint(v / scale) + zp));
}
void scalar(ModelBuilder& mb, const std::string& name, float v) {
  mb.initializer(name, {}, {v});
}
void zp_u8(ModelBuilder& mb, const std::string& name, int v) {
  mb.int_initializer(name, TensorProto::UINT8, {}, {v});
}

}  // namespace

TEST_CASE(
    "QLinearAdd, QLinearMul, QLinearConcat, QLinearSigmoid, QLinearLeakyRelu and "
    "QLinearGlobalAveragePool",
    "[frontend][contrib]") {
  const std::vector<double> a = {10, 200, 128, 77}, b = {50, 0, 255, 130};
  const std::vector<double> x = {0, 37, 128, 250, 90, 141, 203, 12};
  ModelBuilder mb = contrib_model();
  mb.input("a", TensorProto::UINT8, {4}).input("b", TensorProto::UINT8, {4});
  mb.input("x", TensorProto::UINT8, {1, 2, 2, 2});
  scalar(mb, "sa", 0.047f), scalar(mb, "sb", 0.093f), scalar(mb, "sc", 0.081f);
  scalar(mb, "sm", 0.213f), scalar(mb, "sg", 1.0f / 256), scalar(mb, "sy", 0.031f);
  zp_u8(mb, "za", 128), zp_u8(mb, "zb", 100), zp_u8(mb, "zc", 120), zp_u8(mb, "z0", 0);
  mb.output("add", TensorProto::UINT8, {4}).output("mul", TensorProto::UINT8, {4});
  mb.output("cat", TensorProto::UINT8, {8}).output("sig", TensorProto::UINT8, {4});
  mb.output("lrelu", TensorProto::UINT8, {4}).output("gap", TensorProto::UINT8, {1, 2, 1, 1});
  ms_node(mb, "QLinearAdd", {"a", "sa", "za", "b", "sb", "zb", "sc", "zc"}, {"add"});
  ms_node(mb, "QLinearMul", {"a", "sa", "za", "b", "sb", "zb", "sm", "zc"}, {"mul"});
  ModelBuilder::int_attr(
      ms_node(mb, "QLinearConcat", {"sc", "zc", "a", "sa", "za", "b", "sb", "zb"}, {"cat"}), "axis",
      0);
  ms_node(mb, "QLinearSigmoid", {"a", "sa", "za", "sg", "z0"}, {"sig"});
  float_attr(ms_node(mb, "QLinearLeakyRelu", {"a", "sa", "za", "sb", "za"}, {"lrelu"}), "alpha",
             0.2f);
  ms_node(mb, "QLinearGlobalAveragePool", {"x", "sa", "za", "sy", "zc"}, {"gap"});
  const Buf u4{"uint8_t", std::vector<double>(4)};
  auto got = run_model(mb, {Buf{"uint8_t", a}, Buf{"uint8_t", b}, Buf{"uint8_t", x}},
                       {u4, u4, Buf{"uint8_t", std::vector<double>(8)}, u4, u4,
                        Buf{"uint8_t", std::vector<double>(2)}});
  // Scales as the float32 values the model stores.
  const double sa = 0.047f, sb = 0.093f, sc = 0.081f, sm = 0.213f, sy = 0.031f;
  std::vector<double> add, mul, cat, sig, lrelu, gap;
  for (int i = 0; i < 4; ++i) {
    const double fa = (a[i] - 128) * sa, fb = (b[i] - 100) * sb;
    add.push_back(quant_u8(fa + fb, sc, 120));
    mul.push_back(quant_u8(fa * fb, sm, 120));
    sig.push_back(quant_u8(1 / (1 + std::exp(-fa)), 1.0 / 256, 0));
    lrelu.push_back(quant_u8(fa < 0 ? 0.2 * fa : fa, sb, 128));
  }
  for (int i = 0; i < 4; ++i) cat.push_back(quant_u8((a[i] - 128) * sa, sc, 120));
  for (int i = 0; i < 4; ++i) cat.push_back(quant_u8((b[i] - 100) * sb, sc, 120));
  for (int c = 0; c < 2; ++c) {
    double s = 0;
    for (int i = 0; i < 4; ++i) s += (x[c * 4 + i] - 128) * sa / 4;
    gap.push_back(quant_u8(s, sy, 120));
  }
  CHECK(got[0] == add);
  CHECK(got[1] == mul);
  CHECK(got[2] == cat);
  CHECK(got[3] == sig);
  CHECK(got[4] == lrelu);
  CHECK(got[5] == gap);
}

TEST_CASE("QGemm: per-column int8 weights, int32 bias, uint8 and float outputs",
          "[frontend][contrib]") {
  const std::vector<double> a = {140, 90, 255, 3, 128, 177};     // 2 x 3, zero point 128
  const std::vector<int32_t> w = {-100, 27, 64, -3, 127, -128};  // 3 x 2 (B), or 2 x 3 (B^T)
  const std::vector<int32_t> c = {1000, -500};
  const double sa = 0.047f, sw[2] = {0.02f, 0.03f};
  ModelBuilder mb = contrib_model();
  mb.input("a", TensorProto::UINT8, {2, 3});
  scalar(mb, "sa", 0.047f), scalar(mb, "sy", 0.09f), zp_u8(mb, "za", 128), zp_u8(mb, "zy", 128);
  mb.initializer("sw", {2}, {0.02f, 0.03f});
  mb.int_initializer("w", TensorProto::INT8, {3, 2}, w);
  mb.int_initializer("wt", TensorProto::INT8, {2, 3}, w);
  mb.int_initializer("zw", TensorProto::INT8, {2}, {0, 0});
  mb.int_initializer("c", TensorProto::INT32, {2}, c);
  mb.output("q", TensorProto::UINT8, {2, 2}).output("f", TensorProto::FLOAT, {2, 2});
  ms_node(mb, "QGemm", {"a", "sa", "za", "w", "sw", "zw", "c", "sy", "zy"}, {"q"});
  ModelBuilder::int_attr(ms_node(mb, "QGemm", {"a", "sa", "za", "wt", "sw", "zw"}, {"f"}), "transB",
                         1);
  auto got =
      run_model(mb, {Buf{"uint8_t", a}}, {Buf{"uint8_t", std::vector<double>(4)}, f32_out(4)});
  std::vector<double> q, f;
  for (int m = 0; m < 2; ++m)
    for (int n = 0; n < 2; ++n) {
      double s = 0, st = 0;
      for (int k = 0; k < 3; ++k) {
        s += (a[m * 3 + k] - 128) * w[k * 2 + n];
        st += (a[m * 3 + k] - 128) * w[n * 3 + k];
      }
      q.push_back(quant_u8((s + c[n]) * sa * sw[n], 0.09f, 128));
      f.push_back(st * sa * sw[n]);
    }
  CHECK(got[0] == q);
  check_close(got[1], f);
}

TEST_CASE("FusedGemm, FusedMatMul and TransposeMatMul", "[frontend][contrib]") {
  const std::vector<double> a = {1, -2, 0.5, 3, 1, -1};                      // 2 x 3
  const std::vector<double> p = {1, 2, -1, 0.5, 3, -2, 0, 1, 2, -1, 1, 1};   // 2 x 3 x 2
  const std::vector<double> bt = {0.5, -1, 2, 1, 1, -0.5}, cb = {0.25, -3};  // 2 x 3, 2
  ModelBuilder mb = contrib_model();
  mb.input("a", TensorProto::FLOAT, {2, 3}).input("p", TensorProto::FLOAT, {2, 3, 2});
  mb.initializer("bt", {2, 3}, {bt.begin(), bt.end()})
      .initializer("cb", {2}, {cb.begin(), cb.end()});
  mb.output("g", TensorProto::FLOAT, {2, 2}).output("m", TensorProto::FLOAT, {2, 2, 2});
  mb.output("t", TensorProto::FLOAT, {2, 2});
  auto& g = ms_node(mb, "FusedGemm", {"a", "bt", "cb"}, {"g"});
  ModelBuilder::int_attr(g, "transB", 1);
  float_attr(g, "alpha", 0.5f), float_attr(g, "beta", 2.0f);
  string_attr(g, "activation", "LeakyRelu"), float_attr(g, "activation_alpha", 0.1f);
  auto& m = ms_node(mb, "FusedMatMul", {"p", "a"}, {"m"});  // 2 * p^T a^T: 2 x (2x3 . 3x2)
  ModelBuilder::int_attr(m, "transA", 1);
  ModelBuilder::int_attr(m, "transB", 1);
  float_attr(m, "alpha", 2.0f);
  ModelBuilder::int_attr(ms_node(mb, "TransposeMatMul", {"a", "bt"}, {"t"}), "transB", 1);
  auto got = run_model(mb, {f32(a), f32(p)}, {f32_out(4), f32_out(8), f32_out(4)});
  std::vector<double> ge, me, te;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += a[i * 3 + k] * bt[j * 3 + k];
      const double v = 0.5 * s + 2 * cb[j];
      ge.push_back(v < 0 ? 0.1 * v : v);
      te.push_back(s);
    }
  // m[b, i, j] = 2 * sum_k p[b, k, i] * a[j, k]
  for (int bb = 0; bb < 2; ++bb)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        double s = 0;
        for (int k = 0; k < 3; ++k) s += p[bb * 6 + k * 2 + i] * a[j * 3 + k];
        me.push_back(2 * s);
      }
  check_close(got[0], ge);
  check_close(got[1], me);
  check_close(got[2], te);
}

TEST_CASE("com.microsoft ops without a rule or in a form not expanded are refused in one line",
          "[frontend][contrib]") {
  ModelBuilder mb = contrib_model();
  mb.input("x", TensorProto::FLOAT, {1, 2, 4}).output("y", TensorProto::FLOAT, {1, 2, 4});
  ms_node(mb, "NoSuchFusion", {"x"}, {"y"});
  Diagnostics diag;
  CHECK_FALSE(lower_model(mb.write(), ImportOptions{}, diag));
  CHECK_THAT(diag.str(), Catch::Contains("op NoSuchFusion (com.microsoft) is not supported"));

  ModelBuilder att = contrib_model();
  att.input("x", TensorProto::FLOAT, {1, 2, 3}).output("y", TensorProto::FLOAT, {1, 2, 3});
  att.input("mask", TensorProto::INT32, {1, 1, 2, 2});
  att.initializer("w", {3, 9}, std::vector<float>(27, 0.5f));
  auto& n = ms_node(att, "Attention", {"x", "w", "", "mask"}, {"y"});
  n.set_name("att");
  ModelBuilder::int_attr(n, "num_heads", 1);
  Diagnostics d2;  // a 4-D (Megatron) mask_index: ORT's CPU kernel refuses it too
  CHECK_FALSE(lower_model(att.write(), ImportOptions{}, d2));
  CHECK(d2.count() == 1);
  CHECK_THAT(d2.str(), Catch::Contains("node 'att' (com.microsoft Attention): 4-D mask_index "
                                       "'mask' (Megatron's (B, 1, max, max)) is not supported"));

  // Layouts of the saving machine and GPU-only fusions: refused by name, saying what to do.
  for (auto [domain, op, why] :
       {std::tuple<const char*, const char*, const char*>{"com.microsoft.nchwc", "Conv",
                                                          "save the session at level `extended`"},
        {"com.microsoft", "ReorderInput", "NCHWc blocked layout"},
        {"com.microsoft", "BiasSplitGelu", "only for ONNX Runtime's GPU execution providers"}}) {
    ModelBuilder hm = contrib_model();
    auto* os = hm.proto().add_opset_import();
    os->set_domain("com.microsoft.nchwc");
    os->set_version(1);
    hm.input("x", TensorProto::FLOAT, {1, 8}).output("y", TensorProto::FLOAT, {1, 8});
    auto& hn = hm.node(op, {"x"}, {"y"}, "host");
    hn.set_domain(domain);
    Diagnostics d;
    CHECK_FALSE(lower_model(hm.write(), ImportOptions{}, d));
    CHECK(d.count() == 1);
    CHECK_THAT(d.str(), Catch::Contains(std::string("node 'host' (") + domain + " " + op + "): ") &&
                            Catch::Contains(why));
  }

  const auto ops = expanded_contrib_ops();
  CHECK(std::find(ops.begin(), ops.end(), "FusedConv") != ops.end());
  CHECK(std::find(ops.begin(), ops.end(), "NoSuchFusion") == ops.end());
}

TEST_CASE("com.microsoft QLinearConv is the standard one, channels_last=1 is refused",
          "[frontend][contrib]") {
  const std::vector<double> x = {0, 50, 128, 200, 255, 90};  // 1 x 1 x 2 x 3, zero point 128
  for (int channels_last : {0, 1}) {
    ModelBuilder mb = contrib_model();
    mb.input("x", TensorProto::UINT8, {1, 1, 2, 3}).output("y", TensorProto::UINT8, {1, 1, 2, 3});
    scalar(mb, "sx", 0.047f), scalar(mb, "sw", 0.02f), scalar(mb, "sy", 0.031f);
    zp_u8(mb, "zx", 128), zp_u8(mb, "zy", 100);
    mb.int_initializer("w", TensorProto::INT8, {1, 1, 1, 1}, {-37});
    mb.int_initializer("zw", TensorProto::INT8, {}, {0});
    mb.int_initializer("b", TensorProto::INT32, {1}, {300});
    auto& n =
        ms_node(mb, "QLinearConv", {"x", "sx", "zx", "w", "sw", "zw", "sy", "zy", "b"}, {"y"});
    n.set_name("qconv");
    ModelBuilder::int_attr(n, "channels_last", channels_last);
    if (channels_last) {
      Diagnostics d;
      CHECK_FALSE(lower_model(mb.write(), ImportOptions{}, d));
      CHECK_THAT(d.str(), Catch::Contains("node 'qconv' (com.microsoft QLinearConv): "
                                          "channels_last=1 is a layout of the machine"));
      continue;
    }
    auto got = run_model(mb, {Buf{"uint8_t", x}}, {Buf{"uint8_t", std::vector<double>(6)}});
    std::vector<double> want;
    const double sx = 0.047f, sw = 0.02f, sy = 0.031f;
    for (double v : x) want.push_back(quant_u8(((v - 128) * -37 + 300) * sx * sw, sy, 100));
    CHECK(got[0] == want);
  }
}

TEST_CASE("QAttention: integer QKV projection with per-column scales and a 2-D mask",
          "[frontend][contrib]") {
  constexpr int S = 3, D = 2, H = 2, N = 1;                   // B = 1, one head of size 2
  const std::vector<double> x = {140, 90, 255, 3, 128, 177};  // S x D, zero point 128
  const std::vector<int32_t> w = {-100, 27, 64, -3, 127, -128, 5, 44, -61, 90, 17, -7};  // D x 3H
  const std::vector<float> sw = {0.01f, 0.02f, 0.015f, 0.012f, 0.03f, 0.025f};
  const std::vector<float> bias = {0.1f, -0.2f, 0.3f, 0.05f, -0.4f, 0.25f};
  const std::vector<double> mask = {1, 1, 0};  // the last key is masked
  ModelBuilder mb = contrib_model();
  mb.input("x", TensorProto::UINT8, {1, S, D}).input("mask", TensorProto::INT32, {1, S});
  mb.int_initializer("w", TensorProto::INT8, {D, 3 * H}, w);
  mb.initializer("sw", {3 * H}, sw).initializer("bias", {3 * H}, bias);
  scalar(mb, "sx", 0.047f), zp_u8(mb, "zx", 128);
  mb.int_initializer("zw", TensorProto::INT8, {3 * H}, {0, 1, -1, 2, 0, -2});
  mb.output("y", TensorProto::FLOAT, {1, S, H});
  ModelBuilder::int_attr(
      ms_node(mb, "QAttention", {"x", "w", "bias", "sx", "sw", "mask", "zx", "zw"}, {"y"}),
      "num_heads", N);
  auto got = run_model(mb, {Buf{"uint8_t", x}, Buf{"int32_t", mask}}, {f32_out(S * H)});
  const int zw[3 * H] = {0, 1, -1, 2, 0, -2};
  std::vector<double> qkv(S * 3 * H), y(S * H);
  for (int s = 0; s < S; ++s)
    for (int c = 0; c < 3 * H; ++c) {
      double acc = 0;
      for (int k = 0; k < D; ++k) acc += (x[s * D + k] - 128) * (w[k * 3 * H + c] - zw[c]);
      qkv[s * 3 * H + c] = acc * double(0.047f) * sw[c] + bias[c];
    }
  for (int i = 0; i < S; ++i) {
    double p[S], total = 0, top = -1e30;
    for (int j = 0; j < S; ++j) {
      double dot = 0;
      for (int d = 0; d < H; ++d) dot += qkv[i * 3 * H + d] * qkv[j * 3 * H + H + d];
      p[j] = dot / std::sqrt(double(H)) + (mask[j] > 0 ? 0.0 : -10000.0);
      top = std::max(top, p[j]);
    }
    for (double& v : p) total += (v = std::exp(v - top));
    for (int d = 0; d < H; ++d) {
      double s = 0;
      for (int j = 0; j < S; ++j) s += p[j] / total * qkv[j * 3 * H + 2 * H + d];
      y[i * H + d] = s;
    }
  }
  check_close(got[0], y, 1e-4);

  // past without the present output (ORT's kernel refuses it too): one line naming the node.
  ModelBuilder past = contrib_model();
  past.input("x", TensorProto::UINT8, {1, S, D}).input("past", TensorProto::FLOAT, {2, 1, 1, 1, 2});
  past.int_initializer("w", TensorProto::INT8, {D, 3 * H}, w);
  past.initializer("sw", {3 * H}, sw).initializer("bias", {3 * H}, bias);
  scalar(past, "sx", 0.047f), zp_u8(past, "zx", 128);
  past.output("y", TensorProto::FLOAT, {1, S, H});
  auto& n =
      ms_node(past, "QAttention", {"x", "w", "bias", "sx", "sw", "", "zx", "", "past"}, {"y"});
  n.set_name("qatt");
  ModelBuilder::int_attr(n, "num_heads", N);
  Diagnostics diag;
  CHECK_FALSE(lower_model(past.write(), ImportOptions{}, diag));
  CHECK(diag.count() == 1);
  CHECK_THAT(diag.str(), Catch::Contains("node 'qatt' (com.microsoft QAttention): past without "
                                         "the present output"));
}

TEST_CASE("QEmbedLayerNormalization: dequantized tables and a mask counting ones",
          "[frontend][contrib]") {
  constexpr int S = 3, H = 4;
  const std::vector<int32_t> word = {10, 200, 30, 77, 128, 0, 255, 90, 60, 61, 62, 250};   // 3 x H
  const std::vector<int32_t> pos = {100, 120, 140, 160, 5, 15, 25, 35, 128, 128, 1, 254};  // 3 x H
  const std::vector<int32_t> gamma = {140, 150, 160, 170}, beta = {100, 128, 156, 0};
  const std::vector<double> ids = {2, 0, 1}, mask = {1, 0, 1};
  ModelBuilder mb = contrib_model();
  mb.input("ids", TensorProto::INT32, {1, S}).input("mask", TensorProto::INT32, {1, S});
  mb.int_initializer("word", TensorProto::UINT8, {3, H}, word);
  mb.int_initializer("pos", TensorProto::UINT8, {3, H}, pos);
  mb.int_initializer("gamma", TensorProto::UINT8, {H}, gamma);
  mb.int_initializer("beta", TensorProto::UINT8, {H}, beta);
  const float sc[5] = {0.02f, 0.03f, 0, 0.01f, 0.005f};
  const int zp[5] = {128, 120, 0, 100, 128};
  for (const char* t : {"word", "pos", "gamma", "beta"}) {
    const int k = std::string(t) == "word" ? 0 : std::string(t) == "pos" ? 1 : t[0] == 'g' ? 3 : 4;
    scalar(mb, std::string(t) + "_s", sc[k]), zp_u8(mb, std::string(t) + "_z", zp[k]);
  }
  mb.output("y", TensorProto::FLOAT, {1, S, H}).output("mi", TensorProto::INT32, {1});
  ms_node(mb, "QEmbedLayerNormalization",
          {"ids", "", "word", "pos", "", "gamma", "beta", "mask", "word_s", "pos_s", "", "gamma_s",
           "beta_s", "word_z", "pos_z", "", "gamma_z", "beta_z"},
          {"y", "mi"});
  auto got = run_model(mb, {Buf{"int32_t", ids}, Buf{"int32_t", mask}},
                       {f32_out(S * H), Buf{"int32_t", std::vector<double>(1)}});
  std::vector<double> y;
  for (int s = 0; s < S; ++s) {
    double e[H], mean = 0, var = 0;
    for (int i = 0; i < H; ++i) {
      e[i] = (word[int(ids[s]) * H + i] - zp[0]) * double(sc[0]) +
             (pos[s * H + i] - zp[1]) * double(sc[1]);
      mean += e[i] / H;
    }
    for (double v : e) var += (v - mean) * (v - mean) / H;
    for (int i = 0; i < H; ++i)
      y.push_back((e[i] - mean) / std::sqrt(var + 1e-12) * (gamma[i] - zp[3]) * double(sc[3]) +
                  (beta[i] - zp[4]) * double(sc[4]));
  }
  check_close(got[0], y, 1e-4);
  CHECK(got[1] == std::vector<double>{2});
}

// ORT's DynamicQuantizeLSTM (contrib_ops/cpu/quantization/dynamic_quantize_lstm.cc, rnn_helpers'
// quantized ComputeGemm), written out for one batch entry and H = 1: X quantized once over all
// steps and h at every step, to uint8 as DynamicQuantizeLinear; int32 products with the weights;
// float(acc) * (a_scale * w_scale) summed into the gate pre-activations.
namespace qlstm_reference {
struct Quantized {
  std::vector<int32_t> q;
  float scale;
  int32_t zp;
};
Quantized dynamic_quantize(const std::vector<float>& v) {
  float lo = 0, hi = 0;
  for (float e : v) lo = std::min(lo, e), hi = std::max(hi, e);
  Quantized r{{}, hi == lo ? 1.0f : (hi - lo) / 255.0f, 0};
  r.zp = static_cast<int32_t>(std::nearbyint(std::clamp(-lo / r.scale, 0.0f, 255.0f)));
  for (float e : v)
    r.q.push_back(std::clamp(static_cast<int32_t>(std::nearbyint(e / r.scale)) + r.zp, 0, 255));
  return r;
}
}  // namespace qlstm_reference

TEST_CASE("DynamicQuantizeLSTM: X and h quantized to uint8, integer products, as ORT",
          "[frontend][contrib]") {
  using namespace qlstm_reference;
  constexpr int T = 3, I = 2, H = 1;
  const std::vector<float> x = {0.5f, -1.0f, 0.25f, 0.75f, -0.5f, 1.5f};  // T x 1 x I
  const std::vector<int32_t> w = {200, 20, 64, 5, 90, 33, 127, 0};        // 1 x I x 4H (iofc)
  const std::vector<int32_t> r = {140, 90, 255, 3};                       // 1 x H x 4H
  const float ws[4] = {0.01f, 0.02f, 0.015f, 0.03f}, rs = 0.02f;
  ModelBuilder mb = contrib_model();
  mb.input("x", TensorProto::FLOAT, {T, 1, I});
  mb.int_initializer("w", TensorProto::UINT8, {1, I, 4 * H}, w);
  mb.int_initializer("r", TensorProto::UINT8, {1, H, 4 * H}, r);
  mb.initializer("ws", {1, 4 * H}, {ws[0], ws[1], ws[2], ws[3]});
  mb.int_initializer("wz", TensorProto::UINT8, {1, 4 * H}, {120, 120, 120, 120});
  mb.initializer("rs", {1}, {rs});
  mb.int_initializer("rz", TensorProto::UINT8, {1}, {128});
  mb.output("y", TensorProto::FLOAT, {T, 1, 1, H});
  ModelBuilder::int_attr(
      ms_node(mb, "DynamicQuantizeLSTM",
              {"x", "w", "r", "", "", "", "", "", "ws", "wz", "rs", "rz"}, {"y"}),
      "hidden_size", H);
  auto got = run_model(mb, {f32(std::vector<double>(x.begin(), x.end()))}, {f32_out(T * H)});
  const Quantized xq = dynamic_quantize(x);
  auto sigmoid = [](float v) { return 1 / (1 + std::exp(-v)); };
  float h = 0, c = 0;
  std::vector<double> y;
  for (int t = 0; t < T; ++t) {
    const Quantized hq = dynamic_quantize({h});
    float g[4];
    for (int k = 0; k < 4; ++k) {
      int32_t acc = 0;
      for (int i = 0; i < I; ++i) acc += (xq.q[t * I + i] - xq.zp) * (w[i * 4 + k] - 120);
      const float xw = static_cast<float>(acc) * (xq.scale * ws[k]);
      const int32_t hacc = (hq.q[0] - hq.zp) * (r[k] - 128);
      g[k] = static_cast<float>(hacc) * (hq.scale * rs) + xw;
    }
    c = c * sigmoid(g[2]) + sigmoid(g[0]) * std::tanh(g[3]);
    h = std::tanh(c) * sigmoid(g[1]);
    y.push_back(h);
  }
  check_close(got[0], y, 1e-6);
}
