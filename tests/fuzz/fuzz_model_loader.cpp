// libFuzzer target: arbitrary bytes through the model loader and the validator. Neither may
// crash, hang or allocate without bound, whatever the input.
//   clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address -I compiler -I runtime -I <gen>
//     tests/fuzz/fuzz_model_loader.cpp compiler/frontend/{model_loader,validator}.cpp
//     compiler/ir/dtype.cpp <gen>/onnx.pb.cc -lprotobuf -lfmt
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "frontend/model_loader.h"
#include "frontend/validator.h"
#include "fuzz_support.h"

namespace {

using onnxc::fuzz::model_dir;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool quiet = [] {
    google::protobuf::SetLogHandler(nullptr);  // parse failures are expected; keep the log clean
    return true;
  }();
  (void)quiet;
  onnxc::Diagnostics diag;
  onnx::ModelProto model;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (onnxc::load_model_from_bytes(bytes, model_dir(), model, diag))
    onnxc::validate_model(model, diag);
  return 0;
}
