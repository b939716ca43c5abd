// Progress lines of long commands (issue 38): durations as printed, and `onnxc test` with stderr
// not a terminal prints plain lines (one per phase end and per batch), never carriage returns.
#include "driver/progress.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "support/model_builder.h"
#include "support/run_onnxc.h"

using onnxc::Progress;
using onnxc::testing::ModelBuilder;
using onnxc::testing::run_onnxc;

TEST_CASE("progress durations read as seconds, then minutes and seconds", "[progress]") {
  CHECK(Progress::duration(0) == "0s");
  CHECK(Progress::duration(42.4) == "42s");
  CHECK(Progress::duration(59.6) == "1m00s");
  CHECK(Progress::duration(65) == "1m05s");
  CHECK(Progress::duration(3725) == "62m05s");
}

TEST_CASE("onnxc test prints plain progress lines when stderr is not a terminal",
          "[progress][test-runner]") {
  ModelBuilder mb;
  mb.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT, {2});
  mb.node("Relu", {"x"}, {"y"}, "relu");
  const std::filesystem::path model = mb.write();
  const auto data = model.parent_path() / "test_data_set_0";
  std::filesystem::create_directories(data);
  auto write = [&](const char* name, float a, float b) {
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(2);
    t.add_float_data(a);
    t.add_float_data(b);
    std::ofstream(data / name, std::ios::binary) << t.SerializeAsString();
  };
  write("input_0.pb", -1, 2);
  write("output_0.pb", 0, 2);  // Relu by hand
  const auto r = run_onnxc("test " + model.parent_path().string());
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("onnxc test: 1/1 cases lowered to C++ (0 not compiled)") !=
        std::string::npos);
  CHECK(r.output.find("onnxc test: 1/1 cases built and run (1 passed, 0 failed)") !=
        std::string::npos);
  CHECK(r.output.find('\r') == std::string::npos);
}
