// The LLVM backend (issue 36): the target table, the refusal of a build without LLVM, and, where
// the backend is built in, the modules and objects it writes for every target of the table:
// verified, named by their triple, no path in them, the weights in their section, only the entry
// points defined externally, only memcpy/memset/memmove and libm left undefined, the same bytes
// from any working folder.
#include "llvm_backend/llvm_backend.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "base/temp_dir.h"
#include "driver/llvm_emit.h"
#include "driver/pipeline.h"
#include "harness/filecheck.h"
#include "harness/model_builder.h"
#include "harness/run_onnxc.h"
#include "ir/target.h"
#include "llvm_backend/llvm_targets.h"

namespace fs = std::filesystem;
using namespace onnxc;
using onnxc::testing::ModelBuilder;

namespace {

// y = Tanh(x + b) * w: weights, and a libm call (tanhf) in its kernels.
std::string write_model() {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {2, 3})
      .output("y", onnx::TensorProto::FLOAT, {2, 3})
      .initializer("b", {3}, {1.0f, -2.0f, 0.5f})
      .initializer("w", {3}, {2.0f, 3.0f, 4.0f});
  mb.node("Add", {"x", "b"}, {"s"}, "add");
  mb.node("Tanh", {"s"}, {"t"}, "tanh");
  mb.node("Mul", {"t", "w"}, {"y"}, "mul");
  return mb.write("net.onnx");
}

// The model's code for `target`, with its weights declared for the backend to define.
GeneratedCode generate(const std::string& model, const std::string& target, CodegenOptions* cg) {
  ImportOptions options;
  options.target = find_target(target);
  Diagnostics diag;
  auto module = lower_model(model, options, diag);
  REQUIRE(module);
  cg->name = "net";
  cg->header_file = "net.h";
  cg->weights = WeightsMode::kLinked;
  GeneratedCode code;
  REQUIRE(generate_cpp(*module, *cg, code, diag));
  return code;
}

std::string emit(const std::string& model, const std::string& target, LlvmEmit kind) {
  CodegenOptions cg;
  const GeneratedCode code = generate(model, target, &cg);
  LlvmOptions options;
  options.emit = kind;
  options.target = target;
  std::vector<char> out;
  const std::string error = compile_with_llvm(llvm_source(code, cg, "net.cpp"), options, &out);
  INFO(target << ": " << error);
  REQUIRE(error.empty());
  return std::string(out.begin(), out.end());
}

// The symbols a .ll declares (functions left to the linker), intrinsics left out.
std::set<std::string> declared_functions(const std::string& ll) {
  std::set<std::string> names;
  const std::regex declare(R"(^declare [^@]*@([A-Za-z0-9_.$]+)\()");
  std::istringstream in(ll);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, declare) && m[1].str().rfind("llvm.", 0) != 0)
      names.insert(m[1]);
  }
  return names;
}

// The functions a .ll defines with external linkage.
std::set<std::string> external_definitions(const std::string& ll) {
  std::set<std::string> names;
  const std::regex define(R"(^define (?!internal|private)[^@]*@([A-Za-z0-9_.$]+)\()");
  std::istringstream in(ll);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, define)) names.insert(m[1]);
  }
  return names;
}

// What LLVM's normalized spelling of `triple` starts with: its architecture ("thumbv7em-none-
// eabihf" becomes "thumbv7em-none-unknown-eabihf").
std::string normalized_prefix(std::string_view triple) {
  return std::string(triple.substr(0, triple.find('-') + 1));
}

// (__cpu_model: the CPU features libgcc or compiler-rt records at start-up, which x86-64 baseline
// code reads to pick its kernels' AVX2 or AVX-512 copies, onnxc/base.h.)
bool allowed_undefined(const std::string& name) {
  static const std::set<std::string> kAllowed = {
      "memcpy", "memset", "memmove", "memcmp", "bcmp", "memchr", "strlen",
      "tanhf",  "tanh",   "expf",    "exp",    "logf", "log",    "__cpu_model"};
  return kAllowed.count(name) > 0;
}

std::string run_tool(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

}  // namespace

TEST_CASE("llvm target table: one row per onnxc target, the g++ flags in each", "[llvm]") {
  for (const Target& t : all_targets()) CHECK(find_llvm_target(t.name));
  for (const LlvmTarget& row : all_llvm_targets()) {
    INFO(row.target);
    const Target* target = find_target(row.target);
    REQUIRE(target);
    const std::vector<std::string> args = llvm_target_arguments(row, "/inc", "12");
    auto has = [&](const std::string& a) {
      return std::find(args.begin(), args.end(), a) != args.end();
    };
    CHECK(has("--target=" + std::string(row.triple)));
    CHECK(has("-ffp-contract=off"));
    std::istringstream flags{std::string(target->cxx_flags)};
    for (std::string f; flags >> f;) CHECK(has(f));
    const bool eabihf = row.triple.find("eabihf") != std::string_view::npos;
    CHECK((row.float_abi == "hard") == eabihf);
    CHECK(has("-fPIC") == row.hosted);
    CHECK(has("-fshort-enums") == !row.hosted);
    if (!row.hosted) CHECK(has("-isystem/inc/c++/12/arm-none-eabi/" + std::string(row.multilib)));
  }
  CHECK_FALSE(find_llvm_target("cortex-a9"));
  // ImageDecoder's library decoders: the macro and the libraries' header folders.
  LlvmOptions images;
  images.image_libs = true;
  images.image_include_dirs = {"/usr/include/openjpeg-2.5"};
  const std::vector<std::string> image_args = clang_command_line(images, "m.cpp");
  const auto has_arg = [&](const char* a) {
    return std::find(image_args.begin(), image_args.end(), a) != image_args.end();
  };
  CHECK(has_arg("-DONNXC_IMAGE_LIBS"));
  CHECK(has_arg("-I/usr/include/openjpeg-2.5"));
  const std::vector<std::string> plain = clang_command_line(LlvmOptions{}, "m.cpp");
  CHECK(std::find(plain.begin(), plain.end(), "-DONNXC_IMAGE_LIBS") == plain.end());
  LlvmEmit e;
  CHECK((parse_llvm_emit("obj", &e) && e == LlvmEmit::kObject));
  CHECK((parse_llvm_emit("llvm", &e) && e == LlvmEmit::kLlvmIr));
  CHECK_FALSE(parse_llvm_emit("cpp", &e));
}

TEST_CASE(
    "onnxc --emit obj: without the backend one line and exit 2, with it the object and header",
    "[llvm][cli]") {
  const std::string model = write_model();
  TempDir dir("onnxc-llvm-");
  const fs::path out = dir.path() / "net.o";
  const auto run = onnxc::testing::run_onnxc(model + " --emit obj -o " + out.string());
  if (!llvm_backend_enabled()) {
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("-DONNXC_WITH_LLVM=ON") != std::string::npos);
    CHECK(std::count(run.output.begin(), run.output.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(out));
    return;
  }
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  std::ifstream in(out, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  CHECK(std::string(magic, 4) ==
        "\x7f"
        "ELF");
  CHECK(fs::exists(dir.path() / "net.h"));
  // --runtime include has no include path to give clang: a usage error.
  CHECK(onnxc::testing::run_onnxc(model + " --emit obj --runtime include -o " + out.string())
            .exit_code == 2);
}

TEST_CASE("each target's module verifies, names its triple, holds its weights and no path",
          "[llvm]") {
  if (!llvm_backend_enabled()) return;
  const std::string model = write_model();
  const std::string cwd = fs::current_path().string();
  for (const LlvmTarget& row : all_llvm_targets()) {
    INFO(row.target);
    const std::string ll = emit(model, std::string(row.target), LlvmEmit::kLlvmIr);
    CHECK(onnxc::testing::filecheck(
              ll, {"CHECK: ; ModuleID = 'net.cpp'", "CHECK: source_filename = \"net.cpp\"",
                   "CHECK: target triple = \"" + normalized_prefix(row.triple),
                   "CHECK: @net_onnxc_weights = internal"}) == "");
    // The CPU clang's driver derived from the target's g++ flags is the table's.
    CHECK(ll.find("\"target-cpu\"=\"" + std::string(row.cpu) + "\"") != std::string::npos);
    CHECK(
        std::regex_search(ll, std::regex("@net_onnxc_weights = internal [^\n]*constant \\[[0-9]+ x "
                                         "i8\\][^\n]*section \"\\.rodata\\.onnxc_weights\", "
                                         "align 64")));
    CHECK(external_definitions(ll) ==
          std::set<std::string>{"_ZN3net3runERKNS_6InputsERKNS_7OutputsEPv", "net_run"});
    for (const std::string& name : declared_functions(ll)) {
      INFO(name);
      CHECK(allowed_undefined(name));
    }
    for (const std::string path : {cwd, std::string("/usr/"), std::string("/tmp/")})
      CHECK(ll.find(path) == std::string::npos);
  }
}

TEST_CASE("two emissions from two working folders give byte-identical .o and .ll", "[llvm]") {
  if (!llvm_backend_enabled()) return;
  const std::string model = write_model();
  const fs::path home = fs::current_path();
  TempDir a("onnxc-llvm-a-"), b("onnxc-llvm-b-");
  for (const char* target : {"x86-64-v3", "cortex-m4"}) {
    INFO(target);
    fs::current_path(a.path());
    const std::string o1 = emit(model, target, LlvmEmit::kObject);
    const std::string ll1 = emit(model, target, LlvmEmit::kLlvmIr);
    fs::current_path(b.path());
    const std::string o2 = emit(model, target, LlvmEmit::kObject);
    const std::string ll2 = emit(model, target, LlvmEmit::kLlvmIr);
    fs::current_path(home);
    CHECK(o1 == o2);
    CHECK(ll1 == ll2);
    CHECK(o1.find(a.path().string()) == std::string::npos);
  }
}

// Three 3x3 stride-2 MaxPools (squeezenet1_1's): one kernel called from three nodes, each with its
// own `static constexpr` PoolParams.
std::string write_three_pools() {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {1, 4, 55, 55})
      .output("y", onnx::TensorProto::FLOAT, {1, 4, 6, 6});
  const char* names[] = {"x", "p1", "p2", "y"};
  for (int k = 0; k < 3; ++k) {
    onnx::NodeProto& n = mb.node("MaxPool", {names[k]}, {names[k + 1]});
    ModelBuilder::ints_attr(n, "kernel_shape", {3, 3});
    ModelBuilder::ints_attr(n, "strides", {2, 2});
  }
  return mb.write("pools.onnx");
}

TEST_CASE("a kernel called with constant parameters from a few nodes is specialized per node",
          "[llvm]") {
  if (!llvm_backend_enabled()) return;
  // specialize_constant_arguments clones f32_maxpool_rows__scalar per call site with its
  // PoolParams folded, and the inliner takes each clone into run(): no definition of the generic
  // kernel, and no call of it or of a clone, is left (LLVM 14 alone keeps the generic one, whose
  // unknown dilation kept the row loop scalar: 3x g++'s time on squeezenet1_1's pools).
  const std::string ll = emit(write_three_pools(), "x86-64-v3", LlvmEmit::kLlvmIr);
  CHECK(ll.find("f32_maxpool_rows__scalar") == std::string::npos);
  CHECK(ll.find("@net_run(") != std::string::npos);
}

TEST_CASE("objects leave only memcpy, memset, memmove and libm undefined (llvm-nm -u)", "[llvm]") {
  const char* nm = "/usr/lib/llvm-14/bin/llvm-nm";
  if (!llvm_backend_enabled() || !fs::exists(nm)) return;
  const std::string model = write_model();
  TempDir dir("onnxc-llvm-nm-");
  for (const char* target : {"generic", "x86-64-v4", "aarch64", "cortex-m4", "cortex-m0plus"}) {
    INFO(target);
    const fs::path object = dir.path() / (std::string(target) + ".o");
    write_file(object, emit(model, target, LlvmEmit::kObject));
    std::istringstream undefined(run_tool(std::string(nm) + " -u " + object.string()));
    for (std::string kind, name; undefined >> kind >> name;) {
      INFO(name);
      // Cortex-M: the run-time ABI's helpers for what the core lacks (soft float, division).
      CHECK((allowed_undefined(name) || name.rfind("__aeabi_", 0) == 0));
    }
  }
}

TEST_CASE("cortex-m4 objects pass floats in VFP registers and use arm-none-eabi's short enums",
          "[llvm]") {
  if (!llvm_backend_enabled() || std::system("command -v readelf > /dev/null") != 0) return;
  TempDir dir("onnxc-llvm-arm-");
  const fs::path object = dir.path() / "net.o";
  write_file(object, emit(write_model(), "cortex-m4", LlvmEmit::kObject));
  const std::string attributes = run_tool("readelf -A " + object.string());
  CHECK(attributes.find("Tag_ABI_VFP_args: VFP registers") != std::string::npos);
  CHECK(attributes.find("Tag_ABI_enum_size: small") != std::string::npos);
}

TEST_CASE("a call outside memcpy, memset, memmove and libm is refused in one line", "[llvm]") {
  if (!llvm_backend_enabled()) return;
  LlvmSource source;
  source.file_name = "bad.cpp";
  source.model_namespace = "bad";
  source.header_name = "bad.h";
  source.header = "#pragma once\nextern \"C\" int bad_run();\n";
  source.source =
      "#include \"bad.h\"\n#include <cstdio>\nextern \"C\" int bad_run() { "
      "return std::puts(\"hi\"); }\n";
  LlvmOptions options;
  std::vector<char> out;
  const std::string error = compile_with_llvm(source, options, &out);
  CHECK(error.find("'puts'") != std::string::npos);
  CHECK(error.find('\n') == std::string::npos);
  source.source = "#include \"bad.h\"\nint oops(\n";  // clang's first error, one line
  const std::string syntax = compile_with_llvm(source, options, &out);
  CHECK(syntax.find("error") != std::string::npos);
  CHECK(syntax.find('\n') == std::string::npos);
}

namespace {

// A model that reaches the GEMM, the vector math and a reduction: y = Softmax(Tanh(x W + b)) and
// z = Sigmoid(Exp(x W)), x [4, 16].
std::string write_math_model() {
  std::vector<float> w(16 * 32), b(32);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(std::sin(0.37 * i)) * 0.5f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(std::cos(0.11 * i));
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {4, 16})
      .output("y", onnx::TensorProto::FLOAT, {4, 32})
      .output("z", onnx::TensorProto::FLOAT, {4, 32})
      .initializer("w", {16, 32}, w)
      .initializer("b", {32}, b);
  mb.node("MatMul", {"x", "w"}, {"xw"}, "matmul");
  mb.node("Add", {"xw", "b"}, {"s"}, "add");
  mb.node("Tanh", {"s"}, {"t"}, "tanh");
  mb.node("Softmax", {"t"}, {"y"}, "softmax");
  mb.node("Exp", {"xw"}, {"e"}, "exp");
  mb.node("Sigmoid", {"e"}, {"z"}, "sigmoid");
  return mb.write("math.onnx");
}

// Runs net_run on fixed inputs and prints every output float's bits.
constexpr const char* kBitsDriver = R"(#include "net.h"
#include <cmath>
#include <cstdio>
#include <cstring>
int main() {
  static float x[64], y[128], z[128];
  alignas(64) static unsigned char workspace[net::kWorkspaceSize + 1];
  for (int i = 0; i < 64; ++i) x[i] = std::sin(0.7f * i) * 3.0f;
  const void* in[] = {x};
  void* out[] = {y, z};
  if (net_run(in, out, workspace) != 0) return 1;
  for (float v : y) { unsigned u; std::memcpy(&u, &v, 4); std::printf("%08x\n", u); }
  for (float v : z) { unsigned u; std::memcpy(&u, &v, 4); std::printf("%08x\n", u); }
  return 0;
}
)";

// Builds `model` for `target` through g++ (the .cpp) or the LLVM backend (the .o), both at -O1
// with the target's flags, links it with kBitsDriver and returns what it printed.
std::string outputs_built_by(const std::string& model, const std::string& target, bool llvm,
                             const fs::path& dir) {
  ImportOptions options;
  options.target = find_target(target);
  Diagnostics diag;
  auto module = lower_model(model, options, diag);
  REQUIRE(module);
  CodegenOptions cg;
  cg.name = "net";
  cg.header_file = "net.h";
  cg.weights = llvm ? WeightsMode::kLinked : WeightsMode::kEmbedded;
  GeneratedCode code;
  REQUIRE(generate_cpp(*module, cg, code, diag));
  write_file(dir / "net.h", code.header);
  write_file(dir / "main.cpp", kBitsDriver);
  const std::string flags = "-std=c++17 -O1 " + std::string(options.target->cxx_flags);
  std::string model_file = (dir / "net.cpp").string();
  write_file(model_file, code.source);
  if (llvm) {
    LlvmOptions llvm_options;
    llvm_options.target = target;
    llvm_options.opt_level = 1;
    std::vector<char> object;
    REQUIRE(compile_with_llvm(llvm_source(code, cg, "net.cpp"), llvm_options, &object) == "");
    model_file = (dir / "net.o").string();
    write_file(model_file, std::string(object.begin(), object.end()));
  }
  const fs::path program = dir / (llvm ? "with_llvm" : "with_gxx");
  REQUIRE(std::system(("g++ " + flags + " -I" + dir.string() + " -o " + program.string() + " " +
                       (dir / "main.cpp").string() + " " + model_file)
                          .c_str()) == 0);
  return run_tool(program.string());
}

}  // namespace

TEST_CASE("g++ and the LLVM backend build code whose outputs agree bit for bit", "[llvm]") {
  if (!llvm_backend_enabled()) return;
  const std::string model = write_math_model();
  for (const char* target : {"generic", "x86-64-v3"}) {
    if (!host_can_run(*find_target(target))) continue;
    INFO(target);
    TempDir dir("onnxc-llvm-bits-");
    const std::string gxx = outputs_built_by(model, target, false, dir.path());
    const std::string llvm = outputs_built_by(model, target, true, dir.path());
    CHECK(gxx.size() == 256 * 9);
    CHECK(gxx == llvm);
  }
}
