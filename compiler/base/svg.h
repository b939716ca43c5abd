// A few lines of SVG for onnxc's pictures (issue 38): the memory plan, the per-layer profile.
// Self-contained output: no script, no external font or stylesheet, text escaped for XML.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "base/utf8.h"

namespace onnxc {

// `text` with &, <, >, " and ' as XML entities, and control bytes and bytes that are not
// well-formed UTF-8 as '?' (model names are any bytes; XML 1.0 allows neither).
inline std::string xml_escape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    uint32_t cp = 0;
    if (static_cast<unsigned char>(c) >= 0x80) {
      const size_t len = decode_utf8(text, i, &cp);
      out += len ? std::string(text.substr(i, len)) : "?";
      i += len ? len - 1 : 0;
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += static_cast<unsigned char>(c) < 0x20 && c != '\n' ? '?' : c;
    }
  }
  return out;
}

// An SVG document built element by element; str() closes it.
class SvgWriter {
 public:
  SvgWriter(double width, double height) : width_(width), height_(height) {}

  // A filled box; `tooltip`, when given, shows on hover (an SVG <title>).
  void rect(double x, double y, double w, double h, std::string_view fill,
            std::string_view tooltip = {}) {
    body_ += fmt::format(
        R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" stroke="white" )"
        R"(stroke-width="0.5")",
        x, y, w, h, fill);
    body_ +=
        tooltip.empty() ? "/>\n" : fmt::format("><title>{}</title></rect>\n", xml_escape(tooltip));
  }
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, bool dashed) {
    body_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}"{}/>)"
                         "\n",
                         x1, y1, x2, y2, stroke, dashed ? R"( stroke-dasharray="4 3")" : "");
  }
  // Text at (x, y); `anchor`: start, middle or end.
  void text(double x, double y, std::string_view s, std::string_view anchor = "start",
            int size = 11) {
    body_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="{}" text-anchor="{}">{}</text>)"
                         "\n",
                         x, y, size, anchor, xml_escape(s));
  }
  std::string str() const {
    return fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
        "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"sans-serif\">\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{2}</svg>\n",
        width_, height_, body_);
  }

 private:
  double width_, height_;
  std::string body_;
};

}  // namespace onnxc
