//! Search for Fanorona. This crate knows the rules but nothing of networks.
//!
//! - [`AlphaBeta`]: a principal-variation alpha-beta engine over whole turns, the
//!   classical baseline that trained networks are measured against.
//! - [`Mcts`]: Monte Carlo tree search over the step-level [`fanorona_rules::Game`],
//!   guided by any batched [`Evaluator`] (a network lives in `fanorona-nn`; the uniform
//!   and rollout evaluators here let the search be tested without one); [`AbBlend`]
//!   mixes an evaluator's values with a shallow alpha-beta search's, and [`TurnGuard`]
//!   keeps a search to the turns a shallow alpha-beta search finds sound.
//! - [`book`]: opening books of balanced positions, made by random turns and judged by
//!   alpha-beta.
//! - [`Player`]: one interface for every kind of player, used by `analyze`, `play` and
//!   the arena: [`AbPlayer`], [`RandomPlayer`] and [`MctsPlayer`] over any evaluator (the
//!   network's is in `fanorona-nn`), whose budget of simulations or time runs through
//!   one timed loop ([`Mcts::run_budget`]).
#![warn(missing_docs)]

mod ab;
mod analysis;
pub mod bench;
mod blend;
pub mod book;
mod clock;
mod descent;
mod evaluator;
mod guard;
pub mod judge;
pub mod labels;
mod mcts;
mod mcts_player;
pub mod opening;
mod player;
pub mod review;
pub mod settings;
mod tt;

pub use ab::{AbConfig, AlphaBeta, DEFAULT_DEPTH, Limits, NodeLabel, SearchParams, SearchResult};
pub use analysis::{Analysis, analyse, analyse_telo, telo_solution};
pub use blend::{AbBlend, BlendConfig, score_wdl, with_thread_blend};
pub use clock::{ClockState, TimeControl, TimeControlError, TurnTime};
pub use descent::{Descent, DescentResult};
pub use evaluator::{Evaluator, Outputs, RolloutEvaluator, UniformEvaluator, wdl_index};
pub use guard::{GuardConfig, GuardedTurn, TurnGuard, next_actions, with_thread_guard};
pub use mcts::{GumbelConfig, Leaf, MIN_TIMED_SIMS, Mcts, MctsConfig, Oracle, TIMED_CHUNK};
pub use mcts_player::{GUARD_TIME_SHARE, MctsPlayer, search_telo};
pub use player::{
    AbPlayer, Choice, GameError, PlayedGame, Player, RandomPlayer, play_game,
    play_game_adjudicated, play_game_on_clock,
};
pub use settings::{Overrides, SearchSettings, SettingsError};
// The evaluations and the score scale the searches use (crate `fanorona-eval`), part of
// this crate's own types (`AbConfig::learned`, `SearchResult::score`).
pub use fanorona_eval::{
    Bound, DRAW_BAND, DRAW_PER_PIECE, EvalWeights, LearnedEval, LearnedEvalError, MATE, MATE_BOUND,
    TB_WIN, evaluate, result_score,
};
