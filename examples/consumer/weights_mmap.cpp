// The host's way to load external weights: memory-map the .bin onnxc wrote (POSIX mmap). The
// mapping is page-aligned, so it meets run()'s 64-byte alignment, and the pages are shared with
// the page cache: nothing is copied. The path comes from the build (MLP_WEIGHTS_FILE) and may be
// overridden with the environment variable MLP_WEIGHTS.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "mlp.h"

const void* mlp_weights() {
  const char* path = std::getenv("MLP_WEIGHTS");
  if (path == nullptr) path = MLP_WEIGHTS_FILE;
  const int fd = open(path, O_RDONLY);
  if (fd < 0) {
    std::perror(path);
    return nullptr;
  }
  struct stat st {};
  void* map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && static_cast<std::size_t>(st.st_size) == mlp::kWeightsSize) {
    map = mmap(nullptr, mlp::kWeightsSize, PROT_READ, MAP_PRIVATE, fd, 0);
  } else {
    std::fprintf(stderr, "%s: expected %zu bytes of weights\n", path, mlp::kWeightsSize);
  }
  close(fd);  // the mapping stays valid
  return map == MAP_FAILED ? nullptr : map;
}
