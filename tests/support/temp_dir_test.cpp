#include "support/temp_dir.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using namespace onnxc;

TEST_CASE("TempDir creates a private folder and removes it with its contents", "[support]") {
  std::filesystem::path kept;
  {
    TempDir a("onnxc-tempdir-test-"), b("onnxc-tempdir-test-");
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(a.path() != b.path());
    CHECK(std::filesystem::is_directory(a.path()));
    std::filesystem::create_directories(a.path() / "sub");
    std::ofstream(a.path() / "sub" / "f.txt") << "x";
    kept = a.path();
  }
  CHECK_FALSE(std::filesystem::exists(kept));
}
