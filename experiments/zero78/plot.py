"""Draws curve.svg: the zero-knowledge evaluation's paired Elo against the hand-written
evaluation (both `ab:time=50ms`, 200 games of configs/books/tsivy.fen) by minutes of
training. The points are the arena's figures in README.md; no plotting library needed."""

# (minutes of training, paired Elo, low, high) per checkpoint, from README.md's table.
TREESTRAP = [
    (10.0, 42, 19, 66),
    (30.0, 47, 28, 66),
    (60.0, 42, 22, 62),
    (90.0, 40, 18, 63),
    (113.0, 12, -13, 37),
]
DESCENT = []

W, H, L, R, T, B = 640, 400, 60, 20, 30, 50
X_MAX, Y_MIN, Y_MAX = 150.0, -400.0, 200.0


def x(m):
    return L + (W - L - R) * m / X_MAX


def y(e):
    return T + (H - T - B) * (Y_MAX - e) / (Y_MAX - Y_MIN)


def series(points, colour, name):
    out = []
    for m, e, lo, hi in points:
        out.append(f'<line x1="{x(m):.1f}" y1="{y(lo):.1f}" x2="{x(m):.1f}" y2="{y(hi):.1f}" stroke="{colour}"/>')
        out.append(f'<circle cx="{x(m):.1f}" cy="{y(e):.1f}" r="4" fill="{colour}"/>')
    if len(points) > 1:
        path = " ".join(f"{x(m):.1f},{y(e):.1f}" for m, e, _, _ in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}"/>')
    return out


def main():
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>']
    for e in range(int(Y_MIN), int(Y_MAX) + 1, 100):
        s.append(f'<line x1="{L}" y1="{y(e):.1f}" x2="{W - R}" y2="{y(e):.1f}" stroke="#ddd"/>')
        s.append(f'<text x="{L - 8}" y="{y(e) + 4:.1f}" text-anchor="end">{e:+d}</text>')
    for m in range(0, int(X_MAX) + 1, 30):
        s.append(f'<text x="{x(m):.1f}" y="{H - B + 18}" text-anchor="middle">{m}</text>')
    s.append(f'<line x1="{L}" y1="{y(0):.1f}" x2="{W - R}" y2="{y(0):.1f}" stroke="#888"/>')
    s.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">minutes of training (one core of the 2-core machine)</text>')
    s.append(f'<text x="16" y="{(T + H - B) / 2}" transform="rotate(-90 16 {(T + H - B) / 2})" text-anchor="middle">paired Elo vs hand-written, 50 ms a turn</text>')
    s += series(TREESTRAP, "#1565c0", "TreeStrap")
    s += series(DESCENT, "#c62828", "Descent")
    s.append(f'<text x="{L + 10}" y="{T + 14}" fill="#1565c0">TreeStrap (alpha-beta, every node a label)</text>')
    s.append(f'<text x="{L + 10}" y="{T + 30}" fill="#c62828">Descent</text>')
    s.append("</svg>")
    with open(__file__.replace("plot.py", "curve.svg"), "w") as f:
        f.write("\n".join(s) + "\n")


if __name__ == "__main__":
    main()
