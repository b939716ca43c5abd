#include "driver/lower_flags.h"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "driver/pipeline.h"
#include "ir/target.h"

namespace onnxc {

void add_lowering_flags(CLI::App& app, LoweringFlags& f, LoweringScope scope) {
  const bool model = scope == LoweringScope::kModel;
  app.add_option("--target", f.target, "CPU the code is for: " + target_names());
  app.add_option(
      "--threads", f.threads,
      "Split the heavy kernels (convolutions, GEMMs, max pooling, recurrent steps) into N parts "
      "that run() hands to a thread pool (an onnxc::Parallel argument; "
      "onnxc/thread_pool.h has one); results are bit-identical for any pool");
  app.add_option("--max-scratch", f.max_scratch,
                 "Cap each kernel's scratch (tiles, packed panels) at BYTES of the arena "
                 "(default: sized for the target's cache)");
  app.add_option("--max-bytes", f.max_bytes,
                 "Largest tensor, arena or weights size in bytes (default 2^40 = 1 TiB); more is "
                 "refused")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-arena", f.max_arena,
                 "RAM budget in BYTES for the arena: the patch-rows pass runs the first stages "
                 "of a CNN in bands of rows to fit it, and a plan over it is refused")
      ->check(CLI::PositiveNumber);
  app.add_flag("--keep-sparse", f.keep_sparse,
               "Keep sparse initializers and constants in COO form (values and indices) where "
               "that takes at most half their dense bytes, expanding them in the arena at run "
               "time: less flash, more RAM");
  app.add_option("--max-trip-count", f.max_trip_counts,
                 "Most iterations Loop node NODE runs, sizing its scan outputs when its trip "
                 "count is known only at run time: NODE=N");
  app.add_option("--max-errors", f.max_errors,
                 "Print at most N errors, then how many more (0: all)");
  app.add_option("--disable-pass", f.passes.disable,
                 "Skip a pass of the pipeline (see --list-passes)");
  app.add_flag("--verify-each", f.passes.verify_each,
               "Check the IR's invariants after every pass (ir/verify.h); a broken one is an "
               "onnxc bug, reported naming the pass");
  if (!model) return;
  app.add_option("--dim", f.dims, "Pin a symbolic dim: NAME=VALUE");
  app.add_option("--shape", f.shapes, "Pin an input's shape: INPUT=1x3x224x224");
  app.add_flag("--override-shape", f.override_shape,
               "Let --shape change static dims and the rank (default: only pin symbolic dims)");
  app.add_option("--max-string-length", f.max_string_lengths,
                 "Most bytes one element of a string input holds: INPUT=N (default 64)");
  app.add_option("--print-after", f.passes.print_after,
                 "Print the IR after PASS, or after every pass: all");
  app.add_flag("--stats", f.passes.stats, "Print what each pass did");
}

void print_errors(const Diagnostics& diag) {
  std::fputs(diag.str().c_str(), stderr);
}

std::unique_ptr<Module> lower_with_flags(const std::string& model, const LoweringFlags& flags,
                                         const LowerExtras& extras, int* exit_code) {
  ImportOptions options;
  options.override_shape = flags.override_shape;
  options.max_bytes = flags.max_bytes;
  options.max_arena = flags.max_arena;
  options.check_bounds = extras.check_bounds;
  options.keep_sparse = flags.keep_sparse;
  options.default_dim = extras.default_dim;
  std::string error;
  PassOptions pass_options;
  pass_options.disabled.insert(flags.passes.disable.begin(), flags.passes.disable.end());
  pass_options.print_after = flags.passes.print_after;
  pass_options.stats = flags.passes.stats;
  pass_options.verify_each = flags.passes.verify_each;
  if (!parse_dim_flags(flags.dims, flags.shapes, options, &error) ||
      !parse_name_counts(flags.max_string_lengths, "--max-string-length", "INPUT",
                         options.max_string_lengths, &error) ||
      !parse_name_counts(flags.max_trip_counts, "--max-trip-count", "NODE", options.max_trip_counts,
                         &error) ||
      !parse_target_flag(flags.target, options, &error, extras.runnable) ||
      !parse_threads_flag(flags.threads, options, &error) ||
      !(error = check_pass_options(pass_options)).empty()) {
    std::fprintf(stderr, "onnxc: %s\n", error.c_str());
    *exit_code = kExitUsage;
    return nullptr;
  }
  options.target = with_max_scratch(*options.target, flags.max_scratch);
  Diagnostics diag("", flags.max_errors);
  PassManager passes(pass_options);
  auto module = lower_model(model, options, diag, &passes);
  if (flags.passes.stats) std::fputs(passes.stats_text().c_str(), stdout);
  if (!module) {
    print_errors(diag);
    *exit_code = kExitModelError;
  }
  return module;
}

}  // namespace onnxc
