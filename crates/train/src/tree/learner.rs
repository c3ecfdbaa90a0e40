//! The evaluation under training: its optimizer, its label window, its checkpoint.

use super::*;
use crate::config::TrainConfig;
use crate::learner::{Learner, Model, Trained};
use crate::metrics::MetricsSink;
use crate::state::{RunState, TrainError, io, read_json};
use fanorona_eval::fit::{BoundFit, BoundSample};
use fanorona_nn::Losses;
use fanorona_nn::burn::prelude::Device;
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
    /// The policy/value network learning from the same games (`net.positions`).
    pub net: Option<NetSide>,
}

/// The policy/value network a tree run trains beside its evaluation, from the turns its
/// searches chose (`net.positions`): the network's learner, its configuration
/// ([`TrainConfig::tree_network`]) and the samples it has not trained on yet. Its
/// checkpoints are network checkpoints, `<run>/net/<generation>/` (what `mcts:ckpt=`
/// reads), saved before the evaluation's of the same generation; the newest alone is
/// kept (the curve keeps its points' networks).
#[derive(Debug)]
pub struct NetSide {
    /// The network, its optimizer, its replay window and its counters.
    pub learner: Learner,
    pub(crate) cfg: TrainConfig,
    /// Samples added since its last training.
    pub(crate) untrained: u64,
    /// Its last training's losses and seconds, and the rate.
    pub(crate) trained: Option<(Trained, f64)>,
}

/// The folder of a tree run's network checkpoints in run folder `run`.
pub const NET_DIR: &str = "net";

/// The network checkpoint of generation `g` in run folder `run`.
pub fn net_checkpoint(run: &Path, g: u64) -> std::path::PathBuf {
    run.join(NET_DIR).join(format!("{g:05}"))
}

impl NetSide {
    /// The network of the tree run in folder `run` that resumes from its evaluation's
    /// checkpoint `resumed` (`None`: a new run, a network from the seed), when `cfg`
    /// trains one.
    ///
    /// # Errors
    /// The network checkpoint of that generation is missing or damaged.
    pub fn open(
        cfg: &TrainConfig,
        run: &Path,
        resumed: Option<(&Path, u64)>,
        device: &Device,
        warn: &mut dyn FnMut(&str),
    ) -> Result<Option<NetSide>, TrainError> {
        let Some(net_cfg) = cfg.tree_network() else {
            return Ok(None);
        };
        let learner = match resumed {
            None => Learner::start(&net_cfg, device)?,
            Some((dir, g)) => {
                let ckpt = net_checkpoint(run, g);
                if !ckpt.join("meta.json").is_file() {
                    return Err(TrainError::Eval(format!(
                        "{}: the run's evaluation checkpoint {} has no network beside it ({} is missing); net.positions was 0 when it was saved?",
                        run.display(),
                        dir.display(),
                        ckpt.display()
                    )));
                }
                Learner::resume(&ckpt, &net_cfg, device, warn)?.0
            }
        };
        Ok(Some(NetSide {
            learner,
            cfg: net_cfg,
            untrained: 0,
            trained: None,
        }))
    }

    /// Trains on the samples added since the last call, at the evaluation's rate `lr`
    /// scaled to the network's (`net.lr / train.lr`).
    fn train(&mut self, eval_cfg: &TrainConfig, lr: f64, seed: u64) {
        let lr = lr * self.cfg.train.lr / eval_cfg.train.lr;
        let new = std::mem::take(&mut self.untrained);
        let trained = self.learner.train(&self.cfg, new, lr, seed);
        self.trained = Some((trained, lr));
    }
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
            net: None,
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
                    w.push(state.generation, LabelSource::Play, &labels)
                        .map_err(|(p, e)| format!("{}: {e}", p.display()))?;
                    Ok(w)
                })
        }
        .map_err(TrainError::Eval)?;
        Ok(EvalLearner {
            eval,
            fit,
            window,
            state,
            net: None,
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
            .map_err(|(p, e)| TrainError::Io(p, e))
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
        let sampler = self.window.sampler();
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
        let eval_seconds = t.elapsed().as_secs_f64();
        if let Some(net) = &mut self.net {
            net.train(cfg, lr, seed ^ 0x4E37);
        }
        (losses, eval_seconds)
    }

    fn window(&self) -> usize {
        self.window.len()
    }

    fn second(&self, sinks: &mut dyn MetricsSink, g: u64) -> Option<String> {
        let net = self.net.as_ref()?;
        let ((losses, seconds), lr) = net.trained.as_ref()?;
        let window = net.learner.replay.len();
        let mut put = |tag: &str, v: f64| {
            if v.is_finite() {
                sinks.scalar(tag, g, v);
            }
        };
        let mean = |f: fn(&Losses) -> f32| crate::report::mean(losses.iter().map(f));
        put("net/loss/policy", mean(|l| l.policy));
        put("net/loss/value", mean(|l| l.value));
        put("net/value/accuracy", mean(|l| l.value_accuracy));
        put("net/train/lr", *lr);
        put("net/train/steps", losses.len() as f64);
        put(
            "net/train/samples_per_second",
            (losses.len() * net.cfg.train.batch_size) as f64 / seconds.max(1e-9),
        );
        put("net/replay/window", window as f64);
        put("net/samples", net.learner.state.samples as f64);
        Some(if losses.is_empty() {
            format!(", network: {window} samples in window, not training yet")
        } else {
            format!(
                ", network: loss p {:.3} v {:.3} ({:.0} samples/s), {window} in window",
                mean(|l| l.policy),
                mean(|l| l.value),
                (losses.len() * net.cfg.train.batch_size) as f64 / seconds.max(1e-9)
            )
        })
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
