//! The score scale every search and evaluation shares: hundredths of a piece for the
//! side to move, wins in `n` turns as [`MATE`] `- n`, tablebase wins just below the
//! mates, graded draws within [`DRAW_BAND`]; and [`Bound`], which side of a position's
//! value a score is.

use fanorona_rules::{Color, Outcome, Position};

/// Score of a win found at the root: a win in `n` turns scores `MATE - n`.
pub const MATE: i32 = 1_000_000;

/// Scores beyond this are forced wins or losses.
pub const MATE_BOUND: i32 = MATE - 10_000;

/// The score of a tablebase win (less the turns to the next capture): above every
/// evaluation, below the mate scores.
pub const TB_WIN: i32 = MATE_BOUND - 10_000;

/// Graded draws' score a piece ahead, hundredths of a piece.
pub const DRAW_PER_PIECE: i32 = 10;
/// Graded draws' largest score, either way.
pub const DRAW_BAND: i32 = 50;

/// Which bound a score is of a position's value: a search in a window (alpha, beta)
/// that fails low learns an upper bound, one that fails high a lower bound.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The value itself.
    Exact,
    /// The value is at least the score.
    Lower,
    /// The value is at most the score.
    Upper,
}

/// The score of a game's result for the side to move of a position `turns` turns before
/// its end: a win or loss as a mate in `turns`, a draw as 0, or (`graded`) a draw at the
/// quiet limit by the material of the game's last position `last`, as the searches
/// score it. What the game's own outcome says of the positions it passed through.
pub fn result_score(o: Outcome, mover: Color, last: &Position, turns: u32, graded: bool) -> i32 {
    match o {
        Outcome::Win(c) if c == mover => MATE - turns as i32,
        Outcome::Win(_) => -(MATE - turns as i32),
        Outcome::Draw => {
            let s = outcome_score(o, last, 0, graded);
            if last.side_to_move() == mover { s } else { -s }
        }
    }
}

/// The score of a game that ended in `o` at `pos`, `ply` turns from the search's root,
/// for `pos`'s side to move: a mate in `ply`, 0 for a draw, or a graded draw (`graded`:
/// a draw at the quiet limit scored by material within [`DRAW_BAND`]).
pub fn outcome_score(o: Outcome, pos: &Position, ply: usize, graded: bool) -> i32 {
    match o {
        Outcome::Draw if graded && pos.quiet() >= pos.rules().fanorona_quiet_limit() => {
            let me = pos.side_to_move();
            let ahead = pos.pieces(me).count() as i32 - pos.pieces(me.other()).count() as i32;
            (DRAW_PER_PIECE * ahead).clamp(-DRAW_BAND, DRAW_BAND)
        }
        Outcome::Draw => 0,
        Outcome::Win(c) if c == pos.side_to_move() => MATE - ply as i32,
        Outcome::Win(_) => -(MATE - ply as i32),
    }
}
