#!/usr/bin/env python3
# The checks and the budget table of run_qemu.sh, run in its work folder:
#   check_runs.py FIGURES COMMITTED_BUDGETS MEASURED_BUDGETS
# FIGURES: lines "config model flash ram stack_bound stack_static" written by the builds.
# Reads CONFIG.txt, the output of each run (see main.cpp), and checks:
#   - every run completed, with the host's outputs within 1e-5 (relative to max(1, |host|));
#   - in every run, a model NAME_rows (NAME under --max-arena, run in bands of rows) gave exactly
#     NAME's outputs;
#   - each model's static stack depth and painted peak stay within its kMaxStackBytes;
#   - no figure is more than 1% above the committed budget (a fall prints a note: update the file).
# Writes the measured budgets (tab-separated, the committed file's format) to MEASURED_BUDGETS.
#   check_runs.py --budgets-only ROWS COMMITTED_BUDGETS
# (run_qemu_llvm.sh) checks ROWS, measured rows in the budgets' format, against the committed rows
# of the same configs. Each mode checks only the configs it measured.
import struct
import sys

RUNS = ("m4f", "m0plus", "aarch64", "m55")
COLUMNS = ("flash", "ram", "stack_bound", "stack_static", "stack_peak", "insns")
CALIBRATION_INSNS = 2_000_000  # main.cpp's calibration loop


def read_run(path):
    run = {"outs": {}, "stack": {}, "ticks": {}, "calibrate": None, "done": False}
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == "out":
            run["outs"][(f[1], f[2], f[3])] = struct.unpack("<f", bytes.fromhex(f[4])[::-1])[0]
        elif f[0] in ("stack", "ticks"):
            run[f[0]][f[1]] = int(f[2])
        elif f[0] == "calibrate":
            run["calibrate"] = int(f[1])
        elif f[0] == "done":
            run["done"] = f[1] == "0"
    return run


def compare_outputs(runs):
    host = runs["host"]
    assert host["done"] and host["outs"], "the host run failed"
    ok = True
    for name in RUNS:
        outs = runs[name]["outs"]
        worst = max((abs(outs.get(k, float("nan")) - v) / max(1.0, abs(v))
                     for k, v in host["outs"].items()), default=float("nan"))
        good = runs[name]["done"] and set(outs) == set(host["outs"]) and worst <= 1e-5
        ok &= good
        print(f"{name:8} {'PASS' if good else 'FAIL'}  {len(outs)} outputs, "
              f"max relative error {worst:.2e}")
    for name in ("host",) + RUNS:
        outs = runs[name]["outs"]
        for (model, i, j), v in outs.items():
            if model.endswith("_rows") and outs.get((model[:-5], i, j)) != v:
                print(f"{name}: {model} output {i} word {j} is {v}, "
                      f"{model[:-5]}'s {outs.get((model[:-5], i, j))}")
                ok = False
    return ok


def measure(figures_path, runs):
    rows = {}
    for line in open(figures_path):
        config, model, flash, ram, bound, static = line.split()
        run = runs.get(config, {})
        row = dict(flash=int(flash), ram=int(ram), stack_bound=int(bound), stack_static=int(static),
                   stack_peak=run.get("stack", {}).get(model), insns=None)
        ticks, calibrate = run.get("ticks", {}).get(model), run.get("calibrate")
        if ticks is not None and calibrate:
            row["insns"] = round(ticks * CALIBRATION_INSNS / calibrate)
        rows[(config, model)] = row
    return rows


def check_stacks(rows):
    ok = True
    for (config, model), r in rows.items():
        for what in ("stack_static", "stack_peak"):
            if r[what] is not None and r[what] > r["stack_bound"]:
                print(f"{config} {model}: {what} {r[what]} B is above kMaxStackBytes "
                      f"{r['stack_bound']} B (compiler/ir/stack_bound.h)")
                ok = False
    return ok


def cell(v):
    return "-" if v is None else str(v)


def print_table(rows, calibrate):
    print(f"{'config':8} {'model':9} " + " ".join(f"{c:>12}" for c in COLUMNS))
    for (config, model), r in rows.items():
        print(f"{config:8} {model:9} " + " ".join(f"{cell(r[c]):>12}" for c in COLUMNS))
    for config, ticks in calibrate.items():
        print(f"{config}: {ticks} SysTick ticks per {CALIBRATION_INSNS} instructions")


def write_budgets(path, rows):
    with open(path, "w") as out:
        out.write("config\tmodel\t" + "\t".join(COLUMNS) + "\n")
        for (config, model), r in rows.items():
            out.write(f"{config}\t{model}\t" + "\t".join(cell(r[c]) for c in COLUMNS) + "\n")


def check_budgets(committed_path, measured_path, rows):
    try:
        lines = open(committed_path).read().splitlines()
    except FileNotFoundError:
        print(f"no {committed_path}: copy {measured_path} there")
        return False
    header = lines[0].split("\t")
    ok, fell = True, []
    configs = {config for config, _ in rows}
    for line in lines[1:]:
        f = dict(zip(header, line.split("\t")))
        if f["config"] not in configs:
            continue
        r = rows.get((f["config"], f["model"]))
        if r is None:
            print(f"budget {f['config']} {f['model']}: not measured")
            ok = False
            continue
        for c in COLUMNS:
            if f.get(c, "-") == "-" or r[c] is None:
                continue
            budget, now = int(f[c]), r[c]
            if now > budget * 1.01:
                print(f"budget {f['config']} {f['model']} {c}: {now} is more than 1% above {budget}")
                ok = False
            elif now < budget:
                fell.append(f"{f['config']} {f['model']} {c} {budget} -> {now}")
    committed_keys = {tuple(line.split("\t")[:2]) for line in lines[1:]}
    for config, model in rows:
        if (config, model) not in committed_keys:
            print(f"budget {config} {model}: no row in {committed_path} (add its row from {measured_path};"
                  " the file holds every configuration's rows: merge, do not copy over it)")
            ok = False
    if fell:
        print("figures below budget (update examples/cortex-m/budgets.tsv from "
              f"{measured_path}): " + "; ".join(fell))
    return ok


def read_rows(path):
    lines = open(path).read().splitlines()
    header = lines[0].split("\t")
    rows = {}
    for line in lines[1:]:
        f = dict(zip(header, line.split("\t")))
        rows[(f["config"], f["model"])] = {c: None if f[c] == "-" else int(f[c]) for c in COLUMNS}
    return rows


def main():
    if sys.argv[1] == "--budgets-only":
        rows_path, committed = sys.argv[2:4]
        sys.exit(0 if check_budgets(committed, rows_path, read_rows(rows_path)) else 1)
    figures, committed, measured = sys.argv[1:4]
    runs = {name: read_run(name + ".txt") for name in ("host",) + RUNS}
    ok = compare_outputs(runs)
    rows = measure(figures, runs)
    print_table(rows, {n: r["calibrate"] for n, r in runs.items() if r["calibrate"]})
    ok &= check_stacks(rows)
    write_budgets(measured, rows)
    ok &= check_budgets(committed, measured, rows)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
