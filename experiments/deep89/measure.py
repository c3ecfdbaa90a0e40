"""Paired fixed-depth matches of a tree-learning run's checkpoints (issue 89, deep89).

    python3 experiments/deep89/measure.py RUN MINUTES... [--vs SPEC]... [--depth 6]
        [--runs ~/runs] [--games 400]

For each mark, the run's first checkpoint past MINUTES of training (from its
metrics.jsonl under RUNS/exp/RUN) plays each --vs opponent (default: the hand-written
evaluation and the release's) at a fixed depth on configs/books/tsivy.fen, both
colours, one thread; prints one Markdown row a match. A checkpoint of another run is
named as RUN@MINUTES in --vs.
"""
import argparse, json, os, re, subprocess, sys

p = argparse.ArgumentParser()
p.add_argument("run")
p.add_argument("minutes", nargs="+", type=float)
p.add_argument("--vs", action="append")
p.add_argument("--depth", type=int, default=6)
p.add_argument("--runs", default=os.path.expanduser("~/runs"))
p.add_argument("--games", type=int, default=400)
p.add_argument("--bin", default="target/release/fanorona")
a = p.parse_args()


def gen_at(run, minutes):
    rows = [json.loads(l) for l in open(f"{a.runs}/exp/{run}/metrics.jsonl")]
    t0 = min(r["time"] for r in rows)
    seen = {}
    for r in rows:
        seen[r["step"]] = max(seen.get(r["step"], 0), r["time"] - t0)
    g = min([g for g, t in seen.items() if t >= minutes * 60], default=None)
    if g is None:
        sys.exit(f"{run} has not trained {minutes} minutes yet")
    return f"{a.runs}/{run}/{g:05d}"


def spec(name):
    m = re.fullmatch(r"(.+)@([\d.]+)", name)
    if m:
        return f"ab:depth={a.depth},eval={gen_at(m.group(1), float(m.group(2)))}"
    return f"ab:depth={a.depth}" + ("" if name == "hand" else f",eval={name}")


for minutes in a.minutes:
    me = f"ab:depth={a.depth},eval={gen_at(a.run, minutes)}"
    for vs in a.vs or ["hand", "release"]:
        out = subprocess.run(
            [a.bin, "arena", "--players", me, spec(vs), "--book", "configs/books/tsivy.fen",
             "--games", str(a.games), "--threads", "1"],
            capture_output=True, text=True, check=True).stdout
        row = next(l for l in out.splitlines() if l.startswith(f"| {me} |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        print(f"| {a.run} {minutes:g} min ({os.path.basename(me.split('=')[-1])}) | {vs} | "
              f"{cells[2]}-{cells[3]}-{cells[4]} | {cells[5]} | {cells[7]} |", flush=True)
