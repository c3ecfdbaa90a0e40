"""A random agent over VecEnv: 1 024 games of tsivy stepped together, actions drawn from
the legal-action masks with numpy, finished games restarted automatically."""

import numpy as np

import fanorona

env = fanorona.VecEnv("tsivy", num_envs=1024, seed=0)
obs, mask = env.reset()
rng = np.random.default_rng(0)
finished = wins = 0
for _ in range(200):
    # A random legal action per game: random scores, the illegal ones masked out.
    actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
    obs, mask, reward, terminated, truncated = env.step(actions)
    finished += int(terminated.sum())
    wins += int((reward > 0).sum())
print(f"{finished} games finished, {wins} won by the player who made the last move")
