#include "driver/profile_picture.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/svg.h"
#include "driver/node_flops.h"

namespace onnxc {
namespace {

constexpr size_t kMaxBars = 40;
constexpr double kLabelW = 330, kBarW = 420, kStatW = 150, kPeakW = 160, kRowH = 18, kTop = 50;

}  // namespace

std::string layer_profile_svg(const Graph& g, const std::string& title,
                              const std::vector<std::pair<size_t, double>>& node_ns,
                              double peak_gflops) {
  std::vector<std::pair<size_t, double>> rows = node_ns;
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  double total = 0;
  for (const auto& r : rows) total += r.second;
  const size_t shown = std::min(rows.size(), kMaxBars);
  const double width = kLabelW + kBarW + kStatW + (peak_gflops > 0 ? kPeakW : 0) + 20;
  SvgWriter svg(width, kTop + kRowH * static_cast<double>(shown) + 30);
  svg.text(
      10, 20,
      fmt::format("{}: {:.3f} ms per inference over {} timed nodes{}", title, total / 1e6,
                  rows.size(), shown < rows.size() ? fmt::format(" ({} heaviest)", shown) : ""),
      "start", 13);
  svg.text(kLabelW + 4, 40, "share of the inference time");
  svg.text(kLabelW + kBarW + 8, 40, "ms, GFLOP/s");
  if (peak_gflops > 0)
    svg.text(kLabelW + kBarW + kStatW + 4, 40,
             fmt::format("% of {:.0f} GFLOP/s peak", peak_gflops));
  const double heaviest = rows.empty() || rows[0].second <= 0 ? 1 : rows[0].second;
  for (size_t i = 0; i < shown; ++i) {
    const auto& [index, ns] = rows[i];
    const Node& n = *g.nodes[index];
    const double y = kTop + kRowH * static_cast<double>(i);
    const double flops = static_cast<double>(node_flops(n));
    const double gflops = ns > 0 ? flops / ns : 0;
    const std::string label = fmt::format("{}. {} {}", i + 1, n.op_type, n.name);
    svg.text(kLabelW - 6, y + 12, label.size() > 52 ? label.substr(0, 49) + "..." : label, "end");
    svg.rect(kLabelW, y + 2, kBarW * ns / heaviest, kRowH - 4, "#4e79a7",
             fmt::format("{} ({}): {:.4f} ms, {:.1f}% of the inference, {:.2f} GFLOP/s", n.name,
                         n.op_type, ns / 1e6, total > 0 ? 100 * ns / total : 0, gflops));
    svg.text(kLabelW + kBarW + 8, y + 12, fmt::format("{:.4f}  {:.1f}", ns / 1e6, gflops));
    if (peak_gflops > 0) {
      const double share = std::min(1.0, gflops / peak_gflops);
      const double x = kLabelW + kBarW + kStatW;
      svg.rect(x, y + 4, (kPeakW - 40) * share, kRowH - 8, share >= 0.5 ? "#59a14f" : "#e15759",
               fmt::format("{}: {:.0f}% of peak", n.name, 100 * share));
      svg.text(x + (kPeakW - 40) * share + 4, y + 12, fmt::format("{:.0f}%", 100 * share));
    }
  }
  return svg.str();
}

}  // namespace onnxc
