#!/usr/bin/env python3
"""The tables of compare_cmsis_nn.sh, run in its work folder:
    compare.py WORK_DIR MODEL...
For each model and each CPU folder WORK_DIR/<model>/<cpu> (m4f, m0plus, m55) it reads
    figures.txt   lines "<what> <text> <data> <bss>" (arm-none-eabi-size, Berkeley: text includes
                  rodata) for onnxc_object (the generated model) and cmsis_object
                  (network_cmsis.o: the network's calls and constant data), and
                  "onnxc_workspace <bytes>" (the generated header's kWorkspaceSize)
    onnxc.txt     main.cpp's output for onnxc's build of the model
    cmsis.txt     main_cmsis.cpp's output for the CMSIS-NN build
    cmsis.map     the CMSIS-NN program's link map: the CMSIS-NN sections kept by --gc-sections
and WORK_DIR/<model>/cmsis_params.h for the logits' scale and count. Prints per model a markdown
table (a row per CPU and figure: instructions, flash, RAM, ratio onnxc / CMSIS-NN), the breakdowns
behind it, and the largest difference between the two builds' int8 logits, in quantization steps.
Exits 1 when a run did not complete, or when a model's logits differ by more than 2 steps or
CMSIS-NN's differ between the CPUs."""
import re
import struct
import sys

CPUS = (("m4f", "Cortex-M4F (mps2-an386)"), ("m0plus", "Cortex-M0+ (mps2-an385)"),
        ("m55", "Cortex-M55 (mps3-an547)"))
CALIBRATION_INSNS = 2_000_000  # the calibration loop of main.cpp and main_cmsis.cpp
CMSIS_OBJECT_DIR = "cmsis-nn/"  # where compare_cmsis_nn.sh puts the CMSIS-NN objects


def read_run(path, model):
    """calibrate, ticks, stack, workspace, float outputs and int8 logits of one run."""
    run = {"outs": {}, "q": {}, "done": False}
    for line in open(path):
        f = line.split()
        if len(f) >= 2 and f[0] == "calibrate":
            run["calibrate"] = int(f[1])
        elif len(f) == 3 and f[0] in ("ticks", "stack", "workspace") and f[1] == model:
            run[f[0]] = int(f[2])
        elif len(f) == 5 and f[0] == "out" and f[1] == model:
            run["outs"][int(f[3])] = struct.unpack("<f", bytes.fromhex(f[4])[::-1])[0]
        elif len(f) == 4 and f[0] == "q" and f[1] == model:
            run["q"][int(f[2])] = int(f[3])
        elif f[:1] == ["done"]:
            run["done"] = f[1] == "0"
    if run["done"]:
        run["insns"] = round(run["ticks"] * CALIBRATION_INSNS / run["calibrate"])
    return run


def read_figures(path):
    figures = {}
    for line in open(path):
        f = line.split()
        figures[f[0]] = [int(v) for v in f[1:]]
    return figures


# A map's input section: " .name  0xADDR  0xSIZE  file" on one line, or the name alone on one line
# and the rest on the next.
SECTION = re.compile(r"^ (\.\S+)(?:\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+))?$")
PLACEMENT = re.compile(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)$")


def linked_sections(map_path):
    """(section name, size, file) of every input section the link kept (the memory map part of
    the map: the discarded sections are listed before it)."""
    lines = open(map_path).read().split("Linker script and memory map", 1)[1].splitlines()
    pending = None
    for line in lines:
        m = SECTION.match(line)
        if m and m.group(2):
            yield m.group(1), int(m.group(2), 16), m.group(3)
            pending = None
        elif m:
            pending = m.group(1)
        elif pending and (p := PLACEMENT.match(line)):
            yield pending, int(p.group(1), 16), p.group(2)
            pending = None
        else:
            pending = None


def cmsis_linked(map_path):
    """Bytes of CMSIS-NN code + constants (flash) and data + bss (RAM) in the link, and the
    functions kept, largest first."""
    flash = ram = 0
    functions = []
    for name, size, path in linked_sections(map_path):
        if CMSIS_OBJECT_DIR not in path or size == 0:
            continue
        if name.startswith((".text", ".rodata")):
            flash += size
            if name.startswith(".text."):
                functions.append((size, name[len(".text."):]))
        elif name.startswith((".data", ".bss")):
            ram += size
    return flash, ram, sorted(functions, reverse=True)


def logits_quantization(header_path):
    """The logits' scale, zero point and count from cmsis_params.h."""
    text = open(header_path).read()
    m = re.search(r"constexpr float kLogitsScale = (\S+)f ", text)
    z = re.search(r"constexpr int32_t kLogitsZeroPoint = (-?\d+);", text)
    n = re.search(r"constexpr int32_t kFcOut = (\d+);", text)
    return float.fromhex(m.group(1)), int(z.group(1)), int(n.group(1))


def logit_steps(onnxc, cmsis, scale, zp, count):
    """onnxc's float logits back to int8 (they are (q - zp) * scale), and the largest difference
    to CMSIS-NN's int8 logits."""
    q_onnxc = [round(onnxc["outs"][i] / scale) + zp for i in sorted(onnxc["outs"])]
    q_cmsis = [cmsis["q"][i] for i in sorted(cmsis["q"])]
    assert len(q_onnxc) == len(q_cmsis) == count, f"expected {count} logits from each build"
    return q_onnxc, q_cmsis, max(abs(a - b) for a, b in zip(q_onnxc, q_cmsis))


def measure(work, model, cpu):
    """Per build: instructions, flash, RAM, with the parts the RAM and flash are made of; None
    when a run did not complete."""
    d = f"{work}/{model}/{cpu}"
    fig = read_figures(f"{d}/figures.txt")
    onnxc = read_run(f"{d}/onnxc.txt", model)
    cmsis = read_run(f"{d}/cmsis.txt", model)
    if not (onnxc["done"] and cmsis["done"]):
        print(f"{model} {cpu}: a run did not complete (see {d}/onnxc.txt, {d}/cmsis.txt)")
        return None
    o_text, o_data, o_bss = fig["onnxc_object"]
    c_text, c_data, c_bss = fig["cmsis_object"]
    lib_flash, lib_ram, functions = cmsis_linked(f"{d}/cmsis.map")
    o_ram = [fig["onnxc_workspace"][0], o_data + o_bss, onnxc["stack"]]
    c_ram = [cmsis["workspace"], c_data + c_bss + lib_ram, cmsis["stack"]]
    return dict(
        onnxc=onnxc, cmsis=cmsis, functions=functions,
        insns=(onnxc["insns"], cmsis["insns"]),
        flash=(o_text, c_text + lib_flash), flash_parts=(c_text, lib_flash),
        ram=(sum(o_ram), sum(c_ram)), ram_parts=(o_ram, c_ram))


def table(rows):
    print("| CPU | figure | onnxc | CMSIS-NN | onnxc / CMSIS-NN |")
    print("|---|---|---:|---:|---:|")
    for cpu_name, m in rows:
        for label, key in (("instructions per inference", "insns"),
                           ("flash: code + weights (bytes)", "flash"),
                           ("RAM: activations + data/bss + stack peak (bytes)", "ram")):
            a, b = m[key]
            print(f"| {cpu_name} | {label} | {a:,} | {b:,} | {a / b:.2f} |")


def details(cpu_name, m, scale, zp, count):
    (o_ws, o_static, o_stack), (c_ws, c_static, c_stack) = m["ram_parts"]
    net, lib = m["flash_parts"]
    q_onnxc, q_cmsis, worst = logit_steps(m["onnxc"], m["cmsis"], scale, zp, count)
    print(f"\n{cpu_name}:")
    print(f"  RAM onnxc    = {o_ws} kWorkspaceSize + {o_static} data/bss + {o_stack} stack peak")
    print(f"  RAM CMSIS-NN = {c_ws} ping-pong buffers + scratch + {c_static} data/bss"
          f" + {c_stack} stack peak")
    print(f"  flash CMSIS-NN = {net} network_cmsis.o (layer calls + weights, biases, multipliers,"
          f" shifts) + {lib} CMSIS-NN code kept by --gc-sections")
    print("  CMSIS-NN functions linked (bytes): " +
          ", ".join(f"{name} {size}" for size, name in m["functions"]))
    print(f"  int8 logits onnxc:    {q_onnxc}")
    print(f"  int8 logits CMSIS-NN: {q_cmsis}")
    print(f"  largest logit difference: {worst} quantization step(s) (scale {scale:.6g})")
    return worst


def compare_model(work, model):
    """Prints one model's table and details; returns whether it passed."""
    print(f"\n## {model}\n")
    scale, zp, count = logits_quantization(f"{work}/{model}/cmsis_params.h")
    rows = [(name, measure(work, model, cpu)) for cpu, name in CPUS]
    if any(m is None for _, m in rows):
        print(f"FAIL: {model}: a run did not complete")
        return False
    table(rows)
    worst = max(details(name, m, scale, zp, count) for name, m in rows)
    same = all(m["cmsis"]["q"] == rows[0][1]["cmsis"]["q"] for _, m in rows)
    print(f"\n{model}: CMSIS-NN logits identical on all CPUs: {'yes' if same else 'no'}")
    print(f"{model}: largest onnxc / CMSIS-NN logit difference over all CPUs: {worst} step(s)")
    # Requantization rounding (CMSIS-NN rounds twice at the pool, onnxc once) explains a step or
    # two; more means one of the two builds computes another network.
    if worst > 2 or not same:
        print(f"FAIL: {model}: the two builds disagree by more than rounding explains")
        return False
    return True


def main():
    if len(sys.argv) < 3:
        raise SystemExit("usage: compare.py WORK_DIR MODEL...")
    work, models = sys.argv[1], sys.argv[2:]
    passed = [compare_model(work, model) for model in models]
    if not all(passed):
        sys.exit(1)


if __name__ == "__main__":
    main()
