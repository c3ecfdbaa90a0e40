//! Position text (docs/RULES.md section 6): `<rows> <side> [<quiet> <turn>]`.

use crate::bitboard::{Bitboard, ByColor, Color, Point};
use crate::geometry::Variant;
use crate::options::RuleOptions;
use crate::position::{Position, PositionError};
use std::fmt;

/// A position as read from FEN, before it is checked against a variant's rules
/// (shakmaty's `Setup`): board size, pieces, side to move and counters.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Setup {
    /// Columns (every row has this many points).
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Pieces, indexed as [`Point`] for a board of this width.
    pub pieces: ByColor<Bitboard>,
    /// Side to move.
    pub side: Color,
    /// Turns since the last capture.
    pub quiet: u16,
    /// Turns played (2 when not given: past the opening).
    pub ply: u16,
}

/// What is wrong with a FEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenErrorKind {
    /// The text is empty.
    Empty,
    /// A character that is not `W`, `B`, a digit 1-9 or `/` in the rows field.
    BadChar {
        /// The character.
        ch: char,
        /// Row number counted from the top (1-based).
        row: usize,
    },
    /// A row does not have the width of the first row (or is wider than 9).
    RowWidth {
        /// Row counted from the top (1-based).
        row: usize,
        /// Its width.
        width: usize,
        /// The expected width.
        expected: usize,
    },
    /// Wrong number of rows or columns for any board.
    BoardSize {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
    },
    /// The side field is not `w` or `b`.
    Side(String),
    /// No side to move after the rows (it is required).
    MissingSide,
    /// The quiet-turn field is not a number.
    Quiet(String),
    /// The turn field is not a number.
    Turn(String),
    /// More than four fields.
    TooManyFields(usize),
    /// The position is not legal for its variant.
    Position(PositionError),
}

/// A FEN that could not be read, with the text and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenError {
    /// The input.
    pub fen: String,
    /// The problem.
    pub kind: FenErrorKind,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid FEN {}: {}", crate::quote(&self.fen), self.kind)
    }
}

/// What is wrong, without the FEN (for a message that names it itself).
impl fmt::Display for FenErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenErrorKind::Empty => f.write_str("empty text"),
            FenErrorKind::BadChar { ch, row } => write!(
                f,
                "unexpected character {ch:?} in row {row} from the top (expected W, B, 1-9 or /)"
            ),
            FenErrorKind::RowWidth {
                row,
                width,
                expected,
            } => write!(
                f,
                "row {row} from the top has {width} points, expected {expected}"
            ),
            FenErrorKind::BoardSize { width, height } => write!(
                f,
                "{width}x{height} is not a board size (tsivy 9x5, dimy 5x5, telo 3x3)"
            ),
            FenErrorKind::Side(s) => {
                write!(f, "side to move {} is not `w` or `b`", crate::quote(s))
            }
            FenErrorKind::MissingSide => {
                f.write_str("the side to move is missing: add ` w` or ` b` after the rows")
            }
            FenErrorKind::Quiet(s) => {
                write!(
                    f,
                    "quiet-turn count {} (third field) is not a number from 0 to 65535",
                    crate::quote(s)
                )
            }
            FenErrorKind::Turn(s) => {
                write!(
                    f,
                    "turn count {} (fourth field) is not a number from 0 to 65535",
                    crate::quote(s)
                )
            }
            FenErrorKind::TooManyFields(n) => {
                write!(f, "{n} fields, expected 2 to 4 (rows, side, quiet, turn)")
            }
            FenErrorKind::Position(e) => write!(f, "{e}"),
        }
    }
}
impl std::error::Error for FenError {}

impl Setup {
    /// Reads a FEN of any board of the family.
    ///
    /// # Errors
    /// Any malformed field, with what and where; never panics.
    pub fn from_fen(fen: &str) -> Result<Setup, FenError> {
        let err = |kind| FenError {
            fen: fen.to_string(),
            kind,
        };
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.is_empty() {
            return Err(err(FenErrorKind::Empty));
        }
        if fields.len() > 4 {
            return Err(err(FenErrorKind::TooManyFields(fields.len())));
        }
        let rows: Vec<&str> = fields[0].split('/').collect();
        let height = rows.len();
        let mut cells: Vec<Vec<Option<Color>>> = Vec::with_capacity(height);
        for (i, row) in rows.iter().enumerate() {
            let mut r = Vec::new();
            for ch in row.chars() {
                match ch {
                    'W' => r.push(Some(Color::White)),
                    'B' => r.push(Some(Color::Black)),
                    '1'..='9' => {
                        for _ in 0..(ch as u8 - b'0') {
                            r.push(None);
                        }
                    }
                    _ => return Err(err(FenErrorKind::BadChar { ch, row: i + 1 })),
                }
                if r.len() > 9 {
                    return Err(err(FenErrorKind::RowWidth {
                        row: i + 1,
                        width: r.len(),
                        expected: cells.first().map_or(9, |c| c.len()),
                    }));
                }
            }
            if let Some(first) = cells.first()
                && first.len() != r.len()
            {
                return Err(err(FenErrorKind::RowWidth {
                    row: i + 1,
                    width: r.len(),
                    expected: first.len(),
                }));
            }
            cells.push(r);
        }
        let width = cells[0].len();
        if Variant::from_size(width, height).is_none() {
            return Err(err(FenErrorKind::BoardSize { width, height }));
        }
        let mut pieces = ByColor::<Bitboard>::default();
        for (i, row) in cells.iter().enumerate() {
            let y = height - 1 - i;
            for (x, c) in row.iter().enumerate() {
                if let Some(c) = c {
                    *pieces.get_mut(*c) |= Point((y * width + x) as u8).bb();
                }
            }
        }
        let side = match fields.get(1) {
            None => return Err(err(FenErrorKind::MissingSide)),
            Some(&"w") => Color::White,
            Some(&"b") => Color::Black,
            Some(s) => return Err(err(FenErrorKind::Side(s.to_string()))),
        };
        let quiet = match fields.get(2) {
            None => 0,
            Some(s) => s
                .parse()
                .map_err(|_| err(FenErrorKind::Quiet(s.to_string())))?,
        };
        let ply = match fields.get(3) {
            None => 2,
            Some(s) => s
                .parse()
                .map_err(|_| err(FenErrorKind::Turn(s.to_string())))?,
        };
        Ok(Setup {
            width,
            height,
            pieces,
            side,
            quiet,
            ply,
        })
    }

    /// The variant this board size belongs to.
    pub fn variant(&self) -> Variant {
        Variant::from_size(self.width, self.height).expect("checked when read")
    }

    /// Writes the FEN with all four fields.
    pub fn to_fen(&self) -> String {
        let mut s = String::new();
        for y in (0..self.height).rev() {
            let mut empty = 0;
            for x in 0..self.width {
                let p = Point((y * self.width + x) as u8);
                let c = if self.pieces.white.contains(p) {
                    Some('W')
                } else if self.pieces.black.contains(p) {
                    Some('B')
                } else {
                    None
                };
                match c {
                    Some(c) => {
                        if empty > 0 {
                            s.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        s.push(c);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                s.push((b'0' + empty) as char);
            }
            if y > 0 {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(self.side.fen_char());
        s.push_str(&format!(" {} {}", self.quiet, self.ply));
        s
    }
}

impl Position {
    /// Reads a tsivy or dimy position from FEN (the variant follows from the board size).
    ///
    /// # Errors
    /// A malformed FEN, a telo board, or too many pieces for the variant.
    pub fn from_fen(fen: &str, rules: RuleOptions) -> Result<Position, FenError> {
        let s = Setup::from_fen(fen)?;
        Position::new(s.variant(), rules, s.pieces, s.side, s.quiet, s.ply).map_err(|e| FenError {
            fen: fen.to_string(),
            kind: FenErrorKind::Position(e),
        })
    }

    /// The position's setup (what FEN records). A chain in progress is not recorded.
    pub fn setup(&self) -> Setup {
        Setup {
            width: self.variant.width(),
            height: self.variant.height(),
            pieces: self.pieces,
            side: self.side,
            quiet: self.quiet,
            ply: self.ply,
        }
    }

    /// The FEN, all four fields. Inside a chain it describes the board as it stands.
    pub fn fen(&self) -> String {
        self.setup().to_fen()
    }

    /// The FEN without the counters (rows and side), as in `notation.txt`.
    pub fn board_fen(&self) -> String {
        let f = self.fen();
        let mut it = f.split(' ');
        format!("{} {}", it.next().unwrap_or(""), it.next().unwrap_or(""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_fen_round_trips() {
        for v in [Variant::Tsivy, Variant::Dimy] {
            let p = Position::from_fen(v.start_fen(), RuleOptions::default()).unwrap();
            assert_eq!(p, Position::start(v, RuleOptions::default()));
            assert_eq!(p.fen(), v.start_fen());
        }
    }

    #[test]
    fn errors_say_what_and_where() {
        let e = |s: &str| Position::from_fen(s, RuleOptions::default()).unwrap_err();
        assert!(matches!(e("").kind, FenErrorKind::Empty));
        assert!(matches!(
            e("BBBBB/BBBBB/BW1BX/WWWWW/WWWWW w").kind,
            FenErrorKind::BadChar { ch: 'X', row: 3 }
        ));
        assert!(matches!(
            e("BBBBB/BBBBB/BW1B/WWWWW/WWWWW w").kind,
            FenErrorKind::RowWidth {
                row: 3,
                width: 4,
                expected: 5
            }
        ));
        assert!(matches!(
            e("BBBB/BBBB w").kind,
            FenErrorKind::BoardSize { .. }
        ));
        assert!(matches!(
            e("BBBBB/BBBBB/BW1BW/WWWWW/WWWWW x").kind,
            FenErrorKind::Side(_)
        ));
        // The side to move is required (a bare board is not a position).
        assert!(matches!(
            e("BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW").kind,
            FenErrorKind::MissingSide
        ));
        assert!(
            e("BBBBB/BBBBB/BW1BW/WWWWW/WWWWW")
                .to_string()
                .contains("side to move")
        );
        assert!(matches!(
            e("BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w -1").kind,
            FenErrorKind::Quiet(_)
        ));
        assert!(matches!(
            e("BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 x").kind,
            FenErrorKind::Turn(_)
        ));
        assert!(matches!(
            e("BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 0 0").kind,
            FenErrorKind::TooManyFields(5)
        ));
        assert!(matches!(
            e("BBBBB/BBBBB/BBBBB/WWWWW/WWWWW w").kind,
            FenErrorKind::Position(_)
        ));
        assert!(matches!(e("3/3/3 w").kind, FenErrorKind::Position(_)));
        let msg = e("BBBBB/BBBBB/BW1B/WWWWW/WWWWW w").to_string();
        assert!(msg.contains("BW1B") && msg.contains("row 3"), "{msg}");
    }
}
