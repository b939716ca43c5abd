// Elementwise kernels, all families: onnxc/unary.h (the shared element load/store, unary ops,
// Clip), onnxc/binary.h (broadcasting binary ops, Where) and onnxc/dropout.h. Generated code
// includes the one it needs; this header is for code that wants them all.
#ifndef ONNXC_ELEMENTWISE_H
#define ONNXC_ELEMENTWISE_H

#include "onnxc/binary.h"
#include "onnxc/dropout.h"
#include "onnxc/unary.h"

#endif  // ONNXC_ELEMENTWISE_H
