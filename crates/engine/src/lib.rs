//! The embeddable Fanorona engine: what a front end needs, with no file and no network
//! library: games of every board played in notation ([`Game`]) and an engine
//! ([`Engine`]) that answers with the project's strongest searcher, alpha-beta with the
//! release's learned evaluation built into the library (telo: the exact solver), the
//! endgame tables where the caller gives them.
//!
//! The C library (`crates/capi`) and the WebAssembly build (`crates/web`) are thin
//! bindings over this crate; the rules and the search are the native crates' own code.
//!
//! ```
//! use fanorona_engine::{Budget, Engine, Game};
//!
//! let mut game = Game::new("dimy").unwrap();
//! let mut engine = Engine::new();
//! let a = engine.analyse(&game, Budget::Depth(3)).unwrap();
//! game.play(a.best.as_deref().unwrap()).unwrap();
//! assert_eq!(game.history().len(), 1);
//! ```

use fanorona_rules::game::action_from_index;
use fanorona_rules::notation::{PointStyle, format_turn, parse_turn};
use fanorona_rules::telo::TeloPosition;
use fanorona_rules::{
    AnyPosition, Game as _, History, Outcome, Position, RuleOptions, TurnMode, Variant,
};
pub mod api;
pub mod protocol;

pub use fanorona_rules::quote;
pub use fanorona_search::Analysis;
pub use fanorona_search::settings::parse_duration;
use fanorona_search::{
    AbConfig, AbPlayer, LearnedEval, Limits, analyse, analyse_telo, telo_solution,
};
use fanorona_tb::Tablebase;
use std::sync::Arc;
use std::time::Duration;

/// What went wrong, with the input it concerns. [`EngineError::code`] gives each kind a
/// stable number for the C library.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// A board name that is not `tsivy`, `dimy` or `telo`.
    #[error("board {}: not tsivy, dimy or telo", quote(.0))]
    Board(String),
    /// A FEN that cannot be read.
    #[error("FEN {}: {reason}", quote(.fen))]
    Fen {
        /// The FEN given.
        fen: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A turn that is malformed or not legal.
    #[error("turn {} in {}: {reason}", quote(.turn), quote(.fen))]
    Turn {
        /// The turn given.
        turn: String,
        /// The position it was given in.
        fen: String,
        /// Why it cannot be played.
        reason: String,
    },
    /// The game is over: no turn may be played.
    #[error("the game is over ({0})")]
    Over(&'static str),
    /// A budget of zero or past its range.
    #[error("budget: {0}")]
    Budget(String),
    /// Endgame tables that cannot be read.
    #[error("tables: {0}")]
    Tables(String),
}

impl EngineError {
    /// A stable number for each kind (the C library's error codes): 1 board, 2 FEN,
    /// 3 turn, 4 game over, 5 budget, 6 tables.
    pub fn code(&self) -> i32 {
        match self {
            EngineError::Board(_) => 1,
            EngineError::Fen { .. } => 2,
            EngineError::Turn { .. } => 3,
            EngineError::Over(_) => 4,
            EngineError::Budget(_) => 5,
            EngineError::Tables(_) => 6,
        }
    }
}

/// The release's learned evaluation of `variant`, built into the library (`None` for
/// telo, which is solved).
/// Read once a process and shared.
pub fn release_eval(variant: Variant) -> Option<Arc<LearnedEval>> {
    static TSIVY: std::sync::OnceLock<Option<Arc<LearnedEval>>> = std::sync::OnceLock::new();
    static DIMY: std::sync::OnceLock<Option<Arc<LearnedEval>>> = std::sync::OnceLock::new();
    let (cell, text) = match variant {
        Variant::Tsivy => (
            &TSIVY,
            include_str!("../../../checkpoints/release/tsivy/eval.txt"),
        ),
        Variant::Dimy => (
            &DIMY,
            include_str!("../../../checkpoints/release/dimy/eval.txt"),
        ),
        Variant::Telo => return None,
    };
    // The files are the repository's own and tested (a test reads both).
    cell.get_or_init(|| LearnedEval::from_text(text).ok().map(Arc::new))
        .clone()
}

/// One game of any board from a start or a FEN, played turn by turn in notation.
#[derive(Clone, Debug)]
pub struct Game {
    state: State,
    /// A turn being played step by step ([`Game::step`]): the position after the
    /// steps so far and their action indices (tsivy and dimy).
    pending: Option<(Position, Vec<usize>)>,
}

#[derive(Clone, Debug)]
enum State {
    Fanorona(History),
    /// telo's positions, the start first.
    Telo(Vec<TeloPosition>),
}

fn variant_of(board: &str) -> Result<Variant, EngineError> {
    board
        .trim()
        .parse::<Variant>()
        .map_err(|_| EngineError::Board(board.to_string()))
}

impl Game {
    /// The start of `board` (`"tsivy"`, `"dimy"` or `"telo"`).
    ///
    /// # Errors
    /// [`EngineError::Board`].
    pub fn new(board: &str) -> Result<Game, EngineError> {
        Ok(Game::from_position(AnyPosition::start(
            variant_of(board)?,
            RuleOptions::default(),
        )))
    }

    /// The position a FEN describes (its board from its size).
    ///
    /// # Errors
    /// [`EngineError::Fen`] naming the FEN and what is wrong.
    pub fn from_fen(fen: &str) -> Result<Game, EngineError> {
        AnyPosition::from_fen(fen.trim(), RuleOptions::default())
            .map(Game::from_position)
            .map_err(|e| EngineError::Fen {
                fen: fen.to_string(),
                reason: e.kind.to_string(),
            })
    }

    /// A game from a position (under its own rules: vela, reply chains).
    pub fn from_position(pos: AnyPosition) -> Game {
        Game {
            pending: None,
            state: match pos {
                AnyPosition::Fanorona(p) => State::Fanorona(History::new(p)),
                AnyPosition::Telo(t) => State::Telo(vec![t]),
            },
        }
    }

    /// The current position (inside a turn played step by step, the board as it
    /// stands, the chain's piece to move again).
    pub fn position(&self) -> AnyPosition {
        if let Some((p, _)) = &self.pending {
            return AnyPosition::Fanorona(*p);
        }
        match &self.state {
            State::Fanorona(h) => AnyPosition::Fanorona(*h.position()),
            State::Telo(v) => AnyPosition::Telo(*v.last().expect("a game has a position")),
        }
    }

    /// The turns of a tsivy or dimy game as the rules keep them (what a player searches
    /// from: repetitions count); `None` for telo.
    pub fn fanorona(&self) -> Option<&History> {
        match &self.state {
            State::Fanorona(h) => Some(h),
            State::Telo(_) => None,
        }
    }

    /// The board: `"tsivy"`, `"dimy"` or `"telo"`.
    pub fn board(&self) -> &'static str {
        self.position().variant().name()
    }

    /// The current position in FEN.
    pub fn fen(&self) -> String {
        self.position().fen()
    }

    /// The side to move: `"white"` or `"black"`.
    pub fn side(&self) -> &'static str {
        self.position().side_to_move().name()
    }

    /// The legal turns in notation (none when the game is over or inside a turn played
    /// step by step: then [`Game::steps`]).
    pub fn turns(&self) -> Vec<String> {
        if self.outcome().is_some() || self.pending.is_some() {
            return Vec::new();
        }
        match self.position() {
            AnyPosition::Fanorona(p) => p
                .turns(TurnMode::Distinct)
                .iter()
                .map(|t| format_turn(&p, t, PointStyle::Algebraic))
                .collect(),
            AnyPosition::Telo(t) => t.moves().into_iter().map(|m| t.format_move(m)).collect(),
        }
    }

    /// Plays a turn in notation (`"d2d3"`, `"e2e3-f3-g3"`, a telo move).
    ///
    /// # Errors
    /// [`EngineError::Over`] when the game has ended, [`EngineError::Turn`] naming the
    /// turn, the position and why it cannot be played.
    pub fn play(&mut self, turn: &str) -> Result<(), EngineError> {
        if let Some(o) = self.outcome() {
            return Err(EngineError::Over(o.name()));
        }
        let fen = self.fen();
        if self.pending.is_some() {
            return Err(EngineError::Turn {
                turn: turn.to_string(),
                fen,
                reason: "a turn is being played step by step: go on with step() or undo()".into(),
            });
        }
        let bad = |reason: String| EngineError::Turn {
            turn: turn.to_string(),
            fen: fen.clone(),
            reason,
        };
        match &mut self.state {
            State::Fanorona(h) => {
                let t = parse_turn(h.position(), turn).map_err(|e| bad(e.problem()))?;
                h.play_unchecked(&t);
            }
            State::Telo(v) => {
                let mut p = *v.last().expect("a game has a position");
                let m = p.parse_move(turn).map_err(|e| bad(e.problem()))?;
                p.play(m).map_err(|_| bad("not legal here".into()))?;
                v.push(p);
            }
        }
        Ok(())
    }

    /// Takes back the last turn (inside a turn played step by step, its steps so far);
    /// false when none was played.
    pub fn undo(&mut self) -> bool {
        if self.pending.take().is_some() {
            return true;
        }
        match &mut self.state {
            State::Fanorona(h) => h.undo(),
            State::Telo(v) if v.len() > 1 => v.pop().is_some(),
            State::Telo(_) => false,
        }
    }

    /// The legal steps of the side to move, one decision each (the first step of a turn,
    /// or inside a capture chain the next capture or `end`), by name (`d3e3(+)`,
    /// `end`; telo: its moves). None when the game is over.
    pub fn steps(&self) -> Vec<String> {
        if self.outcome().is_some() {
            return Vec::new();
        }
        match self.position() {
            AnyPosition::Fanorona(p) => {
                let mut v = Vec::new();
                p.legal_actions(&mut v);
                v.into_iter().map(|a| p.action_name(a)).collect()
            }
            AnyPosition::Telo(_) => self.turns(),
        }
    }

    /// Plays one step by name (as [`Game::steps`] writes it); when it ends the turn,
    /// the turn joins the history as if played whole.
    ///
    /// # Errors
    /// [`EngineError::Over`], or [`EngineError::Turn`] for a step that is not legal now.
    pub fn step(&mut self, name: &str) -> Result<(), EngineError> {
        if let Some(o) = self.outcome() {
            return Err(EngineError::Over(o.name()));
        }
        let AnyPosition::Fanorona(mut p) = self.position() else {
            return self.play(name);
        };
        let mut legal = Vec::new();
        p.legal_actions(&mut legal);
        let Some(a) = legal.into_iter().find(|&a| p.action_name(a) == name.trim()) else {
            return Err(EngineError::Turn {
                turn: name.to_string(),
                fen: p.fen(),
                reason: format!(
                    "not a legal step (the legal ones: {})",
                    self.steps().join(" ")
                ),
            });
        };
        p.apply(a);
        let mut done = self.pending.take().map_or_else(Vec::new, |(_, v)| v);
        done.push(a);
        if p.chain().is_some() {
            self.pending = Some((p, done));
            return Ok(());
        }
        let State::Fanorona(h) = &mut self.state else {
            unreachable!("a fanorona position has a fanorona history")
        };
        let start = *h.position();
        let points = start.variant().points();
        let actions: Vec<_> = done
            .iter()
            .map(|&a| action_from_index(points, a).expect("a legal action has a step"))
            .collect();
        let turn = start
            .turn_of_actions(&actions)
            .expect("the steps of a finished chain are a turn");
        h.play_unchecked(&turn);
        Ok(())
    }

    /// The turns played, in notation.
    pub fn history(&self) -> Vec<String> {
        match &self.state {
            State::Fanorona(h) => h
                .turns()
                .iter()
                .enumerate()
                .map(|(i, t)| format_turn(h.position_at(i), t, PointStyle::Algebraic))
                .collect(),
            State::Telo(v) => v
                .windows(2)
                .map(|w| {
                    let m = w[0]
                        .moves()
                        .into_iter()
                        .find(|&m| {
                            let mut p = w[0];
                            p.play_unchecked(m);
                            p == w[1]
                        })
                        .expect("each telo position follows from the one before");
                    w[0].format_move(m)
                })
                .collect(),
        }
    }

    /// The outcome, `None` while the game goes on (a repetition draw counts where the
    /// rules have it).
    pub fn outcome(&self) -> Option<Outcome> {
        match &self.state {
            State::Fanorona(h) => h.outcome(),
            State::Telo(v) => v.last().and_then(TeloPosition::outcome),
        }
    }

    /// `"ongoing"`, `"white"`, `"black"` or `"draw"`.
    pub fn result(&self) -> &'static str {
        self.outcome().map_or("ongoing", Outcome::name)
    }
}

/// How long the engine may think about one turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Whole turns deep (1 to 64).
    Depth(u32),
    /// About this many nodes.
    Nodes(u64),
    /// About this many milliseconds.
    Millis(u64),
    /// On a game's clock: the side's time left and the increment added after its turn,
    /// in milliseconds; the time manager decides the turn's length (a share of the clock,
    /// longer while the search is unsure, never near the flag).
    Clock {
        /// Time left on the side's clock.
        left_ms: u64,
        /// Added to its clock after the turn.
        increment_ms: u64,
    },
}

impl Budget {
    fn limits(self) -> Result<Limits, EngineError> {
        let mut l = Limits::default();
        match self {
            Budget::Depth(d) if (1..=64).contains(&d) => l.depth = Some(d),
            Budget::Depth(d) => {
                return Err(EngineError::Budget(format!(
                    "depth {d}: from 1 to 64 turns"
                )));
            }
            Budget::Nodes(0) => return Err(EngineError::Budget("0 nodes".into())),
            Budget::Nodes(n) => l.nodes = Some(n),
            Budget::Millis(0) => return Err(EngineError::Budget("0 ms".into())),
            Budget::Millis(ms) => l.time = Some(Duration::from_millis(ms)),
            Budget::Clock {
                left_ms: 0,
                increment_ms: 0,
            } => return Err(EngineError::Budget("a clock with no time left".into())),
            Budget::Clock {
                left_ms,
                increment_ms,
            } => {
                l = fanorona_search::ClockState {
                    left: Duration::from_millis(left_ms),
                    increment: Duration::from_millis(increment_ms),
                    turns_played: 0,
                    moves_to_go: None,
                }
                .limits(l);
            }
        }
        Ok(l)
    }
}

/// The engine: alpha-beta with the release's learned evaluation on tsivy and dimy (one
/// thread, its hash kept between turns), telo's exact solution.
#[derive(Debug, Default)]
pub struct Engine {
    players: Vec<(Variant, AbPlayer)>,
    tables: Vec<(Variant, Arc<Tablebase>)>,
}

impl Engine {
    /// An engine; its searchers are made on first use, one for each board.
    pub fn new() -> Engine {
        Engine::default()
    }

    /// Uses the endgame tables of `board` found in `dir` (as `fanorona tb build` writes
    /// them) from the next search on.
    ///
    /// # Errors
    /// [`EngineError::Board`], or [`EngineError::Tables`] when none are there or they
    /// are damaged.
    pub fn set_tables(&mut self, board: &str, dir: &std::path::Path) -> Result<(), EngineError> {
        let v = variant_of(board)?;
        let t = Tablebase::open(dir, v).map_err(|e| EngineError::Tables(e.to_string()))?;
        self.tables.retain(|(w, _)| *w != v);
        self.tables.push((v, Arc::new(t)));
        self.players.retain(|(w, _)| *w != v);
        Ok(())
    }

    /// Forgets what earlier searches learned (a new game).
    pub fn new_game(&mut self) {
        self.players.clear();
    }

    fn player(&mut self, v: Variant) -> &mut AbPlayer {
        if let Some(i) = self.players.iter().position(|(w, _)| *w == v) {
            return &mut self.players[i].1;
        }
        let cfg = AbConfig {
            learned: release_eval(v),
            tb: self
                .tables
                .iter()
                .find(|(w, _)| *w == v)
                .map(|(_, t)| t.clone()),
            ..AbConfig::default()
        };
        self.players
            .push((v, AbPlayer::new(cfg, Limits::default(), "engine")));
        &mut self.players.last_mut().expect("just pushed").1
    }

    /// The engine's analysis of the game's current position within `budget`: its best
    /// turn (`None` when the game is over), score in hundredths of a piece for the side
    /// to move, line, depth and nodes.
    ///
    /// # Errors
    /// [`EngineError::Budget`] for a budget out of range.
    pub fn analyse(&mut self, game: &Game, budget: Budget) -> Result<Analysis, EngineError> {
        let limits = budget.limits()?;
        Ok(match &game.state {
            State::Telo(v) => {
                let pos = v.last().expect("a game has a position");
                analyse_telo(pos, telo_solution())
            }
            State::Fanorona(h) => {
                if h.outcome().is_some() {
                    // Over by repetition (the position alone may not know).
                    return Ok(Analysis {
                        fen: h.position().fen(),
                        best: None,
                        score: None,
                        pv: Vec::new(),
                        depth: 0,
                        nodes: 0,
                        seconds: 0.0,
                    });
                }
                let player = self.player(h.position().variant());
                player.set_limits(limits);
                analyse(player, h)
            }
        })
    }

    /// The engine's turn in notation for the game's current position (`None` when the
    /// game is over).
    ///
    /// # Errors
    /// As [`Engine::analyse`].
    pub fn best(&mut self, game: &Game, budget: Budget) -> Result<Option<String>, EngineError> {
        Ok(self.analyse(game, budget)?.best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_evaluations_are_the_release_files() {
        for v in [Variant::Tsivy, Variant::Dimy] {
            let e = release_eval(v).expect("built in");
            assert_eq!(e.variant(), v);
        }
        assert!(release_eval(Variant::Telo).is_none());
    }

    #[test]
    fn bad_input_is_named() {
        assert_eq!(Game::new("chess").unwrap_err().code(), 1);
        let e = Game::from_fen("not a fen").unwrap_err();
        assert_eq!(e.code(), 2);
        assert!(e.to_string().contains("not a fen"), "{e}");
        let mut g = Game::new("tsivy").unwrap();
        let e = g.play("a1a9").unwrap_err();
        assert_eq!(e.code(), 3);
        assert!(e.to_string().contains("a1a9"), "{e}");
        assert_eq!(g.history().len(), 0);
        let mut eng = Engine::new();
        assert_eq!(eng.analyse(&g, Budget::Depth(0)).unwrap_err().code(), 5);
        assert_eq!(eng.analyse(&g, Budget::Millis(0)).unwrap_err().code(), 5);
        let none = Budget::Clock {
            left_ms: 0,
            increment_ms: 0,
        };
        assert_eq!(eng.analyse(&g, none).unwrap_err().code(), 5);
        let e = eng
            .set_tables("dimy", std::path::Path::new("/no/such/dir"))
            .unwrap_err();
        assert_eq!(e.code(), 6);
    }

    /// An error that names a multi-megabyte input quotes at most about 100 characters of
    /// it.
    fn brief(what: &str, message: &str) {
        assert!(
            message.len() <= 300,
            "{what}: {} bytes: {}",
            message.len(),
            &message[..300]
        );
    }

    #[test]
    fn errors_quote_a_huge_input_briefly() {
        let huge = "W".repeat(5 << 20);
        brief("board", &Game::new(&huge).unwrap_err().to_string());
        brief("fen", &Game::from_fen(&huge).unwrap_err().to_string());
        let e = Game::from_fen(&format!("9/9/9/9/BB1W5 w 0 0 {huge}")).unwrap_err();
        brief("fen's tail", &e.to_string());
        for board in ["tsivy", "telo"] {
            let mut g = Game::new(board).unwrap();
            brief("turn", &g.play(&huge).unwrap_err().to_string());
            brief("step", &g.step(&huge).unwrap_err().to_string());
        }
        let mut eng = Engine::new();
        let e = eng
            .set_tables(&huge, std::path::Path::new("x"))
            .unwrap_err();
        brief("tables' board", &e.to_string());
        let e = eng
            .set_tables("dimy", std::path::Path::new(&"d/".repeat(1 << 20)))
            .unwrap_err();
        brief("tables' folder", &e.to_string());
        // The JSON API's fields.
        let start = Game::new("tsivy").unwrap().fen();
        let requests = [
            (
                api::legal as fn(&serde_json::Value) -> api::ApiResult,
                serde_json::json!({ "fen": huge }),
            ),
            (api::legal, serde_json::json!({ "variant": huge })),
            (
                api::legal,
                serde_json::json!({ "fen": start, "rules": huge }),
            ),
            (
                api::legal,
                serde_json::json!({ "fen": start, "rules": format!("vela={huge}") }),
            ),
            (
                api::play,
                serde_json::json!({ "fen": huge, "turn": "d3e3" }),
            ),
            (api::play, serde_json::json!({ "fen": start, "turn": huge })),
            (
                api::replay,
                serde_json::json!({ "variant": huge, "turns": [] }),
            ),
            (
                api::replay,
                serde_json::json!({ "fen": start, "turns": ["d3e3(-1)", huge] }),
            ),
            (
                api::replay,
                serde_json::json!({ "fen": huge, "actions": [1] }),
            ),
        ];
        for (i, (f, q)) in requests.iter().enumerate() {
            brief(&format!("request {i}"), &f(q).unwrap_err());
        }
    }

    #[test]
    fn a_request_sends_its_clock_as_numbers_or_digits() {
        use serde_json::json;
        let clock = |q| api::request_clock(&q);
        assert_eq!(clock(json!({})), Ok(None));
        assert_eq!(clock(json!({ "left_ms": 60000 })), Ok(Some((60000, 0))));
        assert_eq!(
            clock(json!({ "left_ms": "5000", "increment_ms": "50" })),
            Ok(Some((5000, 50)))
        );
        for bad in [
            json!({ "left_ms": -1 }),
            json!({ "left_ms": 1.5 }),
            json!({ "left_ms": "soon" }),
            json!({ "left_ms": [1] }),
            json!({ "increment_ms": 10 }),
            json!({ "left_ms": "9".repeat(10_000) }),
        ] {
            let e = clock(bad.clone()).unwrap_err();
            assert!(e.contains("_ms") && e.len() < 300, "{bad}: {e}");
        }
    }

    #[test]
    fn on_a_clock_the_engine_keeps_within_the_time_managers_limit() {
        // 400 ms left, no increment: a target of 10 ms, a limit of 100 ms.
        let clock = Budget::Clock {
            left_ms: 400,
            increment_ms: 0,
        };
        let mut eng = Engine::new();
        for board in ["tsivy", "dimy"] {
            let g = Game::new(board).unwrap();
            let a = eng.analyse(&g, clock).unwrap();
            assert!(g.turns().contains(a.best.as_ref().unwrap()), "{board}");
            // Unlimited in depth, it stopped at the clock (with room for a busy machine).
            assert!(a.depth >= 1 && a.seconds < 1.0, "{board}: {a:?}");
        }
    }

    #[test]
    fn whole_games_of_every_board_against_the_engine_end_and_undo() {
        for board in ["telo", "dimy", "tsivy"] {
            let mut g = Game::new(board).unwrap();
            let mut eng = Engine::new();
            let mut turns = 0;
            while g.outcome().is_none() && turns < 400 {
                let legal = g.turns();
                let best = eng.best(&g, Budget::Depth(2)).unwrap().unwrap();
                assert!(legal.contains(&best), "{board}: {best} not in {legal:?}");
                g.play(&best).unwrap();
                turns += 1;
            }
            assert_eq!(g.history().len(), turns);
            if let Some(o) = g.outcome() {
                assert_eq!(g.result(), o.name());
                assert!(g.turns().is_empty());
                assert!(matches!(g.play("a1b1"), Err(EngineError::Over(_))));
                assert_eq!(eng.best(&g, Budget::Depth(2)).unwrap(), None);
            }
            // The history replays from the start to the same position.
            let mut again = Game::new(board).unwrap();
            for t in g.history() {
                again.play(&t).unwrap();
            }
            assert_eq!(again.fen(), g.fen());
            while g.undo() {}
            assert_eq!(g.fen(), Game::new(board).unwrap().fen());
        }
    }

    #[test]
    fn turns_played_step_by_step_equal_turns_played_whole() {
        // Random games of steps: every finished chain is the whole turn it names.
        for board in ["dimy", "tsivy"] {
            let mut stepped = Game::new(board).unwrap();
            let mut whole = Game::new(board).unwrap();
            let mut k = 7usize;
            while stepped.outcome().is_none() && stepped.history().len() < 60 {
                let steps = stepped.steps();
                assert!(!steps.is_empty());
                k = k
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let before = stepped.history().len();
                stepped.step(&steps[(k >> 33) % steps.len()]).unwrap();
                if stepped.history().len() > before {
                    let t = stepped.history().last().unwrap().clone();
                    whole.play(&t).unwrap();
                    assert_eq!(whole.fen(), stepped.fen(), "{t}");
                } else {
                    // Inside a chain: no whole turn may be played, undo goes back.
                    assert!(stepped.turns().is_empty());
                    assert!(stepped.play("a1a2").is_err());
                }
            }
            assert!(stepped.step("z9z9").is_err());
        }
    }

    #[test]
    fn a_fen_round_trips() {
        let g = Game::new("dimy").unwrap();
        let h = Game::from_fen(&g.fen()).unwrap();
        assert_eq!(h.fen(), g.fen());
        assert_eq!(h.board(), "dimy");
        assert_eq!(h.side(), "white");
    }
}
