//! Tree learning: a learned evaluation for alpha-beta, trained by alpha-beta's own
//! self-play from every node its searches finish (TreeStrap(alpha-beta): Veness, Silver,
//! Uther and Blair, "Bootstrapping from Game Tree Search", 2009), in the one learner loop
//! ([`crate::learner::drive`]).
//!
//! Each generation, the engine plays `tree.games` games against itself with the current
//! evaluation (after a few random opening turns); each of its searches gives a label for
//! every node it searched to `tree.label_depth` turns or more: the node's score and
//! whether it is the value or a lower or upper bound of it (a node that failed high or
//! low). The labels go to a window of `train.replay_window`; the evaluation learns from
//! random batches of it by the squared difference of win chances, one-sided for bounds,
//! wins graded by the turns they take and draws at the quiet limit by the material
//! (`fanorona_search::tune::graded_target`, `AbConfig::graded_draws`). No second search
//! labels anything: the positions learned are those alpha-beta meets when it plays.
//!
//! From zero knowledge (`tree.init` empty) the evaluation has no hand-written base: its
//! inputs are the rules' facts (each side's pieces on each point, seen from the side to
//! move; each side's paika moves, the pieces the side to move can capture and its own
//! attacked ones, each side's material) and its weights start with a zero output.
//!
//! A checkpoint is a folder `<run>/<generation>/` with `eval.txt` (what `ab:eval=DIR`
//! reads), the optimizer's moments, the list of the label window's files
//! (`window.json`; the files, one a generation and a source, are in `<run>/labels/`, see
//! [`window`]), the counters and the generation's metrics: a run stopped anywhere resumes
//! from its last checkpoint with the same window and optimizer, so no label is lost or
//! learned twice.

use crate::config::TrainConfig;
use crate::inputs::read_arena_book;
use crate::learner::{
    Generation, Keeper, Model, Source, drive, generation_seed, open_sinks, run_limits,
};
use crate::selfplay::SelfPlayStats;
use crate::state::{Progress, RunState, Summary, TrainError, io, read_json};
use fanorona_nn::Losses;
use fanorona_nn::checkpoint;
use fanorona_rules::{Color, History, Outcome, Position, Turn, TurnMode, Variant};
use fanorona_search::tune::{BoundFit, BoundSample};
use fanorona_search::{
    AbConfig, AlphaBeta, Bound, Descent, EvalWeights, LearnedEval, Limits, NodeLabel,
};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// A game longer than this many turns is stopped (the quiet limit ends games long
/// before).
const MAX_TURNS: u32 = 1000;

pub mod curve;
mod window;

pub use window::{LabelSource, LabelWindow, decode_labels, encode_labels};

/// The evaluation under training, its optimizer, the label window and the counters.
#[derive(Debug)]
pub struct EvalLearner {
    /// The evaluation.
    pub eval: LearnedEval,
    fit: BoundFit,
    window: LabelWindow,
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

    fn train(
        &mut self,
        cfg: &TrainConfig,
        new_samples: u64,
        lr: f64,
        seed: u64,
    ) -> (Vec<Losses>, f64) {
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
const ADAM_FILE: &str = "adam.bin";
/// The whole label window's file in a checkpoint saved before the window moved to
/// `labels/` (read when such a run resumes).
const LABELS_FILE: &str = "labels.bin";

/// A tree-learning checkpoint's `meta.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct TreeMeta {
    format: u32,
    /// Always `tree`: what the folder holds (an evaluation, no network).
    kind: String,
    method: String,
    variant: String,
    generation: u64,
    run: String,
}

/// The learned evaluation that `name` (a config key's value) means, read for `variant`.
fn read_eval(name: &str, variant: Variant, key: &str) -> Result<LearnedEval, TrainError> {
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

/// One self-play game's yield.
#[derive(Debug, Default)]
struct GameOut {
    /// The labels of the searches that played.
    labels: Vec<NodeLabel>,
    /// The deeper teacher's labels (`tree.deep_gap`).
    teacher: Vec<NodeLabel>,
    turns: u64,
    nodes: u64,
    /// Nodes of the deeper teacher's searches (not in `nodes`).
    deep_nodes: u64,
    outcome: Option<Outcome>,
}

/// The searcher that plays a game: alpha-beta (TreeStrap) or Descent; and the deeper
/// teacher of TreeStrap (`tree.deep_gap`), when on.
enum Searcher {
    AlphaBeta(Box<AlphaBeta>, Option<Box<AlphaBeta>>),
    Descent(Box<Descent>),
}

/// Nodes a Descent tree may hold before a game's next turn starts it afresh.
const DESCENT_NODES: usize = 500_000;

impl Searcher {
    fn new(cfg: &TrainConfig, eval: &Arc<LearnedEval>) -> Searcher {
        let t = &cfg.tree;
        if t.method == "descent" {
            Searcher::Descent(Box::new(Descent::new(eval.clone(), None, t.graded_draws)))
        } else {
            let engine = |min_depth: u32| {
                let mut e = AlphaBeta::new(AbConfig {
                    hash_mb: 16,
                    learned: Some(eval.clone()),
                    graded_draws: t.graded_draws,
                    ..AbConfig::default()
                });
                e.record_labels(min_depth, t.max_quiet);
                Box::new(e)
            };
            let deep = (t.deep_gap > 0 && t.deep_positions > 0).then(|| engine(t.depth + 1));
            Searcher::AlphaBeta(engine(t.label_depth), deep)
        }
    }

    fn new_game(&mut self) {
        match self {
            Searcher::AlphaBeta(e, deep) => {
                e.new_game();
                if let Some(d) = deep {
                    d.new_game();
                }
            }
            Searcher::Descent(d) => d.clear(),
        }
    }

    /// The deeper teacher's labels of `pos` (`tree.depth + tree.deep_gap` turns; its
    /// nodes searched deeper than the players' searches, the root first) and its nodes;
    /// none when it is off.
    fn deep_labels(&mut self, cfg: &TrainConfig, pos: &Position) -> (Vec<NodeLabel>, u64) {
        let Searcher::AlphaBeta(_, Some(deep)) = self else {
            return (Vec::new(), 0);
        };
        let depth = cfg.tree.depth + cfg.tree.deep_gap;
        let r = deep.search(
            &History::new(*pos),
            &Limits {
                depth: Some(depth),
                ..Limits::default()
            },
        );
        // The search's own nodes label themselves; its root, searched at the root,
        // does not: its value is the search's score (a position with one legal turn
        // ends its search early, and gives no label deeper than the players').
        let mut labels = Vec::new();
        if r.best.is_some() && r.depth > cfg.tree.depth {
            labels.push(NodeLabel {
                position: *pos,
                score: r.score,
                bound: Bound::Exact,
                depth: r.depth.min(255) as u8,
            });
        }
        labels.extend(deep.take_labels());
        (labels, r.nodes)
    }

    /// The best turn of `game`'s position (`None`: none), with the search's labels and
    /// nodes.
    fn search(&mut self, cfg: &TrainConfig, game: &History) -> (Option<Turn>, Vec<NodeLabel>, u64) {
        let t = &cfg.tree;
        let pos = game.position();
        match self {
            Searcher::AlphaBeta(e, _) => {
                let r = e.search(
                    game,
                    &Limits {
                        depth: Some(t.depth),
                        ..Limits::default()
                    },
                );
                (r.best, e.take_labels(), r.nodes)
            }
            Searcher::Descent(d) => {
                if d.len() > DESCENT_NODES {
                    d.clear();
                }
                let before = d.expanded;
                let r = d.search(pos, t.iterations);
                let labels = d.labels(pos, t.label_depth, t.max_quiet);
                (
                    r.turns.first().map(|(t, _)| *t),
                    labels,
                    d.expanded - before,
                )
            }
        }
    }
}

/// Game `seed`'s play: random opening turns, then the method's search with its labels
/// kept (Descent's one a position, the last search's: its trees overlap from turn to
/// turn).
fn play_game(cfg: &TrainConfig, searcher: &mut Searcher, seed: u64) -> GameOut {
    let t = &cfg.tree;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = History::new(Position::start(cfg.variant(), cfg.rule_options()));
    searcher.new_game();
    let opening = rng.random_range(0..=t.opening_turns);
    let mut out = GameOut::default();
    let mut labels: Vec<NodeLabel> = Vec::new();
    let mut index: std::collections::HashMap<(u64, u16), usize> = Default::default();
    // Positions the engine chose in, with their turn: the deeper teacher's candidates
    // and the outcome labels'.
    let mut searched: Vec<(u32, Position)> = Vec::new();
    for turn in 0..MAX_TURNS {
        let pos = *game.position();
        let turns = pos.turns(TurnMode::Distinct);
        if turns.is_empty() || game.outcome().is_some() {
            break;
        }
        if turn >= opening && pos.quiet() <= t.max_quiet {
            searched.push((turn, pos));
        }
        let chosen = if turn < opening {
            turns[rng.random_range(0..turns.len())]
        } else {
            let (best, found, nodes) = searcher.search(cfg, &game);
            out.nodes += nodes;
            if t.method == "descent" {
                for l in found {
                    let key = (l.position.hash(), l.position.quiet());
                    match index.get(&key) {
                        Some(&i) => labels[i] = l,
                        None => {
                            index.insert(key, labels.len());
                            labels.push(l);
                        }
                    }
                }
            } else {
                // Alpha-beta's searches overlap little: each keeps its own.
                labels.extend(found);
            }
            best.unwrap_or(turns[0])
        };
        game.play_unchecked(&chosen);
        out.turns += 1;
    }
    // The game's result, for positions of it at random (both sides): what the game
    // ended in, from each one's side to move, so many turns before the end.
    if let Some(o) = game.outcome().filter(|_| t.outcome_positions > 0) {
        let last = *game.position();
        let mut pool = searched.clone();
        for _ in 0..t.outcome_positions.min(pool.len()) {
            let (at, pos) = pool.swap_remove(rng.random_range(0..pool.len()));
            let turns = u32::try_from(out.turns)
                .unwrap_or(u32::MAX)
                .saturating_sub(at);
            labels.push(NodeLabel {
                position: pos,
                score: fanorona_search::result_score(
                    o,
                    pos.side_to_move(),
                    &last,
                    turns,
                    t.graded_draws,
                ),
                bound: Bound::Exact,
                depth: 0,
            });
        }
    }
    // The deeper teacher: positions of this game at random (both sides, as the game
    // reached them), each searched deeper than the game's own searches.
    if t.deep_gap > 0 {
        for _ in 0..t.deep_positions.min(searched.len()) {
            let (_, pos) = searched.swap_remove(rng.random_range(0..searched.len()));
            let (found, nodes) = searcher.deep_labels(cfg, &pos);
            out.deep_nodes += nodes;
            out.teacher.extend(found);
        }
    }
    out.labels = labels;
    out.outcome = game.outcome();
    out
}

/// `games` games with `eval` on `threads` threads (game `i` from seed `seed ^ i`), in
/// game order whatever the threads; `on_game` hears each finished game's count (from
/// the calling thread).
fn play_games(
    cfg: &TrainConfig,
    eval: &Arc<LearnedEval>,
    games: usize,
    seed: u64,
    on_game: &mut dyn FnMut(usize),
) -> Vec<GameOut> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = cfg.tree.threads().min(games).max(1);
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, GameOut)>();
    let mut out: Vec<Option<GameOut>> = (0..games).map(|_| None).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (tx, next) = (tx.clone(), &next);
            scope.spawn(move || {
                let mut searcher = Searcher::new(cfg, eval);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= games {
                        break;
                    }
                    let game_seed = seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    if tx
                        .send((i, play_game(cfg, &mut searcher, game_seed)))
                        .is_err()
                    {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (done, (i, g)) in rx.into_iter().enumerate() {
            out[i] = Some(g);
            on_game(done + 1);
        }
    });
    out.into_iter().flatten().collect()
}

/// Tree learning's generations: alpha-beta's self-play with the evaluation being learned.
struct TreePlay<'a> {
    cfg: &'a TrainConfig,
    /// `run.arena_book`.
    arena_book: Option<&'a [Position]>,
    /// `run.curve_minutes`.
    curve: Option<curve::Curve<'a>>,
}

impl Source<EvalLearner> for TreePlay<'_> {
    fn generation(
        &mut self,
        learner: &mut EvalLearner,
        g: u64,
        _lr: f64,
        progress: &mut dyn Progress,
    ) -> Result<Generation, TrainError> {
        let cfg = self.cfg;
        let t = Instant::now();
        let eval = Arc::new(learner.eval.clone());
        let games = cfg.tree.games;
        progress.selfplay_started(g, games);
        let played = play_games(cfg, &eval, games, generation_seed(cfg, g), &mut |n| {
            progress.game_finished(n)
        });
        progress.selfplay_finished();
        let mut stats = SelfPlayStats::default();
        let mut samples = 0u64;
        let (mut play, mut teacher) = (Vec::new(), Vec::new());
        for game in played {
            stats.games += 1;
            stats.decisions += game.turns;
            stats.evals += game.nodes + game.deep_nodes;
            stats.teacher_nodes += game.deep_nodes;
            stats.teacher_samples += game.teacher.len() as u64;
            match game.outcome {
                Some(Outcome::Win(Color::White)) => stats.white += 1,
                Some(Outcome::Win(Color::Black)) => stats.black += 1,
                _ => stats.draws += 1,
            }
            samples += (game.labels.len() + game.teacher.len()) as u64;
            play.extend(game.labels);
            teacher.extend(game.teacher);
        }
        learner.extend(g, LabelSource::Play, &play)?;
        learner.extend(g, LabelSource::Teacher, &teacher)?;
        stats.samples = samples;
        stats.seconds = t.elapsed().as_secs_f64();
        Ok(Generation {
            games: stats.games,
            stats,
            samples,
            trained: None,
        })
    }

    fn score(&mut self, learner: &EvalLearner, g: u64) -> Result<Option<f64>, TrainError> {
        let cfg = self.cfg;
        if cfg.run.arena_every == 0 || !g.is_multiple_of(cfg.run.arena_every) {
            return Ok(None);
        }
        let depth = cfg.run.arena_ab_depth.max(1);
        let eval = Arc::new(learner.eval.clone());
        let specs = [
            format!("ab:depth={depth},eval=<generation {g}>"),
            format!("ab:depth={depth}"),
        ];
        let make = |k: usize, _: u64| -> Result<Box<dyn fanorona_search::Player>, String> {
            let learned = (k == 0).then(|| eval.clone());
            crate::report::depth_player(depth, 8, learned, &specs[k], cfg.variant())
        };
        crate::report::match_score(cfg, &specs, &make, generation_seed(cfg, g), self.arena_book)
            .map(Some)
    }

    fn measure(
        &mut self,
        learner: &EvalLearner,
        g: u64,
        sinks: &mut dyn crate::metrics::MetricsSink,
        progress: &mut dyn Progress,
    ) -> Result<(), TrainError> {
        match &self.curve {
            Some(c) => c.record(&learner.eval, g, learner.state.seconds, sinks, progress),
            None => Ok(()),
        }
    }
}

/// Tree learning's checkpoints: `<run>/<generation>/` folders.
struct TreeFolder<'a> {
    cfg: &'a TrainConfig,
    run: &'a str,
    root: &'a Path,
    last: Option<PathBuf>,
}

impl Keeper<EvalLearner> for TreeFolder<'_> {
    fn save(&mut self, learner: &EvalLearner, files: &[(&str, &[u8])]) -> Result<(), TrainError> {
        let g = learner.state.generation;
        let dir = self.root.join(format!("{g:05}"));
        let eval = learner.eval.to_text();
        let adam = learner.fit.to_bytes();
        let window = serde_json::to_vec_pretty(&learner.window.manifest()).expect("serialises");
        let state = learner.state.to_json();
        let meta = serde_json::to_vec_pretty(&TreeMeta {
            format: 1,
            kind: "tree".into(),
            method: self.cfg.tree.method.clone(),
            variant: self.cfg.variant().name().into(),
            generation: g,
            run: self.run.into(),
        })
        .expect("metadata serialises");
        let mut all: Vec<(&str, &[u8])> = vec![
            (checkpoint::EVAL_FILE, eval.as_bytes()),
            (ADAM_FILE, &adam),
            (window::MANIFEST, &window),
            (RunState::FILE, &state),
        ];
        all.extend_from_slice(files);
        all.push(("meta.json", &meta));
        checkpoint::save_files(&dir, &all)?;
        // The window is the newest checkpoint's alone (the older ones keep their
        // evaluation, the curve of the run): the files it let go, and a whole window of
        // the older form, go.
        learner.window.prune();
        if let Some(prev) = &self.last
            && prev != &dir
        {
            let _ = std::fs::remove_file(prev.join(LABELS_FILE));
        }
        self.last = Some(dir);
        Ok(())
    }
}

/// The newest tree checkpoint of run folder `dir` (the highest generation whose
/// `meta.json` says `tree`).
fn latest(dir: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(dir).ok()?;
    entries
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            let g: u64 = e.file_name().to_str()?.parse().ok()?;
            let meta: TreeMeta = read_json(&p.join("meta.json")).ok()?;
            (meta.kind == "tree" && meta.generation == g).then_some((g, p))
        })
        .max_by_key(|(g, _)| *g)
        .map(|(_, p)| p)
}

/// `fanorona train` with `[tree]`: a new run, or the resumption of run folder
/// `ckpt_dir`'s latest checkpoint, until `run.generations` or `run.max_seconds`.
pub(crate) fn train(
    cfg: &TrainConfig,
    run: &str,
    ckpt_dir: &Path,
    exp_dir: &Path,
    progress: &mut dyn Progress,
) -> Result<Summary, TrainError> {
    let arena_book = read_arena_book(cfg)?;
    for dir in checkpoint::recover(ckpt_dir)? {
        progress.message(&format!(
            "finished the save of {} that a stop interrupted",
            dir.display()
        ));
    }
    let last = latest(ckpt_dir);
    let mut learner = match &last {
        Some(dir) => {
            let l = EvalLearner::resume(dir, cfg)?;
            progress.message(&format!(
                "resuming run `{run}` from generation {} ({} games, {} labels, {} steps, window {})",
                l.state.generation,
                l.state.games,
                l.state.samples,
                l.state.steps,
                l.window.len()
            ));
            l
        }
        None => {
            let l = EvalLearner::start(cfg, ckpt_dir)?;
            let from = if cfg.tree.init.is_empty() {
                "zero knowledge (no hand-written base)".to_string()
            } else {
                format!(
                    "{} ({} base)",
                    cfg.tree.init,
                    if l.eval.hand_base() {
                        "hand-written"
                    } else {
                        "no"
                    }
                )
            };
            progress.message(&format!(
                "new run `{run}`: {} tree learning ({}), {} evaluation of {} hidden units from {from}",
                cfg.variant(),
                cfg.tree.method,
                cfg.variant(),
                l.eval.hidden()
            ));
            l
        }
    };
    let mut sinks = open_sinks(exp_dir, last.as_deref())?;
    let session = Instant::now();
    let mut source = TreePlay {
        cfg,
        arena_book: arena_book.as_deref(),
        curve: curve::Curve::new(cfg, ckpt_dir, arena_book.as_deref()),
    };
    let mut keeper = TreeFolder {
        cfg,
        run,
        root: ckpt_dir,
        last,
    };
    let (generations, until) = run_limits(cfg, session);
    drive(
        cfg,
        &mut learner,
        &mut source,
        &mut keeper,
        &mut sinks,
        generations,
        until,
        progress,
    )?;
    Ok(Summary {
        state: learner.state,
        last_checkpoint: keeper.last,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> TrainConfig {
        let mut cfg = TrainConfig::parse(
            "tiny",
            r#"
variant = "dimy"
[tree]
method = "treestrap"
hidden = 8
depth = 2
label_depth = 1
games = 3
threads = 2
[train]
lr = 0.001
batch_size = 32
replay_window = 5000
min_replay = 32
train_ratio = 1.0
[run]
generations = 2
"#,
            &[],
        )
        .unwrap();
        cfg.validate().unwrap();
        cfg.run.generations = 2;
        cfg
    }

    #[test]
    fn labels_round_trip_and_bad_files_are_named() {
        let cfg = tiny();
        let out = play_games(
            &cfg,
            &Arc::new(LearnedEval::zero(Variant::Dimy, 8, 1)),
            2,
            5,
            &mut |_| {},
        );
        let labels: Vec<NodeLabel> = out.into_iter().flat_map(|g| g.labels).collect();
        assert!(labels.len() > 20, "{} labels", labels.len());
        let bytes = encode_labels(Variant::Dimy, labels.iter());
        assert_eq!(bytes.len(), 16 + 5 + window::LABEL_BYTES * labels.len());
        let back = decode_labels(&bytes, Variant::Dimy, cfg.rule_options()).unwrap();
        assert_eq!(back.len(), labels.len());
        for (a, b) in back.iter().zip(&labels) {
            assert_eq!((a.score, a.bound, a.depth), (b.score, b.bound, b.depth));
            // The same board, side and quiet counter (the turn number only as far as the
            // rules tell turns apart).
            assert_eq!(a.position.hash(), b.position.hash());
            assert_eq!(a.position.quiet(), b.position.quiet());
        }
        let rules = cfg.rule_options();
        assert!(decode_labels(&bytes[1..], Variant::Dimy, rules).is_err());
        assert!(
            decode_labels(&bytes, Variant::Tsivy, rules)
                .unwrap_err()
                .contains("dimy")
        );
        assert!(
            decode_labels(&bytes[..bytes.len() - 3], Variant::Dimy, rules)
                .unwrap_err()
                .contains("cut")
        );
        let mut bad = bytes.clone();
        bad[16 + 5 + 23] = 9;
        assert!(
            decode_labels(&bad, Variant::Dimy, rules)
                .unwrap_err()
                .contains("bound 9")
        );
    }

    #[test]
    fn outcome_labels_say_what_the_game_ended_in() {
        let mut cfg = tiny();
        let eval = Arc::new(LearnedEval::zero(Variant::Dimy, 8, 1));
        let plain = play_games(&cfg, &eval, 6, 5, &mut |_| {});
        cfg.tree.outcome_positions = 3;
        cfg.validate().unwrap();
        let anchored = play_games(&cfg, &eval, 6, 5, &mut |_| {});
        let mut decided = 0;
        for (p, a) in plain.iter().zip(&anchored) {
            // The same games, and the same search labels first.
            assert_eq!((p.turns, p.outcome), (a.turns, a.outcome));
            assert_eq!(a.labels[..p.labels.len()], p.labels[..]);
            let extra = &a.labels[p.labels.len()..];
            let Some(o) = p.outcome else {
                assert!(extra.is_empty());
                continue;
            };
            assert!(!extra.is_empty() && extra.len() <= 3, "{}", extra.len());
            for l in extra {
                assert_eq!((l.bound, l.depth), (Bound::Exact, 0));
                match o {
                    Outcome::Win(c) => {
                        decided += 1;
                        let mine = c == l.position.side_to_move();
                        assert_eq!(l.score > fanorona_search::MATE_BOUND, mine, "{}", l.score);
                        assert_eq!(l.score < -fanorona_search::MATE_BOUND, !mine, "{}", l.score);
                    }
                    Outcome::Draw => assert!(l.score.abs() <= fanorona_search::DRAW_BAND),
                }
            }
        }
        assert!(decided > 0, "some of the games are won");
        cfg.tree.outcome_positions = 1001;
        assert!(cfg.validate().is_err());
    }

    #[test]
    fn the_deeper_teacher_labels_positions_of_the_games_deeper_than_they_were_searched() {
        let mut cfg = tiny();
        let eval = Arc::new(LearnedEval::zero(Variant::Dimy, 8, 1));
        let plain = play_games(&cfg, &eval, 2, 5, &mut |_| {});
        assert!(
            plain
                .iter()
                .all(|g| g.teacher.is_empty() && g.deep_nodes == 0)
        );
        (cfg.tree.deep_gap, cfg.tree.deep_positions) = (2, 3);
        cfg.validate().unwrap();
        let taught = play_games(&cfg, &eval, 2, 5, &mut |_| {});
        for (p, t) in plain.iter().zip(&taught) {
            // The same games (the teacher does not play), three positions of each
            // searched 4 turns deep (the roots among them): labels deeper than the
            // players' 2 turns.
            assert_eq!((p.turns, p.outcome), (t.turns, t.outcome));
            assert!(
                t.teacher.len() >= 3 && t.deep_nodes > 0,
                "{} labels",
                t.teacher.len()
            );
            assert_eq!(t.labels, p.labels);
            let deep = &t.teacher;
            assert!(deep.iter().all(|l| u32::from(l.depth) > cfg.tree.depth));
            assert!(deep.iter().any(|l| u32::from(l.depth) == 4), "{deep:?}");
        }
        // Off for Descent, and bounded.
        cfg.tree.method = "descent".into();
        assert!(cfg.validate().is_err());
        cfg.tree.method = "treestrap".into();
        cfg.tree.deep_gap = 9;
        assert!(cfg.validate().is_err());
    }

    #[test]
    fn the_games_do_not_depend_on_the_threads() {
        let mut cfg = tiny();
        let eval = Arc::new(LearnedEval::zero(Variant::Dimy, 8, 1));
        cfg.tree.threads = 1;
        let one = play_games(&cfg, &eval, 3, 9, &mut |_| {});
        cfg.tree.threads = 3;
        let mut calls = 0;
        let three = play_games(&cfg, &eval, 3, 9, &mut |_| calls += 1);
        assert_eq!(calls, 3);
        for (a, b) in one.iter().zip(&three) {
            assert_eq!(a.labels, b.labels);
            assert_eq!((a.turns, a.outcome), (b.turns, b.outcome));
        }
    }

    #[test]
    fn a_run_learns_checkpoints_and_resumes_where_it_stopped() {
        let root = std::env::temp_dir().join(format!("fanorona-tree-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (ckpt, exp) = (root.join("ckpt"), root.join("exp"));
        for run in ["t", "u"] {
            std::fs::create_dir_all(exp.join(run)).unwrap();
        }
        let cfg = tiny();
        let first = train(
            &cfg,
            "t",
            &ckpt.join("t"),
            &exp.join("t"),
            &mut crate::Quiet,
        )
        .unwrap();
        assert_eq!(first.state.generation, 2);
        assert!(first.state.steps > 0 && first.state.samples > 0);
        let dir = first.last_checkpoint.unwrap();
        let eval = LearnedEval::read(&dir.join("eval.txt"), Variant::Dimy).unwrap();
        assert!(!eval.hand_base());
        assert_ne!(
            eval,
            LearnedEval::zero(Variant::Dimy, 8, cfg.seed),
            "it learned"
        );
        // Two more generations after a stop are the generations 3 and 4 of one run of
        // four: the same evaluation, window and counters.
        let mut more = cfg.clone();
        more.run.generations = 4;
        let resumed = train(
            &more,
            "t",
            &ckpt.join("t"),
            &exp.join("t"),
            &mut crate::Quiet,
        )
        .unwrap();
        let once = train(
            &more,
            "u",
            &ckpt.join("u"),
            &exp.join("u"),
            &mut crate::Quiet,
        )
        .unwrap();
        assert_eq!(resumed.state.generation, 4);
        assert_eq!(resumed.state.samples, once.state.samples);
        assert_eq!(resumed.state.steps, once.state.steps);
        let resumed_dir = resumed.last_checkpoint.unwrap();
        let a = std::fs::read_to_string(resumed_dir.join("eval.txt")).unwrap();
        let b = std::fs::read_to_string(once.last_checkpoint.as_ref().unwrap().join("eval.txt"))
            .unwrap();
        assert_eq!(a, b);
        // Only the newest checkpoint lists the window; each has its metrics.
        let listed =
            |d: &Path| -> window::Manifest { read_json(&d.join(window::MANIFEST)).unwrap() };
        let last = once.last_checkpoint.unwrap();
        assert!(!dir.join(LABELS_FILE).exists());
        assert_eq!(listed(&last), listed(&resumed_dir));
        assert!(!listed(&last).is_empty());
        let lines = std::fs::read_to_string(exp.join("t").join("metrics.jsonl")).unwrap();
        assert!(lines.contains("loss/value"));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
