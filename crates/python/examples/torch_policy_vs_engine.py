"""A PyTorch policy (here an untrained one) against the alpha-beta engine at depth 2, ten
games of dimy with colours alternating: the policy acts step by step on masked logits,
the engine plays whole turns."""

import numpy as np

import fanorona


def evaluate(act, engine, variant="dimy", games=10):
    """Points the policy `act(game) -> action id` scores against `engine` (1 a win, 0.5 a
    draw), colours alternating."""
    score = 0.0
    for i in range(games):
        g = fanorona.Game(variant)
        me = "white" if i % 2 == 0 else "black"
        while g.result() == "ongoing":
            if g.side() == me:
                g.step(act(g))
            else:
                g.play(engine.best(g.fen()))
        score += 1.0 if g.result() == me else 0.5 if g.result() == "draw" else 0.0
    return score


def main():
    import torch

    c, h, w = fanorona.observation_shape("dimy")
    policy = torch.nn.Sequential(
        torch.nn.Flatten(),
        torch.nn.Linear(c * h * w, 256),
        torch.nn.ReLU(),
        torch.nn.Linear(256, fanorona.num_actions("dimy")),
    )

    def act(game):
        with torch.no_grad():
            logits = policy(torch.from_numpy(game.observation()[None]))[0].numpy()
        logits[~game.action_mask()] = -np.inf
        return int(np.argmax(logits))

    score = evaluate(act, fanorona.Engine("ab:depth=2"))
    print(f"the policy scored {score} of 10 against ab:depth=2")


if __name__ == "__main__":
    main()
