// The lowering flags (LoweringFlags, driver/commands.h): registered once for every subcommand
// that lowers a model, and turned into ImportOptions and a lowered module.
#pragma once

#include <memory>
#include <string>

#include "base/diagnostics.h"
#include "driver/commands.h"
#include "ir/ir.h"

namespace CLI {
class App;
}

namespace onnxc {

// Which lowering flags a subcommand takes: a model's (compile, inspect, bench: all of them), or a
// suite's (`onnxc test`: not the per-model dims, shapes and string lengths, which come from each
// case's data, nor the IR dumps).
enum class LoweringScope { kModel, kSuite };

// Registers the lowering flags of `scope` on `app`, writing into `flags`.
void add_lowering_flags(CLI::App& app, LoweringFlags& flags, LoweringScope scope);

// What a subcommand adds to the flags: --check-bounds, the value of dims nobody pinned (inspect),
// and whether the target must run on this machine (test, bench).
struct LowerExtras {
  bool check_bounds = false;
  int64_t default_dim = -1;  // every symbolic dim left unpinned (-1: none, an error)
  bool runnable = false;
};

// Parses the flags and runs the pipeline. Prints the --stats table after the passes ran, and
// every error (then null, with *exit_code set: 2 for a usage error, 1 for the model's).
std::unique_ptr<Module> lower_with_flags(const std::string& model, const LoweringFlags& flags,
                                         const LowerExtras& extras, int* exit_code);

void print_errors(const Diagnostics& diag);

}  // namespace onnxc
