//! The evaluation under training: its optimizer, its label window, its checkpoint.

use super::*;
use crate::config::TrainConfig;
use crate::learner::{Model, Trained};
use crate::state::{RunState, TrainError, io, read_json};
use fanorona_eval::fit::{BoundFit, BoundSample};
use fanorona_nn::Losses;
use fanorona_nn::checkpoint;
use fanorona_rules::Variant;
use fanorona_search::{EvalWeights, LearnedEval, NodeLabel};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

/// The evaluation under training, its optimizer, the label window and the counters.
#[derive(Debug)]
pub struct EvalLearner {
    /// The evaluation.
    pub eval: LearnedEval,
    pub(super) fit: BoundFit,
    pub(super) window: LabelWindow,
    /// The counters.
    pub state: RunState,
}

impl EvalLearner {
    /// A new run's learner (its window's files in run folder `run`): the evaluation
    /// `tree.init` names, or one of zero knowledge.
    ///
    /// # Errors
    /// `tree.init` cannot be read or is for another board.
    pub fn start(cfg: &TrainConfig, run: &Path) -> Result<EvalLearner, TrainError> {
        let variant = cfg.variant();
        let eval = if cfg.tree.init.is_empty() {
            LearnedEval::zero(variant, cfg.tree.hidden, cfg.seed)
        } else {
            read_eval(&cfg.tree.init, variant, "tree.init")?
        };
        Ok(EvalLearner {
            fit: BoundFit::new(&eval),
            eval,
            window: LabelWindow::new(run, variant, cfg.rule_options(), cfg.train.replay_window),
            state: RunState::default(),
        })
    }

    /// The learner saved in checkpoint folder `dir`.
    ///
    /// # Errors
    /// A file missing or damaged (named).
    pub fn resume(dir: &Path, cfg: &TrainConfig) -> Result<EvalLearner, TrainError> {
        let variant = cfg.variant();
        let eval = read_eval(
            &dir.join(checkpoint::EVAL_FILE).to_string_lossy(),
            variant,
            "",
        )?;
        let adam = dir.join(ADAM_FILE);
        let bytes = std::fs::read(&adam).map_err(io(&adam))?;
        let fit = BoundFit::from_bytes(&eval, &bytes).ok_or_else(|| {
            TrainError::Eval(format!(
                "{}: not this evaluation's optimizer state",
                adam.display()
            ))
        })?;
        let state = RunState::read(dir)?;
        let run = window::run_of(dir);
        let (capacity, rules) = (cfg.train.replay_window, cfg.rule_options());
        let manifest = dir.join(window::MANIFEST);
        let old = dir.join(LABELS_FILE);
        let window = if manifest.exists() {
            let m: window::Manifest = read_json(&manifest)?;
            LabelWindow::open(run, variant, rules, capacity, &m)
        } else {
            // A checkpoint saved before the window moved to `labels/`: its whole window,
            // kept as the labels of its generation.
            let bytes = std::fs::read(&old).map_err(io(&old))?;
            decode_labels(&bytes, variant, rules)
                .map_err(|e| format!("{}: {e}", old.display()))
                .and_then(|labels| {
                    let mut w = LabelWindow::new(run, variant, rules, capacity);
                    w.prune();
                    w.push(state.generation, LabelSource::Play, &labels)?;
                    Ok(w)
                })
        }
        .map_err(TrainError::Eval)?;
        Ok(EvalLearner {
            eval,
            fit,
            window,
            state,
        })
    }

    /// Labels from `source` in the window.
    pub fn labels(&self, source: LabelSource) -> usize {
        self.window.count(source)
    }

    /// Adds generation `g`'s labels from `source` to the window (their file first), the
    /// oldest going past its capacity.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn extend(
        &mut self,
        g: u64,
        source: LabelSource,
        labels: &[NodeLabel],
    ) -> Result<(), TrainError> {
        self.window
            .push(g, source, labels)
            .map_err(TrainError::Eval)
    }
}

impl Model for EvalLearner {
    fn state(&mut self) -> &mut RunState {
        &mut self.state
    }

    fn train(&mut self, cfg: &TrainConfig, new_samples: u64, lr: f64, seed: u64) -> Trained {
        let t = Instant::now();
        let n = cfg.train.batch_size;
        if new_samples == 0 || self.window.len() < cfg.train.min_replay.max(n) {
            return (Vec::new(), 0.0);
        }
        let steps =
            ((new_samples as f64 * cfg.train.train_ratio as f64) / n as f64).ceil() as usize;
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x5EED);
        let weights = EvalWeights::default();
        let sampler = self
            .window
            .sampler(cfg.tree.half_life, cfg.tree.teacher_share);
        let mut losses = Vec::with_capacity(steps);
        let mut batch = Vec::with_capacity(n);
        for _ in 0..steps {
            batch.clear();
            for _ in 0..n {
                let l = sampler.draw(&mut rng);
                let mirror = cfg.train.augment && rng.random_bool(0.5);
                batch.push(BoundSample::new(
                    &self.eval,
                    &l.position,
                    l.score,
                    l.bound,
                    &weights,
                    mirror,
                ));
            }
            let loss = self.fit.step(&mut self.eval, &batch, lr as f32);
            losses.push(Losses {
                policy: f32::NAN,
                value: loss as f32,
                entropy: f32::NAN,
                value_accuracy: f32::NAN,
                ownership: f32::NAN,
            });
        }
        self.state.steps += steps as u64;
        (losses, t.elapsed().as_secs_f64())
    }

    fn window(&self) -> usize {
        self.window.len()
    }
}

/// The optimizer's file in a checkpoint.
pub(super) const ADAM_FILE: &str = "adam.bin";
/// The whole label window's file in a checkpoint saved before the window moved to
/// `labels/` (read when such a run resumes).
pub(super) const LABELS_FILE: &str = "labels.bin";

/// A tree-learning checkpoint's `meta.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct TreeMeta {
    pub(super) format: u32,
    /// Always `tree`: what the folder holds (an evaluation, no network).
    pub(super) kind: String,
    pub(super) method: String,
    pub(super) variant: String,
    pub(super) generation: u64,
    pub(super) run: String,
}

/// The learned evaluation that `name` (a config key's value) means, read for `variant`.
pub(super) fn read_eval(
    name: &str,
    variant: Variant,
    key: &str,
) -> Result<LearnedEval, TrainError> {
    let named = |e: &dyn std::fmt::Display| {
        TrainError::Eval(if key.is_empty() {
            format!("{name}: {e}")
        } else {
            format!("{key} = \"{name}\": {e}")
        })
    };
    let file = checkpoint::eval_path(Path::new(name), variant).map_err(|e| named(&e))?;
    LearnedEval::read(&file, variant).map_err(|e| named(&e))
}
