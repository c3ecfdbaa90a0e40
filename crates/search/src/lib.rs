//! Search for Fanorona. This crate knows the rules but nothing of networks.
//!
//! - [`AlphaBeta`]: a principal-variation alpha-beta engine over whole turns, the
//!   classical baseline that trained networks are measured against.
//! - [`Player`]: one interface for every kind of player (engines, random, networks
//!   later), used by `analyze`, `play` and the arena.
#![warn(missing_docs)]

mod ab;
pub mod bench;
mod eval;
mod player;
mod tt;

pub use ab::{AbConfig, AlphaBeta, Limits, MATE, MATE_BOUND, SearchResult};
pub use eval::{EvalWeights, evaluate};
pub use player::{AbPlayer, Choice, Player, RandomPlayer};
