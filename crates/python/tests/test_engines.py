"""Engine and Net from Python."""

import numpy as np
import pytest

import fanorona


def test_engine_plays_legal_turns_and_analyses():
    e = fanorona.Engine("ab:depth=2")
    g = fanorona.Game("tsivy")
    for _ in range(6):
        best = e.best(g.fen())
        assert best in g.turns()
        g.play(best)
    a = e.analyze(g.fen())
    for key in ("fen", "best", "score", "pv", "depth", "nodes", "mate", "seconds", "nodes_per_second"):
        assert key in a
    assert a["fen"] == g.fen() and a["depth"] == 2 and a["best"] in g.turns()
    assert fanorona.Engine("random").best(fanorona.Game("dimy").fen()) in fanorona.Game("dimy").turns()
    with pytest.raises(ValueError, match="engine spec"):
        fanorona.Engine("ab:depth=x")
    # Telo is answered by its exact solution, whatever the spec.
    telo = fanorona.Game("telo")
    assert e.best(telo.fen()) in telo.turns()
    assert e.analyze(telo.fen())["fen"] == telo.fen()


def test_engine_by_default_is_the_strongest_player():
    e = fanorona.Engine()
    assert e.spec == "ab:time=1s,eval=release,book=release"
    g = fanorona.Game("dimy")
    a = e.analyze(g.fen())
    # The dimy start is in the release's opening book: played without a search.
    assert a["best"] in g.turns() and a["nodes"] == 0 and a["score"] is not None


def test_net_evaluates_observations():
    try:
        net = fanorona.Net.release("tsivy")
    except ValueError as e:
        pytest.skip(f"no release network: {e}")
    assert net.variant == "tsivy"
    env = fanorona.VecEnv("tsivy", 5)
    obs, mask = env.reset()
    policy, wdl = net.evaluate(obs)
    assert policy.shape == (5, 1081) and wdl.shape == (5, 3)
    np.testing.assert_allclose(wdl.sum(axis=1), 1.0, rtol=1e-5)
    # The same network through an Engine and through Net: a legal favourite.
    best = int(np.argmax(np.where(mask[0], policy[0], -np.inf)))
    assert mask[0, best]
    with pytest.raises(ValueError, match="shape"):
        net.evaluate(np.zeros((2, 11, 5, 5), dtype=np.float32))
    with pytest.raises(ValueError, match="no/such/dir"):
        fanorona.Net("no/such/dir")
