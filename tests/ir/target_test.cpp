// The target table: names are unique and resolvable, `native` resolves to a table row the host
// runs (its cache budget the host's L2), the microcontroller rows carry the tighter stack limit,
// and the split cost column is set for every target that may split.
#include "ir/target.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <string>

using namespace onnxc;

TEST_CASE("every target is found by its name, and names are unique", "[target]") {
  std::set<std::string_view> names;
  for (const Target& t : all_targets()) {
    CHECK(names.insert(t.name).second);
    CHECK(find_target(t.name) == &t);
    CHECK(!isa_name(t.isa).empty());
  }
  CHECK(find_target("pentium-pro") == nullptr);
  CHECK(default_target().name == "generic");
  CHECK(target_names().find("cortex-m4") != std::string::npos);
}

TEST_CASE("native is a named target the host can run", "[target]") {
  const Target* native = find_target("native");
  REQUIRE(native != nullptr);
  CHECK(native->name != "native");
  CHECK(host_can_run(*native));
  CHECK(host_can_run(default_target()));
  CHECK_FALSE(host_can_run(*find_target("cortex-m4")));
}

TEST_CASE("microcontroller targets limit kernel stack to 256 bytes", "[target]") {
  CHECK(find_target("cortex-m4")->is_microcontroller());
  CHECK(find_target("cortex-m4")->max_kernel_stack == 256);
  CHECK(find_target("cortex-m4")->fpu == Fpu::kSingle);
  CHECK(find_target("cortex-m3")->fpu == Fpu::kNone);
  CHECK_FALSE(find_target("x86-64-v3")->is_microcontroller());
  CHECK(isa_name(find_target("x86-64-v3")->isa) == "avx2_fma");
}

TEST_CASE("the Cortex-M55 is a microcontroller with Helium and a double-precision FPU",
          "[target]") {
  const Target& m55 = *find_target("cortex-m55");
  CHECK(m55.is_microcontroller());
  CHECK(m55.isa == Isa::mve);
  CHECK(isa_name(m55.isa) == "mve");
  CHECK(m55.fpu == Fpu::kDouble);
  CHECK(m55.cxx_flags.find("-mcpu=cortex-m55") != std::string_view::npos);
  CHECK_FALSE(host_can_run(m55));
}

TEST_CASE("flag --max-scratch: caps the scratch budget of a copy of the target", "[target]") {
  const Target& m4 = *find_target("cortex-m4");
  CHECK(m4.scratch_budget() == m4.cache_bytes);
  CHECK(with_max_scratch(m4, 0) == &m4);
  const Target* capped = with_max_scratch(m4, 4096);
  CHECK(capped->name == "cortex-m4");
  CHECK(capped->scratch_budget() == 4096u);
  CHECK(with_max_scratch(m4, 4096) == capped);  // one copy per (target, cap)
  CHECK(with_max_scratch(m4, 1u << 30)->scratch_budget() == m4.cache_bytes);  // never above
  CHECK(m4.max_scratch == 0u);  // the table row is untouched
  CHECK(find_target("cortex-m0plus")->fpu == Fpu::kNone);
}

TEST_CASE("native sizes its tiles for the host's L2 where sysfs tells it", "[target]") {
  const Target& native = *find_target("native");
  const Target& row = *std::find_if(all_targets().begin(), all_targets().end(),
                                    [&](const Target& t) { return t.name == native.name; });
  CHECK(native.isa == row.isa);
  CHECK(native.cxx_flags == row.cxx_flags);
  // cpu0's level-2 cache as Linux lists it (index2 is L2 on x86 and on the Arm cores we run).
  std::ifstream level("/sys/devices/system/cpu/cpu0/cache/index2/level"),
      size("/sys/devices/system/cpu/cpu0/cache/index2/size");
  int l = 0;
  std::string text;
  if (level >> l && l == 2 && size >> text && text.back() == 'K') {
    const size_t kib = std::stoul(text.substr(0, text.size() - 1));
    if (kib >= 64) CHECK(native.cache_bytes == kib * 1024);
  }
  CHECK(native.cache_bytes >= 65536u);
  CHECK(find_target("native") == &native);  // one copy for the process
}

TEST_CASE("the hosted targets' cost table allows splits, microcontrollers' never",
          "[target][threads]") {
  for (const Target& t : all_targets()) {
    INFO(t.name);
    if (t.is_microcontroller()) {  // --threads is refused there
      CHECK(t.split.min_call_s == 0);
      CHECK(t.split.min_step_s == 0);
      continue;
    }
    CHECK(t.split.region_s > 0);
    CHECK(t.split.min_step_s > 0);
    // a call's parts also hand their outputs to another core's cache; a step's state stays put
    CHECK(t.split.min_call_s >= t.split.min_step_s);
  }
}
