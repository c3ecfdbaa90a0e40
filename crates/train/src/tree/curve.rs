//! The run's learning curve: every `run.curve_minutes` of the run's clock, the
//! evaluation as it stands is kept (`<run>/curve/<minutes>min.txt`) and plays a paired
//! match at a fixed depth (`run.curve_depth`, so that a busy machine does not move the
//! figures), `run.curve_games` games of the book `run.arena_book` (each position with
//! both colours), against the hand-written evaluation and against the release's. The
//! results go to `<run>/curve/curve.jsonl` (one line a point and opponent: minutes,
//! CPU-hours, generation, score, Elo and its 95 % interval from the game pairs) and to the
//! metrics (`curve/vs_hand`, `curve/vs_release`, each with `_low` and `_high`, and
//! `curve/cpu_hours`), which `fanorona plot --x cpu-hours` draws. The matches run outside
//! the run's clock.
//!
//! A point is due when the clock passes a multiple of the period and the file has no
//! line for it: a run stopped in a match plays it again after the resume, with the
//! evaluation kept when the mark was passed.

use crate::config::TrainConfig;
use crate::metrics::MetricsSink;
use crate::state::{Progress, TrainError, io};
use fanorona_rules::{Position, durable};
use fanorona_search::LearnedEval;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The folder in the run's folder.
pub(super) const DIR: &str = "curve";
/// The results' file in it.
const FILE: &str = "curve.jsonl";

/// One point of the curve against one opponent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The run's clock at the mark, in minutes.
    pub minutes: u64,
    /// Those minutes times the threads playing the run's games, in hours.
    pub cpu_hours: f64,
    /// The checkpoint's generation.
    pub generation: u64,
    /// `hand` (the hand-written evaluation) or `release`.
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

/// The curve of one run.
pub(super) struct Curve<'a> {
    cfg: &'a TrainConfig,
    dir: PathBuf,
    book: Option<&'a [Position]>,
}

impl<'a> Curve<'a> {
    /// The curve of the run in folder `run` (`None` when `run.curve_minutes` is 0).
    pub(super) fn new(
        cfg: &'a TrainConfig,
        run: &Path,
        book: Option<&'a [Position]>,
    ) -> Option<Curve<'a>> {
        (cfg.run.curve_minutes > 0).then(|| Curve {
            cfg,
            dir: run.join(DIR),
            book,
        })
    }

    /// The points recorded so far.
    pub(super) fn points(&self) -> Vec<CurvePoint> {
        read_points(&self.dir.join(FILE))
    }

    /// The mark (minutes) due at a clock of `seconds`, if its point is not recorded.
    fn due(&self, seconds: f64) -> Option<u64> {
        let k = self.cfg.run.curve_minutes;
        let mark = (seconds / 60.0) as u64 / k * k;
        (mark > 0 && !self.points().iter().any(|p| p.minutes == mark)).then_some(mark)
    }

    /// Records the point due at `seconds` (nothing when none is).
    pub(super) fn record(
        &self,
        eval: &LearnedEval,
        generation: u64,
        seconds: f64,
        sinks: &mut dyn MetricsSink,
        progress: &mut dyn Progress,
    ) -> Result<(), TrainError> {
        let Some(minutes) = self.due(seconds) else {
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
        let release = fanorona_engine::release_eval(variant);
        let threads = cfg.tree.threads();
        let cpu_hours = minutes as f64 / 60.0 * threads as f64;
        let depth = cfg.run.curve_depth;
        let mut line = format!(
            "curve at {minutes} minutes ({cpu_hours:.2} CPU-hours, generation {generation}, depth {depth}, {} games each):",
            cfg.run.curve_games
        );
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
            let records = crate::report::match_records(
                cfg,
                &specs,
                &make,
                cfg.seed ^ minutes,
                self.book,
                cfg.run.curve_games,
                threads,
            )?;
            let pairs = fanorona_arena::arena::pentanomial(&specs[0], &specs[1], &records);
            let (elo, low, high) = pairs.elo();
            let score = crate::report::points_of(&specs[0], &records);
            let p = CurvePoint {
                minutes,
                cpu_hours,
                generation,
                opponent: opponent.into(),
                depth,
                games: records.len(),
                score,
                elo,
                low,
                high,
            };
            let path = self.dir.join(FILE);
            durable::Appender::open(&path, true)
                .and_then(|mut f| f.line(&serde_json::to_string(&p).expect("serialises")))
                .map_err(io(&path))?;
            sinks.scalar(&format!("curve/vs_{opponent}"), generation, elo);
            sinks.scalar(&format!("curve/vs_{opponent}_low"), generation, low);
            sinks.scalar(&format!("curve/vs_{opponent}_high"), generation, high);
            line.push_str(&format!(
                " {elo:+.0} [{low:+.0}, {high:+.0}] against the {}",
                if opponent == "hand" {
                    "hand-written evaluation"
                } else {
                    "release's"
                }
            ));
        }
        sinks.scalar("curve/cpu_hours", generation, cpu_hours);
        sinks.flush();
        progress.message(&line);
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
        let curve = Curve::new(&cfg, &run, None).unwrap();
        let eval = LearnedEval::zero(Variant::Dimy, 8, 1);
        let mut sinks = Recorded::default();
        // Before the first mark, nothing.
        curve
            .record(&eval, 3, 100.0, &mut sinks, &mut crate::Quiet)
            .unwrap();
        assert!(curve.points().is_empty());
        curve
            .record(&eval, 4, 130.0, &mut sinks, &mut crate::Quiet)
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
            .record(&eval, 5, 170.0, &mut sinks, &mut crate::Quiet)
            .unwrap();
        assert_eq!(curve.points().len(), 2);
        // A stop in the next mark's matches: its evaluation was kept, its lines not
        // written; after the resume the point is played with that evaluation.
        let later = LearnedEval::zero(Variant::Dimy, 8, 2);
        std::fs::write(run.join(DIR).join("00004min.txt"), later.to_text()).unwrap();
        curve
            .record(&eval, 9, 250.0, &mut sinks, &mut crate::Quiet)
            .unwrap();
        let points = curve.points();
        assert_eq!(points.len(), 4);
        assert_eq!(
            LearnedEval::read(&run.join(DIR).join("00004min.txt"), Variant::Dimy).unwrap(),
            later
        );
        std::fs::remove_dir_all(&run).unwrap();
    }
}
