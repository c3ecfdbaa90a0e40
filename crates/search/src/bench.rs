//! The fixed alpha-beta benchmark: a set of middlegame positions searched to a fixed
//! depth. Its node count is checked, so the benchmark cannot time a wrong search; a
//! change to the search that changes the count must update [`EXPECTED_NODES`].

use crate::ab::{AbConfig, AlphaBeta, Limits};
use fanorona_eval::LearnedEval;
use fanorona_rules::{Position, RuleOptions};
use std::sync::Arc;
use web_time::Instant;

/// Positions reached by random play (tsivy and dimy, from the perft fixtures), each
/// with at least 5 legal turns.
pub const POSITIONS: &[&str] = &[
    "B2B1B1B1/4B4/1W5B1/9/1WW1WW3 b",
    "B2B3BB/B1BW3BB/7BW/W1W5W/WWW2WWW1 b",
    "2B2B1B1/9/4B2B1/W8/3W5 w",
    "1B1B1B1B1/9/2W2BB2/9/1W7 w",
    "1B3B3/B8/B7W/W2B5/WW3W3 w",
    "BB7/BB7/BW5WW/1B4WWW/5BWWW w",
    "9/9/6B1B/W8/9 b",
    "3BB2BB/W7B/1W7/2W1W4/WWW2W2W w",
    "9/8B/2W6/2W1W4/7B1 w",
    "9/W4B3/8B/1W4B2/1WW6 w",
    "1B1BBBBBB/W8/5BWBW/2W1W1WWW/WWW1WW1WW b",
    "5B1B1/9/2W6/3W5/6B2 b",
    "B1B1BBBB1/B3BBB1B/B2WWB1BW/W1B2W3/1W1W1WWWW b",
    "9/4B4/7W1/1W7/WW4W2 w",
    "2B2/5/5/1W3/1W3 w",
    "BBBBB/2BBB/1WBBW/1WW1W/1WWW1 w",
];

/// Search depth in turns.
pub const DEPTH: u32 = 14;

/// Nodes the benchmark visits (one engine, the positions in order, 16 MiB table).
pub const EXPECTED_NODES: u64 = 1_698_213;

/// What the benchmark measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BenchResult {
    /// Positions searched.
    pub positions: usize,
    /// Depth.
    pub depth: u32,
    /// Nodes visited in all.
    pub nodes: u64,
    /// Seconds.
    pub seconds: f64,
}

/// Runs the benchmark on this thread.
pub fn run() -> BenchResult {
    run_with(None)
}

/// Runs the benchmark on this thread with a learned evaluation (`None`: the hand-written
/// one, and the node count is [`EXPECTED_NODES`]), on the positions of its board only.
pub fn run_with(learned: Option<Arc<LearnedEval>>) -> BenchResult {
    let variant = learned.as_ref().map(|e| e.variant());
    let mut engine = AlphaBeta::new(AbConfig {
        hash_mb: 16,
        learned,
        ..AbConfig::default()
    });
    let limits = Limits {
        depth: Some(DEPTH),
        ..Limits::default()
    };
    let positions: Vec<Position> = POSITIONS
        .iter()
        .map(|fen| Position::from_fen(fen, RuleOptions::default()).expect("bench FENs are valid"))
        .filter(|p| variant.is_none_or(|v| p.variant() == v))
        .collect();
    let start = Instant::now();
    let mut nodes = 0;
    for pos in &positions {
        nodes += engine.search_position(pos, &limits).nodes;
    }
    BenchResult {
        positions: positions.len(),
        depth: DEPTH,
        nodes,
        seconds: start.elapsed().as_secs_f64(),
    }
}
