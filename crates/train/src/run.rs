//! The training loop: self-play, train, checkpoint, repeat; resumable at any moment.

use crate::config::TrainConfig;
use crate::metrics::{JsonlSink, MetricsSink, Sinks, TensorboardSink};
use crate::records::{self, Sample};
use crate::selfplay::{self, SelfPlayStats};
pub use crate::warm::WARM_DIR;
use crate::warm::bootstrap;
use fanorona_nn::burn::module::Module;
use fanorona_nn::burn::prelude::Device;
use fanorona_nn::checkpoint::{self, CheckpointMeta, FORMAT, NetShape};
use fanorona_nn::{Batch, Losses, Net, NetConfig, NetEvaluator, OWNERSHIP_CLASSES, Trainer};
use fanorona_rules::telo::TeloPosition;
use fanorona_rules::{Position, Variant};
use fanorona_sim::{Encode, num_planes, symmetries};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// Counters carried from checkpoint to checkpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// Generations completed.
    pub generation: u64,
    /// Self-play games played.
    pub games: u64,
    /// Samples generated.
    pub samples: u64,
    /// Optimizer steps.
    pub steps: u64,
    /// Seconds of training so far (over every session).
    pub seconds: f64,
    /// Samples of the last generation not yet trained on (with `train.overlap`, the next
    /// generation trains on them while it plays).
    #[serde(default)]
    pub untrained_samples: u64,
    /// Teacher games the warm start has learned from, in a checkpoint of generation 0
    /// saved by it; `None` before this was kept (such a warm start is complete).
    #[serde(default)]
    pub bootstrap_games: Option<u64>,
}

impl RunState {
    /// The file that holds a checkpoint's counters, in the checkpoint's folder.
    pub const FILE: &'static str = "state.json";

    /// The counters saved in checkpoint folder `dir` (a run's checkpoints and its
    /// warm-start snapshots have them).
    ///
    /// # Errors
    /// The file is missing, unreadable or not a run's state.
    pub fn read(dir: &Path) -> Result<RunState, TrainError> {
        read_json(&dir.join(Self::FILE))
    }

    /// The seconds of training, rounded to whole seconds (what a warm start's snapshot is
    /// named by and a gauntlet's `--x seconds` orders by).
    pub fn whole_seconds(&self) -> u64 {
        self.seconds.max(0.0).round() as u64
    }

    pub(crate) fn to_json(self) -> Vec<u8> {
        serde_json::to_vec_pretty(&self).expect("state serialises")
    }
}

/// Where a run lives and what it runs on.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The configuration.
    pub config: TrainConfig,
    /// The run's name.
    pub run: String,
    /// Parent of `<run>/<generation>/` checkpoint folders.
    pub checkpoints_root: PathBuf,
    /// Parent of `<run>/` experiment folders.
    pub experiments_root: PathBuf,
    /// The device the network runs on.
    pub device: Device,
}

/// Things the loop reports as it goes (the binary draws progress bars from them).
pub trait Progress {
    /// A line for the person watching.
    fn message(&mut self, line: &str);
    /// Self-play of a generation starts.
    fn selfplay_started(&mut self, generation: u64, games: usize);
    /// `n` games of the generation are finished.
    fn game_finished(&mut self, n: usize);
    /// Self-play of the generation is over.
    fn selfplay_finished(&mut self);
}

/// A progress reporter that says nothing.
#[derive(Debug, Default)]
pub struct Quiet;

impl Progress for Quiet {
    fn message(&mut self, _: &str) {}
    fn selfplay_started(&mut self, _: u64, _: usize) {}
    fn game_finished(&mut self, _: usize) {}
    fn selfplay_finished(&mut self) {}
}

/// Why a run stopped early.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A file or folder could not be written or read.
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    /// A checkpoint could not be used.
    #[error(transparent)]
    Checkpoint(#[from] checkpoint::CheckpointError),
    /// The checkpoint `train.init` names cannot start the run.
    #[error("train.init = \"{0}\": {1}")]
    Init(String, checkpoint::CheckpointError),
    /// A record file could not be used.
    #[error(transparent)]
    Record(#[from] records::RecordError),
    /// The run folder holds a different configuration.
    #[error("run `{0}` was started with another configuration: {1}")]
    ConfigChanged(String, String),
    /// A book the config names (`run.arena_book`, `selfplay.book`) cannot be used; the
    /// message names the key.
    #[error("{0}")]
    Book(String),
    /// The learned evaluation `selfplay.ab_eval` names cannot be used; the message names
    /// the key and the file.
    #[error("{0}")]
    Eval(String),
    /// The endgame tables `selfplay.tablebases` names cannot be used; the message names
    /// the key and the folder.
    #[error("{0}")]
    Tables(String),
    /// Object storage kept failing, or its URL is unusable.
    #[error(transparent)]
    Store(Box<crate::store::StoreError>),
    /// The store holds something this command cannot go on with (another configuration,
    /// another layout version, a second worker of the same ID).
    #[error("{0}")]
    Distributed(String),
    /// A player failed in the periodic match (a bug, never a result).
    #[error("the periodic match: {0}")]
    Arena(String),
}

impl From<crate::store::StoreError> for TrainError {
    fn from(e: crate::store::StoreError) -> TrainError {
        // Boxed: object_store's errors are large and would bloat every `Result`.
        TrainError::Store(Box::new(e))
    }
}

pub(crate) fn io(p: &Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |e| TrainError::Io(p.to_path_buf(), e)
}

/// The JSON file `p` read as a `T` (malformed JSON is reported as invalid data in `p`).
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(p: &Path) -> Result<T, TrainError> {
    let text = std::fs::read_to_string(p).map_err(io(p))?;
    serde_json::from_str(&text).map_err(|e| {
        TrainError::Io(
            p.to_path_buf(),
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })
}

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

/// What a finished run reports.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// The state at the end.
    pub state: RunState,
    /// Where its last checkpoint is.
    pub last_checkpoint: Option<PathBuf>,
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
    pub fn train(
        &mut self,
        cfg: &TrainConfig,
        new_samples: u64,
        lr: f64,
        seed: u64,
    ) -> (Vec<Losses>, f64) {
        let r = train_on_window(&mut self.trainer, &self.replay, cfg, new_samples, lr, seed);
        self.state.steps = self.trainer.step;
        r
    }

    /// The metadata of a checkpoint of generation `generation`.
    pub fn meta(&self, cfg: &TrainConfig, generation: u64, run: &str) -> CheckpointMeta {
        CheckpointMeta {
            format: FORMAT,
            variant: cfg.variant().name().into(),
            net: NetShape::from(&self.net_cfg),
            generation,
            step: self.trainer.step,
            run: Some(run.to_string()),
        }
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

/// Runs (or resumes) a training run until its generation or time limit.
///
/// # Errors
/// Files that cannot be written or read, or a run folder with another configuration.
pub fn train(opts: &RunOptions, progress: &mut dyn Progress) -> Result<Summary, TrainError> {
    let cfg = &opts.config;
    let variant = cfg.variant();
    let ckpt_dir = opts.checkpoints_root.join(&opts.run);
    let exp_dir = opts.experiments_root.join(&opts.run);
    std::fs::create_dir_all(&ckpt_dir).map_err(io(&ckpt_dir))?;
    std::fs::create_dir_all(&exp_dir).map_err(io(&exp_dir))?;
    // The resolved config: a resumed run must use the same one (but its stopping limits).
    let cfg_path = exp_dir.join("config.toml");
    let text = cfg.to_toml();
    if let Ok(old) = std::fs::read_to_string(&cfg_path) {
        let old = TrainConfig::parse(&cfg_path.display().to_string(), &old, &[]);
        if let Ok(old) = old
            && !old.same_training(cfg)
        {
            return Err(TrainError::ConfigChanged(
                opts.run.clone(),
                format!(
                    "compare {} with the new settings, or use another --run",
                    cfg_path.display()
                ),
            ));
        }
    }
    records::write_atomically(&cfg_path, text.as_bytes()).map_err(io(&cfg_path))?;
    let arena_book = read_arena_book(cfg)?;
    let selfplay_book = read_selfplay_book(cfg)?;
    let aids = read_selfplay_aids(cfg)?;
    let teacher_eval = read_ab_eval(cfg, "bootstrap.ab_eval", &cfg.bootstrap.ab_eval)?;
    let eval_file = players_eval_file(cfg)?;

    let mut learner;
    let mut last_checkpoint = None;
    for dir in checkpoint::recover(&ckpt_dir)? {
        progress.message(&format!(
            "finished the save of {} that a stop interrupted",
            dir.display()
        ));
    }
    if let Ok(dir) = checkpoint::resolve(&ckpt_dir) {
        let (l, meta) = Learner::resume(&dir, cfg, &opts.device, &mut |m| progress.message(m))?;
        learner = l;
        let state = &learner.state;
        progress.message(&format!(
            "resuming run `{}` from generation {} ({} games, {} samples, {} steps, window {})",
            opts.run,
            meta.generation,
            state.games,
            state.samples,
            state.steps,
            learner.replay.len()
        ));
        last_checkpoint = Some(checkpoint::resolve(&ckpt_dir)?);
    } else {
        learner = Learner::start(cfg, &opts.device)?;
        let net_cfg = learner.net_config();
        let from = if cfg.train.init.is_empty() {
            String::new()
        } else {
            format!(", from the network of {}", cfg.train.init)
        };
        progress.message(&format!(
            "new run `{}`: {variant}, network {} blocks x {} channels ({} parameters){from}",
            opts.run,
            net_cfg.blocks,
            net_cfg.channels,
            learner.trainer.net().num_params()
        ));
    }

    learner.eval_file = eval_file;
    let mut sinks = Sinks(vec![
        Box::new(JsonlSink::open(&exp_dir.join("metrics.jsonl")).map_err(io(&exp_dir))?),
        Box::new(TensorboardSink::open(&exp_dir.join("tb"))),
    ]);
    let session = std::time::Instant::now();
    // A new run's warm start, or the rest of one that was stopped (or is asked for more
    // games) while the run was still at its checkpoint 0.
    let warm_from = match (&last_checkpoint, learner.state.bootstrap_games) {
        (None, _) => Some(0),
        (Some(_), Some(n)) if learner.state.generation == 0 => Some(n as usize),
        _ => None,
    }
    .filter(|&n| n < cfg.bootstrap.games);
    if let Some(first) = warm_from {
        if first > 0 {
            progress.message(&format!(
                "continuing the warm start: games {first} to {} of ab:depth={}",
                cfg.bootstrap.games, cfg.bootstrap.depth
            ));
        }
        let seconds_before = learner.state.seconds;
        let dir = bootstrap(
            cfg,
            &teacher_eval,
            &mut learner,
            &opts.run,
            &ckpt_dir,
            generation_seed(cfg, 0),
            first,
            progress,
        )?;
        learner.state.seconds = seconds_before + session.elapsed().as_secs_f64();
        last_checkpoint = Some(dir);
    }
    let seconds_before = learner.state.seconds - session.elapsed().as_secs_f64();
    loop {
        if cfg.run.generations > 0 && learner.state.generation >= cfg.run.generations {
            break;
        }
        if cfg.run.max_seconds > 0 && session.elapsed().as_secs() >= cfg.run.max_seconds {
            break;
        }
        let g = learner.state.generation + 1;
        let seed = generation_seed(cfg, g);
        let mut eval = NetEvaluator::new(
            learner.trainer.inference_net(),
            opts.device.clone(),
            variant,
            cfg.selfplay.random_symmetry,
            seed,
        );
        let games = cfg.selfplay.games_per_generation;
        let lr = cfg.lr_at(g - 1, learner.state.seconds);
        progress.selfplay_started(g, games);
        let (finished, stats, trained) = if cfg.train.overlap {
            // Train on the samples the last generation left while this one plays.
            let owed = learner.state.untrained_samples;
            let (trainer, replay) = (&mut learner.trainer, &learner.replay);
            std::thread::scope(|scope| {
                let training = scope.spawn(move || {
                    let mut train = move || train_on_window(trainer, replay, cfg, owed, lr, seed);
                    match cfg.train.threads {
                        0 => train(),
                        n => crate::on_own_pool(n, "trainer", train),
                    }
                });
                let (finished, stats) = play_generation(
                    cfg,
                    &mut eval,
                    &aids,
                    games,
                    g,
                    seed,
                    selfplay_book.as_deref(),
                    progress,
                );
                let trained = training
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e));
                (finished, stats, Some(trained))
            })
        } else {
            let (finished, stats) = play_generation(
                cfg,
                &mut eval,
                &aids,
                games,
                g,
                seed,
                selfplay_book.as_deref(),
                progress,
            );
            (finished, stats, None)
        };
        progress.selfplay_finished();
        // One file per generation, written whole: a rerun of a generation after a crash
        // replaces it instead of appending twice.
        let records: Vec<_> = finished.iter().map(|f| f.record.clone()).collect();
        let games_dir = exp_dir.join("games");
        std::fs::create_dir_all(&games_dir).map_err(io(&games_dir))?;
        records::write_games(&games_dir.join(format!("{g:05}.jsonl")), &records)?;
        let new_samples: usize = finished.iter().map(|f| f.samples.len()).sum();
        learner
            .replay
            .extend(finished.into_iter().flat_map(|f| f.samples));
        // Without overlap, train on this generation's samples now.
        let (losses, train_secs) = match trained {
            Some(trained) => {
                learner.state.untrained_samples = new_samples as u64;
                trained
            }
            None => {
                learner.state.untrained_samples = 0;
                learner.train(cfg, new_samples as u64, lr, seed)
            }
        };

        let state = &mut learner.state;
        state.generation = g;
        state.games += stats.games;
        state.samples += new_samples as u64;
        state.steps = learner.trainer.step;
        state.seconds = seconds_before + session.elapsed().as_secs_f64();

        // Checkpoint: model, optimizer, counters and replay window in one atomic folder.
        let dir = ckpt_dir.join(format!("{g:05}"));
        learner.save(&dir, &learner.meta(cfg, g, &opts.run), &[])?;
        // Keep the window only in the newest checkpoint: it is the largest file.
        if let Some(prev) = &last_checkpoint
            && prev != &dir
        {
            let _ = std::fs::remove_file(prev.join("replay.bin"));
        }
        last_checkpoint = Some(dir);

        // Metrics and the generation's summary line.
        let arena = if cfg.run.arena_every > 0
            && g.is_multiple_of(cfg.run.arena_every)
            && variant != Variant::Telo
        {
            Some(arena_score(
                cfg,
                &learner.trainer,
                &opts.device,
                variant,
                seed,
                arena_book.as_deref(),
            )?)
        } else {
            None
        };
        log_generation(
            &mut sinks,
            g,
            &stats,
            &losses,
            lr,
            train_secs,
            cfg.train.batch_size,
            learner.replay.len(),
            arena,
        );
        progress.message(&summary_line(
            g,
            &stats,
            &losses,
            learner.replay.len(),
            arena,
            cfg,
        ));
    }
    sinks.flush();
    Ok(Summary {
        state: learner.state,
        last_checkpoint,
    })
}

/// Self-play of generation `g` with the network in `eval`, from the positions of `book`
/// (`selfplay.book`) or else the start position.
#[allow(clippy::too_many_arguments)]
pub(crate) fn play_generation(
    cfg: &TrainConfig,
    eval: &mut NetEvaluator,
    aids: &selfplay::Aids,
    games: usize,
    g: u64,
    seed: u64,
    book: Option<&[Position]>,
    progress: &mut dyn Progress,
) -> (Vec<selfplay::FinishedGame>, SelfPlayStats) {
    let mut on_game = |n: usize| progress.game_finished(n);
    match cfg.variant() {
        Variant::Telo => selfplay::play(
            &[(TeloPosition::start(cfg.rule_options()), None)],
            cfg,
            eval,
            aids,
            games,
            g,
            seed,
            &mut on_game,
        ),
        v => selfplay::play(
            &match book {
                Some(b) => b.iter().map(|p| (*p, Some(p.fen()))).collect::<Vec<_>>(),
                None => vec![(Position::start(v, cfg.rule_options()), None)],
            },
            cfg,
            eval,
            aids,
            games,
            g,
            seed,
            &mut on_game,
        ),
    }
}

/// `train_ratio` samples per new sample (`new_samples` of them) from the replay window,
/// once it holds `min_replay`: the losses of each step and the seconds it took.
fn train_on_window(
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

/// The mean ownership loss of the steps that trained it (NaN when none did).
pub(crate) fn ownership_loss(losses: &[Losses]) -> f64 {
    mean(losses.iter().map(|l| l.ownership).filter(|x| x.is_finite()))
}

pub(crate) fn mean(v: impl Iterator<Item = f32>) -> f64 {
    let (s, n) = v.fold((0.0f64, 0usize), |(s, n), x| (s + x as f64, n + 1));
    if n == 0 { f64::NAN } else { s / n as f64 }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn log_generation(
    sinks: &mut dyn MetricsSink,
    g: u64,
    s: &SelfPlayStats,
    losses: &[Losses],
    lr: f64,
    train_secs: f64,
    batch_size: usize,
    window: usize,
    arena: Option<f64>,
) {
    let secs = s.seconds.max(1e-9);
    let mut put = |tag: &str, v: f64| {
        if v.is_finite() {
            sinks.scalar(tag, g, v);
        }
    };
    put("loss/policy", mean(losses.iter().map(|l| l.policy)));
    put("loss/value", mean(losses.iter().map(|l| l.value)));
    put("loss/ownership", ownership_loss(losses));
    put("policy/entropy", mean(losses.iter().map(|l| l.entropy)));
    put(
        "value/accuracy",
        mean(losses.iter().map(|l| l.value_accuracy)),
    );
    put("train/lr", lr);
    put("train/steps", losses.len() as f64);
    put(
        "train/steps_per_second",
        losses.len() as f64 / train_secs.max(1e-9),
    );
    // Samples through the network: every step trains a whole batch.
    put(
        "train/samples_per_second",
        (losses.len() * batch_size) as f64 / train_secs.max(1e-9),
    );
    put("selfplay/games_per_second", s.games as f64 / secs);
    put("selfplay/simulations_per_second", s.sims as f64 / secs);
    put("selfplay/evaluations_per_second", s.evals as f64 / secs);
    put("selfplay/batch", s.evals as f64 / s.calls.max(1) as f64);
    put(
        "selfplay/game_length",
        s.decisions as f64 / s.games.max(1) as f64,
    );
    put("selfplay/draw_rate", s.draws as f64 / s.games.max(1) as f64);
    put(
        "selfplay/distinct_openings",
        s.distinct_openings as f64 / s.games.max(1) as f64,
    );
    put(
        "selfplay/white_win_rate",
        s.white as f64 / s.games.max(1) as f64,
    );
    put(
        "selfplay/resign_rate",
        s.resigned as f64 / s.games.max(1) as f64,
    );
    if s.resign_checks > 0 {
        put(
            "selfplay/resign_false_positive_rate",
            s.resign_false as f64 / s.resign_checks as f64,
        );
    }
    if s.adjudicated > 0 || s.draw_checks > 0 {
        put(
            "selfplay/adjudicated_rate",
            s.adjudicated as f64 / s.games.max(1) as f64,
        );
        if s.draw_checks > 0 {
            put(
                "selfplay/adjudicated_false_positive_rate",
                s.draw_false as f64 / s.draw_checks as f64,
            );
        }
    }
    if s.tablebase > 0 {
        put(
            "selfplay/tablebase_rate",
            s.tablebase as f64 / s.games.max(1) as f64,
        );
    }
    put("replay/window", window as f64);
    if let Some(a) = arena {
        put("arena/score", a);
    }
    sinks.flush();
}

pub(crate) fn summary_line(
    g: u64,
    s: &SelfPlayStats,
    losses: &[Losses],
    window: usize,
    arena: Option<f64>,
    cfg: &TrainConfig,
) -> String {
    let secs = s.seconds.max(1e-9);
    let mut line = format!(
        "gen {g:4}: {} games ({:.1}/s, {:.0} decisions avg, {:.0}% draws, {} distinct openings), {:.0} evals/s (batch {:.0}), {} samples in window",
        s.games,
        s.games as f64 / secs,
        s.decisions as f64 / s.games.max(1) as f64,
        100.0 * s.draws as f64 / s.games.max(1) as f64,
        s.distinct_openings,
        s.evals as f64 / secs,
        s.evals as f64 / s.calls.max(1) as f64,
        window
    );
    if s.adjudicated > 0 || s.draw_checks > 0 {
        line.push_str(&format!(
            ", {} adjudicated drawn ({} of {} checks not drawn)",
            s.adjudicated, s.draw_false, s.draw_checks
        ));
    }
    if s.tablebase > 0 {
        line.push_str(&format!(", {} ended by the tables", s.tablebase));
    }
    if !losses.is_empty() {
        line.push_str(&format!(
            ", loss p {:.3} v {:.3}, value acc {:.0}%",
            mean(losses.iter().map(|l| l.policy)),
            mean(losses.iter().map(|l| l.value)),
            100.0 * mean(losses.iter().map(|l| l.value_accuracy))
        ));
        let o = ownership_loss(losses);
        if o.is_finite() {
            line.push_str(&format!(", ownership loss {o:.3}"));
        }
    }
    if let Some(a) = arena {
        line.push_str(&format!(
            ", vs ab:depth={}: {:.0}%",
            cfg.run.arena_ab_depth,
            100.0 * a
        ));
    }
    line
}

/// The book of the periodic match, if the config names one.
fn read_arena_book(cfg: &TrainConfig) -> Result<Option<Vec<Position>>, TrainError> {
    read_book(cfg, "run.arena_book", &cfg.run.arena_book)
}

/// The book self-play starts from, if the config names one.
pub(crate) fn read_selfplay_book(cfg: &TrainConfig) -> Result<Option<Vec<Position>>, TrainError> {
    read_book(cfg, "selfplay.book", &cfg.selfplay.book)
}

/// What `selfplay.ab_eval` and `selfplay.tablebases` name, read and checked against the
/// run's variant.
pub(crate) fn read_selfplay_aids(cfg: &TrainConfig) -> Result<selfplay::Aids, TrainError> {
    let learned = read_ab_eval(cfg, "selfplay.ab_eval", &cfg.selfplay.ab_eval)?;
    let dir = &cfg.selfplay.tablebases;
    let tables = if dir.is_empty() {
        None
    } else {
        let t = fanorona_tb::Tablebase::open(Path::new(dir), cfg.variant())
            .map_err(|e| TrainError::Tables(format!("selfplay.tablebases = \"{dir}\": {e}")))?;
        Some(std::sync::Arc::new(t))
    };
    Ok(selfplay::Aids { learned, tables })
}

/// The learned evaluation at `path` (the config's `key`; empty: none), read once and
/// checked against the run's board.
fn read_ab_eval(cfg: &TrainConfig, key: &str, path: &str) -> Result<selfplay::AbEval, TrainError> {
    if path.is_empty() {
        return Ok(None);
    }
    let named = |e: &dyn std::fmt::Display| TrainError::Eval(format!("{key} = \"{path}\": {e}"));
    let file = checkpoint::eval_path(Path::new(path), cfg.variant()).map_err(|e| named(&e))?;
    fanorona_search::LearnedEval::read(&file, cfg.variant())
        .map(|e| Some(std::sync::Arc::new(e)))
        .map_err(|e| named(&e))
}

/// The learned evaluation that the run's players search with, as its file's bytes: the
/// self-play searches' (`selfplay.ab_eval`), else the warm start's teacher's
/// (`bootstrap.ab_eval`). Every checkpoint carries it as [`checkpoint::EVAL_FILE`], so
/// that `mcts:ckpt=DIR` plays with the evaluation the network learned beside.
pub(crate) fn players_eval_file(cfg: &TrainConfig) -> Result<Option<Vec<u8>>, TrainError> {
    let (key, name) = if !cfg.selfplay.ab_eval.is_empty() {
        ("selfplay.ab_eval", &cfg.selfplay.ab_eval)
    } else if !cfg.bootstrap.ab_eval.is_empty() {
        ("bootstrap.ab_eval", &cfg.bootstrap.ab_eval)
    } else {
        return Ok(None);
    };
    let named = |e: &dyn std::fmt::Display| TrainError::Eval(format!("{key} = \"{name}\": {e}"));
    let file = checkpoint::eval_path(Path::new(name), cfg.variant()).map_err(|e| named(&e))?;
    std::fs::read(&file).map(Some).map_err(|e| named(&e))
}

/// The book at `path` (the config's `key`; empty: none), checked against the run's variant.
fn read_book(
    cfg: &TrainConfig,
    key: &str,
    path: &str,
) -> Result<Option<Vec<Position>>, TrainError> {
    if path.is_empty() {
        return Ok(None);
    }
    fanorona_search::book::read_book(Path::new(path), cfg.rule_options(), Some(cfg.variant()))
        .map(Some)
        .map_err(|e| TrainError::Book(format!("{key}: {e}")))
}

/// The network (with MCTS) against the configured alpha-beta opponent, a match of the
/// arena ([`fanorona_arena::play_pairings_with`]): score in [0, 1]. Game `i` starts from
/// the traditional opening `(i / 2) % 5` or from book position `i / 2`, the network White
/// in even games.
fn arena_score(
    cfg: &TrainConfig,
    trainer: &Trainer,
    device: &Device,
    variant: Variant,
    seed: u64,
    book: Option<&[Position]>,
) -> Result<f64, TrainError> {
    use fanorona_arena::{ArenaConfig, ArenaError, Format, Openings, play_pairings_with};
    use fanorona_search::{AbConfig, AbPlayer, Limits, Player};
    let depth = cfg.run.arena_ab_depth.max(1);
    let specs = ["net".to_string(), format!("ab:depth={depth}")];
    let arena = ArenaConfig {
        variant,
        rules: cfg.rule_options(),
        openings: book.map_or(Openings::Traditional, |b| Openings::Book(b.to_vec())),
        format: Format::Riatras,
        games: cfg.run.arena_games.max(1),
        threads: 1,
        seed,
        max_turns: 400,
        out: None,
        device: device.clone(),
        adjudicate: None,
    };
    // The network being trained is no checkpoint a spec could name: the players are made
    // here, the network's from its weights in memory.
    let net = std::sync::Mutex::new(trainer.inference_net());
    let make = |k: usize, _: u64| -> Result<Box<dyn Player>, ArenaError> {
        Ok(if k == 0 {
            let net = net.lock().expect("no thread panicked holding it").clone();
            let eval = NetEvaluator::new(net, device.clone(), variant, false, seed);
            Box::new(fanorona_nn::MctsPlayer::new(
                eval,
                fanorona_search::MctsConfig::default(),
                cfg.run.arena_sims,
                "net",
                seed,
            ))
        } else {
            Box::new(AbPlayer::new(
                AbConfig {
                    hash_mb: 8,
                    ..AbConfig::default()
                },
                Limits {
                    depth: Some(depth),
                    ..Limits::default()
                },
                specs[1].clone(),
            ))
        })
    };
    let records = play_pairings_with(&arena, &specs, &[(0, 1)], &make, &|_, _, _| {}, None)
        .map_err(|e| TrainError::Arena(e.to_string()))?;
    let points: f64 = records
        .iter()
        .map(|r| match (r.result.as_str(), r.white == specs[0]) {
            ("draw", _) => 0.5,
            ("white", true) | ("black", false) => 1.0,
            _ => 0.0,
        })
        .sum();
    Ok(points / records.len().max(1) as f64)
}

/// Makes sure `G` is usable by self-play (compile-time check for both game types).
#[allow(dead_code)]
fn _assert_encode<G: Encode>() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_state_reads_back_and_names_a_bad_file() {
        let dir = std::env::temp_dir().join(format!("fanorona-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let state = RunState {
            generation: 3,
            games: 40,
            samples: 5000,
            steps: 77,
            seconds: 12.5,
            untrained_samples: 9,
            bootstrap_games: Some(30),
        };
        std::fs::write(dir.join(RunState::FILE), state.to_json()).unwrap();
        assert_eq!(RunState::read(&dir).unwrap(), state);

        std::fs::write(dir.join(RunState::FILE), "{\"generation\": ").unwrap();
        let e = RunState::read(&dir).unwrap_err().to_string();
        assert!(e.contains("state.json"), "{e}");

        std::fs::remove_file(dir.join(RunState::FILE)).unwrap();
        let e = RunState::read(&dir).unwrap_err().to_string();
        assert!(e.contains("state.json"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
