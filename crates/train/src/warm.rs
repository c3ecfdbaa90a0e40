//! The warm start's driver (`[bootstrap]`): the alpha-beta engine's games
//! ([`crate::bootstrap`]) played and learned from before a new run's first generation,
//! checkpoint 0 and its snapshots.
//! [`crate::run::train`] calls it before the learner loop.

use crate::config::TrainConfig;
use crate::learner::{Learner, Replay, train_steps};
use crate::records::Sample;
use crate::report::{mean, ownership_loss};
use crate::selfplay;
use crate::state::{Progress, RunState, TrainError};
use fanorona_nn::{Losses, Trainer, checkpoint};
use fanorona_rules::Position;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::path::{Path, PathBuf};

/// The warm start of a new run (`[bootstrap]`): the engine's games `first..games`,
/// passes over their samples (while the games are played, with `overlap`), the newest of
/// them into the window, and checkpoint 0 (so that a resumed run does not do it again;
/// with `checkpoint_seconds`, also now and then on the way, with the games so far, so
/// that a stopped warm start resumes at the last of them). Returns the checkpoint's
/// folder.
#[allow(clippy::too_many_arguments)]
pub(crate) fn warm_start(
    cfg: &TrainConfig,
    teacher_eval: &selfplay::AbLearned,
    learner: &mut Learner,
    run: &str,
    ckpt_dir: &Path,
    seed: u64,
    first: usize,
    progress: &mut dyn Progress,
) -> Result<PathBuf, TrainError> {
    let b = &cfg.bootstrap;
    let start = Position::start(cfg.variant(), cfg.rule_options());
    let max_turns = cfg.selfplay.max_decisions;
    let dir = ckpt_dir.join("00000");
    let mut warm = WarmTrainer {
        cfg,
        rng: SmallRng::seed_from_u64(seed ^ 0xB007 ^ (first as u64).wrapping_mul(0x9E37_79B9)),
        // The run's clock starts here (or goes on from the seconds a resumed warm start
        // had spent): with `lr_decay_seconds` the rate decays through its steps too.
        clock: std::time::Instant::now(),
        seconds_before: learner.state.seconds,
        done: 0,
        losses: Vec::new(),
    };
    let samples_before = learner.state.samples;
    // Checkpoint 0 with the first `games` games, `samples` of them from this session.
    let save = |learner: &mut Learner, samples: usize, games: usize, seconds: f64| {
        let state = &mut learner.state;
        state.samples = samples_before + samples as u64;
        state.steps = learner.trainer.step;
        state.seconds = seconds;
        state.bootstrap_games = Some(games as u64);
        learner.save(&dir, &learner.meta(cfg, 0, run), &[])
    };
    // The warm start's learning curve: with `checkpoint_seconds`, each checkpoint 0 also
    // leaves its network in `warm/<seconds>` (a second copy of a small file; the window
    // and the optimizer stay in checkpoint 0 alone), for `arena --gauntlet <run>/warm`.
    // Losing one costs a point of the curve, not the run: a warning.
    let snapshot = |learner: &Learner, progress: &mut dyn Progress| {
        if b.checkpoint_seconds == 0 {
            return;
        }
        if let Err(e) = save_snapshot(learner, cfg, run, ckpt_dir) {
            progress.message(&format!("warning: no warm-start snapshot: {e}"));
        }
    };
    let mut all = Replay::new(usize::MAX);
    progress.selfplay_started(0, b.games - first);
    let (stats, play_secs) = if b.overlap {
        // The engine on every core (a pool of its own: `teacher_chunks`) and the trainer
        // on this thread beside it: the trainer needs a fraction of a core (a third in
        // tsivy3's warm start), so a core of its own would idle the rest of the time.
        let (tx, rx) = std::sync::mpsc::channel::<(Vec<Sample>, usize)>();
        let (start, clock) = (&start, warm.clock);
        let mut saved = std::time::Instant::now();
        let result = std::thread::scope(|scope| {
            let teacher = scope.spawn(move || {
                let mut send = |s: Vec<Sample>, games: usize| {
                    // The receiver lives until every chunk is in.
                    let _ = tx.send((s, games));
                };
                let stats = crate::bootstrap::teacher_chunks(
                    start,
                    b,
                    teacher_eval,
                    first..b.games,
                    max_turns,
                    seed,
                    &mut send,
                );
                (stats, clock.elapsed().as_secs_f64())
            });
            let mut failed = None;
            for (samples, games) in &rx {
                progress.game_finished(games - first);
                all.extend(samples);
                warm.train_to(&mut learner.trainer, &all, false, progress);
                if b.checkpoint_seconds > 0
                    && games < b.games
                    && failed.is_none()
                    && saved.elapsed().as_secs() >= b.checkpoint_seconds
                {
                    // Level with the games so far, so that the checkpoint owes nothing.
                    warm.train_to(&mut learner.trainer, &all, true, progress);
                    // The checkpoint's window: the run's (a resumed warm start's) and
                    // then the newest of the games so far, as the final save will be.
                    let w = cfg.train.replay_window;
                    let mut window = Replay::new(w);
                    window.extend(learner.replay.newest(w));
                    window.extend(all.newest(w));
                    let keep = std::mem::replace(&mut learner.replay, window);
                    let r = save(learner, all.len(), games, warm.seconds());
                    learner.replay = keep;
                    match r {
                        Ok(()) => {
                            progress.message(&format!(
                                "bootstrap: checkpoint 0 saved with {games} of {} games ({:.0} s)",
                                b.games,
                                warm.clock.elapsed().as_secs_f64()
                            ));
                            snapshot(learner, progress);
                        }
                        // Reported after the games (the engine's thread cannot be stopped
                        // early); nothing is lost that the final save would not write.
                        Err(e) => failed = Some(e),
                    }
                    saved = std::time::Instant::now();
                }
            }
            let joined = teacher
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            match failed {
                Some(e) => Err(e),
                None => Ok(joined),
            }
        });
        result?
    } else {
        let mut samples = Vec::new();
        let stats = crate::bootstrap::teacher_chunks(
            &start,
            b,
            teacher_eval,
            first..b.games,
            max_turns,
            seed,
            &mut |s, n| {
                samples.extend(s);
                progress.game_finished(n - first);
            },
        );
        all.extend(samples);
        (stats, warm.clock.elapsed().as_secs_f64())
    };
    progress.selfplay_finished();
    progress.message(&format!(
        "bootstrap: {} games of ab:depth={}{}{} ({} turns, up to {} random first, then {:.0}% random; White {}, Black {}, draws {}), {} samples in {:.0} s",
        stats.games,
        b.depth,
        if b.ab_eval.is_empty() {
            String::new()
        } else {
            format!(",eval={}", b.ab_eval)
        },
        if first > 0 {
            format!(" (games {first} to {})", b.games)
        } else {
            String::new()
        },
        stats.turns,
        b.opening_turns,
        100.0 * b.explore,
        stats.white,
        stats.black,
        stats.draws,
        all.len(),
        play_secs
    ));
    warm.train_to(&mut learner.trainer, &all, true, progress);
    let steps = warm.done;
    progress.message(&format!(
        "bootstrap: {steps} steps, done in {:.0} s",
        warm.clock.elapsed().as_secs_f64()
    ));
    let (seconds, n) = (warm.seconds(), all.len());
    learner.replay.extend(all.samples);
    save(learner, n, b.games, seconds)?;
    snapshot(learner, progress);
    Ok(dir)
}

/// The folder of a run's warm-start snapshots (see `bootstrap.checkpoint_seconds`).
pub const WARM_DIR: &str = "warm";

/// Saves the learner's network, meta and `state.json` (no optimizer, no window) into
/// `<run>/warm/<seconds>`, its seconds of training zero-padded so that the names sort as
/// the times do.
fn save_snapshot(
    learner: &Learner,
    cfg: &TrainConfig,
    run: &str,
    ckpt_dir: &Path,
) -> Result<(), TrainError> {
    let dir = ckpt_dir
        .join(WARM_DIR)
        .join(format!("{:06}", learner.state.whole_seconds()));
    let state = learner.state.to_json();
    let mut files: Vec<(&str, &[u8])> = vec![(RunState::FILE, &state)];
    files.extend(
        learner
            .eval_file
            .as_deref()
            .map(|e| (checkpoint::EVAL_FILE, e)),
    );
    checkpoint::save_with(
        &dir,
        &learner.trainer.inference_net(),
        None,
        &learner.meta(cfg, 0, run),
        &files,
    )?;
    Ok(())
}

/// The warm start's optimizer: `epochs` passes over the samples it has been given.
struct WarmTrainer<'a> {
    cfg: &'a TrainConfig,
    rng: SmallRng,
    clock: std::time::Instant,
    /// The run's seconds before this session's part of the warm start.
    seconds_before: f64,
    /// Steps taken.
    done: usize,
    /// Losses since the last progress line.
    losses: Vec<Losses>,
}

impl WarmTrainer<'_> {
    /// The run's seconds: those before and this session's.
    fn seconds(&self) -> f64 {
        self.seconds_before + self.clock.elapsed().as_secs_f64()
    }

    /// Steps `trainer` up to `epochs` passes over `all` (rounded down until a `last` call,
    /// so that the total is `ceil(epochs * samples / batch_size)` however the samples
    /// came), with a progress line and a new learning rate every 500 steps.
    fn train_to(
        &mut self,
        trainer: &mut Trainer,
        all: &Replay,
        last: bool,
        progress: &mut dyn Progress,
    ) {
        let batch = self.cfg.train.batch_size;
        if all.len() < batch {
            return;
        }
        let passes = self.cfg.bootstrap.epochs as f64 * all.len() as f64 / batch as f64;
        let target = if last { passes.ceil() } else { passes.floor() } as usize;
        while self.done < target {
            let k = (target - self.done).min(500 - self.done % 500);
            let lr = self.cfg.lr_at(0, self.seconds());
            let cfg = self.cfg;
            self.losses
                .extend(train_steps(trainer, all, cfg, k, lr, &mut self.rng));
            self.done += k;
            if self.done.is_multiple_of(500) || (last && self.done == target) {
                let o = ownership_loss(&self.losses);
                progress.message(&format!(
                    "bootstrap: step {}, {} samples, loss p {:.3} v {:.3}{}, lr {lr:.5} ({:.0} s)",
                    self.done,
                    all.len(),
                    mean(self.losses.iter().map(|l| l.policy)),
                    mean(self.losses.iter().map(|l| l.value)),
                    if o.is_finite() {
                        format!(" o {o:.3}")
                    } else {
                        String::new()
                    },
                    self.clock.elapsed().as_secs_f64()
                ));
                self.losses.clear();
            }
        }
    }
}
