// onnxc/strings.h against values worked out by hand: slots and their overflow, broadcast Equal and
// StringConcat, case mapping (ASCII, Latin-1, Greek, Cyrillic), StringNormalizer's stopwords and
// empty output, StringSplit per the spec's examples, LabelEncoder with string keys and values.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "onnxc/strings.h"

using namespace onnxc;

namespace {

// n slots of `slot` bytes holding `strs`.
std::vector<char> slots(const std::vector<std::string>& strs, index_t slot) {
  std::vector<char> v(strs.size() * static_cast<size_t>(slot) + 1, 0);
  for (size_t i = 0; i < strs.size(); ++i) std::copy(strs[i].begin(), strs[i].end(), &v[i * slot]);
  return v;
}
std::string at(const std::vector<char>& v, index_t slot, index_t i) {
  return std::string(&v[static_cast<size_t>(i * slot)]);
}
BroadcastParams same_shape(index_t n) {
  BroadcastParams p{};
  p.rank = 1;
  p.dims[0] = n;
  p.a_strides[0] = p.b_strides[0] = 1;
  p.numel = n;
  return p;
}
std::vector<std::string> split(const std::string& s, const std::string& d, index_t maxsplit) {
  std::vector<std::string> parts;
  string_split_each(StringRef{s.data(), static_cast<index_t>(s.size())},
                    StringRef{d.data(), static_cast<index_t>(d.size())}, maxsplit,
                    [&](StringRef p) { parts.emplace_back(p.data, p.size); });
  return parts;
}

}  // namespace

TEST_CASE("string slots: length, overflow", "[strings]") {
  std::vector<char> v = slots({"ab", ""}, 4);
  CHECK(string_at(v.data(), 4, 0).size == 2);
  CHECK(string_at(v.data(), 4, 1).size == 0);
  const char full[4] = {'a', 'b', 'c', 'd'};  // no NUL: longer than a capacity of 3
  CHECK(string_at(full, 4, 0).size == -1);
  char out[4];
  StringRef parts[2] = {{"ab", 2}, {"c", 1}};
  CHECK(string_store(out, 4, parts, 2));
  CHECK(std::string(out) == "abc");
  StringRef too_long[2] = {{"ab", 2}, {"cd", 2}};
  CHECK_FALSE(string_store(out, 4, too_long, 2));
}

TEST_CASE("string Equal and StringConcat broadcast", "[strings]") {
  std::vector<char> a = slots({"cat", "dog", "snake"}, 6), b = slots({"s"}, 2);
  BroadcastParams p = same_shape(3);
  p.b_strides[0] = 0;  // b broadcast
  std::vector<char> y(3 * 8 + 1);
  REQUIRE(string_concat_ref(p, {6, 2, 8}, a.data(), b.data(), y.data()));
  CHECK(at(y, 8, 0) == "cats");
  CHECK(at(y, 8, 2) == "snakes");
  std::vector<char> c = slots({"cat", "do", "snake"}, 6);
  bool eq[3];
  REQUIRE(string_equal_ref(same_shape(3), {6, 6, 0}, a.data(), c.data(), eq));
  CHECK(eq[0]);
  CHECK_FALSE(eq[1]);
  CHECK(eq[2]);
  std::vector<char> small(3 * 5 + 1);  // a capacity of 4 cannot hold "snakes"
  CHECK_FALSE(string_concat_ref(p, {6, 2, 5}, a.data(), b.data(), small.data()));
}

TEST_CASE("case mapping keeps UTF-8 lengths", "[strings]") {
  auto map = [](const std::string& s, int mode) {
    std::string out(s.size(), '?');
    string_map_case({s.data(), static_cast<index_t>(s.size())}, mode, &out[0]);
    return out;
  };
  CHECK(map("Monday 1!", 2) == "MONDAY 1!");
  CHECK(map("Monday", 1) == "monday");
  CHECK(map("\xC3\xA9t\xC3\xA9", 2) == "\xC3\x89T\xC3\x89");                // été -> ÉTÉ
  CHECK(map("\xCE\xB1\xCE\xB2", 2) == "\xCE\x91\xCE\x92");                  // αβ -> ΑΒ
  CHECK(map("\xD0\x9F\xD0\xA0\xD0\x98", 1) == "\xD0\xBF\xD1\x80\xD0\xB8");  // ПРИ -> при
  CHECK(map("\xE7\x9A\x84", 2) == "\xE7\x9A\x84");                          // 的 unchanged
  CHECK(string_equal_nocase({"MonDay", 6}, {"monday", 6}));
  CHECK_FALSE(string_equal_nocase({"monday", 6}, {"mondax", 6}));
}

TEST_CASE("StringNormalizer drops stopwords, empty output is one empty string", "[strings]") {
  const char* stop[] = {"monday"};
  std::vector<char> x = slots({"Monday", "tuesday", "monday"}, 8), y(3 * 8);
  index_t kept = 0;
  StringNormalizerParams p{3, 8, 8, 2, false, stop, 1};
  REQUIRE(string_normalizer_ref(p, x.data(), y.data(), &kept));
  CHECK(kept == 1);
  CHECK(at(y, 8, 0) == "TUESDAY");
  p.case_sensitive = true;
  REQUIRE(string_normalizer_ref(p, x.data(), y.data(), &kept));
  CHECK(kept == 2);
  CHECK(at(y, 8, 0) == "MONDAY");
  std::vector<char> all = slots({"monday", "monday"}, 8);
  REQUIRE(string_normalizer_ref(p, all.data(), y.data(), &kept));
  CHECK(kept == 1);
  CHECK(at(y, 8, 0).empty());
}

TEST_CASE("StringSplit per the spec", "[strings]") {
  using V = std::vector<std::string>;
  CHECK(split("o-n-n--x-", "-", -1) == V{"o", "n", "n", "", "x", ""});
  CHECK(split("  hello   world !", "", -1) == V{"hello", "world", "!"});
  CHECK(split("the quick brown fox", "", 2) == V{"the", "quick", "brown fox"});
  CHECK(split("hello world", "", 2) == V{"hello", "world"});
  CHECK(split("a::b::c", "::", 1) == V{"a", "b::c"});
  CHECK(split("", "-", -1).empty());
  CHECK(split("   ", "", -1).empty());
}

TEST_CASE("LabelEncoder with strings", "[strings]") {
  const char* keys[] = {"a", "b", "c"};
  const int64_t values[] = {0, 1, 2};
  std::vector<char> x = slots({"a", "b", "d", "c"}, 2);
  int64_t y[4];
  REQUIRE(label_encode_strings_ref<int64_t>(4, x.data(), 2, keys, 3, values, 42, y));
  CHECK(y[0] == 0);
  CHECK(y[2] == 42);
  CHECK(y[3] == 2);
  const int64_t ids[] = {7, 9};
  const char* names[] = {"seven", "nine"};
  const int64_t in[] = {9, 3};
  std::vector<char> out(2 * 8);
  REQUIRE(label_encode_to_strings_ref<int64_t>(2, in, ids, 2, names, "none", out.data(), 8));
  CHECK(at(out, 8, 0) == "nine");
  CHECK(at(out, 8, 1) == "none");
}
