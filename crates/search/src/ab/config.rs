//! Alpha-beta's settings and results: the budget ([`Limits`]), the engine's settings
//! ([`AbConfig`], [`SearchParams`]), what a search found ([`SearchResult`]) and the
//! labels it leaves for tree learning ([`NodeLabel`]).

use fanorona_eval::{Bound, EvalWeights, LearnedEval, MATE, MATE_BOUND};
use fanorona_rules::{Position, Turn};
use fanorona_tb::Tablebase;
use std::sync::Arc;
use std::time::Duration;

/// With no budget set ([`Limits`] all `None`) alpha-beta searches this many turns deep.
pub const DEFAULT_DEPTH: u32 = 6;

/// How much to search: every player's budget. Unset fields do not limit; with nothing
/// set alpha-beta searches [`DEFAULT_DEPTH`] turns deep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Maximum depth in turns (alpha-beta).
    pub depth: Option<u32>,
    /// Stop after about this many nodes; for MCTS, simulations a decision (each step of a
    /// chain, and the choice to end it, is one decision), the most a decision may use
    /// when `time` is set too.
    pub nodes: Option<u64>,
    /// Stop after about this much time a turn (MCTS: the decisions of one turn share it).
    pub time: Option<Duration>,
    /// Alpha-beta on a clock: the time manager's target for the turn
    /// ([`TurnTime`](crate::clock::TurnTime)), `time` being its limit. Between iterations
    /// the search stops once the next one would likely carry it past the target, scaled
    /// up while its best turn changes or its score falls and down while both hold; a turn
    /// with one legal choice is played after the first iteration. `None`: every turn
    /// runs to its limits.
    pub target: Option<Duration>,
}

impl Limits {
    /// A fixed number of MCTS simulations a decision.
    pub fn sims(sims: u32) -> Limits {
        Limits {
            nodes: Some(sims.into()),
            ..Limits::default()
        }
    }

    /// The simulations an MCTS decision may use: `nodes`, else on a clock as many as it
    /// allows (up to a million), else 400.
    pub fn simulations(&self) -> u32 {
        match (self.nodes, self.time) {
            (Some(n), _) => n.min(u32::MAX.into()) as u32,
            (None, Some(_)) => 1_000_000,
            (None, None) => 400,
        }
    }
}

/// The engine's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbConfig {
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Evaluation weights.
    pub weights: EvalWeights,
    /// How many capture turns deep the quiescence search may go.
    pub qsearch_depth: u32,
    /// A learned correction of the evaluation (`None`: the hand-written one alone).
    pub learned: Option<Arc<LearnedEval>>,
    /// Threads searching together, sharing the table (Lazy SMP). With 1 the search is
    /// deterministic for a given sequence of searches limited by depth or nodes.
    pub threads: usize,
    /// Selective search (reverse futility pruning, null move, late-move reductions and
    /// pruning, aspiration windows, internal iterative reduction; `ab.rs`'s constants).
    /// `false`: the full-width search, whose fixed-depth results are exact minimax (the
    /// guard's bounds, books, labels and teachers of fixed depth rely on it).
    pub selective: bool,
    /// The selective search's constants (tuned; see [`SearchParams`]).
    pub params: SearchParams,
    /// Endgame tables: positions they cover score exactly ([`TB_WIN`] less the turns to
    /// the next capture for a win), and a covered root plays the tables' best turn.
    pub tb: Option<Arc<Tablebase>>,
    /// Graded draws: a game drawn by the quiet limit scores [`DRAW_PER_PIECE`] for each
    /// piece the side to move is ahead, within [`DRAW_BAND`], instead of 0, so that a
    /// drawn line still says who was better (tree learning's searches; players keep
    /// `false`).
    pub graded_draws: bool,
}

/// A position an alpha-beta search searched, with what it learned of its value: the
/// labels of tree learning (TreeStrap), from every node searched full width to at least
/// the recorder's depth ([`AlphaBeta::record_labels`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeLabel {
    /// The position (a whole turn's, no chain in progress).
    pub position: Position,
    /// Its score for the side to move; a mate score counts the turns from this position.
    pub score: i32,
    /// Which bound of the value `score` is.
    pub bound: Bound,
    /// The depth in turns it was searched to.
    pub depth: u8,
}

impl Default for AbConfig {
    fn default() -> Self {
        AbConfig {
            hash_mb: 32,
            weights: EvalWeights::default(),
            qsearch_depth: 6,
            learned: None,
            threads: 1,
            selective: true,
            params: SearchParams::default(),
            tb: None,
            graded_draws: false,
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The best turn of the deepest completed iteration (`None`: no legal turn).
    pub best: Option<Turn>,
    /// Its score for the side to move, in hundredths of a piece (or mate scores).
    pub score: i32,
    /// The principal variation, the best turn first.
    pub pv: Vec<Turn>,
    /// Depth of the deepest completed iteration.
    pub depth: u32,
    /// Nodes searched (every position visited, quiescence included).
    pub nodes: u64,
    /// Seconds spent.
    pub seconds: f64,
}

impl SearchResult {
    /// Turns to a forced win (positive) or loss (negative), if the score is a mate score.
    pub fn mate_in(&self) -> Option<i32> {
        if self.score > MATE_BOUND {
            Some(MATE - self.score)
        } else if self.score < -MATE_BOUND {
            Some(-(MATE + self.score))
        } else {
            None
        }
    }
}

/// The selective search's tuned constants. They are constants of the engine, not
/// options of its specs: the defaults are what the measurements chose, and a field is
/// public only so that a tuner (`crates/search/examples/spsa.rs`) can vary it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchParams {
    /// Reverse futility margin a remaining turn, hundredths of a piece.
    pub rfp_margin: i32,
    /// Null move's reduction: `nmp_base + depth / nmp_div` turns beyond the one it plays.
    pub nmp_base: i32,
    /// See `nmp_base`.
    pub nmp_div: i32,
    /// Late-move pruning: `lmp_base + depth^2` turns searched at most.
    pub lmp_base: i32,
    /// Late-move reduction `0.5 + ln(depth) ln(move) x lmr_percent / 100` turns.
    pub lmr_percent: i32,
    /// Aspiration window's half-width at the root, hundredths of a piece.
    pub asp_window: i32,
}

impl Default for SearchParams {
    /// SPSA's values (1 200 game pairs at 10 ms a turn; against the hand-set ones, 60, 2,
    /// 4, 4, 50 and 30, +12 [-22, +46] Elo over 400 book games at 50 ms: experiments/ab68).
    fn default() -> Self {
        SearchParams {
            rfp_margin: 54,
            nmp_base: 1,
            nmp_div: 4,
            lmp_base: 4,
            lmr_percent: 58,
            asp_window: 34,
        }
    }
}
