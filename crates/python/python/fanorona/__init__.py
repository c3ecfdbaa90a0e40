"""Fanorona for Python: exact rules, a vectorised environment, engines and networks.

The Malagasy board game Fanorona (fanoron-tsivy 9x5, fanoron-dimy 5x5, fanoron-telo 3x3)
from the Rust workspace of the same name::

    import fanorona
    g = fanorona.Game("tsivy")
    g.play(g.turns()[0])
    env = fanorona.VecEnv("tsivy", 1024)
    obs, mask = env.reset()

Observations are ``(C, H, W)`` float32 planes and actions are ids into a fixed space
(``num_actions``), both in the frame of the player to move: the layout of the Rust
simulator and of the exported ONNX models. ``fanorona.gym`` and ``fanorona.pettingzoo``
wrap the game for Gymnasium and PettingZoo (optional extras).
"""

from ._fanorona import (
    Engine,
    Game,
    Net,
    VecEnv,
    __version__,
    num_actions,
    observation_shape,
    perft,
)

VARIANTS = ("tsivy", "dimy", "telo")

__all__ = [
    "Engine",
    "Game",
    "Net",
    "VARIANTS",
    "VecEnv",
    "__version__",
    "num_actions",
    "observation_shape",
    "perft",
]
