"""Conversion of won endings from an arena's games.jsonl whose book positions are won
for White (the side to move): how often White won, with and without the tables.

    python3 conversion.py GAMES.jsonl
"""

import collections
import json
import sys

by = collections.defaultdict(collections.Counter)
for line in open(sys.argv[1]):
    g = json.loads(line)
    by[g["white"]][g["result"]] += 1
for player, c in sorted(by.items()):
    n = sum(c.values())
    print(f"White = {player}: {c['white']} of {n} won ({100 * c['white'] / n:.0f} %), "
          f"{c['draw']} drawn, {c['black']} lost")
