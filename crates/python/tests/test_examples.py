"""The README's examples run (the PyTorch one with a numpy policy of the same shape where
torch is not installed)."""

import os
import runpy

import numpy as np

import fanorona

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")


def test_random_agent_example(capsys):
    runpy.run_path(os.path.join(EXAMPLES, "random_agent.py"), run_name="__main__")
    assert "games finished" in capsys.readouterr().out


def test_policy_against_engine_example():
    ex = runpy.run_path(os.path.join(EXAMPLES, "torch_policy_vs_engine.py"))
    c, h, w = fanorona.observation_shape("dimy")
    weights = np.random.default_rng(0).standard_normal((c * h * w, fanorona.num_actions("dimy")))

    def act(game):
        logits = game.observation().reshape(-1) @ weights
        logits[~game.action_mask()] = -np.inf
        return int(np.argmax(logits))

    score = ex["evaluate"](act, fanorona.Engine("ab:depth=2"), games=2)
    assert 0.0 <= score <= 2.0
