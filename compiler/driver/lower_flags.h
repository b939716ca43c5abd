// Flags -> ImportOptions -> lowered module, shared by compile, inspect and bench.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "driver/commands.h"
#include "ir/ir.h"
#include "support/diagnostics.h"

namespace onnxc {

// What compile, inspect and bench pass to lower_with_flags besides the dims and shapes.
struct LowerLimits {
  bool override_shape = false;
  size_t max_errors = kDefaultMaxErrors;
  int64_t max_bytes = kMaxTensorBytes;
  size_t max_scratch = 0;  // 0: the target's budget
  int threads = 1;
  bool check_bounds = false;
  std::vector<std::string> max_string_lengths;  // --max-string-length NAME=N
  std::vector<std::string> max_trip_counts;     // --max-trip-count NODE=N
  bool keep_sparse = false;                     // --keep-sparse
  int64_t default_dim = -1;  // every symbolic dim left unpinned (-1: none, an error)
};

// Parses the flags and runs the pipeline. Prints the --stats table after the passes ran, and
// every error (then null, with *exit_code set: 2 for a usage error, 1 for the model's).
std::unique_ptr<Module> lower_with_flags(const std::string& model,
                                         const std::vector<std::string>& dims,
                                         const std::vector<std::string>& shapes, int* exit_code,
                                         const PassFlags& flags, const std::string& target,
                                         const LowerLimits& limits);

void print_errors(const Diagnostics& diag);

}  // namespace onnxc
