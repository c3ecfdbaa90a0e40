//! A match's report, computed once from its games and written as Markdown (what
//! `fanorona arena` prints) or as JSON (`--json`): results with each pairing's
//! pentanomial counts, ratings, a gauntlet's curve (each checkpoint against the one
//! before it, the last against each earlier one, the trend of the last few), a Malagasy
//! match's tournament points and the thinking time per turn.

use crate::arena::{
    GameRecord, MatchPoints, default_anchor, match_points, paired_diff, paired_trend, pentanomial,
    rate, tally, time_per_turn,
};
use crate::elo::{PairResult, Pentanomial, Rating};
use crate::report::{self, Step, TrendRow};

/// What a gauntlet's curve puts along its axis.
#[derive(Clone, Copy, Debug)]
pub struct Axis {
    /// Its label (`generation`, `seconds of training`).
    pub label: &'static str,
    /// The unit a trend is given per (`generation`, `hour`).
    pub per: &'static str,
    /// The axis's values in that unit (3600 for seconds per hour).
    pub unit: f64,
}

/// Everything a match's report says.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// The players' specs.
    pub specs: Vec<String>,
    /// Riatras played (velas are counted apart and not rated).
    pub rated: usize,
    /// Velas played.
    pub velas: usize,
    /// Games ended by the endgame tables.
    pub adjudicated: usize,
    /// Each pairing's result.
    pub results: Vec<PairResult>,
    /// Each pairing's pentanomial counts (pairs by the first player's points, 0 to 2).
    pub pairs: Vec<Pentanomial>,
    /// The rating anchor's index.
    pub anchor: usize,
    /// The ratings.
    pub ratings: Vec<Rating>,
    /// A gauntlet's checkpoints: each against the one before it.
    pub steps: Vec<Step>,
    /// The last checkpoint against each earlier one.
    pub from_last: Vec<Step>,
    /// The slope of the last 3, 4, ... checkpoints.
    pub trends: Vec<TrendRow>,
    /// A Malagasy match's tournament points.
    pub points: Option<Vec<MatchPoints>>,
    /// Each player's mean thinking time per turn, and the turns it is over.
    pub times: Vec<crate::arena::TurnTimes>,
}

impl MatchReport {
    /// The report of `records` between `specs`, rated from `anchor` (or the default
    /// one); `generations` are a gauntlet's checkpoints (index in `specs`, place on
    /// `axis`) in order; `max_velas` says the match was Malagasy.
    pub fn new(
        specs: &[String],
        records: &[GameRecord],
        anchor: Option<usize>,
        generations: &[(usize, u64)],
        axis: Axis,
        max_velas: Option<u32>,
    ) -> MatchReport {
        let rated = records.iter().filter(|r| r.vela.is_none()).count();
        let results = tally(specs, records);
        let pairs = results
            .iter()
            .map(|r| pentanomial(&specs[r.a], &specs[r.b], records))
            .collect();
        let anchor = anchor.unwrap_or_else(|| default_anchor(specs, records));
        let ratings = rate(specs, records, anchor);
        let (steps, from_last, trends) = curve(specs, generations, records, axis);
        MatchReport {
            specs: specs.to_vec(),
            rated,
            velas: records.len() - rated,
            adjudicated: records.iter().filter(|r| r.adjudicated).count(),
            results,
            pairs,
            anchor,
            ratings,
            steps,
            from_last,
            trends,
            points: max_velas.map(|m| match_points(specs, records, m)),
            times: time_per_turn(specs, records),
        }
    }

    /// The tables of the report in Markdown, from the results on (`axis` labels a
    /// gauntlet's curve).
    pub fn markdown(&self, axis: Axis) -> String {
        let mut s = String::new();
        let mut line = |t: String| {
            s.push_str(&t);
            s.push('\n');
        };
        line(report::results_markdown(
            &self.specs,
            &self.results,
            &self.pairs,
        ));
        line(report::ratings_markdown(
            &self.specs,
            &self.ratings,
            self.anchor,
        ));
        if !self.steps.is_empty() {
            let h = "Each checkpoint against the one before it";
            line(report::steps_markdown(&self.steps, h, axis.label));
            let h = "The last checkpoint against each earlier one (is the curve still rising at its end?)";
            line(report::steps_markdown(&self.from_last, h, axis.label));
        }
        if !self.trends.is_empty() {
            line(report::trends_markdown(&self.trends, axis.label));
        }
        if let Some(points) = &self.points {
            line(points_markdown(points));
        }
        if !self.times.is_empty() {
            line("Thinking time per turn (over the games that record it):".into());
            for t in &self.times {
                let flags = match t.lost_on_time {
                    0 => String::new(),
                    n => format!("; {n} games lost on time"),
                };
                line(format!(
                    "- {}: mean {:.2} ms, longest {:.2} ms, over {} turns{flags}",
                    t.player,
                    t.mean * 1000.0,
                    t.longest * 1000.0,
                    t.turns
                ));
            }
        }
        s
    }

    /// A gauntlet's curve as JSON: `steps`, `from_last`, `trends`.
    pub fn curve_json(&self) -> serde_json::Value {
        serde_json::json!({
            "steps": report::steps_json(&self.steps),
            "from_last": report::steps_json(&self.from_last),
            "trends": report::trends_json(&self.trends),
        })
    }

    /// The report as one JSON object: the ratings, `adjudicated`, each pairing's
    /// pentanomial (`pairs`), a gauntlet's curve when `gauntlet`, a Malagasy match's
    /// `points`, each player's thinking time and games lost on time (`times`).
    pub fn json(&self, gauntlet: bool) -> serde_json::Value {
        let mut j = report::ratings_json(&self.specs, &self.ratings, self.rated);
        j["adjudicated"] = self.adjudicated.into();
        j["pairs"] = self
            .results
            .iter()
            .zip(&self.pairs)
            .map(|(r, p)| {
                serde_json::json!({"player": self.specs[r.a], "opponent": self.specs[r.b], "pentanomial": p.0})
            })
            .collect();
        if gauntlet {
            let mut c = self.curve_json();
            for k in ["steps", "from_last", "trends"] {
                j[k] = c[k].take();
            }
        }
        if let Some(points) = &self.points {
            j["points"] = serde_json::to_value(points).expect("points serialise");
        }
        j["times"] = serde_json::to_value(&self.times).expect("times serialise");
        j
    }
}

/// A gauntlet's curve on twin games: each checkpoint (`generations`: its index in
/// `specs` and its place on the axis, in order) against the one before it, the last
/// against each earlier one, and the slope of the last 3, 4, ... checkpoints.
fn curve(
    specs: &[String],
    generations: &[(usize, u64)],
    records: &[GameRecord],
    axis: Axis,
) -> (Vec<Step>, Vec<Step>, Vec<TrendRow>) {
    let step = |later: (usize, u64), earlier: (usize, u64)| Step {
        player: specs[later.0].clone(),
        previous: specs[earlier.0].clone(),
        x: later.1,
        previous_x: earlier.1,
        diff: paired_diff(&specs[later.0], &specs[earlier.0], records),
    };
    let steps = generations.windows(2).map(|w| step(w[1], w[0])).collect();
    let from_last = match generations.split_last() {
        Some((&last, earlier)) => earlier.iter().map(|&e| step(last, e)).collect(),
        None => Vec::new(),
    };
    let trends = (3..=generations.len())
        .filter_map(|k| {
            let last = &generations[generations.len() - k..];
            let players: Vec<&str> = last.iter().map(|&(i, _)| specs[i].as_str()).collect();
            let xs: Vec<f64> = last.iter().map(|&(_, x)| x as f64 / axis.unit).collect();
            let trend = paired_trend(&players, &xs, records)?;
            Some(TrendRow {
                checkpoints: k,
                from_x: last[0].1,
                to_x: last[k - 1].1,
                trend,
                per: axis.per,
            })
        })
        .collect();
    (steps, from_last, trends)
}

/// The tournament points of a Malagasy match as a Markdown table.
fn points_markdown(points: &[MatchPoints]) -> String {
    let mut s = String::from(
        "Tournament points (riatra won 3, vela won as the riatra winner 3, nothing else):\n\n| player | points | riatras W-D-L | velas given W-D-L | velas owed W-D-L | unpaid |\n|---|---:|---|---|---|---:|\n",
    );
    let wdl = |x: [u32; 3]| format!("{}-{}-{}", x[0], x[1], x[2]);
    for p in points {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            p.player,
            p.points,
            wdl(p.riatras),
            wdl(p.velas_given),
            wdl(p.velas_owed),
            p.unpaid
        ));
    }
    s
}
