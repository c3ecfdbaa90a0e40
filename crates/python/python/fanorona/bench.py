"""``python -m fanorona.bench``: VecEnv steps a second at 1, 64 and 1 024 environments,
and the PettingZoo environment ``fanorona-aec`` (PyPI; it needs ``pettingzoo==1.24.3``)
in the same run, stepped by its own loop with random legal actions.

``--json`` prints one line of JSON; ``--seconds S`` sets the time of each measurement.
"""

import argparse
import json
import time

from . import VecEnv


def vecenv_steps_per_second(num_envs: int, seconds: float, variant: str = "tsivy") -> float:
    """Env steps a second of random legal play (actions drawn in Rust from the masks)."""
    env = VecEnv(variant, num_envs, seed=1)
    env.reset()
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(16):
            env.step(env.sample_actions())
        steps += 16 * num_envs
    return steps / (time.perf_counter() - t0)


def aec_steps_per_second(seconds: float):
    """Steps a second of fanorona-aec (tsivy) with random legal actions, or None."""
    try:
        from env.fanorona_env import env as make  # fanorona-aec's module
    except Exception:  # noqa: BLE001 - not installed, or an incompatible pettingzoo
        return None
    e = make()
    e.reset(seed=0)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            a = None if term or trunc else e.action_space(agent).sample(obs["action_mask"])
            e.step(a)
            steps += 1
            if time.perf_counter() - t0 >= seconds:
                break
        e.reset()
    return steps / (time.perf_counter() - t0)


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m fanorona.bench", description=__doc__)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    out = {f"vecenv_{n}": vecenv_steps_per_second(n, a.seconds) for n in (1, 64, 1024)}
    out["fanorona_aec"] = aec_steps_per_second(a.seconds)
    if out["fanorona_aec"]:
        out["ratio_1024_to_aec"] = out["vecenv_1024"] / out["fanorona_aec"]
    if a.json:
        print(json.dumps(out))
        return
    for n in (1, 64, 1024):
        print(f"VecEnv tsivy, {n:>4} envs: {out[f'vecenv_{n}']:>12,.0f} steps/s")
    if out["fanorona_aec"] is None:
        print("fanorona-aec: not installed (pip install fanorona-aec 'pettingzoo==1.24.3')")
    else:
        print(f"fanorona-aec:            {out['fanorona_aec']:>12,.0f} steps/s")
        print(f"ratio (1024 envs / fanorona-aec): {out['ratio_1024_to_aec']:,.0f}x")


if __name__ == "__main__":
    main()
