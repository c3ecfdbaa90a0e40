#!/usr/bin/env python3
"""Network inference, this project against onnxruntime, side by side in one run.

    python3 -m venv ~/venv && ~/venv/bin/pip install onnxruntime numpy
    cargo build --release
    ~/venv/bin/python experiments/speed63/inference.py [--rounds 3] [--seconds 2]

It exports the tsivy release network (4 blocks x 64 channels) to ONNX, then, for one
and two threads, alternates `fanorona bench nn --channels 64 --json` (the same
architecture; the weights do not change the arithmetic) under RAYON_NUM_THREADS with
onnxruntime's CPU provider on the exported file (intra-op threads 1 or 2, sequential
execution, all graph optimisations), at batch 1, 64 and 256. Each figure is the median
of the rounds, in positions a second; the table gives the ratios to onnxruntime.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

ROOT = Path(__file__).resolve().parents[2]
BATCHES = (1, 64, 256)


def ours(binary, threads, seconds):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    out = subprocess.run(
        [binary, "bench", "nn", "--channels", "64", "--json", "--seconds", str(seconds)],
        env=env, check=True, capture_output=True, text=True,
    ).stdout
    rates = {}
    for line in out.splitlines():
        r = json.loads(line)
        if r.get("what") == "inference":
            rates[(r["engine"], r["batch"])] = r["per_second"]
    return rates


def onnxruntime_rates(model, threads, seconds):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    rng = np.random.default_rng(1)
    rates = {}
    for n in BATCHES:
        x = (rng.random((n, 11, 5, 9)) < 0.3).astype(np.float32)
        sess.run(None, {name: x})
        done, t = 0, time.perf_counter()
        while time.perf_counter() - t < seconds:
            sess.run(None, {name: x})
            done += n
        rates[n] = done / (time.perf_counter() - t)
    return rates


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--binary", default=str(ROOT / "target/release/fanorona"))
    a = ap.parse_args()
    out = Path(tempfile.mkdtemp(prefix="fanorona-speed63-"))
    subprocess.run(
        [a.binary, "export", "--checkpoint", str(ROOT / "checkpoints/release/tsivy"),
         "--out", str(out), "--format", "onnx", "--reference", "0"],
        check=True, capture_output=True,
    )
    model = out / "model.onnx"
    print(f"onnxruntime {ort.__version__}, {os.cpu_count()} hardware threads; "
          f"{a.rounds} rounds of {a.seconds} s per figure", file=sys.stderr)
    figures = {}  # (engine, threads, batch) -> [rates]
    for r in range(a.rounds):
        for threads in (1, 2):
            for (engine, n), rate in ours(a.binary, threads, a.seconds).items():
                figures.setdefault((engine, threads, n), []).append(rate)
            for n, rate in onnxruntime_rates(model, threads, a.seconds).items():
                figures.setdefault(("onnxruntime", threads, n), []).append(rate)
        print(f"round {r + 1} of {a.rounds} done", file=sys.stderr)
    med = {k: statistics.median(v) for k, v in figures.items()}
    print("| threads | batch | onnxruntime | fanorona (cpu path) | ratio | burn flex | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for threads in (1, 2):
        for n in BATCHES:
            o = med[("onnxruntime", threads, n)]
            c = med[("cpu", threads, n)]
            b = med[("burn", threads, n)]
            print(f"| {threads} | {n} | {o:,.0f} | {c:,.0f} | {c / o:.2f} | {b:,.0f} | {b / o:.2f} |")
    print(json.dumps({f"{e}/{t}/{n}": round(v) for (e, t, n), v in med.items()}))


if __name__ == "__main__":
    main()
