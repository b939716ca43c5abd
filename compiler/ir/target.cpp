#include "ir/target.h"

#if __has_include(<unistd.h>)
#include <unistd.h>  // sysconf
#endif

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <mutex>
#include <string>

namespace onnxc {

const std::vector<Target>& all_targets() {
  static const std::vector<Target> targets = {
#define ONNXC_TARGET_ROW(name, isa, fpu, cache, stack, split, flags, text) \
  Target{name, Isa::isa, Fpu::fpu, cache, stack, split, flags, text},
      ONNXC_TARGETS(ONNXC_TARGET_ROW)
#undef ONNXC_TARGET_ROW
  };
  return targets;
}

namespace {

// The most capable table target the compiling machine runs. Used for `--target native` only,
// which bench and local experiments use; reproducible builds name their target.
std::string_view native_target_name() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return "x86-64-v4";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "x86-64-v3";
  return "x86-64-v2";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "generic";
#endif
}

// The size of the host's level-2 data (or unified) cache of CPU 0 in bytes, 0 when the host does
// not say: Linux's sysfs first (it knows it on x86 and aarch64 alike), then glibc's sysconf.
size_t host_l2_bytes() {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level(dir + "/level"), type(dir + "/type"), size(dir + "/size");
    int l = 0;
    std::string kind, text;
    if (!(level >> l) || !(type >> kind) || !(size >> text)) break;
    if (l != 2 || kind == "Instruction") continue;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
    const unsigned long long unit = *end == 'K' ? 1024 : *end == 'M' ? 1024 * 1024 : 1;
    return static_cast<size_t>(n * unit);
  }
#ifdef _SC_LEVEL2_CACHE_SIZE
  const long bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (bytes > 0) return static_cast<size_t>(bytes);
#endif
  return 0;
}

// `--target native`: the host's table row, its tiles sized for the host's L2 (kept from the row
// when the host does not tell it, or tells less than 64 KiB: no desktop core has so little).
const Target* native_target() {
  static const Target native = [] {
    const std::string_view name = native_target_name();
    Target t = *std::find_if(all_targets().begin(), all_targets().end(),
                             [&](const Target& row) { return row.name == name; });
    const size_t l2 = host_l2_bytes();
    if (l2 >= 65536) t.cache_bytes = l2;
    return t;
  }();
  return &native;
}

}  // namespace

const Target* find_target(std::string_view name) {
  if (name == "native") return native_target();
  for (const Target& t : all_targets())
    if (t.name == name) return &t;
  return nullptr;
}

bool host_can_run(const Target& t) {
  if (t.name == "generic") return true;
  const Target* host = find_target("native");
  if (t.name.substr(0, 6) == "x86-64" && host->name.substr(0, 6) == "x86-64")
    return t.name <= host->name;  // v2 < v3 < v4, and the host runs every level below its own
  return t.name == host->name;
}

const Target& default_target() {
  return all_targets().front();
}

namespace {

// `t` with max_scratch and threads replaced; one copy per distinct triple, for the process.
const Target* target_copy(const Target& t, size_t max_scratch, int threads) {
  if (t.max_scratch == max_scratch && t.threads == threads) return &t;
  static std::mutex mutex;
  static std::deque<Target> copies;  // a deque: pointers to earlier copies stay valid
  const std::lock_guard<std::mutex> lock(mutex);
  for (const Target& c : copies)
    if (c.name == t.name && c.cache_bytes == t.cache_bytes && c.max_scratch == max_scratch &&
        c.threads == threads)
      return &c;
  copies.push_back(t);
  copies.back().max_scratch = max_scratch;
  copies.back().threads = threads;
  return &copies.back();
}

}  // namespace

const Target* with_max_scratch(const Target& t, size_t bytes) {
  return bytes ? target_copy(t, bytes, t.threads) : &t;
}

const Target* with_threads(const Target& t, int threads) {
  return target_copy(t, t.max_scratch, threads);
}

std::string_view isa_name(Isa isa) {
  switch (isa) {
#define ONNXC_ISA_NAME(name) \
  case Isa::name:            \
    return #name;
    ONNXC_ISAS(ONNXC_ISA_NAME)
#undef ONNXC_ISA_NAME
  }
  return "scalar";
}

std::string target_names() {
  std::string out;
  for (const Target& t : all_targets()) {
    if (!out.empty()) out += ", ";
    out += t.name;
  }
  return out + ", native";
}

}  // namespace onnxc
