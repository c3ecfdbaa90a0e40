//! Fitting a [`LearnedEval`] to what deeper searches say: [`LearnedEval::fit`] fits the
//! network to labelled positions (search's `label_games` makes them) with Adam, by the
//! squared difference of win chances (the logistic of a score over [`SCALE`] hundredths
//! of a piece), as Texel's tuning does; each position is also learned mirrored left to
//! right, which the rules do not tell apart. [`BoundFit`] fits bounds (TreeStrap's
//! labels), [`graded_target`] turns a search's win scores into targets.
//!
//! Apart from [`crate::learned`] so that the evaluation, which the engine calls at every
//! leaf, carries no optimizer state.

use crate::handwritten::EvalWeights;
use crate::learned::{Features, LearnedEval, SCALE};
use crate::score::{Bound, MATE, MATE_BOUND, TB_WIN};
use fanorona_rules::Position;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;

/// Scores beyond this many hundredths of a piece count as this many in the loss (mate
/// scores become a sure win or loss).
const CLAMP: f32 = 3000.0;

/// A position and what a search scored it, for the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Labelled {
    /// The position.
    pub position: Position,
    /// Its score for the side to move, in hundredths of a piece (or a mate score).
    pub score: i32,
}

/// Settings of [`LearnedEval::fit`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitConfig {
    /// Passes over the samples.
    pub epochs: u32,
    /// Samples per step.
    pub batch: usize,
    /// Adam's step size.
    pub lr: f32,
    /// Share of the positions held out to measure the fit (not trained on).
    pub holdout: f32,
    /// Shuffling seed.
    pub seed: u64,
}

impl Default for FitConfig {
    fn default() -> Self {
        FitConfig {
            epochs: 8,
            batch: 256,
            lr: 1e-3,
            holdout: 0.05,
            seed: 1,
        }
    }
}

/// How well an evaluation predicts the labels: the mean squared difference of win chances.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FitReport {
    /// Positions trained on (each also mirrored).
    pub train: usize,
    /// Positions held out.
    pub holdout: usize,
    /// The hand-written evaluation's loss on the held-out positions.
    pub hand_loss: f64,
    /// The learned evaluation's loss on them after each pass.
    pub loss: f64,
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl LearnedEval {
    /// Fits the network to `data` (see the module's documentation), telling `progress`
    /// each pass's number and held-out loss. Positions of a side with no turn or with a
    /// chain in progress are left out.
    pub fn fit(
        &mut self,
        data: &[Labelled],
        weights: &EvalWeights,
        cfg: &FitConfig,
        progress: &mut dyn FnMut(u32, f64),
    ) -> FitReport {
        let mut rng = SmallRng::seed_from_u64(cfg.seed);
        let mut order: Vec<usize> = (0..data.len()).collect();
        order.shuffle(&mut rng);
        let held = ((data.len() as f32 * cfg.holdout) as usize).min(data.len());
        let target = |s: i32| sigmoid((s as f32).clamp(-CLAMP, CLAMP) / SCALE);
        let mut train = Vec::with_capacity(2 * (data.len() - held));
        for &i in &order[held..] {
            let d = &data[i];
            for mirror in [false, true] {
                let x = self.inputs(&d.position, weights, mirror);
                train.push((x, target(d.score), Bound::Exact));
            }
        }
        let test: Vec<(Features, f32, Bound)> = order[..held]
            .iter()
            .map(|&i| {
                let d = &data[i];
                (
                    self.inputs(&d.position, weights, false),
                    target(d.score),
                    Bound::Exact,
                )
            })
            .collect();
        let hand_loss = test
            .iter()
            .map(|(x, t, _)| (sigmoid(x.hand / SCALE) - t).powi(2) as f64)
            .sum::<f64>()
            / test.len().max(1) as f64;
        let mut adam = Adam::new(self);
        let mut loss = self.loss(&test);
        for epoch in 0..cfg.epochs {
            train.shuffle(&mut rng);
            for batch in train.chunks(cfg.batch.max(1)) {
                let (g, _) = self.gradient(batch);
                adam.step(self, &g, cfg.lr);
            }
            loss = self.loss(&test);
            progress(epoch + 1, loss);
        }
        self.quantize();
        FitReport {
            train: data.len() - held,
            holdout: held,
            hand_loss,
            loss,
        }
    }

    /// The mean loss over `set`.
    fn loss(&self, set: &[(Features, f32, Bound)]) -> f64 {
        let mut z = vec![0.0; self.hidden];
        set.iter()
            .map(|(x, t, b)| {
                let y = self.output(x, &mut z);
                bound_error(sigmoid((x.hand + 100.0 * y) / SCALE), *t, *b).powi(2) as f64
            })
            .sum::<f64>()
            / set.len().max(1) as f64
    }

    /// The loss's gradient over `batch`, laid out as the parameters are (w1, b1, w2,
    /// b2), and the batch's mean loss: the squared difference of win chances, one-sided
    /// for a bound (a prediction on the right side of a lower or upper bound costs
    /// nothing).
    fn gradient(&self, batch: &[(Features, f32, Bound)]) -> (Vec<f32>, f64) {
        let h = self.hidden;
        let (n1, nb1, nw2) = (self.w1.len(), h, h);
        let mut g = vec![0.0f32; self.params_len()];
        let mut z = vec![0.0; h];
        let d0 = 2 * self.variant.points();
        let scale = 1.0 / batch.len().max(1) as f32;
        let mut loss = 0.0f64;
        for (x, t, bound) in batch {
            let y = self.output(x, &mut z);
            let p = sigmoid((x.hand + 100.0 * y) / SCALE);
            let e = bound_error(p, *t, *bound);
            loss += (e * e) as f64;
            if e == 0.0 {
                continue;
            }
            let dy = 2.0 * e * p * (1.0 - p) * 100.0 / SCALE * scale;
            let (gw1, rest) = g.split_at_mut(n1);
            let (gb1, rest) = rest.split_at_mut(nb1);
            let (gw2, gb2) = rest.split_at_mut(nw2);
            gb2[0] += dy;
            for k in 0..h {
                if z[k] > 0.0 {
                    gw2[k] += dy * z[k];
                    let dz = dy * self.w2[k];
                    gb1[k] += dz;
                    for &i in &x.board {
                        gw1[i as usize * h + k] += dz;
                    }
                    for (j, &d) in x.dense.iter().enumerate() {
                        gw1[(d0 + j) * h + k] += dz * d;
                    }
                }
            }
        }
        (g, loss * scale as f64)
    }
}

/// How far win chance `p` is from target `t` (`p - t`), where the target is `bound` of
/// the value: a lower bound is missed only from below, an upper one only from above.
fn bound_error(p: f32, t: f32, bound: Bound) -> f32 {
    let e = p - t;
    match bound {
        Bound::Exact => e,
        Bound::Lower => e.min(0.0),
        Bound::Upper => e.max(0.0),
    }
}

/// Tree learning's value of a win in no turns, in hundredths of a piece: above every
/// score a position's pieces could earn.
pub const WIN_SCORE: i32 = 1000;
/// A win is worth this much less a turn it takes, counted from the labelled position.
pub const WIN_STEP: i32 = 10;
/// ... down to this.
pub const WIN_FLOOR: i32 = 600;

/// A search's score (for the side to move, mate scores counting turns from the
/// position) as tree learning's target, in hundredths of a piece: graded wins and losses
/// ([`WIN_SCORE`] less [`WIN_STEP`] a turn, at least [`WIN_FLOOR`]; a win by the endgame
/// tables counts its turns to the next capture), other scores clamped below a win.
pub fn graded_target(score: i32) -> i32 {
    let win = |turns: i32| (WIN_SCORE - WIN_STEP * turns.max(0)).max(WIN_FLOOR);
    if score > MATE_BOUND {
        win(MATE - score)
    } else if score < -MATE_BOUND {
        -win(MATE + score)
    } else if score > TB_WIN - 1000 {
        win(TB_WIN - score)
    } else if score < -(TB_WIN - 1000) {
        -win(TB_WIN + score)
    } else {
        score.clamp(-(WIN_FLOOR - 1), WIN_FLOOR - 1)
    }
}

/// One tree label ready to learn: the position's inputs, its target win chance and
/// which bound of the value that is.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundSample {
    /// The inputs ([`LearnedEval::inputs`]).
    pub x: Features,
    /// The target's win chance (the logistic of [`graded_target`] over [`SCALE`]).
    pub target: f32,
    /// Which bound it is.
    pub bound: Bound,
}

impl BoundSample {
    /// `pos` scored `score` (a [`Bound`] of its value), as `eval` sees it (mirrored left
    /// to right when `mirror`).
    pub fn new(
        eval: &LearnedEval,
        pos: &Position,
        score: i32,
        bound: Bound,
        weights: &EvalWeights,
        mirror: bool,
    ) -> BoundSample {
        BoundSample {
            x: eval.inputs(pos, weights, mirror),
            target: sigmoid(graded_target(score) as f32 / SCALE),
            bound,
        }
    }
}

/// Adam over a learned evaluation's weights, step by step on bounded labels (tree
/// learning), its moments kept between calls and in checkpoints.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundFit {
    adam: Adam,
}

impl BoundFit {
    /// A fresh optimizer for `eval`.
    pub fn new(eval: &LearnedEval) -> BoundFit {
        BoundFit {
            adam: Adam::new(eval),
        }
    }

    /// One step of rate `lr` on `batch`: its mean loss before the step.
    pub fn step(&mut self, eval: &mut LearnedEval, batch: &[BoundSample], lr: f32) -> f64 {
        let owned: Vec<(Features, f32, Bound)> = batch
            .iter()
            .map(|b| (b.x.clone(), b.target, b.bound))
            .collect();
        let (g, loss) = eval.gradient(&owned);
        self.adam.step(eval, &g, lr);
        eval.quantize();
        loss
    }

    /// The mean loss of `eval` over `set`.
    pub fn loss(eval: &LearnedEval, set: &[BoundSample]) -> f64 {
        let owned: Vec<(Features, f32, Bound)> = set
            .iter()
            .map(|b| (b.x.clone(), b.target, b.bound))
            .collect();
        eval.loss(&owned)
    }

    /// The optimizer's state as bytes (little-endian: the step count, then the first
    /// and second moments).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + 8 * self.adam.m.len());
        out.extend_from_slice(&self.adam.t.to_le_bytes());
        for x in self.adam.m.iter().chain(&self.adam.v) {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out
    }

    /// Reads [`BoundFit::to_bytes`]'s form for `eval`; `None` when the sizes differ.
    pub fn from_bytes(eval: &LearnedEval, bytes: &[u8]) -> Option<BoundFit> {
        let n = Adam::new(eval).m.len();
        if bytes.len() != 4 + 8 * n {
            return None;
        }
        let word = |i: usize| <[u8; 4]>::try_from(&bytes[i..i + 4]).expect("four bytes");
        let t = i32::from_le_bytes(word(0));
        let floats: Vec<f32> = (0..2 * n)
            .map(|k| f32::from_le_bytes(word(4 + 4 * k)))
            .collect();
        if t < 0 || floats.iter().any(|x| !x.is_finite()) {
            return None;
        }
        Some(BoundFit {
            adam: Adam {
                m: floats[..n].to_vec(),
                v: floats[n..].to_vec(),
                t,
            },
        })
    }
}

/// Adam's moment estimates, one per parameter.
#[derive(Clone, Debug, PartialEq)]
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

impl Adam {
    fn new(e: &LearnedEval) -> Adam {
        let n = e.params_len();
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
        }
    }

    fn step(&mut self, e: &mut LearnedEval, g: &[f32], lr: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.t += 1;
        let c1 = 1.0 - B1.powi(self.t);
        let c2 = 1.0 - B2.powi(self.t);
        for (((p, g), m), v) in e.params_mut().zip(g).zip(&mut self.m).zip(&mut self.v) {
            *m = B1 * *m + (1.0 - B1) * g;
            *v = B2 * *v + (1.0 - B2) * g * g;
            *p -= lr * (*m / c1) / ((*v / c2).sqrt() + 1e-8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate;
    use crate::learned::tests::positions;
    use fanorona_rules::Variant;
    use rand::RngExt;

    #[test]
    fn fitting_learns_a_correction_the_hand_evaluation_lacks() {
        // Labels: the hand evaluation plus half a piece for each own piece on the first
        // row seen from the side to move. The fit must get closer than the hand alone.
        let w = EvalWeights::default();
        let data: Vec<Labelled> = positions(600, 2)
            .into_iter()
            .map(|p| {
                let x = LearnedEval::features(&p, &w, false);
                let row = x.board.iter().filter(|&&i| i < 5).count() as i32;
                Labelled {
                    score: evaluate(&p, &w) + 50 * row,
                    position: p,
                }
            })
            .collect();
        let mut e = LearnedEval::new(Variant::Dimy, 8, 1);
        let cfg = FitConfig {
            epochs: 30,
            batch: 32,
            lr: 3e-3,
            holdout: 0.2,
            seed: 1,
        };
        let mut passes = 0;
        let r = e.fit(&data, &w, &cfg, &mut |_, _| passes += 1);
        assert_eq!(passes, 30);
        assert_eq!(r.holdout, 120);
        assert!(
            r.loss < r.hand_loss * 0.5,
            "learned {} hand {}",
            r.loss,
            r.hand_loss
        );
    }

    #[test]
    fn the_gradient_is_the_loss_slope() {
        let w = EvalWeights::default();
        let mut e = LearnedEval::random(Variant::Dimy, 8, 3);
        let mut rng = SmallRng::seed_from_u64(9);
        for p in e.params_mut() {
            *p += rng.random_range(-0.3..0.3);
        }
        let batch: Vec<(Features, f32, Bound)> = positions(12, 4)
            .iter()
            .map(|p| {
                (
                    e.inputs(p, &w, false),
                    rng.random_range(0.1..0.9),
                    Bound::Exact,
                )
            })
            .collect();
        let (g, loss) = e.gradient(&batch);
        assert!((loss - e.loss(&batch)).abs() < 1e-6);
        let n = e.params_len();
        // Central differences at two step sizes; a parameter whose two disagree has a
        // ReLU's kink within reach and is skipped, and a kink nearer than both (or
        // rounding) may still spoil a few: three in four of each group must agree.
        let slope = |i: usize, eps: f32| {
            let at = |d: f32| {
                let mut f = e.clone();
                *f.params_mut().nth(i).expect("a parameter") += d;
                f.loss(&batch)
            };
            (at(eps) - at(-eps)) / (2.0 * f64::from(eps))
        };
        let mut start = 0;
        for end in [e.w1.len(), e.w1.len() + e.hidden, n] {
            let (mut checked, mut agree) = (0, 0);
            for (i, &gi) in g.iter().enumerate().take(end).skip(start) {
                let (a, b) = (slope(i, 2e-3), slope(i, 1e-3));
                let tol = 3e-2 * a.abs().max(b.abs()) + 3e-6;
                if (a - b).abs() > tol {
                    continue;
                }
                checked += 1;
                if (a - f64::from(gi)).abs() < tol {
                    agree += 1;
                }
            }
            let what = format!("parameters {start}..{end}");
            assert!(checked * 2 > end - start, "{what}: {checked} checked");
            assert!(
                agree * 4 >= checked * 3,
                "{what}: {agree} of {checked} agree"
            );
            start = end;
        }
    }

    #[test]
    fn graded_targets_stay_in_their_bands() {
        assert_eq!(graded_target(MATE - 1), WIN_SCORE - WIN_STEP);
        assert_eq!(graded_target(-(MATE - 3)), -(WIN_SCORE - 3 * WIN_STEP));
        assert_eq!(graded_target(MATE - 500), WIN_FLOOR);
        assert_eq!(graded_target(TB_WIN - 4), WIN_SCORE - 4 * WIN_STEP);
        assert_eq!(graded_target(-(TB_WIN - 4)), -(WIN_SCORE - 4 * WIN_STEP));
        assert_eq!(graded_target(120), 120);
        // An evaluation's score never reaches a win's.
        assert_eq!(graded_target(5000), WIN_FLOOR - 1);
        assert_eq!(graded_target(-5000), -(WIN_FLOOR - 1));
        for s in [MATE - 1, MATE - 40, TB_WIN, 300, 0, -300, -(MATE - 2)] {
            let t = graded_target(s);
            assert!(
                t.abs() <= WIN_SCORE && t.signum() == s.signum(),
                "{s} -> {t}"
            );
        }
    }

    #[test]
    fn a_bound_costs_nothing_from_its_right_side() {
        assert_eq!(bound_error(0.8, 0.6, Bound::Lower), 0.0);
        assert!(bound_error(0.4, 0.6, Bound::Lower) < 0.0);
        assert_eq!(bound_error(0.4, 0.6, Bound::Upper), 0.0);
        assert!(bound_error(0.8, 0.6, Bound::Upper) > 0.0);
        // Fitting bounds: lower bounds of one piece up pull a zero network up; a batch
        // already above its lower bounds does not move it.
        let w = EvalWeights::default();
        let mut e = LearnedEval::zero(Variant::Dimy, 8, 1);
        let data: Vec<BoundSample> = positions(64, 3)
            .iter()
            .map(|p| BoundSample::new(&e, p, 100, Bound::Lower, &w, false))
            .collect();
        let mut fit = BoundFit::new(&e);
        let first = fit.step(&mut e, &data, 1e-2);
        assert!(first > 0.0);
        for _ in 0..200 {
            fit.step(&mut e, &data, 1e-2);
        }
        assert!(BoundFit::loss(&e, &data) < first * 0.1);
        let bytes = fit.to_bytes();
        assert_eq!(BoundFit::from_bytes(&e, &bytes), Some(fit.clone()));
        assert_eq!(BoundFit::from_bytes(&e, &bytes[1..]), None);
        let above: Vec<BoundSample> = positions(16, 4)
            .iter()
            .map(|p| BoundSample::new(&e, p, -500, Bound::Lower, &w, false))
            .collect();
        let before = e.clone();
        assert_eq!(fit.step(&mut e, &above, 1e-2), 0.0);
        // Adam's momentum still moves it a little; the loss stays zero.
        assert_eq!(BoundFit::loss(&e, &above), 0.0);
        assert_eq!(before.variant(), e.variant());
    }
}
