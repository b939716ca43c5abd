// The microcontroller's way to hold external weights: the assembler copies the .bin onnxc wrote
// (MLP_WEIGHTS_FILE) into a read-only section, which the linker script places in flash with the
// rest of .rodata. No file system, no copy into RAM. MLP_WEIGHTS_FILE is a string literal (a
// compile definition), pasted into the directive.
#include "mlp.h"

__asm__(
    ".section .rodata.mlp_weights,\"a\"\n"
    ".balign 64\n"
    "mlp_weights_blob:\n"
    ".incbin \"" MLP_WEIGHTS_FILE
    "\"\n"
    "mlp_weights_blob_end:\n"
    ".global mlp_weights_blob\n"
    ".global mlp_weights_blob_end\n"
    ".previous\n");

extern "C" const unsigned char mlp_weights_blob[];
extern "C" const unsigned char mlp_weights_blob_end[];

const void* mlp_weights() {
  const bool complete =
      static_cast<std::size_t>(mlp_weights_blob_end - mlp_weights_blob) == mlp::kWeightsSize;
  return complete ? mlp_weights_blob : nullptr;
}
