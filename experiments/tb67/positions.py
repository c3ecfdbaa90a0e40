"""Random tsivy positions with few pieces, one FEN a line, for the tablebase experiments.

    python3 positions.py PIECES COUNT SEED > file.fen

Pieces split as evenly as possible (4v3 and 3v4 alternate for 7), White to move,
quiet counter 0, past the first turns.
"""

import random
import sys


def fen(white, black, width=9, height=5):
    rows = []
    for y in reversed(range(height)):
        row, empty = "", 0
        for x in range(width):
            p = y * width + x
            c = "W" if p in white else "B" if p in black else None
            if c is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += c
        if empty:
            row += str(empty)
        rows.append(row)
    return "/".join(rows) + " w 0 2"


def main():
    pieces, count, seed = (int(a) for a in sys.argv[1:4])
    rng = random.Random(seed)
    for i in range(count):
        nw = (pieces + (i % 2)) // 2
        points = rng.sample(range(45), pieces)
        print(fen(set(points[:nw]), set(points[nw:])))


if __name__ == "__main__":
    main()
