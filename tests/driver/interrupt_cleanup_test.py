#!/usr/bin/python3
"""`onnxc test` and `onnxc bench` leave no temporary folder behind when interrupted (issue 17,
point 7; CTest `interrupt_cleanup`).

Each scenario runs onnxc in its own session with TMPDIR pointing at a fresh folder, waits until
onnxc's work folder (onnxc-test-* / onnxc-bench-*) holds files, sends the signal, waits for the
whole process group (onnxc and the compilers it started) to end, and checks that TMPDIR is empty.
Scenarios: SIGINT to the process group (Ctrl-C in a terminal) and SIGTERM to onnxc alone (`kill`),
for test and for bench --no-run. onnxc itself must end by the signal (the handler re-raises it),
except bench under Ctrl-C: while its compiler runs, system() ignores SIGINT in onnxc, the compiler
dies of it and bench returns 1 through its normal cleanup.

Usage: interrupt_cleanup_test.py ONNXC WORK_DIR. Exit 0 on success, 1 on failure, 77 (skip)
without onnx in /usr/bin/python3.
"""
import os
import shutil
import signal
import subprocess
import sys
import time

TIMEOUT = 60.0


def make_cases(root, count):
    """`count` ONNX backend-test-style cases (model.onnx + test_data_set_0) of a small MatMul
    chain, distinct so that none is served from a cache; returns their folders."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    folders = []
    for k in range(count):
        folder = os.path.join(root, "test_chain_%d" % k)
        os.makedirs(os.path.join(folder, "test_data_set_0"))
        w = numpy_helper.from_array(np.full((8, 8), 0.01 * (k + 1), np.float32), "w")
        nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Relu", ["h"],
                                                                                 ["y"])]
        graph = helper.make_graph(nodes, "chain%d" % k,
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 8])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 8])],
                                  initializer=[w])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        with open(os.path.join(folder, "model.onnx"), "wb") as f:
            f.write(model.SerializeToString())
        x = np.ones((8, 8), np.float32)
        y = np.maximum(x @ numpy_helper.to_array(w), 0)
        for name, array in (("input_0.pb", numpy_helper.from_array(x, "x")),
                            ("output_0.pb", numpy_helper.from_array(y, "y"))):
            with open(os.path.join(folder, "test_data_set_0", name), "wb") as f:
                f.write(array.SerializeToString())
        folders.append(folder)
    return folders


def work_folder_has_files(tmp, prefix):
    for entry in os.listdir(tmp):
        path = os.path.join(tmp, entry)
        if entry.startswith(prefix) and os.path.isdir(path) and os.listdir(path):
            return True
    return False


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


def scenario(name, argv, tmp, prefix, sig, whole_group, want_signal):
    """Runs one interrupt; returns a failure reason or None."""
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + TIMEOUT
    while not work_folder_has_files(tmp, prefix):
        if proc.poll() is not None:
            return "%s: onnxc ended (exit %d) before it could be interrupted: %s" % (
                name, proc.returncode, proc.stderr.read().decode(errors="replace")[-300:])
        if time.monotonic() > deadline:
            proc.kill()
            return "%s: no %s* folder with files appeared in %s" % (name, prefix, tmp)
        time.sleep(0.01)
    if whole_group:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    try:
        proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        return "%s: onnxc did not end within %g s of the signal" % (name, TIMEOUT)
    while group_alive(proc.pid) and time.monotonic() < deadline + TIMEOUT:
        time.sleep(0.05)  # the compilers onnxc started may still be writing
    left = os.listdir(tmp)
    if left:
        return "%s: %s still holds %s" % (name, tmp, ", ".join(sorted(left)[:5]))
    if want_signal and proc.returncode != -sig:
        return "%s: onnxc exited %d, expected to end by signal %d" % (name, proc.returncode, sig)
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    onnxc, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    try:
        import onnx  # noqa: F401
    except ImportError:
        print("interrupt_cleanup: SKIPPED: %s cannot import onnx" % sys.executable)
        return 77
    shutil.rmtree(work, ignore_errors=True)
    cases = make_cases(os.path.join(work, "cases"), 6)
    tmp = os.path.join(work, "tmp")
    failures = []
    for sig, group in ((signal.SIGINT, True), (signal.SIGTERM, False)):
        cache = os.path.join(work, "cache-%d" % sig)  # fresh: every case is built
        test_argv = [onnxc, "test", "-j1", "--batch", "1", "--cache", cache] + cases
        bench_argv = [onnxc, "bench", os.path.join(cases[0], "model.onnx"), "--no-run"]
        for name, argv, prefix, want_signal in (
                ("test", test_argv, "onnxc-test-", True),
                ("bench", bench_argv, "onnxc-bench-", not group)):
            label = "%s %s%s" % (name, signal.Signals(sig).name, " (group)" if group else "")
            why = scenario(label, argv, tmp, prefix, sig, group, want_signal)
            print("FAIL " + why if why else "ok   " + label)
            if why:
                failures.append(label)
    print("interrupt_cleanup: %d scenarios, %d failed" % (4, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
