// The one list of passes, in pipeline order: each row is the whole declaration of a pass.
//
//   X(name, entry, kind, stage, description)
//
//   name         what --disable-pass, --print-after and --stats call it
//   entry        bool run_<entry>(Module&, PassContext&), defined in passes/<entry>.cpp: returns
//                whether the graph (or its plan) changed; errors go to ctx.diag()
//   kind         kRequired (later stages need what it does: handlers, shapes, the layout the chosen
//                kernels read, the memory plan) or kOptional (--disable-pass may skip it)
//   stage        how far lowering has come once it ran (ir/verify.h): what --verify-each checks
//   description  one line, printed by `onnxc --list-passes`
//
// infer-shapes also rewrites the graph where a node's type needs it: it dissolves sequences and
// optionals into the tensors they hold, splicing the taken branch of an If and unrolling a Loop
// that carries or builds them (ops/containers.h, ops/control/unroll.cpp), because those rewrites
// need the shapes inferred up to that node.
#pragma once

#define ONNXC_PASS_LIST(X)                                                                   \
  X("lower-gradients", lower_gradients, kRequired, kImported,                                \
    "replaces Gradient nodes by their symbolic derivative")                                  \
  X("bind-handlers", bind_handlers, kRequired, kHandlersBound,                               \
    "binds each node to its op handler; lists every unsupported op")                         \
  X("infer-shapes", infer_shapes, kRequired, kShapesInferred,                                \
    "types and static shapes for every value; folds only what later shapes need")            \
  X("inline-if", inline_if, kOptional, kShapesInferred,                                      \
    "splices the taken branch of an If with a compile-time constant condition")              \
  X("lower-qdq", lower_qdq, kOptional, kShapesInferred,                                      \
    "DequantizeLinear -> Conv/MatMul/Gemm [-> bias] [-> Relu] / GlobalAveragePool / "        \
    "AveragePool / Add / Mul -> QuantizeLinear as QLinearConv/QLinearMatMul/"                \
    "QLinearGlobalAveragePool/QLinearAveragePool/QLinearAdd/QLinearMul in integers; DQ -> "  \
    "unary op (Sigmoid, Tanh, ...) -> Q as a 256-entry QLinearLookup table; Concat/MaxPool/" \
    "reshapes between equal scales on the 8-bit tensors, a Concat of other scales as "       \
    "QLinearConcat; DQ -> Softmax -> Q as QLinearSoftmax; DQs -> Where -> Q on the 8-bit "   \
    "tensors")                                                                               \
  X("fold-constants", fold_constants, kOptional, kShapesInferred,                            \
    "evaluates nodes whose inputs are all constant at compile time")                         \
  X("fuse-matmul-add", fuse_matmul_add, kOptional, kShapesInferred,                          \
    "MatMul+Add(bias row) -> Gemm or biased MatMul; Transposes -> transA/transB")            \
  X("fold-batchnorm", fold_batchnorm, kOptional, kShapesInferred,                            \
    "folds BatchNormalization and per-channel Mul/Add into Conv/Gemm/MatMul weights")        \
  X("fuse-swish", fuse_swish, kOptional, kShapesInferred,                                    \
    "x * Sigmoid(x) -> Swish(x) (SiLU); x * HardSigmoid(x) -> HardSwish(x)")                 \
  X("scale-filters", scale_filters, kOptional, kShapesInferred,                              \
    "Conv(x * s[1,C,1,1], W) -> Conv(x, W * s) where W is the smaller")                      \
  X("fuse-epilogue", fuse_epilogue, kOptional, kShapesInferred,                              \
    "bias, residual Add and activation into Conv/Gemm/MatMul epilogues")                     \
  X("matmul-as-gemm", matmul_as_gemm, kOptional, kShapesInferred,                            \
    "MatMul by a constant 2-D B -> Gemm over A's rows (views around it)")                    \
  X("dead-code", dead_code, kRequired, kShapesInferred,                                      \
    "removes folded nodes and nodes no graph output depends on")                             \
  X("select-kernels", select_kernels, kOptional, kShapesInferred,                            \
    "picks each node's kernel variant (onnxc/variants.h) for the target's ISA")              \
  X("patch-rows", patch_rows, kOptional, kShapesInferred,                                    \
    "under --max-arena, runs a CNN's first stages in bands of rows (RowPipeline), keeping "  \
    "each stage's input rows in a window instead of whole tensors")                          \
  X("pack-weights", pack_weights, kRequired, kShapesInferred,                                \
    "stores constant inputs in the layout of the kernel variant that reads them")            \
  X("assign-storage", assign_storage, kOptional, kShapesInferred,                            \
    "views (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Slice), in-place elementwise "   \
    "ops, Concat inputs written into place")                                                 \
  X("plan-memory", plan_memory, kRequired, kMemoryPlanned,                                   \
    "arena offsets for every intermediate value and kernel scratch")
