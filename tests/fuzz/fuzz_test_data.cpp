// libFuzzer target: arbitrary bytes through the `.pb` reader of `onnxc test`
// (parse_test_value, driver/test_case.h), read as a TensorProto, a SequenceProto and an
// OptionalProto in turn. No input may crash or trip a sanitizer; a tensor read must hold exactly
// the bytes its type and shape call for.
//   Build with clang: cmake -DONNXC_BUILD_FUZZERS=ON -DCMAKE_CXX_COMPILER=clang++; seed with
//   tests/fuzz/seed_corpus.sh; run ./fuzz_test_data CORPUS_DIR.
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "driver/test_case.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool quiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)quiet;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  for (onnxc::ValueKind kind :
       {onnxc::ValueKind::kTensor, onnxc::ValueKind::kSequence, onnxc::ValueKind::kOptional}) {
    std::vector<onnxc::Tensor> tensors;
    onnxc::DataLayout layout;
    std::string error;
    if (!onnxc::parse_test_value(bytes, kind, tensors, layout, &error)) continue;
    for (const onnxc::Tensor& t : tensors) {
      if (t.dtype == onnxc::DataType::kString) continue;
      if (t.data.size() != onnxc::dtype_bytes(t.dtype, t.numel())) {
        std::fprintf(stderr, "fuzz_test_data: a tensor of %zu bytes for its type and shape\n",
                     t.data.size());
        std::abort();
      }
    }
  }
  return 0;
}
