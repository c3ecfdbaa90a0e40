//! The run's learning curve: every `run.curve_minutes` of the run's clock, the
//! evaluation as it stands is kept (`<run>/curve/<minutes>min.txt`) and plays a paired
//! match at a fixed depth (`run.curve_depth`, so that a busy machine does not move the
//! figures), `run.curve_games` games of the book `run.arena_book` (each position with
//! both colours), against the hand-written evaluation and against the anchors'
//! (`run.curve_anchors`: the release's as the run's first point found it, copied into
//! `<run>/curve/anchors/`). A run that trains a network beside its evaluation keeps it
//! too (`<run>/curve/<minutes>min-net/`, with the evaluation of the same point, which its
//! MCTS player's alpha-beta aids use) and plays it at `run.curve_sims` simulations
//! against the anchors' network, `run.curve_net_games` games. The results go to
//! `<run>/curve/curve.jsonl` (one line a point, player and opponent: minutes, CPU-hours,
//! generation, score, Elo and its 95 % interval from the game pairs) and to the metrics
//! (`curve/vs_hand`, `curve/vs_release`, `curve/net_vs_release`, each with `_low` and
//! `_high`, and `curve/cpu_hours`), which `fanorona plot --x cpu-hours` draws. The
//! matches run outside the run's clock.
//!
//! A point is due when the clock passes a multiple of the period and the file lacks any
//! of its lines: a run stopped in a match plays that match again after the resume (and
//! only that one), with the evaluation kept when the mark was passed.

use super::NetSide;
use crate::config::TrainConfig;
use crate::metrics::MetricsSink;
use crate::state::{Progress, TrainError, io};
use fanorona_nn::burn::prelude::Device;
use fanorona_nn::checkpoint;
use fanorona_rules::{Position, durable};
use fanorona_search::LearnedEval;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The folder in the run's folder.
pub(super) const DIR: &str = "curve";
/// The results' file in it.
const FILE: &str = "curve.jsonl";
/// The anchors' folder in it.
const ANCHORS: &str = "anchors";

/// One point of the curve against one opponent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The run's clock at the mark, in minutes.
    pub minutes: u64,
    /// Those minutes times the threads playing the run's games, in hours.
    pub cpu_hours: f64,
    /// The checkpoint's generation.
    pub generation: u64,
    /// The run's player: `eval` (alpha-beta with its evaluation) or `net` (MCTS with its
    /// network).
    #[serde(default = "eval_player")]
    pub player: String,
    /// `hand` (the hand-written evaluation) or `release` (the anchors').
    pub opponent: String,
    /// Both players' depth in turns.
    pub depth: u32,
    /// Games played.
    pub games: usize,
    /// The run's evaluation's score, 0 to 1.
    pub score: f64,
    /// Its Elo against the opponent, with the 95 % interval of the game pairs.
    pub elo: f64,
    /// Lower end of the interval.
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
}

fn eval_player() -> String {
    "eval".into()
}

/// Where a point stands on the run's clock.
struct Mark {
    minutes: u64,
    cpu_hours: f64,
    generation: u64,
}

/// One of a point's matches: the run's player against one opponent.
struct Game<'a> {
    player: &'a str,
    opponent: &'a str,
    depth: u32,
    specs: &'a [String; 2],
    make: crate::report::MakePlayer<'a>,
    seed: u64,
    games: usize,
}

/// The curve of one run.
pub(super) struct Curve<'a> {
    cfg: &'a TrainConfig,
    dir: PathBuf,
    book: Option<&'a [Position]>,
    device: Device,
}

impl<'a> Curve<'a> {
    /// The curve of the run in folder `run` (`None` when `run.curve_minutes` is 0), its
    /// networks on `device`.
    pub(super) fn new(
        cfg: &'a TrainConfig,
        run: &Path,
        book: Option<&'a [Position]>,
        device: &Device,
    ) -> Option<Curve<'a>> {
        (cfg.run.curve_minutes > 0).then(|| Curve {
            cfg,
            dir: run.join(DIR),
            book,
            device: device.clone(),
        })
    }

    /// The anchors' folder in the run, copied there from `run.curve_anchors` the first
    /// time (every file but the README and the book); `None`, said through `progress`,
    /// where there is none.
    fn anchors(&self, progress: &mut dyn Progress) -> Result<Option<PathBuf>, TrainError> {
        let dir = self.dir.join(ANCHORS);
        if dir.join(checkpoint::EVAL_FILE).is_file() {
            return Ok(Some(dir));
        }
        let name = &self.cfg.run.curve_anchors;
        let source = match name.as_str() {
            "" => Err("run.curve_anchors is empty".to_string()),
            "release" => checkpoint::release_dir(self.cfg.variant()).map_err(|e| e.to_string()),
            path => Ok(PathBuf::from(path)),
        }
        .and_then(|p| {
            if p.join(checkpoint::EVAL_FILE).is_file() {
                Ok(p)
            } else {
                Err(format!(
                    "{} holds no {}",
                    p.display(),
                    checkpoint::EVAL_FILE
                ))
            }
        });
        let source = match source {
            Ok(p) => p,
            Err(why) => {
                progress.message(&format!(
                    "curve: no anchors ({why}): the points against the release are skipped"
                ));
                return Ok(None);
            }
        };
        let tmp = self.dir.join("anchors.tmp");
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
        for e in std::fs::read_dir(&source).map_err(io(&source))?.flatten() {
            let name = e.file_name();
            if e.path().is_file() && name != "README.md" && name != checkpoint::BOOK_FILE {
                let to = tmp.join(&name);
                std::fs::copy(e.path(), &to).map_err(io(&to))?;
            }
        }
        std::fs::rename(&tmp, &dir).map_err(io(&dir))?;
        progress.message(&format!(
            "curve: anchors copied from {} into {} (opponents only: nothing learns from them)",
            source.display(),
            dir.display()
        ));
        Ok(Some(dir))
    }

    /// The points recorded so far.
    pub(super) fn points(&self) -> Vec<CurvePoint> {
        read_points(&self.dir.join(FILE))
    }

    /// The mark (minutes) due at a clock of `seconds`, while any of its lines is missing:
    /// the evaluation's against the hand-written one and, where the run has anchors,
    /// against theirs, and the network's (`net`) against theirs where they have one.
    fn due(&self, seconds: f64, net: bool) -> Option<u64> {
        let k = self.cfg.run.curve_minutes;
        let mark = (seconds / 60.0) as u64 / k * k;
        if mark == 0 {
            return None;
        }
        let points: Vec<CurvePoint> = self
            .points()
            .into_iter()
            .filter(|p| p.minutes == mark)
            .collect();
        if points.is_empty() {
            return Some(mark);
        }
        let has = |player: &str, opponent: &str| {
            points
                .iter()
                .any(|p| p.player == player && p.opponent == opponent)
        };
        let anchors = self.dir.join(ANCHORS);
        let release = anchors.join(checkpoint::EVAL_FILE).is_file();
        let network = release && net && anchors.join(checkpoint::MODEL_FILE).is_file();
        let complete = has("eval", "hand")
            && (!release || has("eval", "release"))
            && (!network || has("net", "release"));
        (!complete).then_some(mark)
    }

    /// Records the point due at `seconds` (nothing when none is): the evaluation's and,
    /// when the run has one, the network's. A line already in the file (a run stopped
    /// between a point's matches) is not played again.
    pub(super) fn record(
        &self,
        eval: &LearnedEval,
        net: Option<&NetSide>,
        generation: u64,
        seconds: f64,
        sinks: &mut dyn MetricsSink,
        progress: &mut dyn Progress,
    ) -> Result<(), TrainError> {
        let Some(minutes) = self.due(seconds, net.is_some()) else {
            return Ok(());
        };
        let cfg = self.cfg;
        let variant = cfg.variant();
        // The evaluation as the mark found it (kept across a stop in the matches).
        let file = self.dir.join(format!("{minutes:05}min.txt"));
        let eval = match LearnedEval::read(&file, variant) {
            Ok(kept) => kept,
            Err(_) => {
                durable::write_atomic(&file, eval.to_text().as_bytes()).map_err(io(&file))?;
                eval.clone()
            }
        };
        let anchors = self.anchors(progress)?;
        let release = match &anchors {
            Some(dir) => Some(Arc::new(
                LearnedEval::read(&dir.join(checkpoint::EVAL_FILE), variant)
                    .map_err(|e| TrainError::Eval(format!("{}: {e}", dir.display())))?,
            )),
            None => None,
        };
        let threads = cfg.tree.threads();
        let cpu_hours = minutes as f64 / 60.0 * threads as f64;
        let depth = cfg.run.curve_depth;
        progress.message(&format!(
            "curve at {minutes} minutes ({cpu_hours:.2} CPU-hours): both players' matches against the anchors, outside the run's clock"
        ));
        let mut line = format!(
            "curve at {minutes} minutes ({cpu_hours:.2} CPU-hours, generation {generation}, depth {depth}, {} games each):",
            cfg.run.curve_games
        );
        let mut standing = format!("{cpu_hours:.2} CPU-h: evaluation");
        let at = Mark {
            minutes,
            cpu_hours,
            generation,
        };
        let eval = Arc::new(eval);
        for (opponent, theirs) in [("hand", None), ("release", release)] {
            if opponent == "release" && theirs.is_none() {
                continue;
            }
            let specs = [
                format!("ab:depth={depth},eval=<{minutes} minutes>"),
                format!(
                    "ab:depth={depth}{}",
                    if theirs.is_some() {
                        ",eval=release"
                    } else {
                        ""
                    }
                ),
            ];
            let make = |k: usize, _: u64| -> Result<Box<dyn fanorona_search::Player>, String> {
                let learned = if k == 0 {
                    Some(eval.clone())
                } else {
                    theirs.clone()
                };
                crate::report::depth_player(depth, 16, learned, &specs[k], cfg.variant())
            };
            let game = Game {
                player: "eval",
                opponent,
                depth,
                specs: &specs,
                make: &make,
                seed: cfg.seed ^ minutes,
                games: cfg.run.curve_games,
            };
            let p = self.point(&at, &game, sinks)?;
            standing.push_str(&format!(" {:+.0} vs {opponent}", p.elo));
            line.push_str(&format!(
                "{} {:+.0} [{:+.0}, {:+.0}] against the {}",
                if opponent == "hand" { "" } else { "," },
                p.elo,
                p.low,
                p.high,
                if opponent == "hand" {
                    "hand-written evaluation"
                } else {
                    "anchors'"
                }
            ));
        }
        if let (Some(net), Some(anchors)) = (net, &anchors) {
            if anchors.join(checkpoint::MODEL_FILE).is_file() {
                let sims = cfg.run.curve_sims;
                let kept = self.dir.join(format!("{minutes:05}min-net"));
                if checkpoint::resolve(&kept).is_err() {
                    let l = &net.learner;
                    let text = eval.to_text();
                    l.save_model(
                        &kept,
                        &l.meta(&net.cfg, generation, "curve"),
                        text.as_bytes(),
                    )?;
                }
                // The networks themselves: no guard, no blend (an alpha-beta search in
                // each turn would measure the evaluations again, at many times the cost).
                let specs = [
                    format!("mcts:ckpt={},sims={sims},guard=0,blend=0", kept.display()),
                    format!(
                        "mcts:ckpt={},sims={sims},guard=0,blend=0",
                        anchors.display()
                    ),
                ];
                let nets = fanorona_nn::spec::Nets::on(&self.device);
                let make =
                    |k: usize, seed: u64| -> Result<Box<dyn fanorona_search::Player>, String> {
                        fanorona_nn::spec::EngineSpec::parse(&format!("{},seed={seed}", specs[k]))
                            .and_then(|s| s.player(&specs[k], variant, &nets))
                            .map_err(|e| e.to_string())
                    };
                let game = Game {
                    player: "net",
                    opponent: "release",
                    depth: 0,
                    specs: &specs,
                    make: &make,
                    seed: cfg.seed ^ minutes ^ 0x4E37,
                    games: cfg.run.curve_net_games,
                };
                let p = self.point(&at, &game, sinks)?;
                standing.push_str(&format!(", network {:+.0} vs release", p.elo));
                line.push_str(&format!(
                    "; the network at {sims} simulations {:+.0} [{:+.0}, {:+.0}] against the anchors' ({} games)",
                    p.elo, p.low, p.high, p.games
                ));
            } else {
                line.push_str("; the anchors have no network: the network's point is skipped");
            }
        }
        sinks.scalar("curve/cpu_hours", generation, cpu_hours);
        sinks.flush();
        progress.message(&line);
        progress.standing(&standing);
        Ok(())
    }

    /// The line of `game` at mark `at`: the file's where it has one, else the match is
    /// played and its line written.
    fn point(
        &self,
        at: &Mark,
        game: &Game,
        sinks: &mut dyn MetricsSink,
    ) -> Result<CurvePoint, TrainError> {
        if let Some(p) = self.points().into_iter().find(|p| {
            p.minutes == at.minutes && p.player == game.player && p.opponent == game.opponent
        }) {
            return Ok(p);
        }
        let records = crate::report::match_records(
            self.cfg,
            game.specs,
            game.make,
            game.seed,
            self.book,
            game.games,
            self.cfg.tree.threads(),
        )?;
        let pairs = fanorona_arena::arena::pentanomial(&game.specs[0], &game.specs[1], &records);
        let (elo, low, high) = pairs.elo();
        let p = CurvePoint {
            minutes: at.minutes,
            cpu_hours: at.cpu_hours,
            generation: at.generation,
            player: game.player.into(),
            opponent: game.opponent.into(),
            depth: game.depth,
            games: records.len(),
            score: crate::report::points_of(&game.specs[0], &records),
            elo,
            low,
            high,
        };
        let prefix = if game.player == "eval" {
            "vs"
        } else {
            "net_vs"
        };
        self.write(&p, prefix, sinks)?;
        Ok(p)
    }

    /// Appends point `p` to the curve's file, and its Elo and interval to `sinks` as
    /// `curve/<prefix>_<opponent>`.
    fn write(
        &self,
        p: &CurvePoint,
        prefix: &str,
        sinks: &mut dyn MetricsSink,
    ) -> Result<(), TrainError> {
        let path = self.dir.join(FILE);
        durable::Appender::open(&path, true)
            .and_then(|mut f| f.line(&serde_json::to_string(p).expect("serialises")))
            .map_err(io(&path))?;
        let tag = format!("curve/{prefix}_{}", p.opponent);
        sinks.scalar(&tag, p.generation, p.elo);
        sinks.scalar(&format!("{tag}_low"), p.generation, p.low);
        sinks.scalar(&format!("{tag}_high"), p.generation, p.high);
        Ok(())
    }
}

/// The points of a `curve.jsonl` (damaged lines skipped).
pub fn read_points(path: &Path) -> Vec<CurvePoint> {
    std::fs::read_to_string(path)
        .map(|t| {
            t.lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Recorded;
    use fanorona_rules::Variant;

    #[test]
    fn a_point_a_period_against_both_evaluations_kept_across_a_stop() {
        let run = std::env::temp_dir().join(format!("fanorona-curve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&run);
        let cfg = TrainConfig::parse(
            "curve",
            "variant = \"dimy\"\n[tree]\nmethod = \"treestrap\"\nthreads = 2\n[run]\ncurve_minutes = 2\ncurve_games = 4\ncurve_depth = 1\n",
            &[],
        )
        .unwrap();
        cfg.validate().unwrap();
        let curve = Curve::new(&cfg, &run, None, &Device::default()).unwrap();
        let eval = LearnedEval::zero(Variant::Dimy, 8, 1);
        let mut sinks = Recorded::default();
        // Before the first mark, nothing.
        curve
            .record(&eval, None, 3, 100.0, &mut sinks, &mut crate::Quiet)
            .unwrap();
        assert!(curve.points().is_empty());
        curve
            .record(&eval, None, 4, 130.0, &mut sinks, &mut crate::Quiet)
            .unwrap();
        let points = curve.points();
        assert_eq!(points.len(), 2, "{points:?}");
        assert_eq!(
            points
                .iter()
                .map(|p| p.opponent.as_str())
                .collect::<Vec<_>>(),
            ["hand", "release"]
        );
        for p in &points {
            assert_eq!((p.minutes, p.generation, p.games, p.depth), (2, 4, 4, 1));
            // Two threads for two minutes.
            assert!((p.cpu_hours - 4.0 / 60.0).abs() < 1e-9);
            assert!((0.0..=1.0).contains(&p.score));
            assert!(
                p.low <= p.elo && p.elo <= p.high || !p.elo.is_finite(),
                "{p:?}"
            );
        }
        assert!(
            sinks
                .scalars
                .iter()
                .any(|(t, _)| t == "curve/vs_release_high")
        );
        assert!(
            sinks
                .scalars
                .iter()
                .any(|(t, v)| t == "curve/cpu_hours" && *v > 0.0)
        );
        // The evaluation at the mark is kept; the same mark is not played twice.
        let kept = run.join(DIR).join("00002min.txt");
        assert_eq!(LearnedEval::read(&kept, Variant::Dimy).unwrap(), eval);
        curve
            .record(&eval, None, 5, 170.0, &mut sinks, &mut crate::Quiet)
            .unwrap();
        assert_eq!(curve.points().len(), 2);
        // A stop in the next mark's matches: its evaluation was kept, its lines not
        // written; after the resume the point is played with that evaluation.
        let later = LearnedEval::zero(Variant::Dimy, 8, 2);
        std::fs::write(run.join(DIR).join("00004min.txt"), later.to_text()).unwrap();
        curve
            .record(&eval, None, 9, 250.0, &mut sinks, &mut crate::Quiet)
            .unwrap();
        let points = curve.points();
        assert_eq!(points.len(), 4);
        assert_eq!(
            LearnedEval::read(&run.join(DIR).join("00004min.txt"), Variant::Dimy).unwrap(),
            later
        );
        std::fs::remove_dir_all(&run).unwrap();
    }

    #[test]
    fn the_network_plays_the_anchors_network_and_no_anchors_are_said() {
        let run = std::env::temp_dir().join(format!("fanorona-curve-net-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&run);
        let mut cfg = TrainConfig::parse(
            "curve",
            "variant = \"dimy\"\n[tree]\nmethod = \"treestrap\"\nthreads = 2\n[net]\nblocks = 1\nchannels = 8\npositions = 2\n[run]\ncurve_minutes = 2\ncurve_games = 2\ncurve_net_games = 2\ncurve_sims = 4\ncurve_depth = 1\n",
            &[],
        )
        .unwrap();
        cfg.validate().unwrap();
        let device = Device::default();
        let net = NetSide::open(&cfg, &run, None, &device, &mut |_| {})
            .unwrap()
            .expect("a network");
        let eval = LearnedEval::zero(Variant::Dimy, 8, 1);
        let mut sinks = Recorded::default();
        let mut lines: Vec<String> = Vec::new();
        let curve = Curve::new(&cfg, &run, None, &device).unwrap();
        curve
            .record(&eval, Some(&net), 4, 130.0, &mut sinks, &mut lines)
            .unwrap();
        let points = curve.points();
        let who: Vec<(&str, &str)> = points
            .iter()
            .map(|p| (p.player.as_str(), p.opponent.as_str()))
            .collect();
        assert_eq!(
            who,
            [("eval", "hand"), ("eval", "release"), ("net", "release")]
        );
        assert_eq!(points[2].games, 2);
        // The anchors were copied once; the point's network was kept with its evaluation.
        let anchors = run.join(DIR).join(ANCHORS);
        assert!(anchors.join("eval.txt").is_file() && anchors.join("model.bpk").is_file());
        let kept = run.join(DIR).join("00002min-net");
        assert_eq!(checkpoint::read_meta(&kept).unwrap().generation, 4);
        assert_eq!(
            LearnedEval::read(&kept.join("eval.txt"), Variant::Dimy).unwrap(),
            eval
        );
        assert!(
            sinks
                .scalars
                .iter()
                .any(|(t, _)| t == "curve/net_vs_release_low")
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains("the network at 4 simulations")),
            "{lines:?}"
        );
        // A stop in the network's match: the evaluation's lines are kept and not played
        // again; the network's is played after the resume.
        let file = run.join(DIR).join(FILE);
        let text = std::fs::read_to_string(&file).unwrap();
        let evals: Vec<&str> = text.lines().take(2).collect();
        std::fs::write(&file, evals.join("\n") + "\n").unwrap();
        let before = sinks.scalars.len();
        curve
            .record(&eval, Some(&net), 5, 140.0, &mut sinks, &mut lines)
            .unwrap();
        let again = curve.points();
        assert_eq!(again.len(), 3, "{again:?}");
        assert_eq!(again[..2], points[..2]);
        assert_eq!((again[2].player.as_str(), again[2].games), ("net", 2));
        let tags: Vec<&str> = sinks.scalars[before..]
            .iter()
            .map(|(t, _)| t.as_str())
            .collect();
        assert!(!tags.contains(&"curve/vs_hand"), "{tags:?}");
        assert!(tags.contains(&"curve/net_vs_release"), "{tags:?}");
        // Complete: not played a third time.
        curve
            .record(&eval, Some(&net), 6, 170.0, &mut sinks, &mut lines)
            .unwrap();
        assert_eq!(curve.points().len(), 3);
        // No anchors: the points against them are skipped, with a line saying so.
        let bare = run.join("bare");
        cfg.run.curve_anchors = String::new();
        let curve = Curve::new(&cfg, &bare, None, &device).unwrap();
        let mut lines: Vec<String> = Vec::new();
        curve
            .record(&eval, Some(&net), 4, 130.0, &mut sinks, &mut lines)
            .unwrap();
        let who: Vec<String> = curve
            .points()
            .iter()
            .map(|p| format!("{} {}", p.player, p.opponent))
            .collect();
        assert_eq!(who, ["eval hand"]);
        assert!(lines.iter().any(|l| l.contains("no anchors")), "{lines:?}");
        std::fs::remove_dir_all(&run).unwrap();
    }
}
