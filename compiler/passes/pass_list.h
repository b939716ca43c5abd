// The one list of passes, in pipeline order. X(factory) names the function, defined in the
// pass's own file, that makes it. `onnxc --list-passes` prints this list with each pass's
// description; --disable-pass, --print-after and --stats refer to passes by their name().
#pragma once

#define ONNXC_PASS_LIST(X)     \
  X(make_lower_gradients_pass) \
  X(make_bind_handlers_pass)   \
  X(make_infer_shapes_pass)    \
  X(make_inline_if_pass)       \
  X(make_lower_qdq_pass)       \
  X(make_fold_constants_pass)  \
  X(make_fuse_matmul_add_pass) \
  X(make_fold_batchnorm_pass)  \
  X(make_fuse_swish_pass)      \
  X(make_scale_filters_pass)   \
  X(make_fuse_epilogue_pass)   \
  X(make_matmul_as_gemm_pass)  \
  X(make_dead_code_pass)       \
  X(make_select_kernels_pass)  \
  X(make_pack_weights_pass)    \
  X(make_assign_storage_pass)  \
  X(make_plan_memory_pass)
