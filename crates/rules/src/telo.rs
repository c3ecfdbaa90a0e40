//! fanoron-telo (docs/RULES.md section 7): three in a row on the 3 x 3 board, and its
//! retrograde solution.
//!
//! ```text
//! 3 . . .     Players place one piece each in turn until both have 3,
//! 2 . . .     then move one piece one step along a line to an empty point.
//! 1 . . .     Three in a straight line wins; a side with no move loses.
//!   a b c
//! ```

use crate::bitboard::{Bitboard, ByColor, Color, Direction, Point};
use crate::fen::{FenError, FenErrorKind, Setup};
use crate::geometry::{Geometry, TELO, Variant};
use crate::options::RuleOptions;
use crate::position::{Outcome, PositionError};
use crate::zobrist::KEYS;
use std::fmt;

/// The eight lines of three: rows, columns, the two diagonals.
pub const LINES: [Bitboard; 8] = [
    Bitboard(0b000_000_111),
    Bitboard(0b000_111_000),
    Bitboard(0b111_000_000),
    Bitboard(0b001_001_001),
    Bitboard(0b010_010_010),
    Bitboard(0b100_100_100),
    Bitboard(0b100_010_001),
    Bitboard(0b001_010_100),
];

/// A telo move: a placement during the placing phase, a step afterwards.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum TeloMove {
    /// Put a new piece on an empty point.
    Place(Point),
    /// Move a piece one step along a line.
    Step {
        /// From.
        from: Point,
        /// To (adjacent, empty).
        to: Point,
    },
}

/// A telo position.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TeloPosition {
    rules: RuleOptions,
    pieces: ByColor<Bitboard>,
    side: Color,
    quiet: u16,
    ply: u16,
    hash: u64,
}

/// Whether `bb` holds three in a line.
#[inline]
pub fn has_line(bb: Bitboard) -> bool {
    LINES.iter().any(|&l| bb & l == l)
}

impl TeloPosition {
    /// The empty board, White to place.
    pub fn start(rules: RuleOptions) -> TeloPosition {
        TeloPosition::from_parts(rules, ByColor::default(), Color::White, 0, 0)
    }

    fn from_parts(
        rules: RuleOptions,
        pieces: ByColor<Bitboard>,
        side: Color,
        quiet: u16,
        ply: u16,
    ) -> TeloPosition {
        let mut p = TeloPosition {
            rules,
            pieces,
            side,
            quiet,
            ply,
            hash: 0,
        };
        p.hash = p.hash_from_scratch();
        p
    }

    /// Reads a telo FEN (3 rows of width 3).
    ///
    /// # Errors
    /// A malformed FEN, another board size, or more than 3 pieces a side.
    pub fn from_fen(fen: &str, rules: RuleOptions) -> Result<TeloPosition, FenError> {
        let s = Setup::from_fen(fen)?;
        let err = |e| FenError {
            fen: fen.to_string(),
            kind: FenErrorKind::Position(e),
        };
        if s.variant() != Variant::Telo {
            return Err(err(PositionError::Board {
                width: s.width,
                height: s.height,
            }));
        }
        for c in [Color::White, Color::Black] {
            let n = s.pieces.get(c).count();
            if n > 3 {
                return Err(err(PositionError::TooManyPieces {
                    color: c,
                    count: n,
                    max: 3,
                }));
            }
        }
        Ok(TeloPosition::from_parts(
            rules, s.pieces, s.side, s.quiet, s.ply,
        ))
    }

    /// The FEN (all four fields).
    pub fn fen(&self) -> String {
        Setup {
            width: 3,
            height: 3,
            pieces: self.pieces,
            side: self.side,
            quiet: self.quiet,
            ply: self.ply,
        }
        .to_fen()
    }

    /// The geometry of the 3 x 3 board.
    pub fn geometry(&self) -> &'static Geometry {
        &TELO
    }
    /// The rule options.
    pub fn rules(&self) -> &RuleOptions {
        &self.rules
    }
    /// The pieces of `c`.
    pub fn pieces(&self, c: Color) -> Bitboard {
        *self.pieces.get(c)
    }
    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.side
    }
    /// Moves of the moving phase played so far (the draw clock).
    pub fn quiet(&self) -> u16 {
        self.quiet
    }
    /// Moves played so far.
    pub fn ply(&self) -> u16 {
        self.ply
    }
    /// Zobrist hash, kept incrementally.
    pub fn hash(&self) -> u64 {
        self.hash
    }
    /// Zobrist hash from scratch.
    pub fn hash_from_scratch(&self) -> u64 {
        KEYS.board(&self.pieces, self.side)
    }
    /// Whether the side to move is still placing pieces.
    pub fn placing(&self) -> bool {
        self.pieces(self.side).count() < 3
    }

    /// The position with every point renamed by `point` (a board symmetry).
    pub fn relabel(&self, point: impl Fn(Point) -> Point) -> TeloPosition {
        let map = |bb: Bitboard| bb.fold(Bitboard::EMPTY, |acc, p| acc.with(point(p)));
        let pieces = ByColor {
            white: map(self.pieces.white),
            black: map(self.pieces.black),
        };
        TeloPosition::from_parts(self.rules, pieces, self.side, self.quiet, self.ply)
    }

    /// The legal moves into `out` (cleared first). Empty once the game is decided.
    pub fn moves_into(&self, out: &mut Vec<TeloMove>) {
        out.clear();
        if has_line(self.pieces.white) || has_line(self.pieces.black) {
            return;
        }
        let empty = TELO.all & !(self.pieces.white | self.pieces.black);
        if self.placing() {
            out.extend(empty.map(TeloMove::Place));
            return;
        }
        for from in self.pieces(self.side) {
            for d in Direction::ALL {
                if let Some(to) = TELO.neighbour(from, d)
                    && empty.contains(to)
                {
                    out.push(TeloMove::Step { from, to });
                }
            }
        }
    }

    /// The legal moves.
    pub fn moves(&self) -> Vec<TeloMove> {
        let mut v = Vec::new();
        self.moves_into(&mut v);
        v
    }

    /// Plays a legal move without checking it.
    pub fn play_unchecked(&mut self, m: TeloMove) {
        let s = self.side.index();
        let own = self.pieces.get_mut(self.side);
        match m {
            TeloMove::Place(p) => {
                *own = own.with(p);
                self.hash ^= KEYS.piece[s][p.index()];
            }
            TeloMove::Step { from, to } => {
                *own = own.without(from).with(to);
                self.hash ^= KEYS.piece[s][from.index()] ^ KEYS.piece[s][to.index()];
                self.quiet = self.quiet.saturating_add(1);
            }
        }
        self.ply = self.ply.saturating_add(1);
        self.side = self.side.other();
        self.hash ^= KEYS.black_to_move;
    }

    /// Plays `m` if legal.
    ///
    /// # Errors
    /// The move is not legal; the position is unchanged.
    pub fn play(&mut self, m: TeloMove) -> Result<(), crate::IllegalTurn> {
        if self.moves().contains(&m) {
            self.play_unchecked(m);
            Ok(())
        } else {
            Err(crate::IllegalTurn)
        }
    }

    /// The outcome: three in a line wins (checked for the side that just moved first);
    /// a side with no move loses; `quiet_limit` moves of the moving phase draw.
    pub fn outcome(&self) -> Option<Outcome> {
        let mover = self.side.other();
        if has_line(self.pieces(mover)) {
            return Some(Outcome::Win(mover));
        }
        if has_line(self.pieces(self.side)) {
            return Some(Outcome::Win(self.side));
        }
        if self.moves().is_empty() {
            return Some(Outcome::Win(mover));
        }
        if self.quiet >= self.rules.telo_quiet_limit() {
            return Some(Outcome::Draw);
        }
        None
    }

    /// Writes a move: `b2` for a placement, `a1b2` for a step.
    pub fn format_move(&self, m: TeloMove) -> String {
        match m {
            TeloMove::Place(p) => TELO.name(p).to_string(),
            TeloMove::Step { from, to } => format!("{}{}", TELO.name(from), TELO.name(to)),
        }
    }

    /// Reads a move in notation and checks it is legal here.
    ///
    /// # Errors
    /// Malformed text or an illegal move, naming the move and the position.
    pub fn parse_move(&self, text: &str) -> Result<TeloMove, crate::NotationError> {
        let t = text.trim();
        let malformed = |reason: &str| crate::NotationError::Malformed {
            turn: t.to_string(),
            reason: reason.to_string(),
        };
        let m = match t.len() {
            2 => TeloMove::Place(
                TELO.parse_name(t)
                    .ok_or_else(|| malformed("not a point a1..c3"))?,
            ),
            4 if t.is_char_boundary(2) => TeloMove::Step {
                from: TELO
                    .parse_name(&t[..2])
                    .ok_or_else(|| malformed("origin is not a point a1..c3"))?,
                to: TELO
                    .parse_name(&t[2..])
                    .ok_or_else(|| malformed("destination is not a point a1..c3"))?,
            },
            _ => {
                return Err(malformed(
                    "expected a placement like `b2` or a move like `a1b2`",
                ));
            }
        };
        if self.moves().contains(&m) {
            Ok(m)
        } else {
            Err(crate::NotationError::Illegal {
                turn: t.to_string(),
                fen: self.fen(),
                reason: if self.placing() {
                    "the side to move is placing: name an empty point".to_string()
                } else {
                    "not a step of the side's piece to an adjacent empty point".to_string()
                },
            })
        }
    }
}

impl fmt::Display for TeloPosition {
    /// The board with coordinates, then the side to move and its phase.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::position::draw_board(f, &TELO, &self.pieces)?;
        write!(
            f,
            "{} to {}",
            if self.side == Color::White {
                "White"
            } else {
                "Black"
            },
            if self.placing() { "place" } else { "move" }
        )
    }
}

/// The exact value of a telo position for the side to move, ignoring the draw clock.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum TeloValue {
    /// The side to move wins in this many moves (plies) with best play.
    Win(u16),
    /// The side to move loses in this many plies with best play.
    Loss(u16),
    /// Neither side can force a win.
    Draw,
}

impl TeloValue {
    /// The value one ply earlier, seen by the other side.
    fn parent(self) -> TeloValue {
        match self {
            TeloValue::Win(n) => TeloValue::Loss(n + 1),
            TeloValue::Loss(n) => TeloValue::Win(n + 1),
            TeloValue::Draw => TeloValue::Draw,
        }
    }
}

impl fmt::Display for TeloValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeloValue::Win(n) => write!(f, "win in {n}"),
            TeloValue::Loss(n) => write!(f, "loss in {n}"),
            TeloValue::Draw => f.write_str("draw"),
        }
    }
}

const STATES: usize = 19683 * 2; // 3^9 boards x side to move

/// A full retrograde solution of telo: the exact value of every position (by board and
/// side to move; the draw clock is ignored, repetition counts as a draw). Training uses
/// it as an oracle.
#[derive(Clone, Debug)]
pub struct TeloSolution {
    values: Vec<Option<TeloValue>>,
}

fn index(pieces: &ByColor<Bitboard>, side: Color) -> usize {
    let mut i = 0usize;
    for p in (0..9).rev() {
        let p = Point(p);
        let d = if pieces.white.contains(p) {
            1
        } else if pieces.black.contains(p) {
            2
        } else {
            0
        };
        i = i * 3 + d;
    }
    i * 2 + side.index()
}

fn decode(i: usize) -> (ByColor<Bitboard>, Color) {
    let side = if i.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    let mut b = i / 2;
    let mut pieces = ByColor::<Bitboard>::default();
    for p in 0..9u8 {
        match b % 3 {
            1 => pieces.white |= Point(p).bb(),
            2 => pieces.black |= Point(p).bb(),
            _ => {}
        }
        b /= 3;
    }
    (pieces, side)
}

impl TeloSolution {
    /// Solves telo by iterating to a fixed point (win/loss distances exact, the rest drawn).
    pub fn solve() -> TeloSolution {
        let rules = RuleOptions::default();
        // Valid states: at most 3 pieces a side.
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); STATES];
        let mut values: Vec<Option<TeloValue>> = vec![None; STATES];
        let mut valid = vec![false; STATES];
        let mut moves = Vec::new();
        for i in 0..STATES {
            let (pieces, side) = decode(i);
            if pieces.white.count() > 3 || pieces.black.count() > 3 {
                continue;
            }
            valid[i] = true;
            let pos = TeloPosition::from_parts(rules, pieces, side, 0, 2);
            if let Some(o) = pos.outcome() {
                values[i] = Some(match o {
                    Outcome::Win(c) if c == side => TeloValue::Win(0),
                    Outcome::Win(_) => TeloValue::Loss(0),
                    Outcome::Draw => unreachable!("no draw clock at quiet 0"),
                });
                continue;
            }
            pos.moves_into(&mut moves);
            children[i] = moves
                .iter()
                .map(|&m| {
                    let mut c = pos;
                    c.play_unchecked(m);
                    index(&c.pieces, c.side) as u32
                })
                .collect();
        }
        // Fixed point, one ply deeper per pass, so distances come out minimal for the
        // winner and maximal for the loser.
        loop {
            let mut changed = false;
            let snapshot = values.clone();
            for i in 0..STATES {
                if !valid[i] || snapshot[i].is_some() {
                    continue;
                }
                let kids = &children[i];
                let mut best_win: Option<u16> = None;
                let mut all_lost = true;
                let mut longest_loss = 0;
                for &c in kids {
                    match snapshot[c as usize] {
                        Some(TeloValue::Loss(n)) => {
                            best_win = Some(best_win.map_or(n + 1, |b| b.min(n + 1)));
                        }
                        Some(TeloValue::Win(n)) => longest_loss = longest_loss.max(n + 1),
                        _ => all_lost = false,
                    }
                }
                if let Some(n) = best_win {
                    values[i] = Some(TeloValue::Win(n));
                    changed = true;
                } else if all_lost && !kids.is_empty() {
                    values[i] = Some(TeloValue::Loss(longest_loss));
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        TeloSolution { values }
    }

    /// The value of `pos` for its side to move.
    pub fn value(&self, pos: &TeloPosition) -> TeloValue {
        self.values[index(&pos.pieces, pos.side)].unwrap_or(TeloValue::Draw)
    }

    /// The moves of `pos` that keep its value (for the side to move): every winning move
    /// when it wins, every drawing move when it draws, every move when it loses.
    pub fn value_preserving_moves(&self, pos: &TeloPosition) -> Vec<TeloMove> {
        let v = self.value(pos);
        pos.moves()
            .into_iter()
            .filter(|&m| {
                let mut c = *pos;
                c.play_unchecked(m);
                let cv = self.value(&c).parent();
                matches!(
                    (v, cv),
                    (TeloValue::Win(_), TeloValue::Win(_))
                        | (TeloValue::Draw, TeloValue::Draw)
                        | (TeloValue::Loss(_), _)
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> TeloPosition {
        TeloPosition::from_fen(fen, RuleOptions::default()).unwrap()
    }

    #[test]
    fn placing_then_moving() {
        let mut p = TeloPosition::start(RuleOptions::default());
        assert_eq!(p.moves().len(), 9);
        for m in ["b2", "a1", "c1", "a3", "b3", "b1"] {
            let mv = p.parse_move(m).unwrap();
            p.play_unchecked(mv);
        }
        // W b2 c1 b3, B a1 a3 b1: White to move, no line yet.
        assert!(!p.placing());
        assert_eq!(p.fen(), "BW1/1W1/BBW w 0 6");
        assert_eq!(p.outcome(), None);
        assert!(p.parse_move("b2").is_err(), "placing is over");
        assert!(matches!(
            p.parse_move("a1a2"),
            Err(crate::NotationError::Illegal { .. })
        ));
        assert!(matches!(
            p.parse_move("zz"),
            Err(crate::NotationError::Malformed { .. })
        ));
        // c1 -> c2 makes nothing; c3? White b3 c3? let us step c1c2: no line.
        let m = p.parse_move("c1c2").unwrap();
        p.play_unchecked(m);
        assert_eq!(p.quiet(), 1);
        assert_eq!(p.outcome(), None);
        assert_eq!(p.hash(), p.hash_from_scratch());
    }

    #[test]
    fn three_in_a_row_wins() {
        // White a1 b2, Black a3 b3: White places c3 and completes the diagonal.
        let mut q = pos("BB1/1W1/W2 w");
        assert!(q.placing());
        let m = q.parse_move("c3").unwrap();
        q.play_unchecked(m);
        assert_eq!(q.outcome(), Some(Outcome::Win(Color::White)));
        assert!(q.moves().is_empty());
        // A line made by moving counts too: White a1 b2 b3 -> b3c3 makes a1-b2-c3.
        let mut r = pos("BW1/BW1/W1B w 0 6");
        assert_eq!(r.outcome(), None);
        let m = r.parse_move("b3c3").unwrap();
        r.play_unchecked(m);
        assert_eq!(r.outcome(), Some(Outcome::Win(Color::White)));
        // Not a line: a bent three.
        assert!(!has_line(Bitboard(0b000_011_001)));
    }

    #[test]
    fn solved_start_is_a_first_player_win_only_by_the_centre() {
        let s = TeloSolution::solve();
        let start = TeloPosition::start(RuleOptions::default());
        assert!(
            matches!(s.value(&start), TeloValue::Win(_)),
            "{}",
            s.value(&start)
        );
        let good = s.value_preserving_moves(&start);
        assert_eq!(good, vec![TeloMove::Place(TELO.parse_name("b2").unwrap())]);
    }
}
