"""The rules through Python: perft on the published figures, Game's API, bad input."""

import os

import numpy as np
import pytest

import fanorona

RULES_OF_LABEL = {
    "tsivy": None,
    "dimy": None,
    "tsivy-reply-single": {"reply_chains": False},
    "tsivy-vela-black": {"vela": "black"},
    "dimy-vela-black": {"vela": "black"},
    "tsivy-vela-white-kely": {"vela": "white", "vela_form": "kely"},
    "dimy-vela-white-kely": {"vela": "white", "vela_form": "kely"},
    "tsivy-vela-black-kely": {"vela": "black", "vela_form": "kely"},
    "dimy-vela-black-kely": {"vela": "black", "vela_form": "kely"},
}


def fixtures(repo):
    path = os.path.join(repo, "crates", "rules", "tests", "data", "perft.txt")
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            label, fen, counts = (x.strip() for x in line.split("|"))
            if label in RULES_OF_LABEL:
                yield label, fen, [int(c) for c in counts.split()]


def test_perft_equals_the_published_figures(repo):
    checked = 0
    for label, fen, counts in fixtures(repo):
        for depth, expected in enumerate(counts, start=1):
            if expected > 200_000:
                break
            assert fanorona.perft(fen, depth, RULES_OF_LABEL[label]) == expected, (label, fen, depth)
            checked += 1
    assert checked >= 60
    assert fanorona.perft("tsivy", 2) == 39
    assert [fanorona.perft("telo", d) for d in (1, 2, 3)] == [9, 72, 504]


def test_a_game_by_turns_and_by_steps():
    g = fanorona.Game()
    assert (g.variant, g.side(), g.result()) == ("tsivy", "white", "ongoing")
    assert g.num_actions == 1081 and g.observation_shape == (11, 5, 9)
    assert len(g.turns()) == 5
    h = g.copy()
    g.play(g.turns()[0])
    assert g.side() == "black" and h.side() == "white", "copies are independent"
    # Step level: a whole game of random legal actions, the mask equal to actions().
    rng = np.random.default_rng(3)
    steps = 0
    while g.result() == "ongoing":
        acts = g.actions()
        mask = g.action_mask()
        assert mask.dtype == np.bool_ and mask.shape == (1081,)
        assert list(np.flatnonzero(mask)) == acts
        obs = g.observation()
        assert obs.dtype == np.float32 and obs.shape == (11, 5, 9)
        assert obs.min() >= 0.0 and obs.max() <= 1.0
        a = int(rng.choice(acts))
        assert isinstance(g.action_name(a), str)
        g.step(a)
        steps += 1
    assert g.result() in ("white", "black", "draw") and steps > 10
    assert g.actions() == [] and not g.action_mask().any()


def test_telo_and_dimy_and_fen():
    t = fanorona.Game("telo")
    assert t.num_actions == 81 and len(t.turns()) == 9
    t.play(t.turns()[4])
    assert t.side() == "black"
    d = fanorona.Game("dimy")
    assert d.observation_shape == (11, 5, 5)
    again = fanorona.Game(fen=d.fen())
    assert again.fen() == d.fen() and again.variant == "dimy"
    v = fanorona.Game("tsivy", rules={"vela": "black", "vela_form": "kely"})
    assert v.result() == "ongoing"


def test_bad_input_raises_value_error_naming_it():
    cases = [
        (lambda: fanorona.Game("chess"), "chess"),
        (lambda: fanorona.Game(fen="not a fen"), "not a fen"),
        (lambda: fanorona.Game("telo", fen=fanorona.Game("dimy").fen()), "telo"),
        (lambda: fanorona.Game(rules={"vela": "purple"}), "purple"),
        (lambda: fanorona.Game(rules={"nonsense": 1}), "nonsense"),
        (lambda: fanorona.Game().play("a1a9"), "a1a9"),
        (lambda: fanorona.Game().step(7), "7"),
        (lambda: fanorona.Game().action_name(99999), "99999"),
        (lambda: fanorona.perft("xyz", 2), "xyz"),
        (lambda: fanorona.VecEnv("tsivy", 0), "num_envs"),
        (lambda: fanorona.VecEnv("tsivy", 2).step([0]), "actions"),
        (lambda: fanorona.VecEnv("tsivy", 2).step([0, 0]), "not legal"),
        (lambda: fanorona.VecEnv("tsivy", 2).step([-1, 0]), "negative"),
    ]
    for f, needle in cases:
        with pytest.raises(ValueError) as e:
            f()
        assert needle in str(e.value), (needle, str(e.value))


def test_an_error_quotes_a_huge_input_briefly():
    huge = "W" * (5 << 20)
    cases = [
        lambda: fanorona.Game(huge),
        lambda: fanorona.Game(fen=huge),
        lambda: fanorona.Game(rules={"vela": huge}),
        lambda: fanorona.Game(rules={huge: 1}),
        lambda: fanorona.Game().play(huge),
        lambda: fanorona.perft(huge, 2),
        lambda: fanorona.Engine(huge),
        lambda: fanorona.Engine("ab:depth=" + huge),
        lambda: fanorona.Engine("ab:depth=2").best(huge),
        lambda: fanorona.Net(huge),
    ]
    for i, f in enumerate(cases):
        with pytest.raises(ValueError) as e:
            f()
        assert 0 < len(str(e.value)) <= 300, (i, len(str(e.value)), str(e.value)[:300])


def test_play_inside_a_chain_is_refused():
    # Find a capture chain by random steps: while it continues, turns()/play() refuse.
    rng = np.random.default_rng(0)
    for _ in range(50):
        g = fanorona.Game()
        while g.result() == "ongoing":
            side = g.side()
            g.step(int(rng.choice(g.actions())))
            if g.result() == "ongoing" and g.side() == side:
                with pytest.raises(ValueError, match="capture chain"):
                    g.turns()
                return
    pytest.fail("no capture chain in 50 random games")
