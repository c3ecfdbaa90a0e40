//! `fanorona train`: the warm start, then generations of self-play in this process fed to
//! the learner loop ([`crate::learner::drive`]); resumable at any moment.

use crate::config::TrainConfig;
use crate::inputs::{
    players_eval_file, read_ab_eval, read_arena_book, read_selfplay_aids, read_selfplay_book,
};
use crate::learner::{
    Folder, Generation, Keeper, Learner, Source, drive_session, generation_seed, open_sinks,
    train_on_window,
};
use crate::records;
use crate::selfplay::{self, SelfPlayStats};
use crate::state::{Progress, Summary, TrainError, io};
use crate::warm::warm_start;
use fanorona_nn::burn::module::Module;
use fanorona_nn::burn::prelude::Device;
use fanorona_nn::checkpoint;
use fanorona_nn::{NetEvaluator, Trainer};
use fanorona_rules::telo::TeloPosition;
use fanorona_rules::{Position, Variant};
use std::path::PathBuf;

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
    fanorona_rules::durable::write_atomic(&cfg_path, text.as_bytes()).map_err(io(&cfg_path))?;
    if cfg.tree.enabled() {
        return crate::tree::train(cfg, &opts.run, &ckpt_dir, &exp_dir, &opts.device, progress);
    }
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
    let mut sinks = open_sinks(&exp_dir, last_checkpoint.as_deref())?;
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
        let dir = warm_start(
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
    let mut source = SelfPlay {
        cfg,
        device: &opts.device,
        aids: &aids,
        book: selfplay_book.as_deref(),
        arena_book: arena_book.as_deref(),
        games_dir: exp_dir.join("games"),
    };
    let mut keeper = Folder::new(cfg, &opts.run, &ckpt_dir, last_checkpoint);
    drive_session(
        cfg,
        &mut learner,
        &mut source,
        &mut keeper,
        &mut sinks,
        session,
        progress,
    )
}

/// `fanorona train`'s generations: self-play in this process with the learner's network.
struct SelfPlay<'a> {
    cfg: &'a TrainConfig,
    device: &'a Device,
    aids: &'a selfplay::Aids,
    /// `selfplay.book`.
    book: Option<&'a [Position]>,
    /// `run.arena_book`.
    arena_book: Option<&'a [Position]>,
    /// Where each generation's games go, one file each.
    games_dir: PathBuf,
}

impl Source for SelfPlay<'_> {
    fn generation(
        &mut self,
        learner: &mut Learner,
        g: u64,
        lr: f64,
        progress: &mut dyn Progress,
    ) -> Result<Generation, TrainError> {
        let cfg = self.cfg;
        let seed = generation_seed(cfg, g);
        let mut eval = NetEvaluator::new(
            learner.trainer.inference_net(),
            self.device.clone(),
            cfg.variant(),
            cfg.selfplay.random_symmetry,
            seed,
        );
        let games = cfg.selfplay.games_per_generation;
        let (aids, book) = (self.aids, self.book);
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
                let (finished, stats) =
                    play_generation(cfg, &mut eval, aids, games, g, seed, book, progress);
                let trained = training
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e));
                (finished, stats, Some(trained))
            })
        } else {
            let (finished, stats) =
                play_generation(cfg, &mut eval, aids, games, g, seed, book, progress);
            (finished, stats, None)
        };
        progress.selfplay_finished();
        learner.state.steps = learner.trainer.step;
        // One file per generation, written whole: a rerun of a generation after a crash
        // replaces it instead of appending twice.
        let records: Vec<_> = finished.iter().map(|f| f.record.clone()).collect();
        let dir = &self.games_dir;
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        records::write_games(&dir.join(format!("{g:05}.jsonl")), &records)?;
        let samples: usize = finished.iter().map(|f| f.samples.len()).sum();
        learner
            .replay
            .extend(finished.into_iter().flat_map(|f| f.samples));
        Ok(Generation {
            games: stats.games,
            stats,
            samples: samples as u64,
            trained,
        })
    }

    fn score(&mut self, learner: &Learner, g: u64) -> Result<Option<f64>, TrainError> {
        let cfg = self.cfg;
        if cfg.run.arena_every == 0
            || !g.is_multiple_of(cfg.run.arena_every)
            || cfg.variant() == Variant::Telo
        {
            return Ok(None);
        }
        arena_score(
            cfg,
            &learner.trainer,
            self.device,
            cfg.variant(),
            generation_seed(cfg, g),
            self.arena_book,
        )
        .map(Some)
    }
}

/// `fanorona train`'s checkpoints: `<root>/<generation>/`, the replay window kept in the
/// newest alone (it is the largest file).
impl Keeper for Folder<'_> {
    fn save(&mut self, learner: &Learner, files: &[(&str, &[u8])]) -> Result<(), TrainError> {
        let g = learner.state.generation;
        let dir = self.root.join(format!("{g:05}"));
        learner.save(&dir, &learner.meta(self.cfg, g, self.run), files)?;
        if let Some(prev) = &self.last
            && prev != &dir
        {
            let _ = std::fs::remove_file(prev.join("replay.bin"));
        }
        self.last = Some(dir);
        Ok(())
    }

    fn last(&self) -> Option<PathBuf> {
        self.last.clone()
    }
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

/// The network (with MCTS) against the configured alpha-beta opponent
/// ([`crate::report::match_score`]): score in [0, 1].
fn arena_score(
    cfg: &TrainConfig,
    trainer: &Trainer,
    device: &Device,
    variant: Variant,
    seed: u64,
    book: Option<&[Position]>,
) -> Result<f64, TrainError> {
    use fanorona_search::Player;
    let depth = cfg.run.arena_ab_depth.max(1);
    let specs = ["net".to_string(), format!("ab:depth={depth}")];
    // The network being trained is no checkpoint a spec could name: the players are made
    // here, the network's from its weights in memory.
    let net = std::sync::Mutex::new(trainer.inference_net());
    let make = |k: usize, _: u64| -> Result<Box<dyn Player>, String> {
        Ok(if k == 0 {
            let net = net.lock().expect("no thread panicked holding it").clone();
            let eval = NetEvaluator::new(net, device.clone(), variant, false, seed);
            Box::new(fanorona_nn::MctsPlayer::new(
                eval,
                fanorona_search::MctsConfig::default(),
                fanorona_search::Limits::sims(cfg.run.arena_sims),
                "net",
                seed,
            ))
        } else {
            crate::report::depth_player(depth, 8, None, &specs[1], variant)?
        })
    };
    crate::report::match_score(cfg, &specs, &make, seed, book)
}
