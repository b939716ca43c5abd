// The op families, one row each: X(family) names `std::vector<OpRegistration> family_ops()`,
// defined in compiler/ops/<domain>/<family>.cpp, where the domain folder is one of nn, tensor,
// quant, control, ml, text, image, signal and training (ops/ itself holds the handler interface
// and what the families share). The registry declares and collects every family from this list:
// a new family is one line here (CTest op_families checks that rows and files pair up).
#pragma once

#define ONNXC_OP_FAMILIES(X) \
  X(elementwise)             \
  X(cast)                    \
  X(constant)                \
  X(conv)                    \
  X(pool)                    \
  X(matmul)                  \
  X(normalization)           \
  X(softmax)                 \
  X(reduce)                  \
  X(shape)                   \
  X(data_movement)           \
  X(data_movement_blocks)    \
  X(data_movement_gather)    \
  X(data_movement_fill)      \
  X(attention)               \
  X(rotary)                  \
  X(linear_attention)        \
  X(flex_attention)          \
  X(scatter_gather)          \
  X(scan)                    \
  X(bitwise)                 \
  X(misc)                    \
  X(resize)                  \
  X(image)                   \
  X(image_decoder)           \
  X(quantize)                \
  X(qlinear)                 \
  X(qpool)                   \
  X(qelementwise)            \
  X(qsoftmax)                \
  X(recurrent)               \
  X(signal)                  \
  X(einsum)                  \
  X(detection)               \
  X(random)                  \
  X(training)                \
  X(gradient)                \
  X(control_flow)            \
  X(row_pipeline)            \
  X(tfidf)                   \
  X(ml_tree)                 \
  X(ml_preprocess)           \
  X(ml_linear)               \
  X(ml_svm)                  \
  X(ml_encode)               \
  X(ml_map)                  \
  X(strings)                 \
  X(sequence)                \
  X(optional)
