// ImageDecoder's WebP and JPEG 2000 decoders, which call the system's libwebp and OpenJPEG
// (libopenjp2). They exist only when the generated code is built with -DONNXC_IMAGE_LIBS and
// linked with both libraries (pkg-config libwebp libopenjp2; onnxc_add_model's IMAGE_LIBS option
// does both); without that macro a WebP or JPEG 2000 image is refused with kErrorImageFormat and
// the model needs no library at all. Unlike the rest of the runtime, these two libraries allocate
// on the heap while they decode, and they are not meant for microcontrollers.
//
// The pixels match Pillow's, which calls the same libraries: WebP through WebPDecode with its
// default fancy upsampling; JPEG 2000 components of any precision scaled to 8 bits by shifting
// (signed ones offset by half their range first), one component (grey) repeated into R, G and B,
// alpha dropped. Subsampled components and the sYCC colour space are refused.
#ifndef ONNXC_IMAGE_SYSTEM_H
#define ONNXC_IMAGE_SYSTEM_H

#include <cstring>

#if defined(ONNXC_IMAGE_LIBS)

#include <openjpeg.h>
#include <webp/decode.h>

#include "onnxc/base.h"

namespace onnxc {

inline bool is_webp(const unsigned char* data, index_t size) {
  return size >= 12 && std::memcmp(data, "RIFF", 4) == 0 && std::memcmp(data + 8, "WEBP", 4) == 0;
}

// A JP2 file (its signature box) or a raw JPEG 2000 codestream (SOC then SIZ).
inline bool is_jpeg2000(const unsigned char* data, index_t size, bool* raw_codestream) {
  static const unsigned char jp2[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
  *raw_codestream =
      size >= 4 && data[0] == 0xFF && data[1] == 0x4F && data[2] == 0xFF && data[3] == 0x51;
  return *raw_codestream || (size >= 12 && std::memcmp(data, jp2, 12) == 0);
}

inline int decode_webp_libwebp(const unsigned char* data, index_t size, index_t height,
                               index_t width, unsigned char* rgb) {
  int w = 0, h = 0;
  if (!WebPGetInfo(data, static_cast<size_t>(size), &w, &h)) return kErrorImageFormat;
  if (w != width || h != height) return kErrorImageSize;
  const size_t bytes = static_cast<size_t>(3 * height * width);
  return WebPDecodeRGBInto(data, static_cast<size_t>(size), rgb, bytes, 3 * w) ? 0
                                                                               : kErrorImageFormat;
}

// ---- JPEG 2000: OpenJPEG reading from memory ---------------------------------------------------

struct Jpeg2000Source {
  const unsigned char* data;
  OPJ_SIZE_T size, pos;
};

inline OPJ_SIZE_T jpeg2000_read(void* buffer, OPJ_SIZE_T bytes, void* user) {
  auto* src = static_cast<Jpeg2000Source*>(user);
  if (src->pos >= src->size) return static_cast<OPJ_SIZE_T>(-1);
  const OPJ_SIZE_T n = bytes < src->size - src->pos ? bytes : src->size - src->pos;
  std::memcpy(buffer, src->data + src->pos, n);
  src->pos += n;
  return n;
}

inline OPJ_OFF_T jpeg2000_skip(OPJ_OFF_T bytes, void* user) {
  auto* src = static_cast<Jpeg2000Source*>(user);
  if (bytes < 0 || static_cast<OPJ_SIZE_T>(bytes) > src->size - src->pos) return -1;
  src->pos += static_cast<OPJ_SIZE_T>(bytes);
  return bytes;
}

inline OPJ_BOOL jpeg2000_seek(OPJ_OFF_T to, void* user) {
  auto* src = static_cast<Jpeg2000Source*>(user);
  if (to < 0 || static_cast<OPJ_SIZE_T>(to) > src->size) return OPJ_FALSE;
  src->pos = static_cast<OPJ_SIZE_T>(to);
  return OPJ_TRUE;
}

// One sample of component `c` as 8 bits, as Pillow scales it.
inline unsigned char jpeg2000_sample8(const opj_image_comp_t& c, index_t i) {
  long v = c.data[i];
  if (c.sgnd) v += 1L << (c.prec - 1);
  v = c.prec > 8 ? v >> (c.prec - 8) : v << (8 - c.prec);
  return static_cast<unsigned char>(v < 0 ? 0 : v > 255 ? 255 : v);
}

// Copies a decoded image into rgb; kErrorImageFormat for a layout Pillow would not give as RGB
// samples one to one.
inline int jpeg2000_to_rgb(const opj_image_t& image, index_t height, index_t width,
                           unsigned char* rgb) {
  const OPJ_UINT32 n = image.numcomps;
  if (n < 1 || n > 4 || image.color_space == OPJ_CLRSPC_SYCC ||
      image.color_space == OPJ_CLRSPC_CMYK || image.color_space == OPJ_CLRSPC_EYCC)
    return kErrorImageFormat;
  for (OPJ_UINT32 k = 0; k < n; ++k) {
    const opj_image_comp_t& c = image.comps[k];
    if (!c.data || c.dx != 1 || c.dy != 1 || c.prec < 1 || c.prec > 16) return kErrorImageFormat;
    if (c.w != static_cast<OPJ_UINT32>(width) || c.h != static_cast<OPJ_UINT32>(height))
      return kErrorImageSize;
  }
  const opj_image_comp_t* channel[3] = {&image.comps[0], &image.comps[0], &image.comps[0]};
  if (n >= 3)
    for (int k = 0; k < 3; ++k) channel[k] = &image.comps[k];
  for (index_t p = 0; p < height * width; ++p)
    for (int k = 0; k < 3; ++k) rgb[3 * p + k] = jpeg2000_sample8(*channel[k], p);
  return 0;
}

inline int decode_jpeg2000_openjpeg(const unsigned char* data, index_t size, bool raw_codestream,
                                    index_t height, index_t width, unsigned char* rgb) {
  Jpeg2000Source src{data, static_cast<OPJ_SIZE_T>(size), 0};
  opj_stream_t* stream = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
  opj_codec_t* codec = opj_create_decompress(raw_codestream ? OPJ_CODEC_J2K : OPJ_CODEC_JP2);
  opj_image_t* image = nullptr;
  int status = kErrorImageFormat;
  if (stream && codec) {
    opj_stream_set_user_data(stream, &src, nullptr);
    opj_stream_set_user_data_length(stream, static_cast<OPJ_UINT64>(size));
    opj_stream_set_read_function(stream, jpeg2000_read);
    opj_stream_set_skip_function(stream, jpeg2000_skip);
    opj_stream_set_seek_function(stream, jpeg2000_seek);
    opj_dparameters_t parameters;
    opj_set_default_decoder_parameters(&parameters);
    if (opj_setup_decoder(codec, &parameters) && opj_read_header(stream, codec, &image)) {
      // An image of another size is refused before its samples are allocated and decoded.
      if (image->x1 - image->x0 != static_cast<OPJ_UINT32>(width) ||
          image->y1 - image->y0 != static_cast<OPJ_UINT32>(height))
        status = kErrorImageSize;
      else if (opj_decode(codec, stream, image) && opj_end_decompress(codec, stream))
        status = jpeg2000_to_rgb(*image, height, width, rgb);
    }
  }
  if (image) opj_image_destroy(image);
  if (codec) opj_destroy_codec(codec);
  if (stream) opj_stream_destroy(stream);
  return status;
}

// Decodes a WebP or JPEG 2000 image into rgb; kErrorImageFormat for any other format.
inline int decode_image_rgb_system(const unsigned char* data, index_t size, index_t height,
                                   index_t width, unsigned char* rgb) {
  bool raw_codestream = false;
  if (is_webp(data, size)) return decode_webp_libwebp(data, size, height, width, rgb);
  if (is_jpeg2000(data, size, &raw_codestream))
    return decode_jpeg2000_openjpeg(data, size, raw_codestream, height, width, rgb);
  return kErrorImageFormat;
}

}  // namespace onnxc

#endif  // ONNXC_IMAGE_LIBS

#endif  // ONNXC_IMAGE_SYSTEM_H
