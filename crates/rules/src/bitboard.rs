//! Points, directions and the `Bitboard` set type.

use std::fmt;

/// A point of the board, indexed `y * width + x` (a1 = 0, then along row 1).
///
/// The index only has a meaning together with a [`Variant`](crate::Variant): b1 is 1 on
/// every board, but a2 is 9 on tsivy, 5 on dimy and 3 on telo.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Point(pub u8);

impl Point {
    /// The index as a `usize`.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The single-point bitboard.
    #[inline]
    pub const fn bb(self) -> Bitboard {
        Bitboard(1u64 << self.0)
    }
}

/// One of the eight directions of movement, numbered clockwise from north.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[repr(u8)]
pub enum Direction {
    /// towards row 5
    N = 0,
    /// up and right
    NE = 1,
    /// towards column i
    E = 2,
    /// down and right
    SE = 3,
    /// towards row 1
    S = 4,
    /// down and left
    SW = 5,
    /// towards column a
    W = 6,
    /// up and left
    NW = 7,
}

impl Direction {
    /// All eight directions, in index order.
    pub const ALL: [Direction; 8] = [
        Direction::N,
        Direction::NE,
        Direction::E,
        Direction::SE,
        Direction::S,
        Direction::SW,
        Direction::W,
        Direction::NW,
    ];
    /// The direction with this index (`0..8`, clockwise from north).
    ///
    /// # Panics
    /// If `i >= 8`.
    #[inline]
    pub const fn from_index(i: usize) -> Direction {
        // A match, not `ALL[i]`: it compiles to the index itself, with no table load.
        match i {
            0 => Direction::N,
            1 => Direction::NE,
            2 => Direction::E,
            3 => Direction::SE,
            4 => Direction::S,
            5 => Direction::SW,
            6 => Direction::W,
            7 => Direction::NW,
            _ => panic!("a direction index is below 8"),
        }
    }
    /// Index `0..8`.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
    /// The opposite direction.
    #[inline]
    pub const fn opposite(self) -> Direction {
        Direction::from_index((self as usize + 4) & 7)
    }
    /// `(dx, dy)` with y growing towards row 5.
    #[inline]
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Direction::N => (0, 1),
            Direction::NE => (1, 1),
            Direction::E => (1, 0),
            Direction::SE => (1, -1),
            Direction::S => (0, -1),
            Direction::SW => (-1, -1),
            Direction::W => (-1, 0),
            Direction::NW => (-1, 1),
        }
    }
    /// Whether the direction is diagonal.
    #[inline]
    pub const fn is_diagonal(self) -> bool {
        (self as u8) & 1 == 1
    }
}

/// A set of points as a 64-bit mask (bit `i` is point `i`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// Whether no point is set.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Whether some point is set.
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }
    /// Number of points.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }
    /// Whether `p` is in the set.
    #[inline]
    pub const fn contains(self, p: Point) -> bool {
        self.0 >> p.0 & 1 == 1
    }
    /// The set with `p` added.
    #[inline]
    pub const fn with(self, p: Point) -> Bitboard {
        Bitboard(self.0 | 1 << p.0)
    }
    /// The set with `p` removed.
    #[inline]
    pub const fn without(self, p: Point) -> Bitboard {
        Bitboard(self.0 & !(1 << p.0))
    }
    /// The lowest point, if any.
    #[inline]
    pub const fn first(self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            Some(Point(self.0.trailing_zeros() as u8))
        }
    }
}

impl Iterator for Bitboard {
    type Item = Point;
    #[inline]
    fn next(&mut self) -> Option<Point> {
        if self.0 == 0 {
            return None;
        }
        let p = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Point(p))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

macro_rules! bitop {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl std::ops::$tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl std::ops::$tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bitop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bitop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bitop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl std::ops::Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bitboard({:#x})", self.0)
    }
}

/// White or Black. White starts on rows 1-2 and moves first.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Color {
    /// The side on rows 1-2.
    White = 0,
    /// The side on rows 4-5.
    Black = 1,
}

impl Color {
    /// The other colour.
    #[inline]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
    /// 0 for White, 1 for Black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
    /// `"white"` or `"black"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
    /// The FEN letter, `'w'` or `'b'`.
    pub const fn fen_char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A pair of values, one per colour (instead of `[T; 2]` indexed by hand).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct ByColor<T> {
    /// White's value.
    pub white: T,
    /// Black's value.
    pub black: T,
}

impl<T> ByColor<T> {
    /// The value of `c`.
    #[inline]
    pub fn get(&self, c: Color) -> &T {
        match c {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }
    /// The value of `c`, mutably.
    #[inline]
    pub fn get_mut(&mut self, c: Color) -> &mut T {
        match c {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }
}
