"""VecEnv: random games where every action is in the mask, results and observations
equal to Game's for the same positions, automatic reset, and its speed's order."""

import numpy as np

import fanorona


def test_random_games_match_game():
    for variant in ("tsivy", "dimy", "telo"):
        n = 16
        env = fanorona.VecEnv(variant, n, seed=5)
        obs, mask = env.reset()
        c, h, w = env.observation_shape
        assert obs.shape == (n, c, h, w) and obs.dtype == np.float32
        assert mask.shape == (n, fanorona.num_actions(variant)) and mask.dtype == np.bool_
        games = [fanorona.Game(variant) for _ in range(n)]
        rng = np.random.default_rng(1)
        finished = 0
        for _ in range(400):
            for i, g in enumerate(games):
                assert env.fens()[i] == g.fen()
                np.testing.assert_array_equal(obs[i], g.observation())
                np.testing.assert_array_equal(mask[i], g.action_mask())
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask], dtype=np.int64)
            assert all(mask[i, a] for i, a in enumerate(actions))
            movers = [g.side() for g in games]
            obs, mask, reward, terminated, truncated = env.step(actions)
            assert reward.dtype == np.float32 and not truncated.any()
            for i, g in enumerate(games):
                g.step(int(actions[i]))
                assert terminated[i] == (g.result() != "ongoing")
                if terminated[i]:
                    finished += 1
                    r = g.result()
                    expected = 0.0 if r == "draw" else (1.0 if r == movers[i] else -1.0)
                    assert reward[i] == expected
                    games[i] = fanorona.Game(variant)
                else:
                    assert reward[i] == 0.0
        assert finished > 0, variant


def test_reset_and_sampling():
    env = fanorona.VecEnv("dimy", 8, seed=2)
    a = env.sample_actions()
    _, mask = env.reset()
    assert all(mask[i, x] for i, x in enumerate(env.sample_actions()))
    env.step(a.tolist())  # a list works too
    obs, _ = env.reset(seed=2)
    assert set(env.fens()) == {fanorona.Game("dimy").fen()}
    np.testing.assert_array_equal(obs[0], fanorona.Game("dimy").observation())
    # int32 actions are accepted.
    env.step(env.sample_actions().astype(np.int32))
