// `onnxc test` options: --sanitize (a sanitizer report fails its case and the run, whatever the
// ratchet says) and --cases (run only the listed cases; a listed case not found is a usage error).
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "harness/run_onnxc.h"

namespace fs = std::filesystem;

namespace {

using onnxc::testing::Run;
using onnxc::testing::run_onnxc;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A scratch folder (build cache, lists, headers) removed when the test ends.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("onnxc-test-runner-" + std::to_string(getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

const std::string kNode = std::string(ONNXC_BACKEND_TESTS_DIR) + "/node";

bool backend_tests_found() {
  if (fs::exists(kNode + "/test_abs")) return true;
  WARN("ONNX backend tests not found at " << kNode << "; skipping");
  return false;
}

}  // namespace

TEST_CASE("onnxc test --sanitize: clean generated code passes, reports counted", "[test-runner]") {
  if (!backend_tests_found()) return;
  Scratch s;
  Run r = run_onnxc("test --sanitize --cache " + s.dir.string() + " " + kNode + "/test_abs");
  CHECK(r.exit_code == 0);
  CHECK(contains(r.output, "PASS         node/test_abs"));
  CHECK(contains(r.output, "sanitizers: 0 case(s) with a report"));
}

// A harness with `bug` force-included through --cxx: the bug runs at the binary's start-up, so
// the outputs never get written, and the sanitizer must be what reports it.
// Each bug gets its own header name: the build cache keys on the --cxx command line, not on what
// a header it force-includes holds.
static Run run_with_injected_bug(const Scratch& s, const std::string& name,
                                 const std::string& bug) {
  const std::string header = s.write(name, "#include <cstdlib>\n" + bug);
  const std::string empty_ratchet = s.write("expect.txt", "# nothing listed\n");
  return run_onnxc("test --sanitize --cache " + s.dir.string() + " --cxx 'c++ -include " + header +
                   "' --expect " + empty_ratchet + " " + kNode + "/test_abs");
}

TEST_CASE("onnxc test --sanitize: a sanitizer report fails the case even when the ratchet passes",
          "[test-runner]") {
  if (!backend_tests_found()) return;
  Scratch s;
  const std::string ubsan_bug =  // an array index out of bounds: UBSan's -fsanitize=bounds
      "inline int read_past(int k) {\n"
      "  int a[4] = {0, 1, 2, 3};\n"
      "  volatile int i = k;\n"
      "  return a[i];\n"
      "}\n"
      "[[maybe_unused]] static volatile int kRead = read_past(std::atoi(\"4\"));\n";
  const std::string asan_bug =  // a heap read past the end through a pointer: ASan only
      "inline int read_past(int k) {\n"
      "  int* volatile a = static_cast<int*>(std::malloc(4 * sizeof(int)));\n"
      "  const int v = a[k];\n"
      "  std::free(a);\n"
      "  return v;\n"
      "}\n"
      "[[maybe_unused]] static volatile int kRead = read_past(std::atoi(\"4\"));\n";
  const std::string bugs[][3] = {
      {"ubsan_bug.h", ubsan_bug, "runtime error: index 4 out of bounds"},
      {"asan_bug.h", asan_bug, "ERROR: AddressSanitizer: heap-buffer-overflow"}};
  for (const auto& [name, bug, report] : bugs) {
    Run r = run_with_injected_bug(s, name, bug);
    CHECK(r.exit_code == 1);
    CHECK(contains(r.output, "FAIL         node/test_abs: data set 0: sanitizer report"));
    CHECK(contains(r.output, report));
    CHECK(contains(r.output, "sanitizers: 1 case(s) with a report"));
  }
}

TEST_CASE("onnxc test --cases: only the listed cases run, an unknown name is a usage error",
          "[test-runner]") {
  if (!backend_tests_found()) return;
  Scratch s;
  const std::string list = s.write("list.txt", "# header\nnode/test_abs\n\n");
  Run r = run_onnxc("test --cache " + s.dir.string() + " --cases " + list + " " + kNode +
                    "/test_abs " + kNode + "/test_acos");
  CHECK(r.exit_code == 0);
  CHECK(contains(r.output, "node/test_abs"));
  CHECK(!contains(r.output, "node/test_acos"));
  CHECK(contains(r.output, "1 passed, 0 failed, 0 skipped"));

  const std::string stale = s.write("stale.txt", "node/test_abs\nnode/test_no_such_case\n");
  r = run_onnxc("test --cache " + s.dir.string() + " --cases " + stale + " " + kNode + "/test_abs");
  CHECK(r.exit_code == 2);
  CHECK(contains(
      r.output, "'node/test_no_such_case' (listed in " + stale + ") is not among the cases given"));
}

TEST_CASE("onnxc test counts the cases specialized to small run-time inputs apart",
          "[test-runner]") {
  if (!backend_tests_found()) return;
  Scratch s;
  // test_reshape_extended_dims feeds Reshape's shape as a graph input: specialized.
  Run r = run_onnxc("test --cache " + s.dir.string() + " " + kNode + "/test_abs " + kNode +
                    "/test_reshape_extended_dims");
  CHECK(r.exit_code == 0);
  CHECK(contains(r.output, "node/test_reshape_extended_dims: specialized to the values of "));
  CHECK(contains(r.output, "2 passed, 0 failed, 0 skipped"));
  CHECK(contains(r.output, "1 of the passed specialized to the values of small run-time inputs"));
}
