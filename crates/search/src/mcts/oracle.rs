//! Exact values a search takes instead of its evaluation's (endgame tables).

use fanorona_rules::Position;
use fanorona_tb::{Tablebase, Wdl};
use std::sync::Arc;

/// Exact values a search takes instead of an evaluation: endgame tables.
pub trait Oracle<G>: Send + Sync {
    /// The exact WDL of `game` for the player to move, if known.
    fn exact(&self, game: &G) -> Option<[f32; 3]>;
}

impl Oracle<Position> for Tablebase {
    fn exact(&self, pos: &Position) -> Option<[f32; 3]> {
        Some(match self.wdl(pos)?.0 {
            Wdl::Win => [1.0, 0.0, 0.0],
            Wdl::Draw => [0.0, 1.0, 0.0],
            Wdl::Loss => [0.0, 0.0, 1.0],
        })
    }
}

/// A shared [`Oracle`] (shown as its presence only).
#[derive(Clone)]
pub(super) struct SharedOracle<G>(pub(super) Arc<dyn Oracle<G>>);

impl<G> std::fmt::Debug for SharedOracle<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Oracle")
    }
}
