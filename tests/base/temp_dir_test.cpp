#include "base/temp_dir.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

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

TEST_CASE("remove_tree_signal_safe removes a tree and never follows a symlink out", "[support]") {
  namespace fs = std::filesystem;
  TempDir outside("onnxc-tempdir-test-"), tree("onnxc-tempdir-test-");
  REQUIRE(outside.ok());
  REQUIRE(tree.ok());
  std::ofstream(outside.path() / "keep.txt") << "x";
  fs::path root = tree.path() / "root";
  fs::create_directories(root / "a" / "b" / "c");
  for (int i = 0; i < 300; ++i)  // more entries than one getdents buffer holds
    std::ofstream(root / "a" / ("file" + std::to_string(i) + ".txt")) << i;
  std::ofstream(root / "a" / "b" / "c" / "deep.txt") << "y";
  fs::create_directory_symlink(outside.path(), root / "a" / "link_to_outside");
  fs::create_symlink(outside.path() / "keep.txt", root / "file_link");
  CHECK(remove_tree_signal_safe(root.c_str()));
  CHECK_FALSE(fs::exists(root));
  CHECK(fs::exists(outside.path() / "keep.txt"));
  CHECK(remove_tree_signal_safe((tree.path() / "never-existed").c_str()));
}

TEST_CASE("the live-folder registry has a fixed number of slots, freed on scope exit",
          "[support]") {
  std::vector<int> slots;
  for (int i = 0; i < kMaxLiveTempDirs + 2; ++i)
    slots.push_back(register_temp_dir("/nonexistent/onnxc-slot-" + std::to_string(i)));
  int taken = 0;
  for (int s : slots) taken += s >= 0;
  CHECK(taken <= kMaxLiveTempDirs);
  CHECK(slots.back() == -1);
  for (int s : slots) unregister_temp_dir(s);
  CHECK(register_temp_dir(std::string(5000, 'x')) == -1);  // longer than PATH_MAX
  // Other tests' folders may hold slots; the ones this test took are free again.
  int again = register_temp_dir("/nonexistent/onnxc-slot-again");
  CHECK((again >= 0) == (taken > 0));
  unregister_temp_dir(again);
}
