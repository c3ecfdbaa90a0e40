//! The learner: the network and its optimizer, the replay window, the counters; how it
//! trains on the window; and the one loop that `fanorona train` and `fanorona learn`
//! drive, each with its own source of samples and home for checkpoints.

use crate::config::TrainConfig;
use crate::metrics::{JsonlSink, MetricsSink, Recorded, Sinks, TensorboardSink, jsonl_has_step};
use crate::records::{self, Sample};
use crate::report::{log_generation, summary_line};
use crate::selfplay::SelfPlayStats;
use crate::state::{Progress, RunState, Summary, TrainError, io, read_json};
use fanorona_nn::burn::prelude::Device;
use fanorona_nn::checkpoint::{self, CheckpointMeta};
use fanorona_nn::{Batch, Losses, Net, NetConfig, OWNERSHIP_CLASSES, Trainer};
use fanorona_rules::Variant;
use fanorona_sim::{num_planes, symmetries};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The network configuration of a training config.
pub fn net_config(cfg: &TrainConfig) -> NetConfig {
    NetConfig::for_variant(cfg.variant())
        .with_blocks(cfg.net.blocks)
        .with_channels(cfg.net.channels)
        .with_ownership(cfg.train.ownership_weight > 0.0)
}

/// The trainer of a training config for `net` (of [`net_config`]'s shape).
pub(crate) fn trainer(net: Net, cfg: &TrainConfig, device: &Device) -> Trainer {
    Trainer::new(net, net_config(cfg), device, cfg.train.weight_decay)
        .with_ownership_weight(cfg.train.ownership_weight)
}

/// Seed of generation `g`'s random streams: a resumed run draws the same numbers as an
/// uninterrupted one.
pub(crate) fn generation_seed(cfg: &TrainConfig, g: u64) -> u64 {
    cfg.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ g.wrapping_mul(0xD6E8_FEB8_6659_FD93)
}

/// A bounded window of recent samples.
#[derive(Debug, Default)]
pub struct Replay {
    pub(crate) samples: VecDeque<Sample>,
    capacity: usize,
}

impl Replay {
    /// An empty window.
    pub fn new(capacity: usize) -> Replay {
        Replay {
            samples: VecDeque::new(),
            capacity,
        }
    }
    /// Adds samples, dropping the oldest past the capacity.
    pub fn extend(&mut self, s: impl IntoIterator<Item = Sample>) {
        for x in s {
            if self.samples.len() == self.capacity {
                self.samples.pop_front();
            }
            self.samples.push_back(x);
        }
    }
    /// Samples held.
    pub fn len(&self) -> usize {
        self.samples.len()
    }
    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
    /// A random batch, each sample under a random board symmetry when `augment`.
    pub fn batch(&self, variant: Variant, n: usize, augment: bool, rng: &mut SmallRng) -> Batch {
        mixed_batch(variant, &[(self, n)], augment, rng)
    }

    /// The newest `n` samples (clones).
    pub(crate) fn newest(&self, n: usize) -> impl Iterator<Item = Sample> + '_ {
        self.samples
            .iter()
            .skip(self.samples.len().saturating_sub(n))
            .cloned()
    }
}

/// A random batch of `k` samples from each `(window, k)` of `parts` (empty windows give
/// none), each under a random board symmetry when `augment`.
pub fn mixed_batch(
    variant: Variant,
    parts: &[(&Replay, usize)],
    augment: bool,
    rng: &mut SmallRng,
) -> Batch {
    let n = parts
        .iter()
        .filter(|(w, _)| !w.is_empty())
        .map(|&(_, k)| k)
        .sum();
    let syms = symmetries(variant);
    let actions = fanorona_rules::num_actions(variant);
    let per = num_planes(variant) * variant.points();
    let points = variant.points();
    let mut b = Batch {
        planes: Vec::with_capacity(n * per),
        policy: vec![0.0; n * actions],
        wdl: Vec::with_capacity(n * 3),
        ownership: Vec::new(), // filled at the first sample with a target
        ownership_samples: 0,
        n,
    };
    let mut scratch = vec![0.0; per];
    let picks = parts
        .iter()
        .filter(|(w, _)| !w.is_empty())
        .flat_map(|&(w, k)| std::iter::repeat_n(w, k));
    for (i, w) in picks.enumerate() {
        let s = &w.samples[rng.random_range(0..w.samples.len())];
        let sym = &syms[if augment {
            rng.random_range(0..syms.len())
        } else {
            0
        }];
        sym.apply_planes(&s.planes, &mut scratch);
        b.planes.extend_from_slice(&scratch);
        for &(a, p) in &s.policy {
            b.policy[i * actions + sym.action(a as usize)] += p;
        }
        b.wdl.extend_from_slice(&s.wdl);
        if !s.ownership.is_empty() {
            if b.ownership.is_empty() {
                b.ownership = vec![0.0; n * OWNERSHIP_CLASSES * points];
            }
            // One-hot over the classes (-1, 0, 1 are classes 0, 1, 2), points mapped.
            let row = &mut b.ownership[i * OWNERSHIP_CLASSES * points..];
            for (p, &o) in s.ownership.iter().enumerate() {
                let q = sym.point(fanorona_rules::Point(p as u8)).index();
                row[(o + 1) as usize * points + q] = 1.0;
            }
            b.ownership_samples += 1;
        }
    }
    b
}

/// The learner's side of a run: the network and its optimizer, the replay window and the
/// counters. `fanorona train` drives it with self-play in the same process; `fanorona
/// learn` with chunks from object storage. Checkpoints are the same folders either way.
#[derive(Debug)]
pub struct Learner {
    /// The network and its optimizer.
    pub trainer: Trainer,
    /// The replay window.
    pub replay: Replay,
    /// The counters.
    pub state: RunState,
    /// The learned evaluation's file that every checkpoint carries (see
    /// [`checkpoint::EVAL_FILE`]), when the run's searches use one.
    pub eval_file: Option<Vec<u8>>,
    net_cfg: NetConfig,
}

impl Learner {
    /// A fresh network for `cfg`, its weights drawn from `cfg.seed`.
    pub fn new(cfg: &TrainConfig, device: &Device) -> Learner {
        let net_cfg = net_config(cfg);
        Learner::with_net(net_cfg.init_seeded(device, cfg.seed), net_cfg, cfg, device)
    }

    /// A learner with fresh counters, optimizer and windows around `net`.
    fn with_net(net: Net, net_cfg: NetConfig, cfg: &TrainConfig, device: &Device) -> Learner {
        Learner {
            trainer: trainer(net, cfg, device),
            replay: Replay::new(cfg.train.replay_window),
            eval_file: None,
            state: RunState::default(),
            net_cfg,
        }
    }

    /// The learner a new run starts with: a fresh network, or with `train.init` the
    /// network of that checkpoint (a fresh optimizer and counters either way).
    ///
    /// # Errors
    /// `train.init` names no checkpoint, or one of another variant or shape.
    pub fn start(cfg: &TrainConfig, device: &Device) -> Result<Learner, TrainError> {
        if cfg.train.init.is_empty() {
            return Ok(Learner::new(cfg, device));
        }
        let net_cfg = net_config(cfg);
        let (net, _, _) = checkpoint::load(
            Path::new(&cfg.train.init),
            device,
            Some(cfg.variant()),
            Some(&net_cfg),
        )
        .map_err(|e| TrainError::Init(cfg.train.init.clone(), e))?;
        Ok(Learner::with_net(net, net_cfg, cfg, device))
    }

    /// The learner saved in checkpoint folder `dir` (model, optimizer, `state.json`,
    /// `replay.bin`; a missing or damaged window is reported through `warn` and starts
    /// empty).
    ///
    /// # Errors
    /// A checkpoint of another variant or shape, or unreadable files.
    pub fn resume(
        dir: &Path,
        cfg: &TrainConfig,
        device: &Device,
        warn: &mut dyn FnMut(&str),
    ) -> Result<(Learner, CheckpointMeta), TrainError> {
        let variant = cfg.variant();
        let net_cfg = net_config(cfg);
        let (net, meta, dir) = checkpoint::load(dir, device, Some(variant), Some(&net_cfg))?;
        let mut trainer = trainer(net, cfg, device);
        trainer.optimizer = checkpoint::load_optimizer(&dir, trainer.optimizer)?;
        let state = RunState::read(&dir)?;
        trainer.step = state.steps;
        let mut replay = Replay::new(cfg.train.replay_window);
        match records::read_samples(&dir.join("replay.bin"), variant) {
            Ok(s) => replay.extend(s),
            Err(e) => warn(&format!("warning: {e}; the replay window starts empty")),
        }
        Ok((
            Learner {
                trainer,
                replay,
                eval_file: None,
                state,
                net_cfg,
            },
            meta,
        ))
    }

    /// The network's shape.
    pub fn net_config(&self) -> &NetConfig {
        &self.net_cfg
    }

    /// Trains on the window for `new_samples` new samples (see [`TrainConfig`]'s
    /// `train_ratio`): the losses of each step and the seconds it took.
    pub fn train(&mut self, cfg: &TrainConfig, new_samples: u64, lr: f64, seed: u64) -> Trained {
        let r = train_on_window(&mut self.trainer, &self.replay, cfg, new_samples, lr, seed);
        self.state.steps = self.trainer.step;
        r
    }

    /// The metadata of a checkpoint of generation `generation`.
    pub fn meta(&self, cfg: &TrainConfig, generation: u64, run: &str) -> CheckpointMeta {
        CheckpointMeta::new(
            cfg.variant(),
            &self.net_cfg,
            generation,
            self.trainer.step,
            Some(run),
        )
    }

    /// Saves the network alone into checkpoint folder `dir` (written whole), with the
    /// learned evaluation `eval` its MCTS player's alpha-beta aids use: what a player
    /// reads (`mcts:ckpt=DIR`), no optimizer or window.
    ///
    /// # Errors
    /// The folder cannot be written.
    pub fn save_model(
        &self,
        dir: &Path,
        meta: &CheckpointMeta,
        eval: &[u8],
    ) -> Result<(), TrainError> {
        checkpoint::save_with(
            dir,
            &self.trainer.inference_net(),
            None,
            meta,
            &[(checkpoint::EVAL_FILE, eval)],
        )?;
        Ok(())
    }

    /// Saves everything needed to resume into checkpoint folder `dir` (written whole):
    /// model, optimizer, `state.json`, `replay.bin` and `extra` files.
    ///
    /// # Errors
    /// The folder cannot be written.
    pub fn save(
        &self,
        dir: &Path,
        meta: &CheckpointMeta,
        extra: &[(&str, &[u8])],
    ) -> Result<(), TrainError> {
        let state_json = self.state.to_json();
        let variant: Variant = meta.variant.parse().expect("a variant name");
        let replay_bin = records::encode_samples(variant, self.replay.samples.iter());
        let mut files: Vec<(&str, &[u8])> =
            vec![(RunState::FILE, &state_json), ("replay.bin", &replay_bin)];
        files.extend(
            self.eval_file
                .as_deref()
                .map(|e| (checkpoint::EVAL_FILE, e)),
        );
        files.extend_from_slice(extra);
        checkpoint::save_with(
            dir,
            &self.trainer.inference_net(),
            Some(&self.trainer.optimizer),
            meta,
            &files,
        )?;
        Ok(())
    }
}

/// `train_ratio` samples per new sample (`new_samples` of them) from the replay window,
/// once it holds `min_replay`: the losses of each step and the seconds it took.
pub(crate) fn train_on_window(
    trainer: &mut Trainer,
    replay: &Replay,
    cfg: &TrainConfig,
    new_samples: u64,
    lr: f64,
    seed: u64,
) -> (Vec<Losses>, f64) {
    let t = std::time::Instant::now();
    if new_samples == 0 || replay.len() < cfg.train.min_replay.max(cfg.train.batch_size) {
        return (Vec::new(), 0.0);
    }
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5EED);
    let steps = ((new_samples as f64 * cfg.train.train_ratio as f64) / cfg.train.batch_size as f64)
        .ceil() as usize;
    let losses = train_steps(trainer, replay, cfg, steps, lr, &mut rng);
    (losses, t.elapsed().as_secs_f64())
}

/// `steps` optimizer steps on random batches of `replay`: their losses.
pub(crate) fn train_steps(
    trainer: &mut Trainer,
    replay: &Replay,
    cfg: &TrainConfig,
    steps: usize,
    lr: f64,
    rng: &mut SmallRng,
) -> Vec<Losses> {
    let n = cfg.train.batch_size;
    (0..steps)
        .map(|_| {
            let b = replay.batch(cfg.variant(), n, cfg.train.augment, rng);
            trainer.step(&b, lr)
        })
        .collect()
}

/// The file in each learner checkpoint that holds its generation's metrics: a learner
/// stopped between its checkpoint and its metrics writes them when it resumes.
pub const METRICS_FILE: &str = "metrics.json";

/// One generation as a [`Source`] delivers it: its samples are in the learner's window.
#[derive(Debug, Default)]
pub(crate) struct Generation {
    /// Self-play's counters over the generation's games.
    pub stats: SelfPlayStats,
    /// Games it brought.
    pub games: u64,
    /// Samples it added to the window.
    pub samples: u64,
    /// The training done while it was made (`train.overlap`: on the samples the one
    /// before left), with its seconds; `None`: the loop trains on its samples now.
    pub trained: Option<Trained>,
}

/// What a round of training gave: each step's losses and the seconds it took.
pub type Trained = (Vec<Losses>, f64);

/// What the learner loop trains: the policy/value network ([`Learner`]), or a learned
/// evaluation for alpha-beta (`crate::tree::EvalLearner`).
pub(crate) trait Model {
    /// The run's counters.
    fn state(&mut self) -> &mut RunState;
    /// Trains on the window for `new_samples` new samples (`train.train_ratio`): each
    /// step's losses and the seconds it took; sets the counters' steps.
    fn train(&mut self, cfg: &TrainConfig, new_samples: u64, lr: f64, seed: u64) -> Trained;
    /// Samples in the window.
    fn window(&self) -> usize;
    /// A second model trained in [`Model::train`] beside the first (a tree run's
    /// network): its metrics of generation `g` into `sinks`, and its part of the
    /// progress line. `None`: there is none.
    fn second(&self, _sinks: &mut dyn MetricsSink, _g: u64) -> Option<String> {
        None
    }
}

impl Model for Learner {
    fn state(&mut self) -> &mut RunState {
        &mut self.state
    }

    fn train(&mut self, cfg: &TrainConfig, new_samples: u64, lr: f64, seed: u64) -> Trained {
        Learner::train(self, cfg, new_samples, lr, seed)
    }

    fn window(&self) -> usize {
        self.replay.len()
    }
}

/// Where a learner's generations come from: self-play in this process (`train`), chunks
/// that workers upload (`learn`), alpha-beta's searches (tree learning).
pub(crate) trait Source<M = Learner> {
    /// Generation `g`, trained at rate `lr`: its samples put into the learner's window.
    fn generation(
        &mut self,
        learner: &mut M,
        g: u64,
        lr: f64,
        progress: &mut dyn Progress,
    ) -> Result<Generation, TrainError>;

    /// Files the learner's checkpoint carries for the source (what it has read).
    fn files(&self) -> Vec<(&'static str, Vec<u8>)> {
        Vec::new()
    }

    /// The periodic match's score of the model just saved, when one is due.
    fn score(&mut self, _learner: &M, _g: u64) -> Result<Option<f64>, TrainError> {
        Ok(None)
    }

    /// Work after generation `g`'s checkpoint that the run's clock does not count (tree
    /// learning's curve).
    fn measure(
        &mut self,
        _learner: &M,
        _g: u64,
        _sinks: &mut dyn MetricsSink,
        _progress: &mut dyn Progress,
    ) -> Result<(), TrainError> {
        Ok(())
    }
}

/// Where a learner's checkpoints go: a local folder, object storage.
pub(crate) trait Keeper<M = Learner> {
    /// Saves the learner as the checkpoint of its generation, `files` beside its own.
    fn save(&mut self, learner: &M, files: &[(&str, &[u8])]) -> Result<(), TrainError>;
    /// The newest checkpoint folder saved (`None`: none, or not a folder).
    fn last(&self) -> Option<PathBuf> {
        None
    }
}

/// The JSON-lines and TensorBoard sinks of a run's experiment folder `exp_dir`; the
/// metrics saved in checkpoint folder `resumed` that the lines lack (the learner stopped
/// between the two) are written first.
///
/// # Errors
/// The folder cannot be written, or the checkpoint's metrics cannot be read.
pub(crate) fn open_sinks(exp_dir: &Path, resumed: Option<&Path>) -> Result<Sinks, TrainError> {
    let lines = exp_dir.join("metrics.jsonl");
    let mut sinks = Sinks(vec![
        Box::new(JsonlSink::open(&lines).map_err(io(exp_dir))?),
        Box::new(TensorboardSink::open(&exp_dir.join("tb"))),
    ]);
    if let Some(dir) = resumed
        && dir.join(METRICS_FILE).exists()
    {
        let m: Recorded = read_json(&dir.join(METRICS_FILE))?;
        if !jsonl_has_step(&lines, m.step) {
            m.replay(&mut sinks);
        }
    }
    Ok(sinks)
}

/// `[run]`'s limits for [`drive`] of a session that started at `session`: the last
/// generation (`run.generations`, 0 for none) and the instant to stop at
/// (`run.max_seconds` from the session's start, 0 for none).
pub(crate) fn run_limits(cfg: &TrainConfig, session: Instant) -> (Option<u64>, Option<Instant>) {
    (
        (cfg.run.generations > 0).then_some(cfg.run.generations),
        (cfg.run.max_seconds > 0)
            .then(|| session + std::time::Duration::from_secs(cfg.run.max_seconds)),
    )
}

/// A run's checkpoint folders, `<root>/<generation>/`, and the newest one saved: what
/// `train` and tree learning keep their learners in (each kind saves its own files).
pub(crate) struct Folder<'a> {
    pub(crate) cfg: &'a TrainConfig,
    /// The run's name (written into each checkpoint's metadata).
    pub(crate) run: &'a str,
    pub(crate) root: &'a Path,
    /// The newest checkpoint.
    pub(crate) last: Option<PathBuf>,
}

impl<'a> Folder<'a> {
    /// The checkpoints of run `run` under `root`, the newest so far `last`.
    pub(crate) fn new(
        cfg: &'a TrainConfig,
        run: &'a str,
        root: &'a Path,
        last: Option<PathBuf>,
    ) -> Folder<'a> {
        Folder {
            cfg,
            run,
            root,
            last,
        }
    }
}

/// [`drive`] within `[run]`'s limits for a session that started at `session`, then the
/// run summed up: its counters and the keeper's last checkpoint.
///
/// # Errors
/// What [`drive`] reports.
pub(crate) fn drive_session<M: Model>(
    cfg: &TrainConfig,
    learner: &mut M,
    source: &mut dyn Source<M>,
    keeper: &mut dyn Keeper<M>,
    sinks: &mut dyn MetricsSink,
    session: Instant,
    progress: &mut dyn Progress,
) -> Result<Summary, TrainError> {
    let (generations, until) = run_limits(cfg, session);
    drive(
        cfg,
        learner,
        source,
        keeper,
        sinks,
        generations,
        until,
        progress,
    )?;
    Ok(Summary {
        state: *learner.state(),
        last_checkpoint: keeper.last(),
    })
}

/// The learner loop that `fanorona train` and `fanorona learn` drive: until generation
/// `generations` (`None`: no limit) or the instant `until`, take a generation from
/// `source`, train on it, count it, checkpoint it through `keeper` (with its metrics),
/// score it, and report it to `sinks` and `progress`.
///
/// # Errors
/// What the source or the keeper report.
#[allow(clippy::too_many_arguments)]
pub(crate) fn drive<M: Model>(
    cfg: &TrainConfig,
    learner: &mut M,
    source: &mut dyn Source<M>,
    keeper: &mut dyn Keeper<M>,
    sinks: &mut dyn MetricsSink,
    generations: Option<u64>,
    until: Option<Instant>,
    progress: &mut dyn Progress,
) -> Result<(), TrainError> {
    let session = Instant::now();
    let seconds_before = learner.state().seconds;
    // Time the clock does not count: [`Source::measure`]'s.
    let mut measuring = 0.0;
    while generations.is_none_or(|n| learner.state().generation < n)
        && until.is_none_or(|t| Instant::now() < t)
    {
        let g = learner.state().generation + 1;
        let lr = cfg.lr_at(g - 1, learner.state().seconds);
        let made = source.generation(learner, g, lr, progress)?;
        let (losses, train_secs) = match made.trained {
            Some(trained) => {
                learner.state().untrained_samples = made.samples;
                trained
            }
            None => {
                learner.state().untrained_samples = 0;
                learner.train(cfg, made.samples, lr, generation_seed(cfg, g))
            }
        };
        let state = learner.state();
        state.generation = g;
        state.games += made.games;
        state.samples += made.samples;
        state.seconds = seconds_before + session.elapsed().as_secs_f64() - measuring;

        let mut metrics = Recorded::default();
        log_generation(
            &mut metrics,
            g,
            &made.stats,
            &losses,
            lr,
            train_secs,
            cfg.train.batch_size,
            learner.window(),
        );
        let second = learner.second(&mut metrics, g);
        let metrics_json = serde_json::to_vec(&metrics).expect("metrics serialise");
        let extra = source.files();
        let mut files: Vec<(&str, &[u8])> = extra.iter().map(|(k, v)| (*k, &v[..])).collect();
        files.push((METRICS_FILE, &metrics_json));
        keeper.save(learner, &files)?;
        let arena = source.score(learner, g)?;
        if let Some(a) = arena {
            metrics.scalar("arena/score", g, a);
        }
        metrics.replay(sinks);
        sinks.flush();
        let mut line = summary_line(g, &made.stats, &losses, learner.window(), arena, cfg);
        line.push_str(second.as_deref().unwrap_or_default());
        progress.message(&line);
        let t = Instant::now();
        source.measure(learner, g, sinks, progress)?;
        measuring += t.elapsed().as_secs_f64();
    }
    sinks.flush();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window of `n` dimy samples whose value target is `wdl`.
    fn window(n: usize, wdl: [f32; 3]) -> Replay {
        let v = Variant::Dimy;
        let mut w = Replay::new(n);
        w.extend((0..n).map(|i| Sample {
            planes: vec![i as f32; num_planes(v) * v.points()],
            policy: vec![(0, 1.0)],
            wdl,
            ownership: Vec::new(),
        }));
        w
    }

    #[test]
    fn a_mixed_batch_draws_its_share_from_each_window() {
        let (replay, teacher) = (window(40, [1.0, 0.0, 0.0]), window(30, [0.0, 0.0, 1.0]));
        let mut rng = SmallRng::seed_from_u64(7);
        let b = mixed_batch(
            Variant::Dimy,
            &[(&replay, 12), (&teacher, 4)],
            true,
            &mut rng,
        );
        assert_eq!(b.n, 16);
        assert_eq!(b.wdl.len(), 16 * 3);
        let losses = b.wdl.chunks(3).filter(|x| x[2] == 1.0).count();
        assert_eq!(losses, 4, "the teacher's samples are the losses");
        let actions = fanorona_rules::num_actions(Variant::Dimy);
        assert_eq!(b.policy.len(), 16 * actions);
        assert!(
            b.policy
                .chunks(actions)
                .all(|p| p.iter().sum::<f32>() == 1.0)
        );
        // An empty window gives nothing, whatever its share.
        let empty = Replay::new(10);
        let b = mixed_batch(
            Variant::Dimy,
            &[(&replay, 16), (&empty, 4)],
            false,
            &mut rng,
        );
        assert_eq!((b.n, b.wdl.len()), (16, 48));
        // One window is `Replay::batch`, draw for draw.
        let (mut r1, mut r2) = (SmallRng::seed_from_u64(3), SmallRng::seed_from_u64(3));
        let a = replay.batch(Variant::Dimy, 8, true, &mut r1);
        let b = mixed_batch(Variant::Dimy, &[(&replay, 8)], true, &mut r2);
        assert_eq!((a.planes, a.policy, a.wdl), (b.planes, b.policy, b.wdl));
    }

    #[test]
    fn newest_keeps_the_last_samples_in_order() {
        let w = window(5, [0.0, 1.0, 0.0]);
        let firsts: Vec<f32> = w.newest(3).map(|s| s.planes[0]).collect();
        assert_eq!(firsts, vec![2.0, 3.0, 4.0]);
        assert_eq!(w.newest(9).count(), 5);
    }
}
