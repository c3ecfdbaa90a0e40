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
//! (`fanorona_eval::fit::graded_target`, `AbConfig::graded_draws`). No second search
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
    Folder, Generation, Keeper, Source, drive_session, generation_seed, open_sinks,
};
use crate::records::Sample;
use crate::selfplay::SelfPlayStats;
use crate::state::{Progress, RunState, Summary, TrainError, read_json};
use fanorona_nn::burn::prelude::Device;
use fanorona_nn::checkpoint;
use fanorona_rules::{Color, Outcome, Position};
use fanorona_search::{LearnedEval, NodeLabel};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

pub mod curve;
mod learner;
mod play;
use fanorona_formats::labels as window;

use learner::*;
pub use learner::{EvalLearner, NET_DIR, NetSide, net_checkpoint};
use play::*;

pub use window::{LabelSource, LabelWindow, decode_labels, encode_labels};

/// Helpers of a tree run on other machines (`fanorona learn`'s workers over a store):
/// they play with the evaluation the learner publishes and label positions of their
/// games with deeper searches than the learner's own.
pub(crate) trait Helpers {
    /// Called once before the first generation, with the checkpoint the run resumes from
    /// (what the helpers' labels read so far were saved with).
    ///
    /// # Errors
    /// That checkpoint's record cannot be read.
    fn resume(&mut self, checkpoint: Option<&Path>) -> Result<(), TrainError>;
    /// Makes `eval`, the learner's at generation `g` (checkpointed), the one helpers play.
    ///
    /// # Errors
    /// The store fails.
    fn publish(&mut self, eval: &LearnedEval, g: u64) -> Result<(), TrainError>;
    /// The helpers' labels arrived since the last call (each once over the run's life,
    /// stops and resumes included, given [`Helpers::files`] in each checkpoint).
    ///
    /// # Errors
    /// The store fails.
    fn take(&mut self, progress: &mut dyn Progress) -> Result<Vec<NodeLabel>, TrainError>;
    /// Files a checkpoint keeps for [`Helpers::resume`].
    fn files(&self) -> Vec<(&'static str, Vec<u8>)>;
}

/// Tree learning's generations: alpha-beta's self-play with the evaluation being learned.
struct TreePlay<'a, 'h> {
    cfg: &'a TrainConfig,
    /// `run.arena_book`.
    arena_book: Option<&'a [Position]>,
    /// `run.curve_minutes`.
    curve: Option<curve::Curve<'a>>,
    /// Labellers on other machines.
    helpers: Option<&'a mut (dyn Helpers + 'h)>,
}

impl Source<EvalLearner> for TreePlay<'_, '_> {
    fn generation(
        &mut self,
        learner: &mut EvalLearner,
        g: u64,
        _lr: f64,
        progress: &mut dyn Progress,
    ) -> Result<Generation, TrainError> {
        let cfg = self.cfg;
        let t = Instant::now();
        if let Some(h) = self.helpers.as_deref_mut() {
            h.publish(&learner.eval, learner.state.generation)?;
        }
        let eval = Arc::new(learner.eval.clone());
        let games = cfg.tree.games;
        progress.selfplay_started(g, games);
        let played = play_games(cfg, &eval, games, generation_seed(cfg, g), &mut |n| {
            progress.game_finished(n)
        });
        progress.selfplay_finished();
        let (play, mut teacher, net_samples, mut stats) = tally(played);
        if let Some(h) = self.helpers.as_deref_mut() {
            let theirs = h.take(progress)?;
            stats.teacher_samples += theirs.len() as u64;
            teacher.extend(theirs);
        }
        let samples = (play.len() + teacher.len()) as u64;
        learner.extend(g, LabelSource::Play, &play)?;
        learner.extend(g, LabelSource::Teacher, &teacher)?;
        if let Some(net) = &mut learner.net {
            let n = net_samples.len() as u64;
            net.learner.replay.extend(net_samples);
            net.untrained += n;
            let s = &mut net.learner.state;
            s.generation = g;
            s.games += stats.games;
            s.samples += n;
        }
        stats.samples = samples;
        stats.seconds = t.elapsed().as_secs_f64();
        Ok(Generation {
            games: stats.games,
            stats,
            samples,
            trained: None,
        })
    }

    fn files(&self) -> Vec<(&'static str, Vec<u8>)> {
        self.helpers
            .as_deref()
            .map(Helpers::files)
            .unwrap_or_default()
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
            Some(c) => c.record(
                &learner.eval,
                learner.net.as_ref(),
                g,
                learner.state.seconds,
                sinks,
                progress,
            ),
            None => Ok(()),
        }
    }
}

/// Tree learning's checkpoints: `<run>/<generation>/` folders.
impl Keeper<EvalLearner> for Folder<'_> {
    fn save(&mut self, learner: &EvalLearner, files: &[(&str, &[u8])]) -> Result<(), TrainError> {
        let g = learner.state.generation;
        let dir = self.root.join(format!("{g:05}"));
        let eval = learner.eval.to_text();
        // The network first: an evaluation's checkpoint always has its network beside it,
        // which carries the evaluation of its generation (its MCTS player's aids use it).
        if let Some(net) = &learner.net {
            let meta = net.learner.meta(&net.cfg, g, self.run);
            net.learner.save(
                &net_checkpoint(self.root, g),
                &meta,
                &[(checkpoint::EVAL_FILE, eval.as_bytes())],
            )?;
        }
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
            // The network of the checkpoint before (the curve keeps its points' own).
            if learner.net.is_some()
                && let Some(before) = prev
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| n.parse::<u64>().ok())
            {
                let _ = std::fs::remove_dir_all(net_checkpoint(self.root, before));
            }
        }
        self.last = Some(dir);
        Ok(())
    }

    fn last(&self) -> Option<PathBuf> {
        self.last.clone()
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
    device: &Device,
    progress: &mut dyn Progress,
) -> Result<Summary, TrainError> {
    train_with(cfg, run, ckpt_dir, exp_dir, device, None, false, progress)
}

/// [`train`] with `helpers` labelling on other machines (`fanorona learn`): they hear
/// of the evaluation at the start, before each generation and at the end;
/// `publish_only`: the run is created (or resumed) and its evaluation published, no
/// generation played.
#[allow(clippy::too_many_arguments)]
pub(crate) fn train_with(
    cfg: &TrainConfig,
    run: &str,
    ckpt_dir: &Path,
    exp_dir: &Path,
    device: &Device,
    mut helpers: Option<&mut dyn Helpers>,
    publish_only: bool,
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
    learner.net = NetSide::open(
        cfg,
        ckpt_dir,
        last.as_deref().map(|d| (d, learner.state.generation)),
        device,
        &mut |m| progress.message(m),
    )?;
    if let Some(net) = &learner.net {
        let shape = net.learner.net_config();
        progress.message(&format!(
            "the network ({} blocks x {} channels) learns from the turns of {} positions a game{}",
            shape.blocks,
            shape.channels,
            cfg.net.positions,
            if last.is_some() {
                format!(
                    " (resumed: {} samples, window {})",
                    net.learner.state.samples,
                    net.learner.replay.len()
                )
            } else if !cfg.train.init.is_empty() {
                format!(", from the network of {}", cfg.train.init)
            } else {
                String::new()
            }
        ));
    }
    if let Some(h) = helpers.as_deref_mut() {
        h.resume(last.as_deref())?;
        h.publish(&learner.eval, learner.state.generation)?;
        if publish_only {
            return Ok(Summary {
                state: learner.state,
                last_checkpoint: last,
            });
        }
    }
    let mut sinks = open_sinks(exp_dir, last.as_deref())?;
    let session = Instant::now();
    let mut source = TreePlay {
        cfg,
        arena_book: arena_book.as_deref(),
        curve: curve::Curve::new(cfg, ckpt_dir, arena_book.as_deref(), device),
        helpers: helpers.as_deref_mut(),
    };
    let mut keeper = Folder::new(cfg, run, ckpt_dir, last);
    let summary = drive_session(
        cfg,
        &mut learner,
        &mut source,
        &mut keeper,
        &mut sinks,
        session,
        progress,
    )?;
    if let Some(h) = helpers {
        h.publish(&learner.eval, learner.state.generation)?;
    }
    Ok(summary)
}

/// The deeper teacher's labels of `games` games that a helper plays with `eval` (game
/// `i` from seed `seed ^ i`, as [`play_games`]), their count, and what the games
/// measured; `on_game` hears each finished game.
pub(crate) fn teacher_games(
    cfg: &TrainConfig,
    eval: &Arc<LearnedEval>,
    games: usize,
    seed: u64,
    on_game: &mut dyn FnMut(usize),
) -> (Vec<NodeLabel>, SelfPlayStats) {
    let t = Instant::now();
    let (_, teacher, _, mut stats) = tally(play_games(cfg, eval, games, seed, on_game));
    stats.samples = teacher.len() as u64;
    stats.seconds = t.elapsed().as_secs_f64();
    (teacher, stats)
}

/// Games' labels, the players' and the deeper teacher's, the network's samples, and what
/// the games measured (all but the samples and the seconds).
fn tally(played: Vec<GameOut>) -> (Vec<NodeLabel>, Vec<NodeLabel>, Vec<Sample>, SelfPlayStats) {
    let mut stats = SelfPlayStats::default();
    let (mut play, mut teacher, mut samples) = (Vec::new(), Vec::new(), Vec::new());
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
        play.extend(game.labels);
        teacher.extend(game.teacher);
        samples.extend(game.samples);
    }
    (play, teacher, samples, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_rules::Variant;
    use fanorona_search::{Bound, LearnedEval, NodeLabel};

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
            &Device::default(),
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
            &Device::default(),
            &mut crate::Quiet,
        )
        .unwrap();
        let once = train(
            &more,
            "u",
            &ckpt.join("u"),
            &exp.join("u"),
            &Device::default(),
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

    /// [`tiny`] with a network learning from the same games.
    fn tiny_with_network() -> TrainConfig {
        let mut cfg = tiny();
        cfg.net.blocks = 1;
        cfg.net.channels = 8;
        cfg.net.positions = 6;
        cfg.net.window = 3000;
        cfg.tree.deep_gap = 1;
        cfg.tree.deep_positions = 2;
        cfg.validate().unwrap();
        cfg
    }

    #[test]
    fn the_network_learns_the_searches_turns_from_the_same_games() {
        let mut cfg = tiny_with_network();
        let eval = Arc::new(LearnedEval::zero(Variant::Dimy, 8, 1));
        let with = play_games(&cfg, &eval, 3, 5, &mut |_| {});
        cfg.net.positions = 0;
        let without = play_games(&cfg, &eval, 3, 5, &mut |_| {});
        for (a, b) in with.iter().zip(&without) {
            // The games and the evaluation's labels do not change with the network.
            assert_eq!(
                (a.turns, a.labels.len(), a.teacher.len()),
                (b.turns, b.labels.len(), b.teacher.len())
            );
            assert!(b.samples.is_empty());
            // Six positions, a sample a step of each chosen turn.
            assert!(
                a.samples.len() >= 6.min(a.turns as usize),
                "{} samples",
                a.samples.len()
            );
            for s in &a.samples {
                assert_eq!(s.policy.len(), 1);
                assert!((s.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn one_run_teaches_the_evaluation_and_the_network_and_resumes() {
        let root = std::env::temp_dir().join(format!("fanorona-tree-net-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (ckpt, exp) = (root.join("ckpt"), root.join("exp"));
        for run in ["t", "u", "v"] {
            std::fs::create_dir_all(exp.join(run)).unwrap();
        }
        let cfg = tiny_with_network();
        let device = Device::default();
        let mut lines: Vec<String> = Vec::new();
        let first = train(
            &cfg,
            "t",
            &ckpt.join("t"),
            &exp.join("t"),
            &device,
            &mut lines,
        )
        .unwrap();
        assert_eq!(first.state.generation, 2);
        // Both models' checkpoints, the network's of the newest generation alone.
        let net2 = net_checkpoint(&ckpt.join("t"), 2);
        assert!(first.last_checkpoint.unwrap().join("eval.txt").is_file());
        let meta = checkpoint::read_meta(&net2).unwrap();
        assert_eq!(
            (meta.generation, meta.net.blocks, meta.net.channels),
            (2, 1, 8)
        );
        assert!(net2.join("replay.bin").is_file());
        assert!(!net_checkpoint(&ckpt.join("t"), 1).exists());
        let state = RunState::read(&net2).unwrap();
        assert!(state.samples > 0 && state.steps > 0, "{state:?}");
        assert!(
            lines.iter().any(|l| l.contains("network: loss p")),
            "{lines:?}"
        );
        let metrics = std::fs::read_to_string(exp.join("t").join("metrics.jsonl")).unwrap();
        assert!(metrics.contains("net/loss/policy"));
        // Resumed to four generations: the counters of one run of four, both models'.
        let mut more = cfg.clone();
        more.run.generations = 4;
        let resumed = train(
            &more,
            "t",
            &ckpt.join("t"),
            &exp.join("t"),
            &device,
            &mut crate::Quiet,
        )
        .unwrap();
        let once = train(
            &more,
            "u",
            &ckpt.join("u"),
            &exp.join("u"),
            &device,
            &mut crate::Quiet,
        )
        .unwrap();
        assert_eq!(resumed.state.samples, once.state.samples);
        let (a, b) = (
            RunState::read(&net_checkpoint(&ckpt.join("t"), 4)).unwrap(),
            RunState::read(&net_checkpoint(&ckpt.join("u"), 4)).unwrap(),
        );
        assert_eq!((a.samples, a.steps, a.games), (b.samples, b.steps, b.games));
        // A new run from another's network (train.init) says so.
        let net4 = net_checkpoint(&ckpt.join("t"), 4);
        let mut from = cfg.clone();
        from.train.init = net4.display().to_string();
        let mut lines: Vec<String> = Vec::new();
        train(
            &from,
            "v",
            &ckpt.join("v"),
            &exp.join("v"),
            &device,
            &mut lines,
        )
        .unwrap();
        let said = format!("from the network of {}", net4.display());
        assert!(lines.iter().any(|l| l.contains(&said)), "{lines:?}");
        // An evaluation checkpoint whose network has gone: said, not guessed.
        std::fs::remove_dir_all(net_checkpoint(&ckpt.join("t"), 4)).unwrap();
        let err = train(
            &more,
            "t",
            &ckpt.join("t"),
            &exp.join("t"),
            &device,
            &mut crate::Quiet,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("no network beside it"), "{err}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
