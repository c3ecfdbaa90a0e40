"""Gymnasium environments ``Fanorona-tsivy-v0``, ``Fanorona-dimy-v0``, ``Fanorona-telo-v0``.

One agent against an opponent: an :class:`fanorona.Engine` (or its spec, such as
``"ab:depth=2"``), or ``None`` for uniformly random turns drawn from the environment's
own seeded generator. The agent acts one step at a time (a capture chain is several
steps, and the agent may act several times in a row); the opponent plays whole turns.

- Observation: the planes ``(C, H, W)`` float32 in ``[0, 1]``, in the agent's frame.
- Action: ``Discrete(num_actions)``; ``info["action_mask"]`` (int8) marks the legal
  ones, for ``env.action_space.sample(mask=info["action_mask"])``.
- Reward: +1 when the agent wins, -1 when it loses, 0 otherwise. An illegal action ends
  the episode with ``illegal_reward`` (default -1) and ``info["illegal_action"]``.

Needs ``gymnasium`` (``pip install "fanorona[gym]"``)::

    import gymnasium, fanorona.gym
    env = gymnasium.make("Fanorona-tsivy-v0", opponent="ab:depth=2")
"""

from typing import Any, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from . import VARIANTS, Engine, Game, observation_shape
from . import num_actions as _num_actions


class FanoronaEnv(gymnasium.Env):
    """Fanorona against a fixed opponent."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        variant: str = "tsivy",
        opponent: Union[Engine, str, None] = None,
        agent: str = "white",
        illegal_reward: float = -1.0,
        rules: Optional[dict] = None,
        render_mode: Optional[str] = None,
    ):
        if variant not in VARIANTS:
            raise ValueError(f"variant {variant!r}: expected one of {VARIANTS}")
        if agent not in ("white", "black"):
            raise ValueError(f"agent {agent!r}: expected 'white' or 'black'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: expected 'ansi' or None")
        if isinstance(opponent, str):
            opponent = Engine(opponent, rules)
        self.variant = variant
        self.opponent = opponent
        self.agent = agent
        self.illegal_reward = float(illegal_reward)
        self.rules = rules
        self.render_mode = render_mode
        self.observation_space = spaces.Box(
            0.0, 1.0, shape=observation_shape(variant), dtype=np.float32
        )
        self.action_space = spaces.Discrete(_num_actions(variant))
        self.game = Game(variant, rules=rules)

    def _opponent_moves(self) -> None:
        while self.game.result() == "ongoing" and self.game.side() != self.agent:
            if self.opponent is None:
                turns = self.game.turns()
                turn = turns[int(self.np_random.integers(len(turns)))]
            else:
                turn = self.opponent.best(self.game.fen())
            self.game.play(turn)

    def _info(self, **extra: Any) -> dict:
        mask = self.game.action_mask().astype(np.int8)
        if self.game.result() != "ongoing":
            mask[:] = 0
        return {"action_mask": mask, "fen": self.game.fen(), **extra}

    def _reward(self) -> float:
        r = self.game.result()
        if r in ("ongoing", "draw"):
            return 0.0
        return 1.0 if r == self.agent else -1.0

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        fen = (options or {}).get("fen")
        self.game = Game(self.variant, fen=fen, rules=self.rules)
        self._opponent_moves()
        return self.game.observation(), self._info()

    def step(self, action):
        action = int(action)
        if self.game.result() != "ongoing":
            raise RuntimeError("step() after the episode ended: call reset()")
        if action not in self.game.actions():
            return (
                self.game.observation(),
                self.illegal_reward,
                True,
                False,
                self._info(illegal_action=True),
            )
        self.game.step(action)
        self._opponent_moves()
        terminated = self.game.result() != "ongoing"
        return self.game.observation(), self._reward(), terminated, False, self._info()

    def render(self):
        if self.render_mode == "ansi":
            return f"{self.game}\n{self.game.fen()}"
        return None


for _v in VARIANTS:
    _id = f"Fanorona-{_v}-v0"
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point="fanorona.gym:FanoronaEnv", kwargs={"variant": _v})
