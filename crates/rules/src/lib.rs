//! Exact, fast rules of Fanorona: fanoron-tsivy (9 x 5), fanoron-dimy (5 x 5) and
//! fanoron-telo (3 x 3), as `docs/RULES.md` of this project defines them.
//!
//! ```text
//! 5 B B B B B B B B B
//! 4 B B B B B B B B B
//! 3 B W B W . B W B W      the tsivy start: White to move,
//! 2 W W W W W W W W W      5 legal first turns
//! 1 W W W W W W W W W
//!   a b c d e f g h i
//! ```
//!
//! Two interfaces to the same rules:
//! - **turn level**: a [`Turn`] is a whole capture chain ([`Position::turns_into`],
//!   [`Position::play_unchecked`]), for people, notation, alpha-beta and [`perft()`];
//! - **step level**: one [`Action`] is one step or [`Action::EndTurn`]
//!   ([`Position::actions_into`], [`Position::play_action_unchecked`]), for the network
//!   and MCTS. Inside a chain the same side moves again.
//!
//! ```
//! use fanorona_rules::{Position, RuleOptions, TurnMode, Variant, notation};
//! let pos = Position::start(Variant::Tsivy, RuleOptions::default());
//! let turns = pos.turns(TurnMode::Distinct);
//! assert_eq!(turns.len(), 5);
//! let t = notation::parse_turn(&pos, "d3e3(-1)").unwrap();
//! assert_eq!(notation::format_turn(&pos, &t, Default::default()), "d3e3(-1)");
//! ```
#![warn(missing_docs)]

mod any;
mod bitboard;
pub mod checksum;
pub mod durable;
mod fen;
pub mod game;
mod geometry;
mod history;
pub mod notation;
mod options;
mod perft;
mod position;
mod quote;
pub mod telo;
mod turn;
mod zobrist;

pub use any::{AnyPosition, telo_perft};
pub use bitboard::{Bitboard, ByColor, Color, Direction, Point};
pub use fen::{FenError, FenErrorKind, Setup};
pub use game::{Game, num_actions};
pub use geometry::{DIMY, Geometry, NO_POINT, ParseVariantError, PointName, TELO, TSIVY, Variant};
pub use history::History;
pub use notation::{GameError, NotationError, PointStyle};
pub use options::{
    DEFAULT_QUIET_LIMIT, DEFAULT_TELO_QUIET_LIMIT, RuleOptionError, RuleOptions, VelaForm,
};
pub use perft::{divide, perft};
pub use position::{
    Chain, IllegalTurn, Outcome, PlayoutBuffer, Position, PositionError, Restriction, StepFeatures,
    TurnMode, playout,
};
pub use quote::{Cut, QUOTE_CHARS, Quoted, cut, quote};
pub use turn::{Action, Capture, MAX_CHAIN, Step, StepKind, Turn};
pub use zobrist::{KEYS, Keys};
