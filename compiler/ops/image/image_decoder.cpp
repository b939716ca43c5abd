// ImageDecoder (20): decodes an encoded image (a 1-D uint8 tensor holding a BMP, PNM, PNG, TIFF,
// JPEG or WebP file) into height x width x C uint8 pixels. The image's size is only known once
// the bytes arrive, so the output's static shape comes from the model's declaration of it (the
// graph output's declared type); an image of another size is a run-time error
// (onnxc::kErrorImageSize), as is one that does not decode (onnxc::kErrorImageFormat). A constant
// input is decoded here, and a failure is a compile-time error. The decoders are in
// runtime/onnxc/image_decoder.h and the headers it includes.
#include "onnxc/image_decoder.h"

#include <vector>

#include "ops/op.h"
#include "ops/registry.h"

namespace onnxc {
namespace {

struct ImageDecoderState : OpState {
  ImagePixelFormat format = ImagePixelFormat::kRgb;
  int64_t height = 0, width = 0;
};

const char* const kPixelFormatNames[] = {"RGB", "BGR", "Grayscale"};
const char* const kPixelFormatEnums[] = {"kRgb", "kBgr", "kGrayscale"};

// The shape the model declares for output 0, when that output is a graph output with a shape.
const Graph::DeclaredType* declared_output_type(const InferContext& ctx) {
  const Graph* g = ctx.graph();
  const Value* out = ctx.node().output(0);
  if (!g || !out) return nullptr;
  for (size_t i = 0; i < g->outputs.size() && i < g->declared_outputs.size(); ++i)
    if (g->outputs[i] == out && g->declared_outputs[i].has_shape) return &g->declared_outputs[i];
  return nullptr;
}

class ImageDecoderOp final : public OpHandler {
 public:
  bool infer(InferContext& ctx) const override {
    if (!ctx.check_arity(1, 1, 1, 1) || !ctx.check_dtype(0, {DataType::kUint8})) return false;
    const Value* encoded = ctx.input(0);
    if (encoded->shape.size() != 1)
      return ctx.fail("encoded_stream must be 1-D, got rank {}", encoded->shape.size());
    auto& s = ctx.make_state<ImageDecoderState>();
    const std::string format = ctx.attr_string("pixel_format", "RGB");
    int f = 0;
    while (f < 3 && format != kPixelFormatNames[f]) ++f;
    if (f == 3) return ctx.fail("pixel_format '{}' is not RGB, BGR or Grayscale", format);
    s.format = static_cast<ImagePixelFormat>(f);
    const int64_t channels = s.format == ImagePixelFormat::kGrayscale ? 1 : 3;
    const Graph::DeclaredType* declared = declared_output_type(ctx);
    if (!declared || declared->dims.size() != 3 || declared->dims[0] <= 0 || declared->dims[1] <= 0)
      return ctx.fail(
          "the decoded image's size is only known at run time: declare the output's shape in the "
          "model as [height, width, {}] with static height and width",
          channels);
    if (declared->dims[2] >= 0 && declared->dims[2] != channels)
      return ctx.fail("the output is declared with {} channels, pixel_format {} gives {}",
                      declared->dims[2], format, channels);
    s.height = declared->dims[0];
    s.width = declared->dims[1];
    if (!ctx.set_output(0, DataType::kUint8, {s.height, s.width, channels})) return false;
    ctx.request_scratch(
        static_cast<size_t>(image_decoder_scratch_bytes(s.height, s.width, s.format)));
    if (const Tensor* constant = ctx.constant_input(0)) {
      std::vector<uint8_t> image(static_cast<size_t>(s.height * s.width * channels));
      const int status = decode(ctx.node(), *constant, image.data());
      if (status == kErrorImageSize)
        return ctx.fail("the constant image is not {}x{}", s.height, s.width);
      if (status != 0)
        return ctx.fail("the constant image is not a well-formed image of a supported format");
    }
    return true;
  }

  bool evaluate(const Node& n, const std::vector<const Tensor*>& in,
                std::vector<Tensor>& out) const override {
    return decode(n, *in[0], out[0].as<uint8_t>()) == 0;
  }

  void emit(EmitContext& ctx) const override {
    const auto& s = ctx.node().state_as<ImageDecoderState>();
    ctx.include("onnxc/image_decoder.h");
    ctx.line(
        "const int status = onnxc::image_decoder_ref({}, /*size=*/{}, /*height=*/{}, /*width=*/{}, "
        "onnxc::ImagePixelFormat::{}, {}, {});",
        ctx.in(0), ctx.input(0)->numel(), s.height, s.width,
        kPixelFormatEnums[static_cast<int>(s.format)], ctx.out(0), ctx.scratch());
    ctx.line("if (status != 0) return status;  // onnxc::kErrorImageFormat or kErrorImageSize");
  }

 private:
  static int decode(const Node& n, const Tensor& encoded, uint8_t* image) {
    const auto& s = n.state_as<ImageDecoderState>();
    std::vector<unsigned char> scratch(
        static_cast<size_t>(image_decoder_scratch_bytes(s.height, s.width, s.format)));
    return image_decoder_ref(encoded.as<unsigned char>(), static_cast<index_t>(encoded.numel()),
                             s.height, s.width, s.format, image, scratch.data());
  }
};

const ImageDecoderOp kImageDecoder;

}  // namespace

std::vector<OpRegistration> image_decoder_ops() {
  return {{"", "ImageDecoder", 20, kMaxOpset, &kImageDecoder}};
}

}  // namespace onnxc
