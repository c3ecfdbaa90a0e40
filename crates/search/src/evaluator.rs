//! What MCTS asks of a position: priors over its legal actions and a WDL value.

use fanorona_rules::{Color, Game, Outcome};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Where an [`Evaluator`] writes its answers for a batch: for position `i`, a probability
/// for each of its legal actions, in their order, into `priors[i]` (cleared by the
/// caller), and its WDL into `wdl[i]`.
#[derive(Debug)]
pub struct Outputs<'a> {
    /// The priors, one vector a position.
    pub priors: &'a mut [Vec<f32>],
    /// The values, one a position.
    pub wdl: &'a mut [[f32; 3]],
}

impl<'a> Outputs<'a> {
    /// The answers of a batch go to `priors` and `wdl`.
    pub fn new(priors: &'a mut [Vec<f32>], wdl: &'a mut [[f32; 3]]) -> Outputs<'a> {
        Outputs { priors, wdl }
    }
}

/// A batched position evaluator (a network, or the simple ones below for tests).
///
/// Values are WDL from the point of view of the player to move in each position:
/// `[win, draw, loss]`, summing to 1.
pub trait Evaluator<G: Game> {
    /// Evaluates a batch in one call. For position `i`, `legal[i]` lists its legal action
    /// indices; the answers go to `out` (see [`Outputs`]).
    fn evaluate(&mut self, games: &[&G], legal: &[&[usize]], out: Outputs<'_>);
}

/// Uniform priors and a fixed value (by default a sure draw): measures the tree's own
/// cost, and lets search be driven by exact terminal values only.
#[derive(Clone, Copy, Debug)]
pub struct UniformEvaluator {
    /// The WDL returned for every position.
    pub wdl: [f32; 3],
}

impl Default for UniformEvaluator {
    fn default() -> Self {
        UniformEvaluator {
            wdl: [0.0, 1.0, 0.0],
        }
    }
}

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(&mut self, _games: &[&G], legal: &[&[usize]], out: Outputs<'_>) {
        let Outputs { priors, wdl } = out;
        for ((l, p), w) in legal.iter().zip(priors.iter_mut()).zip(wdl.iter_mut()) {
            let u = 1.0 / l.len().max(1) as f32;
            p.extend(std::iter::repeat_n(u, l.len()));
            *w = self.wdl;
        }
    }
}

/// Uniform priors; the value is the result of random playouts to the end of the game.
#[derive(Clone, Debug)]
pub struct RolloutEvaluator {
    rng: SmallRng,
    /// Playouts per evaluated position.
    pub playouts: u32,
    /// Give up a playout (a draw) after this many actions.
    pub max_actions: u32,
}

impl RolloutEvaluator {
    /// A rollout evaluator with its own seeded stream.
    pub fn new(seed: u64, playouts: u32) -> RolloutEvaluator {
        RolloutEvaluator {
            rng: SmallRng::seed_from_u64(seed),
            playouts,
            max_actions: 1000,
        }
    }
}

impl<G: Game> Evaluator<G> for RolloutEvaluator {
    fn evaluate(&mut self, games: &[&G], legal: &[&[usize]], out: Outputs<'_>) {
        let Outputs { priors, wdl } = out;
        let mut acts = Vec::new();
        for i in 0..games.len() {
            let u = 1.0 / legal[i].len().max(1) as f32;
            priors[i].extend(std::iter::repeat_n(u, legal[i].len()));
            let me = games[i].to_move();
            let mut sum = [0.0f32; 3];
            for _ in 0..self.playouts {
                let mut g = games[i].clone();
                let mut n = 0;
                let result = loop {
                    if let Some(o) = g.outcome() {
                        break o;
                    }
                    if n >= self.max_actions {
                        break Outcome::Draw;
                    }
                    g.legal_actions(&mut acts);
                    g.apply(acts[self.rng.random_range(0..acts.len())]);
                    n += 1;
                };
                sum[wdl_index(result, me)] += 1.0;
            }
            let n = self.playouts.max(1) as f32;
            wdl[i] = sum.map(|s| s / n);
        }
    }
}

/// 0 win, 1 draw, 2 loss, for `me`.
pub fn wdl_index(o: Outcome, me: Color) -> usize {
    match o {
        Outcome::Win(c) if c == me => 0,
        Outcome::Draw => 1,
        Outcome::Win(_) => 2,
    }
}
