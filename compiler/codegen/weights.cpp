#include "codegen/weights.h"

#include <algorithm>
#include <iterator>

namespace onnxc {

WeightBlob layout_weights(const Graph& graph, const std::vector<const Value*>& used,
                          bool with_header) {
  WeightBlob blob;
  if (with_header) {
    blob.bytes.assign(kWeightsHeaderBytes, 0);
    std::copy(std::begin(kWeightsMagic), std::end(kWeightsMagic), blob.bytes.begin());
    const uint8_t little_endian_mark[4] = {0x04, 0x03, 0x02, 0x01};  // 0x01020304
    std::copy(std::begin(little_endian_mark), std::end(little_endian_mark),
              blob.bytes.begin() + sizeof kWeightsMagic);
  }
  for (const Value* v : all_values(graph)) {  // control-flow subgraphs' constants too
    if (!v->is_constant() || std::find(used.begin(), used.end(), v) == used.end()) continue;
    blob.bytes.resize((blob.bytes.size() + 63) / 64 * 64, 0);
    blob.offsets[v] = blob.bytes.size();
    if (v->dtype == DataType::kString) {  // NUL-padded slots (runtime/onnxc/strings.h)
      const size_t slot = static_cast<size_t>(v->string_slot()), at = blob.bytes.size();
      blob.bytes.resize(at + v->bytes(), 0);
      for (size_t i = 0; i < v->constant->strings.size(); ++i)
        std::copy(v->constant->strings[i].begin(), v->constant->strings[i].end(),
                  blob.bytes.begin() + static_cast<std::ptrdiff_t>(at + i * slot));
      continue;
    }
    blob.bytes.insert(blob.bytes.end(), v->constant->data.begin(), v->constant->data.end());
  }
  return blob;
}

void append_string_literal(std::string& out, const std::vector<uint8_t>& bytes) {
  constexpr size_t kLineBytes = 8192;  // source bytes of escaped text per line, roughly
  out.reserve(out.size() + bytes.size() * 3);
  size_t col = 0;
  out += "    \"";
  for (uint8_t b : bytes) {
    if (col >= kLineBytes) {
      out += "\"\n    \"";
      col = 0;
    }
    // Printable ASCII goes as-is except the characters a literal must escape and '?' (trigraphs).
    // Escapes are always three octal digits, so a following digit cannot extend them.
    if (b >= 0x20 && b < 0x7f && b != '"' && b != '\\' && b != '?') {
      out += static_cast<char>(b);
      col += 1;
    } else {
      out += '\\';
      out += static_cast<char>('0' + ((b >> 6) & 7));
      out += static_cast<char>('0' + ((b >> 3) & 7));
      out += static_cast<char>('0' + (b & 7));
      col += 4;
    }
  }
  out += "\"";
}

}  // namespace onnxc
