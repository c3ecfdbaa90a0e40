//! A position of any variant: tsivy and dimy ([`Position`]) or telo ([`TeloPosition`]).

use crate::fen::{FenError, Setup};
use crate::geometry::Variant;
use crate::options::RuleOptions;
use crate::position::{Outcome, Position, TurnMode};
use crate::telo::TeloPosition;

/// A position of any variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnyPosition {
    /// tsivy or dimy.
    Fanorona(Position),
    /// telo.
    Telo(TeloPosition),
}

impl AnyPosition {
    /// The start position of `variant` under `rules`.
    pub fn start(variant: Variant, rules: RuleOptions) -> AnyPosition {
        match variant {
            Variant::Telo => AnyPosition::Telo(TeloPosition::start(rules)),
            v => AnyPosition::Fanorona(Position::start(v, rules)),
        }
    }

    /// A position of the variant its FEN says.
    ///
    /// # Errors
    /// What is wrong with the FEN.
    pub fn from_fen(fen: &str, rules: RuleOptions) -> Result<AnyPosition, FenError> {
        let setup = Setup::from_fen(fen)?;
        Ok(if setup.variant() == Variant::Telo {
            AnyPosition::Telo(TeloPosition::from_fen(fen, rules)?)
        } else {
            AnyPosition::Fanorona(Position::from_fen(fen, rules)?)
        })
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        match self {
            AnyPosition::Fanorona(p) => p.variant(),
            AnyPosition::Telo(_) => Variant::Telo,
        }
    }

    /// The side to move.
    pub fn side_to_move(&self) -> crate::Color {
        match self {
            AnyPosition::Fanorona(p) => p.side_to_move(),
            AnyPosition::Telo(p) => p.side_to_move(),
        }
    }

    /// The FEN.
    pub fn fen(&self) -> String {
        match self {
            AnyPosition::Fanorona(p) => p.fen(),
            AnyPosition::Telo(p) => p.fen(),
        }
    }

    /// Leaf positions `depth` whole turns ahead (distinct turns; a telo move is a turn).
    pub fn perft(&self, depth: u32) -> u64 {
        match self {
            AnyPosition::Fanorona(p) => crate::perft(p, depth, TurnMode::Distinct),
            AnyPosition::Telo(p) => telo_perft(p, depth),
        }
    }
}

/// The board as each variant draws it.
impl std::fmt::Display for AnyPosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyPosition::Fanorona(p) => p.fmt(f),
            AnyPosition::Telo(p) => p.fmt(f),
        }
    }
}

/// Leaf positions of telo `depth` moves ahead.
pub fn telo_perft(p: &TeloPosition, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if p.outcome().is_some_and(|o| o != Outcome::Draw) {
        return 0;
    }
    let moves = p.moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .into_iter()
        .map(|m| {
            let mut c = *p;
            c.play_unchecked(m);
            telo_perft(&c, depth - 1)
        })
        .sum()
}
