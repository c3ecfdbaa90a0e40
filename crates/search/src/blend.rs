//! A value that mixes an evaluator's with a shallow alpha-beta search's.
//!
//! MCTS over single steps sees the opponent's reply chains late: a capture of four
//! pieces is four levels down the tree, and a few hundred simulations often do not get
//! there. A shallow alpha-beta search with its capture quiescence sees such replies at
//! once. [`AbBlend`] evaluates each leaf with both and mixes the values (the priors are
//! the inner evaluator's): the tactics come from the search, the judgement of quiet
//! positions from the network.

use crate::ab::{AbConfig, AlphaBeta, Limits};
use crate::evaluator::{Evaluator, Outputs};
use fanorona_eval::LearnedEval;
use fanorona_eval::{MATE, MATE_BOUND};
use fanorona_rules::{Color, Game, Outcome, Position};
use fanorona_tb::Tablebase;
use std::sync::Arc;

/// Settings of [`AbBlend`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlendConfig {
    /// Depth in turns of the alpha-beta search at each leaf (quiescence comes on top).
    pub depth: u32,
    /// Weight of the search's value, 0 to 1 (0: the inner evaluator alone).
    pub weight: f32,
    /// Score, in hundredths of a piece, that maps to a win probability of 1 / (1 + e^-1)
    /// (about 73 %): the logistic scale from scores to values.
    pub scale: f32,
}

impl Default for BlendConfig {
    fn default() -> Self {
        BlendConfig {
            depth: 1,
            weight: 0.5,
            scale: 150.0,
        }
    }
}

/// An alpha-beta score (hundredths of a piece, or a mate score) as a WDL for the same
/// side: a win probability `1 / (1 + e^(-score / scale))`, certainty at mate scores, and
/// no mass on the draw (the score says who is better, not how drawish the position is).
pub fn score_wdl(score: i32, scale: f32) -> [f32; 3] {
    let p = if score > MATE_BOUND {
        1.0
    } else if score < -MATE_BOUND {
        0.0
    } else {
        1.0 / (1.0 + (-(score as f32) / scale).exp())
    };
    [p, 0.0, 1.0 - p]
}

/// An evaluator whose values are mixed with an alpha-beta search's. The search is over
/// whole turns; inside a capture chain its value is the best way to end the turn.
#[derive(Debug)]
pub struct AbBlend<E> {
    /// The evaluator that gives the priors and the other part of the value.
    pub inner: E,
    cfg: BlendConfig,
    /// Made at the first search, so that a blend of weight 0 (the network alone) costs
    /// no transposition table.
    ab: Option<AlphaBeta>,
    /// The learned evaluation its searches use (`None`: the hand-written one).
    learned: Option<Arc<LearnedEval>>,
    /// Endgame tables its searches probe.
    tb: Option<Arc<Tablebase>>,
}

impl<E> AbBlend<E> {
    /// Mixes `inner` with a search of `cfg.depth` turns.
    pub fn new(inner: E, cfg: BlendConfig) -> AbBlend<E> {
        AbBlend {
            inner,
            cfg,
            ab: None,
            learned: None,
            tb: None,
        }
    }

    /// The same blend whose searches score the positions endgame tables cover exactly.
    pub fn with_tables(mut self, tb: Option<Arc<Tablebase>>) -> AbBlend<E> {
        self.tb = tb;
        self.ab = None;
        self
    }

    /// The same blend searching with a learned evaluation (see [`fanorona_eval::learned`]).
    pub fn with_learned(mut self, learned: Option<Arc<LearnedEval>>) -> AbBlend<E> {
        self.learned = learned;
        self.ab = None;
        self
    }

    /// The settings.
    pub fn config(&self) -> &BlendConfig {
        &self.cfg
    }

    /// Mixes the search's value of `pos` into `v` (a WDL for the side to move), unless
    /// the game is over there.
    pub fn mix(&mut self, pos: &Position, v: &mut [f32; 3]) {
        let w = self.cfg.weight;
        if w <= 0.0 || pos.outcome().is_some() {
            return;
        }
        let s = self.search_wdl(pos);
        for (x, y) in v.iter_mut().zip(s) {
            *x = (1.0 - w) * *x + w * y;
        }
    }

    /// The search's WDL for the side to move in `pos` (draws get no mass: the score
    /// says who is better, not how drawish the position is). Inside a capture chain the
    /// rest of the turn is enumerated and each way of ending it searched: the mover's
    /// best is the value.
    pub fn search_wdl(&mut self, pos: &Position) -> [f32; 3] {
        let score = self.score(pos, pos.side_to_move());
        score_wdl(score, self.cfg.scale)
    }

    /// The score of `pos` for `mover`: a search at a turn boundary, the best completion
    /// of the turn inside a chain, an exact score where the game is over.
    fn score(&mut self, pos: &Position, mover: Color) -> i32 {
        let for_mover = |s: i32, side: Color| if side == mover { s } else { -s };
        if let Some(o) = pos.outcome() {
            return match o {
                Outcome::Win(c) => for_mover(MATE, c),
                Outcome::Draw => 0,
            };
        }
        if pos.chain().is_none() {
            let (learned, tb) = (&self.learned, &self.tb);
            let ab = self.ab.get_or_insert_with(|| {
                AlphaBeta::new(AbConfig {
                    hash_mb: 8,
                    learned: learned.clone(),
                    tb: tb.clone(),
                    // Full width, as the blend was measured with.
                    selective: false,
                    ..AbConfig::default()
                })
            });
            let r = ab.search_position(
                pos,
                &Limits {
                    depth: Some(self.cfg.depth),
                    ..Limits::default()
                },
            );
            return for_mover(r.score, pos.side_to_move());
        }
        let mut actions = Vec::new();
        pos.legal_actions(&mut actions);
        let mut best = i32::MIN;
        for a in actions {
            let mut child = *pos;
            child.apply(a);
            best = best.max(self.score(&child, mover));
        }
        best
    }
}

impl<E: Evaluator<Position>> Evaluator<Position> for AbBlend<E> {
    fn evaluate(&mut self, games: &[&Position], legal: &[&[usize]], out: Outputs<'_>) {
        let Outputs { priors, wdl } = out;
        self.inner.evaluate(games, legal, Outputs::new(priors, wdl));
        for (pos, v) in games.iter().zip(wdl.iter_mut()) {
            self.mix(pos, v);
        }
    }
}

thread_local! {
    /// Each thread's blend ([`with_thread_blend`]).
    static BLEND: crate::guard::Kept<AbBlend<()>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's blend (an [`AbBlend`] without an evaluator of its own:
/// [`AbBlend::mix`] alone) for `cfg` and `learned`, made on first use and again when either
/// changes: what leaf values spread over threads (self-play's batches) are mixed with.
pub fn with_thread_blend<R>(
    cfg: BlendConfig,
    learned: &Option<Arc<LearnedEval>>,
    f: impl FnOnce(&mut AbBlend<()>) -> R,
) -> R {
    BLEND.with(|kept| {
        crate::guard::with_kept(
            kept,
            learned,
            |b| *b.config() == cfg,
            || AbBlend::new((), cfg).with_learned(learned.clone()),
            f,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::UniformEvaluator;
    use fanorona_rules::{RuleOptions, Variant};

    fn eval(blend: &mut AbBlend<UniformEvaluator>, fen: &str) -> ([f32; 3], Vec<f32>) {
        let pos: Position = Position::from_fen(fen, RuleOptions::default()).unwrap();
        let mut legal = Vec::new();
        pos.legal_actions(&mut legal);
        let mut priors = vec![Vec::new()];
        let mut wdl = [[0.0; 3]];
        blend.evaluate(&[&pos], &[&legal], Outputs::new(&mut priors, &mut wdl));
        (wdl[0], priors.pop().unwrap())
    }

    #[test]
    fn the_side_behind_in_material_is_valued_as_losing() {
        // White to move with 4 pieces against 8 (a position from a dimy arena game);
        // White's best turn takes 3 back, and Black stays a piece or so ahead.
        let mut blend = AbBlend::new(UniformEvaluator::default(), BlendConfig::default());
        let (v, priors) = eval(&mut blend, "BB1B1/B1B2/BW1B1/5/WWBW1 w 0 4");
        assert!((v.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        // The inner evaluator's priors are kept: uniform.
        assert!(priors.iter().all(|&p| (p - priors[0]).abs() < 1e-6));
        // Half the inner draw, half the search's verdict: Black ahead.
        assert!((v[1] - 0.5).abs() < 1e-5, "{v:?}");
        assert!(v[2] > v[0] + 0.1, "{v:?}");
    }

    #[test]
    fn weight_zero_is_the_inner_evaluator() {
        let mut blend = AbBlend::new(
            UniformEvaluator::default(),
            BlendConfig {
                weight: 0.0,
                ..BlendConfig::default()
            },
        );
        let (v, _) = eval(&mut blend, "BB1B1/B1B2/BW1B1/5/WWBW1 w 0 4");
        assert_eq!(v, [0.0, 1.0, 0.0]);
    }

    /// The mover's win probability by the search, ending the turn every way by hand.
    fn by_hand(blend: &mut AbBlend<UniformEvaluator>, pos: &Position) -> f32 {
        if pos.chain().is_none() {
            return blend.search_wdl(pos)[0];
        }
        let mut legal = Vec::new();
        pos.legal_actions(&mut legal);
        legal
            .into_iter()
            .map(|a| {
                let mut c = *pos;
                c.apply(a);
                if c.to_move() == pos.to_move() {
                    by_hand(blend, &c)
                } else {
                    1.0 - by_hand(blend, &c)
                }
            })
            .fold(0.0, f32::max)
    }

    #[test]
    fn inside_a_chain_the_value_is_the_best_end_of_the_turn() {
        // The first chains of games that always play their last or first legal action.
        for pick_last in [true, false] {
            let mut blend = AbBlend::new(UniformEvaluator::default(), BlendConfig::default());
            let mut pos = Position::start(Variant::Dimy, RuleOptions::default());
            let mut legal = Vec::new();
            while pos.chain().is_none() {
                assert!(pos.outcome().is_none(), "the game ended without a chain");
                pos.legal_actions(&mut legal);
                pos.apply(if pick_last {
                    legal[legal.len() - 1]
                } else {
                    legal[0]
                });
            }
            let v = blend.search_wdl(&pos);
            assert!((v[0] - by_hand(&mut blend, &pos)).abs() < 1e-6, "{v:?}");
        }
    }

    #[test]
    fn search_with_blended_values_avoids_the_reply_chain() {
        // White to move. a1a2 (taking three) and d1d2 keep the game about even; the
        // network's search with 400 simulations played b3c3-b4 here and lost to Black's
        // reply chain, which a one-turn search with quiescence sees at once. With the
        // search's values and uniform priors, MCTS keeps to the even ones.
        let pos =
            Position::from_fen("BB1B1/B1B2/BW1B1/5/WWBW1 w 0 4", RuleOptions::default()).unwrap();
        let mut blend = AbBlend::new(
            UniformEvaluator::default(),
            BlendConfig {
                weight: 1.0,
                ..BlendConfig::default()
            },
        );
        let mut tree = crate::Mcts::new(pos, crate::MctsConfig::default(), 1);
        tree.run(&mut blend, 400);
        let a = tree.choose(0.0).expect("a legal action");
        let name = pos.action_name(a);
        assert!(["a1a2(+)", "d1d2(+)"].contains(&name.as_str()), "{name}");
    }
}
