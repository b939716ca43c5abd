// The files `onnxc test` and `onnxc bench` compile beside the generated code: the harness
// templates (templates/) and the runtime headers (runtime/onnxc/), written from the
// copies embedded in onnxc at build time (cmake/embed_runtime.cmake). An installed or moved onnxc
// thus reads nothing from its source tree (issue 38).
#pragma once

#include <filesystem>
#include <string>

namespace onnxc {

// The text of templates/NAME ("test_harness.cpp"), embedded at build time; "" if unknown.
const char* template_text(const std::string& name);

// Writes every template into `dir` and every runtime header into `dir`/onnxc/, so that `-I dir`
// finds both; `dir` itself is created if missing, its parent never is. False when a file cannot be
// written.
bool write_host_files(const std::filesystem::path& dir);

}  // namespace onnxc
