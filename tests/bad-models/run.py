#!/usr/bin/python3
"""The bad-model corpus runner (CTest `bad_models`).

Every other `*.py` in this folder (except names starting with '_') is one case: a generator run as
`/usr/bin/python3 CASE.py OUT.onnx` that writes a hostile model (and any side files it needs, e.g.
external data or symlinks, beside OUT.onnx). Its header comments say what onnxc must do with it:

    # command: compile|check|inspect [EXTRA FLAGS...]   ({model} and {dir} are substituted)
    # expect-exit: 1
    # expect: <Python regex searched in stderr>
    # max-rss-mb: N          (optional: onnxc's peak memory limit)
    # then: cxx-syntax       (optional, compile: the generated .cpp must pass
                              `$CXX -std=c++17 -fsyntax-only -Wall -Wextra -Werror`)
    # output-lacks: <regex>  (optional, compile: must not match the generated .cpp nor .h)

`compile` gets `-o {dir}/out.cpp` unless the flags hold their own -o. Each run has a time limit (a
hang is a failure) and must end by exit code, not by a signal; its stderr must match the regex,
stay bounded (at most --max-lines lines of at most --max-line-bytes bytes: one line per error) and
hold no sanitizer report (whatever the exit code: a report fails the case even when onnxc exits 1).

--all-commands (the ASan/UBSan job) also runs the model through the other two of compile, check
and inspect, without the case's flags: those runs may exit 0 or 1, but must not crash, hang, print
unbounded stderr or a sanitizer report. Only the case's own command is held to its message.

Usage: run.py ONNXC WORK_DIR [--timeout S] [-j N] [--all-commands] [NAME_FILTER...]
Exit 0 when every case passes, 1 otherwise, 77 (CTest skip) when /usr/bin/python3 has no onnx.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SANITIZER_MARKS = ("AddressSanitizer", "UndefinedBehaviorSanitizer", "LeakSanitizer",
                   "runtime error:", "Sanitizer:DEADLYSIGNAL")


def parse_header(path):
    """Returns (command words, expected exit, regex, max RSS, extra checks) from the case's header
    comments; extra checks maps 'then' and 'output-lacks' to their values."""
    command, exit_code, regex, max_rss_mb, extra = None, None, None, None, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                if line.strip():
                    break
                continue
            m = re.match(r"#\s*(command|expect-exit|expect|max-rss-mb|then|output-lacks):\s?(.*)$",
                         line.rstrip("\n"))
            if not m:
                continue
            key, value = m.group(1), m.group(2)
            if key == "command":
                command = shlex.split(value)
            elif key == "max-rss-mb":
                max_rss_mb = int(value)
            elif key == "then":
                if value.strip() != "cxx-syntax":
                    raise ValueError("'# then:' knows only cxx-syntax")
                extra["then"] = value.strip()
            elif key == "output-lacks":
                extra["output-lacks"] = re.compile(value.strip())
            elif key == "expect-exit":
                exit_code = int(value)
            else:
                regex = value.strip()
    if not command or command[0] not in ("compile", "check", "inspect"):
        raise ValueError("no '# command: compile|check|inspect' header")
    if exit_code is None or regex is None:
        raise ValueError("needs both '# expect-exit:' and '# expect:' headers")
    if extra and command[0] != "compile":
        raise ValueError("'# then:' and '# output-lacks:' need '# command: compile'")
    return command, exit_code, re.compile(regex), max_rss_mb, extra


def check_output(case_dir, extra):
    """The optional checks on the generated code; returns a failure reason or None."""
    cpp, header = os.path.join(case_dir, "out.cpp"), os.path.join(case_dir, "out.h")
    if "output-lacks" in extra:
        for path in (cpp, header):
            with open(path, encoding="latin-1") as f:
                m = extra["output-lacks"].search(f.read())
            if m:
                return "%s holds %r" % (os.path.basename(path), m.group(0)[:80])
    if extra.get("then") == "cxx-syntax":
        cxx = os.environ.get("CXX") or "c++"
        build = subprocess.run([cxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                                "-I", case_dir, cpp], capture_output=True, text=True,
                               errors="replace", timeout=300)
        if build.returncode != 0:
            return "the generated code does not build: " + build.stderr.strip()[:300]
    return None


def run_limited(argv, cwd, timeout):
    """Runs argv; returns (exit code or -signal, stderr text, peak RSS in MB, timed out). Keeps
    the first 4 MB of stderr; os.wait4 gives the child's own peak memory."""
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    chunks, kept = [], [0]

    def drain():
        while True:
            block = proc.stderr.read(65536)
            if not block:
                break
            if kept[0] < (4 << 20):
                chunks.append(block)
                kept[0] += len(block)

    reader = threading.Thread(target=drain)
    reader.start()
    timed_out = threading.Event()

    def kill():
        timed_out.set()
        proc.kill()

    timer = threading.Timer(timeout, kill)
    timer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    reader.join()
    proc.stderr.close()
    stderr = b"".join(chunks).decode("utf-8", errors="replace")
    return proc.returncode, stderr, usage.ru_maxrss // 1024, timed_out.is_set()


def run_case(name, args):
    """Generates and runs one case; returns (name, failure reason or None, seconds)."""
    start = time.monotonic()
    path = os.path.join(HERE, name + ".py")
    try:
        command, want_exit, regex, max_rss_mb, extra = parse_header(path)
    except (ValueError, re.error) as e:
        return name, "bad header: %s" % e, 0.0
    case_dir = os.path.join(args.work, name)
    shutil.rmtree(case_dir, ignore_errors=True)
    os.makedirs(case_dir)
    model = os.path.join(case_dir, "model.onnx")
    gen = subprocess.run([sys.executable, path, model], capture_output=True, text=True,
                         errors="replace", timeout=300)
    if gen.returncode != 0:
        return name, "generator failed: " + gen.stderr.strip()[-400:], 0.0
    flags = [w.replace("{model}", model).replace("{dir}", case_dir) for w in command[1:]]
    argv = [args.onnxc]
    if command[0] == "compile":
        argv += [model] + flags
        if "-o" not in flags and "--output" not in flags:
            argv += ["-o", os.path.join(case_dir, "out.cpp")]
    else:
        argv += [command[0], model] + flags
    returncode, stderr, rss_mb, timed_out = run_limited(argv, case_dir, args.timeout)
    why = run_problem(returncode, stderr, timed_out, args, want_exit)
    if why:
        return name, why, time.monotonic() - start
    lines = stderr.splitlines()
    shown = " | ".join(lines[:3])[:300]
    if max_rss_mb and args.check_rss and rss_mb > max_rss_mb:
        return name, "peak memory %d MB, at most %d MB allowed" % (rss_mb, max_rss_mb), \
            time.monotonic() - start
    if not regex.search(stderr):
        return name, "stderr does not match /%s/: %s" % (regex.pattern, shown), \
            time.monotonic() - start
    why = check_output(case_dir, extra) if extra else None
    if not why and args.all_commands:
        why = other_commands(command[0], model, case_dir, args)
    return name, why, time.monotonic() - start


def run_problem(returncode, stderr, timed_out, args, want_exit):
    """What is wrong with one onnxc run whatever the case expects, then its exit code against
    want_exit (a set of codes or one); None when nothing is. The sanitizer check comes before the
    exit code's: a report fails the run even when onnxc exits 1 as expected."""
    if timed_out:
        return "timed out after %g s (a hang)" % args.timeout
    lines = stderr.splitlines()
    shown = " | ".join(lines[:3])[:300]
    if returncode < 0:
        return "killed by signal %d: %s" % (-returncode, shown)
    if any(mark in stderr for mark in SANITIZER_MARKS):
        report = [l for l in lines if any(m in l for m in SANITIZER_MARKS)][:2]
        return "sanitizer report: " + " | ".join(report)[:300]
    wanted = want_exit if isinstance(want_exit, tuple) else (want_exit,)
    if returncode not in wanted:
        return "exit %d, expected %s: %s" % (returncode, " or ".join(map(str, wanted)), shown)
    if len(lines) > args.max_lines:
        return "%d stderr lines, at most %d allowed" % (len(lines), args.max_lines)
    longest = max((len(l.encode()) for l in lines), default=0)
    if longest > args.max_line_bytes:
        return "a stderr line of %d bytes, at most %d allowed" % (longest, args.max_line_bytes)
    if "\0" in stderr:
        return "a NUL byte in stderr"
    return None


def other_commands(own, model, case_dir, args):
    """--all-commands: the model through the commands other than the case's own, without its
    flags (they belong to that command). Exit 0 or 1 both pass; a crash, hang, unbounded stderr or
    sanitizer report fails. Returns a failure reason or None."""
    for other in ("compile", "check", "inspect"):
        if other == own:
            continue
        argv = [args.onnxc, model, "-o", os.path.join(case_dir, "all_commands.cpp")] \
            if other == "compile" else [args.onnxc, other, model]
        returncode, stderr, _, timed_out = run_limited(argv, case_dir, args.timeout)
        why = run_problem(returncode, stderr, timed_out, args, (0, 1))
        if why:
            return "%s (--all-commands): %s" % (other, why)
    return None


def case_names(filters):
    names = sorted(f[:-3] for f in os.listdir(HERE)
                   if f.endswith(".py") and f != "run.py" and not f.startswith("_"))
    if filters:
        names = [n for n in names if any(f in n for f in filters)]
    return names


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("onnxc")
    p.add_argument("work")
    p.add_argument("filters", nargs="*", help="only cases whose name contains one of these")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per onnxc run")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--max-lines", type=int, default=25,
                   help="stderr lines allowed (the default --max-errors is 20, plus a summary)")
    p.add_argument("--max-line-bytes", type=int, default=1000)
    p.add_argument("--no-rss", dest="check_rss", action="store_false",
                   help="skip the '# max-rss-mb:' limits (sanitizer builds use more memory)")
    p.add_argument("--all-commands", action="store_true",
                   help="also run each model through the other two of compile, check and inspect")
    args = p.parse_args()
    args.onnxc = os.path.abspath(args.onnxc)
    args.work = os.path.abspath(args.work)
    if subprocess.run([sys.executable, "-c", "import onnx"], capture_output=True).returncode:
        print("bad_models: SKIPPED: %s cannot import onnx (apt install python3-onnx)"
              % sys.executable)
        return 77
    names = case_names(args.filters)
    if not names:
        print("bad_models: no case matches")
        return 1
    os.makedirs(args.work, exist_ok=True)
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for name, why, seconds in pool.map(lambda n: run_case(n, args), names):
            if why:
                failures.append(name)
                print("FAIL %s: %s" % (name, why))
            elif os.environ.get("VERBOSE"):
                print("ok   %s (%.1f s)" % (name, seconds))
    print("bad_models: %d cases, %d passed, %d failed" %
          (len(names), len(names) - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
