// libFuzzer target: arbitrary bytes through the whole compiler, as `onnxc model.onnx -o x.cpp`
// runs it: load, validate, inline functions, import, every pass of passes/pass_list.h and C++
// generation. No input may crash, hang, trip a sanitizer or allocate without bound; a model that
// compiles must give a non-empty .cpp and .h. Limits keep one input cheap: tensors, the arena
// and the weights above 16 MiB are refused (--max-bytes), symbolic dims are pinned to 1.
//   Build with clang: cmake -DONNXC_BUILD_FUZZERS=ON -DCMAKE_CXX_COMPILER=clang++; seed with
//   tests/fuzz/seed_corpus.sh; run ./fuzz_compile CORPUS_DIR.
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "codegen/cpp_emitter.h"
#include "frontend/contrib_expander.h"
#include "frontend/function_inliner.h"
#include "frontend/importer.h"
#include "frontend/model_loader.h"
#include "frontend/pin_flags.h"
#include "frontend/validator.h"
#include "fuzz_support.h"
#include "passes/pass_manager.h"

namespace {

using onnxc::fuzz::model_dir;

bool compile(const std::string& bytes) {
  onnxc::Diagnostics diag;
  diag.set_model("fuzz.onnx");
  onnx::ModelProto proto;
  if (!onnxc::load_model_from_bytes(bytes, model_dir(), proto, diag)) return false;
  if (!onnxc::validate_model(proto, diag) || !onnxc::inline_model_functions(proto, diag) ||
      !onnxc::expand_contrib_ops(proto, diag))
    return false;
  onnxc::ImportOptions options;
  options.default_dim = 1;
  options.max_bytes = int64_t{16} << 20;
  if (!onnxc::check_pin_flags(proto, options, diag)) return false;
  auto module = onnxc::import_model(proto, options, diag);
  if (!module || !diag.ok()) return false;
  module->target = options.target;
  module->max_bytes = options.max_bytes;
  module->source_path = "fuzz.onnx";
  module->model_name = "fuzz";
  onnxc::PassManager passes;
  if (!passes.run(*module, diag)) return false;
  onnxc::CodegenOptions codegen;
  codegen.name = "fuzz";
  codegen.header_file = "fuzz.h";
  onnxc::GeneratedCode code;
  if (!onnxc::generate_cpp(*module, codegen, code, diag)) return false;
  if (code.source.empty() || code.header.empty()) {
    std::fprintf(stderr, "fuzz_compile: a model compiled to an empty file\n");
    std::abort();
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool quiet = [] {
    google::protobuf::SetLogHandler(nullptr);  // parse failures are expected; keep the log clean
    return true;
  }();
  (void)quiet;
  compile(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
