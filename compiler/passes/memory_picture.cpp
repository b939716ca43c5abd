// `onnxc inspect --memory --svg FILE`: the arena plan as a picture (see memory_report.h). Steps
// (top-level nodes) run left to right, arena offsets bottom to top; each tensor that owns its
// bytes (not a view, an in-place write or a Concat slice of another) is one box, coloured by the
// op that writes it, with its name, size, offset and steps in a tooltip. Lines mark the arena's
// size and the live-bytes lower bound; a vertical line marks the step where the most bytes are
// live (the peak). Kernel scratch is drawn grey at its node's step.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "base/svg.h"
#include "passes/memory_report.h"

namespace onnxc {
namespace {

constexpr double kLeft = 90, kRight = 20, kTop = 40, kBottom = 62, kPlotW = 900, kPlotH = 420;

// A fill per op type drawn: the palette in the (sorted) order of the op names, so that the
// ops of one picture never share a colour until there are more than ten.
std::map<std::string, std::string> op_colours(const Graph& g, const std::vector<TensorRow>& rows) {
  static const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                         "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#17becf"};
  std::map<std::string, std::string> colours;
  for (const TensorRow& r : rows)
    if (r.span.def < int(g.nodes.size())) colours[g.nodes[r.span.def]->op_type];
  size_t i = 0;
  for (auto& [op, colour] : colours)
    colour = kPalette[i++ % (sizeof kPalette / sizeof kPalette[0])];
  colours["scratch"] = "#bbbbbb";
  return colours;
}

}  // namespace

std::string memory_plan_svg(const Module& m) {
  const Graph& g = *m.graph;
  std::vector<TensorRow> rows;
  for (const TensorRow& r : tensor_rows(m))
    if (r.offset >= 0 && r.v->storage.kind == Storage::Kind::kArena && r.span.def >= 0)
      rows.push_back(r);
  const double steps = std::max<double>(1, static_cast<double>(g.nodes.size()));
  const double arena = std::max<double>(1, static_cast<double>(m.memory.arena_bytes));
  const double bound = static_cast<double>(m.memory.live_bytes_lower_bound);
  auto x = [&](double step) { return kLeft + kPlotW * step / steps; };
  auto y = [&](double offset) { return kTop + kPlotH * (1 - offset / arena); };
  SvgWriter svg(kLeft + kPlotW + kRight, kTop + kPlotH + kBottom);
  svg.text(kLeft, 20,
           fmt::format("{}: arena {} bytes, live-bytes lower bound {}, {} buffers over {} steps",
                       m.source_path, m.memory.arena_bytes, m.memory.live_bytes_lower_bound,
                       rows.size(), g.nodes.size()),
           "start", 13);
  std::map<std::string, std::string> colours = op_colours(g, rows);
  // Live bytes per step: the peak step is marked.
  std::vector<double> live(g.nodes.size() + 1, 0);
  for (const TensorRow& r : rows)
    for (int s = r.span.def; s <= std::max(r.span.def, r.span.last) && s < int(live.size()); ++s)
      live[s] += static_cast<double>(r.v->bytes());
  const size_t peak = std::max_element(live.begin(), live.end()) - live.begin();
  for (const TensorRow& r : rows) {
    const int last = std::max(r.span.def, r.span.last);
    const Node* writer = r.span.def < int(g.nodes.size()) ? g.nodes[r.span.def].get() : nullptr;
    const double bytes = static_cast<double>(r.v->bytes());
    svg.rect(
        x(r.span.def), y(static_cast<double>(r.offset) + bytes), x(last + 1) - x(r.span.def),
        std::max(0.5, y(static_cast<double>(r.offset)) - y(static_cast<double>(r.offset) + bytes)),
        writer ? colours[writer->op_type] : std::string("#bbbbbb"),
        fmt::format("{} ({}): {} bytes at offset {}, steps {}-{}", r.v->name,
                    writer ? writer->op_type : "?", r.v->bytes(), r.offset, r.span.def, last));
  }
  // Each kernel's scratch, live during its node only.
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = *g.nodes[i];
    if (!n.scratch_bytes) continue;
    const double at = static_cast<double>(n.scratch_offset),
                 bytes = static_cast<double>(n.scratch_bytes);
    svg.rect(x(i), y(at + bytes), x(i + 1) - x(i), std::max(0.5, y(at) - y(at + bytes)), "#bbbbbb",
             fmt::format("scratch of {} ({}): {} bytes at offset {}, step {}", n.name, n.op_type,
                         n.scratch_bytes, n.scratch_offset, i));
  }
  svg.line(kLeft, y(arena), kLeft + kPlotW, y(arena), "#333333", false);
  svg.text(kLeft + kPlotW, y(arena) - 4, fmt::format("arena {} bytes", m.memory.arena_bytes),
           "end");
  svg.line(kLeft, y(bound), kLeft + kPlotW, y(bound), "#d62728", true);
  svg.text(kLeft + 4, y(bound) - 4,
           fmt::format("live-bytes lower bound {}", m.memory.live_bytes_lower_bound));
  svg.line(x(peak + 0.5), kTop, x(peak + 0.5), kTop + kPlotH, "#d62728", true);
  svg.text(x(peak + 0.5), kTop + kPlotH + 14,
           fmt::format("peak at step {} ({:.0f} bytes live)", peak, live[peak]), "middle");
  // Legend: the colour of each op whose outputs are drawn, and of scratch.
  double lx = kLeft;
  for (const auto& [op, colour] : colours) {
    svg.rect(lx, kTop + kPlotH + 42, 10, 10, colour);
    svg.text(lx + 14, kTop + kPlotH + 51, op);
    lx += 24 + 7.0 * static_cast<double>(op.size());
  }
  // Axes.
  svg.line(kLeft, kTop + kPlotH, kLeft + kPlotW, kTop + kPlotH, "#333333", false);
  svg.line(kLeft, kTop, kLeft, kTop + kPlotH, "#333333", false);
  svg.text(kLeft + kPlotW / 2, kTop + kPlotH + 30, "step (node, in execution order)", "middle");
  svg.text(kLeft - 6, kTop + kPlotH, "0", "end");
  svg.text(kLeft - 6, y(arena) + 4, fmt::format("{}", m.memory.arena_bytes), "end");
  svg.text(kLeft - 6, kTop + kPlotH / 2, "offset", "end");
  return svg.str();
}

}  // namespace onnxc
