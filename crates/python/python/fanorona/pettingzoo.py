"""A PettingZoo AEC environment: ``fanorona.pettingzoo.env(variant="tsivy")``.

Agents ``"white"`` and ``"black"``; the agent to act is the player to move, who may act
several times in a row inside a capture chain. Each observation is a dict: the planes
``"observation"`` ``(C, H, W)`` float32 in the mover's frame and ``"action_mask"``
(int8, all zeros for the agent not to act). Rewards: +1 to the winner, -1 to the loser,
0 for a draw. Needs ``pettingzoo`` (``pip install "fanorona[pettingzoo]"``).
"""

from typing import Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import VARIANTS, Game, observation_shape
from . import num_actions as _num_actions


class raw_env(AECEnv):
    """The unwrapped environment (see :func:`env`)."""

    metadata = {"render_modes": ["ansi"], "name": "fanorona_v0", "is_parallelizable": False}

    def __init__(self, variant: str = "tsivy", rules: Optional[dict] = None, render_mode=None):
        super().__init__()
        if variant not in VARIANTS:
            raise ValueError(f"variant {variant!r}: expected one of {VARIANTS}")
        self.variant = variant
        self.rules = rules
        self.render_mode = render_mode
        self.possible_agents = ["white", "black"]
        n = _num_actions(variant)
        obs = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, shape=observation_shape(variant), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(n,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self.game = Game(variant, rules=rules)

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        if self.game.result() == "ongoing" and agent == self.game.side():
            mask = self.game.action_mask().astype(np.int8)
        return {"observation": self.game.observation(), "action_mask": mask}

    def reset(self, seed=None, options=None):
        self.game = Game(self.variant, fen=(options or {}).get("fen"), rules=self.rules)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.game.side()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.game.step(int(action))
        result = self.game.result()
        self.rewards = {a: 0.0 for a in self.agents}
        if result != "ongoing":
            for a in self.agents:
                self.terminations[a] = True
                if result != "draw":
                    self.rewards[a] = 1.0 if a == result else -1.0
        self.agent_selection = self.game.side()
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            print(self.render())

    def render(self):
        return f"{self.game}\n{self.game.fen()}"

    def close(self):
        pass


def env(variant: str = "tsivy", rules: Optional[dict] = None, render_mode=None):
    """The AEC environment with PettingZoo's standard wrappers (an illegal action ends
    the game with -1 to the agent who made it)."""
    e = raw_env(variant, rules, render_mode)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e
