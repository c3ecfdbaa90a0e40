"""The Gymnasium and PettingZoo wrappers pass their libraries' own API checkers."""

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import fanorona
import fanorona.gym  # noqa: F401 - registers the environments
import fanorona.pettingzoo


def test_gymnasium_env_checker_and_an_episode():
    for variant, opponent in (("dimy", None), ("tsivy", fanorona.Engine("ab:depth=1")), ("telo", None), ("telo", fanorona.Engine("ab:depth=1"))):
        env = fanorona.gym.FanoronaEnv(variant, opponent=opponent)
        check_env(env, skip_render_check=True)
    env = gymnasium.make("Fanorona-dimy-v0", opponent="ab:depth=1", agent="black")
    obs, info = env.reset(seed=4)
    assert env.observation_space.contains(obs)
    total, done = 0.0, False
    while not done:
        a = env.action_space.sample(mask=info["action_mask"])
        obs, r, term, trunc, info = env.step(a)
        total += r
        done = term or trunc
    assert total in (-1.0, 0.0, 1.0) and "illegal_action" not in info
    # An illegal action ends the episode with the penalty.
    env.reset(seed=0)
    _, r, term, _, info = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert term and r == -1.0 and info["illegal_action"]


def test_pettingzoo_api_test():
    for variant in ("dimy", "telo", "tsivy"):
        api_test(fanorona.pettingzoo.env(variant), num_cycles=200)
