#!/usr/bin/python3
"""Draws bench/run's comparison with ONNX Runtime (its results.csv) as a self-contained SVG
(issue 38): per model and thread count, one bar of onnxc's median time over ORT's, left of the
1.0 line where onnxc is faster; each bar's tooltip and label give both medians.

Usage: plot_results.py RESULTS.csv OUT.svg [--title TEXT]
"""
import argparse
import csv
import math
from xml.sax.saxutils import escape

LABEL_W, PLOT_W, ROW_H, TOP, RIGHT = 200, 520, 18, 60, 190
COLOURS = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1"]  # per thread count


def rows_of(path):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r.get("ratio_median")]


def svg(rows, title):
    threads = sorted({int(r["threads"]) for r in rows})
    models = list(dict.fromkeys(r["model"] for r in rows))
    ratios = [float(r["ratio_median"]) for r in rows]
    top = max(2.0, max(ratios) * 1.1)
    x = lambda v: LABEL_W + PLOT_W * v / top  # noqa: E731
    height = TOP + ROW_H * len(rows) + 8 * len(models) + 50
    out = [f'<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{LABEL_W + PLOT_W + RIGHT}" '
           f'height="{height}" font-family="sans-serif">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="20" font-size="13">{escape(title)}</text>']
    for t, colour in zip(threads, COLOURS * 4):
        i = threads.index(t)
        out.append(f'<rect x="{LABEL_W + 140 * i}" y="32" width="10" height="10" fill="{colour}"/>'
                   f'<text x="{LABEL_W + 140 * i + 14}" y="41" font-size="11">{t} thread(s)</text>')
    y = TOP
    for m in models:
        for r in (r for r in rows if r["model"] == m):
            ratio, t = float(r["ratio_median"]), int(r["threads"])
            colour = COLOURS[threads.index(t) % len(COLOURS)]
            tip = (f"{m}, {t} thread(s): onnxc {float(r['onnxc_median_ms']):.3f} ms, "
                   f"ORT {float(r['ort_median_ms']):.3f} ms (medians)")
            if t == min(int(q["threads"]) for q in rows if q["model"] == m):
                out.append(f'<text x="{LABEL_W - 6}" y="{y + 12}" font-size="11" '
                           f'text-anchor="end">{escape(m)}</text>')
            out.append(f'<rect x="{LABEL_W}" y="{y + 2}" width="{x(ratio) - LABEL_W:.1f}" '
                       f'height="{ROW_H - 4}" fill="{colour}"><title>{escape(tip)}</title></rect>')
            out.append(f'<text x="{x(ratio) + 4:.1f}" y="{y + 12}" font-size="11">{ratio:.2f} '
                       f'({float(r["onnxc_median_ms"]):.3g} vs {float(r["ort_median_ms"]):.3g} ms)'
                       f'</text>')
            y += ROW_H
        y += 8
    out.append(f'<line x1="{x(1):.1f}" y1="{TOP - 4}" x2="{x(1):.1f}" y2="{y}" stroke="#d62728" '
               f'stroke-dasharray="4 3"/>')
    out.append(f'<text x="{x(1):.1f}" y="{y + 14}" font-size="11" text-anchor="middle">'
               f'1.0: as fast as ORT (left: onnxc faster)</text>')
    means = []
    for t in threads:
        rs = [float(r["ratio_median"]) for r in rows if int(r["threads"]) == t]
        means.append(f"{t} thread(s) {math.exp(sum(math.log(v) for v in rs) / len(rs)):.2f}")
    out.append(f'<text x="{LABEL_W}" y="{y + 30}" font-size="11">geometric mean: '
               f'{escape(", ".join(means))}</text>')
    out.append("</svg>")
    return "\n".join(o for o in out if o) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("csv")
    p.add_argument("svg")
    p.add_argument("--title", default="onnxc / ONNX Runtime, median inference time (bench/run)")
    a = p.parse_args()
    rows = rows_of(a.csv)
    if not rows:
        raise SystemExit(f"plot_results.py: no measured rows in {a.csv}")
    with open(a.svg, "w") as f:
        f.write(svg(rows, a.title))


if __name__ == "__main__":
    main()
