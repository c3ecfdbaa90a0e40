#!/usr/bin/env python3
"""Check an exported Fanorona model from Python, as a front end would use it.

    pip install onnxruntime numpy      # and onnx, for the ONNX checker (optional)
    fanorona export --checkpoint checkpoints/<run> --out exported --reference 300
    python3 docs/check_export.py exported

It reads only what `fanorona export` wrote (model.json, model.onnx, model.safetensors,
reference.json) and checks, for every test vector in reference.json (and first, when
the `onnx` package is installed, runs the ONNX checker with shape inference):

1. encoding: the observation built here from the FEN, following model.json's plane list,
   board numbering and frame, equals the planes the project computed;
2. onnxruntime: model.onnx on those planes gives the project's (burn's) policy and WDL
   logits to within 1e-4, in one batch and one position at a time;
3. weights: the network rebuilt in numpy from model.safetensors, following model.json's
   `weights` section, gives onnxruntime's outputs to within 1e-4;
4. actions: every legal index decodes (model.json's `actions`) to a step from a point
   to a neighbouring point along a line of the board.

It prints one line per check and exits non-zero if any fails.
"""

import json
import struct
import sys
from pathlib import Path

import numpy as np

TOLERANCE = 1e-4


def read_safetensors(path):
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    body = data[8 + n :]
    dtypes = {"F32": np.float32, "I64": np.int64}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        arr = np.frombuffer(body[start:end], dtype=dtypes[info["dtype"]])
        out[name] = arr.reshape(info["shape"])
    return out


def parse_fen(fen, width, height):
    """Board (list of 'W', 'B' or None by point index), side, quiet, turn."""
    fields = fen.split()
    rows = fields[0].split("/")
    assert len(rows) == height, fen
    board = [None] * (width * height)
    for i, row in enumerate(rows):
        y = height - 1 - i  # the FEN starts with the top row
        x = 0
        for ch in row:
            if ch.isdigit():
                x += int(ch)
            else:
                board[y * width + x] = ch
                x += 1
        assert x == width, fen
    side = fields[1]
    quiet = int(fields[2]) if len(fields) > 2 else 0
    turn = int(fields[3]) if len(fields) > 3 else 2
    return board, side, quiet, turn


def encode(desc, fen):
    """The observation of a position at the start of a turn (default rules)."""
    b = desc["board"]
    w, h, n = b["width"], b["height"], b["points"]
    board, side, quiet, _turn = parse_fen(fen, w, h)
    me, them = ("W", "B") if side == "w" else ("B", "W")
    # The frame: Black sees the board turned 180 degrees (point p -> n - 1 - p).
    frame = (lambda p: p) if side == "w" else (lambda p: n - 1 - p)
    limit = desc["source"]["quiet_limit"]
    placing = lambda c: sum(1 for s in board if s == c) < 3  # telo only
    values = {
        "quiet": min(quiet / limit, 1.0),
        "mover_is_white": 1.0 if me == "W" else 0.0,
        "ones": 1.0,
        "mover_placing": 1.0 if placing(me) else 0.0,
        "opponent_placing": 1.0 if placing(them) else 0.0,
        # Chain and vela planes are empty at the start of a turn under default rules.
    }
    planes = np.zeros((len(desc["planes"]), n), dtype=np.float32)
    for plane in desc["planes"]:
        k, name = plane["index"], plane["name"]
        if name in ("own", "opponent"):
            colour = me if name == "own" else them
            for p in range(n):
                if board[p] == colour:
                    planes[k, frame(p)] = 1.0
        else:
            planes[k, :] = values.get(name, 0.0)
    return planes.reshape(-1)


def numpy_forward(desc, wts, x):
    """The network from model.json's `weights` section, in plain numpy."""
    net = desc["net"]
    x = x.reshape(-1, net["planes"], net["height"], net["width"]).astype(np.float64)

    def conv(x, weight):
        o, i, kh, kw = weight.shape
        ph, pw = kh // 2, kw // 2
        xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
        out = np.zeros((x.shape[0], o, x.shape[2], x.shape[3]))
        for dy in range(kh):
            for dx in range(kw):
                window = xp[:, :, dy : dy + x.shape[2], dx : dx + x.shape[3]]
                out += np.einsum("oi,biyx->boyx", weight[:, :, dy, dx], window)
        return out

    def conv_bn(x, prefix):
        y = conv(x, wts[prefix + ".conv.weight"])
        g, b = wts[prefix + ".bn.gamma"], wts[prefix + ".bn.beta"]
        m, v = wts[prefix + ".bn.running_mean"], wts[prefix + ".bn.running_var"]
        shape = (1, -1, 1, 1)
        return g.reshape(shape) * (y - m.reshape(shape)) / np.sqrt(
            v.reshape(shape) + 1e-5
        ) + b.reshape(shape)

    relu = lambda t: np.maximum(t, 0.0)
    linear = lambda t, name: t @ wts[name + ".weight"] + wts[name + ".bias"]
    x = relu(conv_bn(x, "stem"))
    for i in range(net["blocks"]):
        y = relu(conv_bn(x, f"blocks.{i}.a"))
        x = relu(x + conv_bn(y, f"blocks.{i}.b"))
    p = relu(conv_bn(x, "policy_conv")).reshape(x.shape[0], -1)
    policy = linear(p, "policy_fc")
    v = relu(conv_bn(x, "value_conv")).reshape(x.shape[0], -1)
    wdl = linear(relu(linear(v, "value_fc1")), "value_fc2")
    return policy, wdl


def decode(desc, index):
    """(origin, destination, kind) of a Fanorona action, or None for end turn."""
    a = desc["actions"]
    b = desc["board"]
    w, h = b["width"], b["height"]
    if a["end_turn"] is not None and index == a["end_turn"]:
        return None
    if desc["variant"] == "telo":
        if index < 9:
            return ("place", index)
        origin, direction = divmod(index - 9, 8)
        kind = "move"
    else:
        kind = a["kinds"][index % 3]
        origin, direction = divmod(index // 3, 8)
    d = a["directions"][direction]
    x, y = origin % w + d["dx"], origin // w + d["dy"]
    assert 0 <= x < w and 0 <= y < h, f"action {index} leaves the board"
    diagonal = d["dx"] != 0 and d["dy"] != 0
    if diagonal and desc["variant"] != "telo":
        assert (origin % w + origin // w) % 2 == 0, f"action {index}: no diagonal there"
    return (origin, y * w + x, kind)


def point_name(desc, p):
    w = desc["board"]["width"]
    return "abcdefghi"[p % w] + str(p // w + 1)


def main():
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "exported")
    desc = json.loads((folder / "model.json").read_text())
    ref = json.loads((folder / "reference.json").read_text())
    cases = ref["cases"]
    failures = 0

    def report(name, ok, detail):
        nonlocal failures
        failures += 0 if ok else 1
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}")

    # 1. Encoding from the FEN.
    bad = [
        c["fen"]
        for c in cases
        if not np.array_equal(encode(desc, c["fen"]), np.array(c["planes"], dtype=np.float32))
    ]
    report("encoding", not bad, f"{len(cases) - len(bad)}/{len(cases)} observations equal" +
           (f"; first difference at {bad[0]}" if bad else ""))

    # 0. The ONNX checker with shape inference, when the `onnx` package is installed.
    try:
        import onnx
    except ImportError:
        print("skip onnx checker: `pip install onnx` to run it")
    else:
        model = onnx.load(str(folder / desc["files"]["onnx"]))
        try:
            onnx.checker.check_model(model, full_check=True)
            report("onnx checker", True, f"opset {model.opset_import[0].version}, "
                   f"{len(model.graph.node)} nodes, full check with shape inference")
        except onnx.checker.ValidationError as e:
            report("onnx checker", False, str(e).splitlines()[0])

    # 2. onnxruntime against burn.
    import onnxruntime as ort

    session = ort.InferenceSession(str(folder / desc["files"]["onnx"]))
    net = desc["net"]
    shape = (net["planes"], net["height"], net["width"])
    x = np.array([c["planes"] for c in cases], dtype=np.float32).reshape((-1,) + shape)
    names = [o["name"] for o in desc["outputs"]]
    policy, wdl = session.run(names, {desc["input"]["name"]: x})
    burn_policy = np.array([c["policy_logits"] for c in cases], dtype=np.float32)
    burn_wdl = np.array([c["wdl_logits"] for c in cases], dtype=np.float32)
    dp = float(np.abs(policy - burn_policy).max())
    dw = float(np.abs(wdl - burn_wdl).max())
    report("onnxruntime batch", dp < TOLERANCE and dw < TOLERANCE,
           f"{len(cases)} positions, max |ort - burn| policy {dp:.2e}, wdl {dw:.2e}")
    single = max(
        float(np.abs(session.run(names, {desc["input"]["name"]: x[i : i + 1]})[0] - policy[i]).max())
        for i in range(min(len(cases), 16))
    )
    report("onnxruntime batch 1", single < TOLERANCE, f"max difference {single:.2e}")

    # 3. The network rebuilt from the safetensors weights.
    if desc["files"].get("safetensors"):
        wts = read_safetensors(folder / desc["files"]["safetensors"])
        np_policy, np_wdl = numpy_forward(desc, wts, x)
        dp = float(np.abs(np_policy - policy).max())
        dw = float(np.abs(np_wdl - wdl).max())
        report("safetensors + numpy", dp < TOLERANCE and dw < TOLERANCE,
               f"max |numpy - ort| policy {dp:.2e}, wdl {dw:.2e}")

    # 4. Legal actions decode to steps along the board's lines; mask and read one.
    try:
        for c in cases:
            for a in c["legal"]:
                decode(desc, a)
        report("actions", True, f"{sum(len(c['legal']) for c in cases)} legal indices decode")
    except AssertionError as e:
        report("actions", False, str(e))
    c = cases[len(cases) // 2]
    logits = np.full(desc["actions"]["count"], -np.inf)
    logits[c["legal"]] = policy[len(cases) // 2][c["legal"]]
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    best = int(probs.argmax())
    v = np.exp(wdl[len(cases) // 2] - wdl[len(cases) // 2].max())
    v /= v.sum()
    step = decode(desc, best)
    side = c["fen"].split()[1]
    n = desc["board"]["points"]
    # Back from the mover's frame to the board (Black: p -> n - 1 - p).
    f = (lambda p: p) if side == "w" else (lambda p: n - 1 - p)
    if step is not None and step[0] == "place":
        step = ("place", point_name(desc, f(step[1])))
    elif step is not None:
        step = (point_name(desc, f(step[0])), point_name(desc, f(step[1])), step[2])
    print(f"example: {c['fen']}: best legal action {best} = {step} "
          f"(p = {probs[best]:.3f}); win/draw/loss {' '.join(f'{p:.3f}' for p in v)}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
