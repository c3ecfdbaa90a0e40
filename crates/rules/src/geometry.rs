//! Board variants and their line geometry, built at compile time.

use crate::bitboard::{Bitboard, Direction, Point};
use std::fmt;
use std::str::FromStr;

/// The three boards of the Fanorona family (docs/RULES.md section 1).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Variant {
    /// fanoron-tsivy: 9 x 5, 22 pieces each, the main game.
    Tsivy,
    /// fanoron-dimy: 5 x 5, 12 pieces each, same rules.
    Dimy,
    /// fanoron-telo: 3 x 3, three in a row (docs/RULES.md section 7).
    Telo,
}

impl Variant {
    /// All variants.
    pub const ALL: [Variant; 3] = [Variant::Tsivy, Variant::Dimy, Variant::Telo];

    /// The lower-case name used on the command line and in files.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Tsivy => "tsivy",
            Variant::Dimy => "dimy",
            Variant::Telo => "telo",
        }
    }
    /// The line geometry of this board.
    #[inline]
    pub const fn geometry(self) -> &'static Geometry {
        match self {
            Variant::Tsivy => &TSIVY,
            Variant::Dimy => &DIMY,
            Variant::Telo => &TELO,
        }
    }
    /// Columns.
    #[inline]
    pub const fn width(self) -> usize {
        self.geometry().width as usize
    }
    /// Rows.
    #[inline]
    pub const fn height(self) -> usize {
        self.geometry().height as usize
    }
    /// Number of points.
    #[inline]
    pub const fn points(self) -> usize {
        self.width() * self.height()
    }
    /// Pieces each side starts with.
    pub const fn pieces_each(self) -> u32 {
        match self {
            Variant::Tsivy => 22,
            Variant::Dimy => 12,
            Variant::Telo => 3,
        }
    }
    /// The vela phase lasts while the riatra winner has more pieces than this: 5 in tsivy
    /// ("5 against 22"), 3 in dimy ("3 against 12"); telo has no vela.
    pub const fn vela_phase_pieces(self) -> u32 {
        match self {
            Variant::Tsivy => 5,
            Variant::Dimy => 3,
            Variant::Telo => 0,
        }
    }
    /// The variant with this board size, if any.
    pub const fn from_size(width: usize, height: usize) -> Option<Variant> {
        match (width, height) {
            (9, 5) => Some(Variant::Tsivy),
            (5, 5) => Some(Variant::Dimy),
            (3, 3) => Some(Variant::Telo),
            _ => None,
        }
    }
    /// The FEN of the start position.
    pub const fn start_fen(self) -> &'static str {
        match self {
            Variant::Tsivy => "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 0",
            Variant::Dimy => "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 0",
            Variant::Telo => "3/3/3 w 0 0",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown variant name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseVariantError(pub String);

impl fmt::Display for ParseVariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown variant {} (expected tsivy, dimy or telo)",
            crate::quote(&self.0)
        )
    }
}
impl std::error::Error for ParseVariantError {}

impl FromStr for Variant {
    type Err = ParseVariantError;
    fn from_str(s: &str) -> Result<Variant, ParseVariantError> {
        match s.to_ascii_lowercase().as_str() {
            "tsivy" | "fanoron-tsivy" => Ok(Variant::Tsivy),
            "dimy" | "fanoron-dimy" => Ok(Variant::Dimy),
            "telo" | "fanoron-telo" => Ok(Variant::Telo),
            _ => Err(ParseVariantError(s.to_string())),
        }
    }
}

/// Sentinel in [`Geometry::neighbour`] for "no line in that direction".
pub const NO_POINT: u8 = u8::MAX;

/// Lines of one board: which points join which, as tables and shift masks.
#[derive(Debug)]
pub struct Geometry {
    /// Columns.
    pub width: u8,
    /// Rows.
    pub height: u8,
    /// Every point of the board.
    pub all: Bitboard,
    /// `has_line[d]`: the points joined by a line to a neighbour in direction `d`.
    pub has_line: [u64; 8],
    /// `shift[d]`: how the index changes for one step in direction `d`.
    pub shift: [i8; 8],
    /// `neighbour[p][d]`: the point one step from `p` along direction `d`, or [`NO_POINT`].
    pub neighbour: [[u8; 8]; 64],
    /// `adjacent[p]`: the points joined to `p` by a line.
    pub adjacent: [u64; 64],
    /// `reach2[p]`: the points one or two steps from `p` along a straight line (where an
    /// enemy must stand for a piece on `p` to capture).
    pub reach2: [u64; 64],
    /// `ray[p][d]`: every point beyond `p` along the line in direction `d`, to the edge.
    pub ray: [[u64; 8]; 64],
    /// `dir_to[p][q]`: the direction index of the step `p -> q`, or [`NO_POINT`].
    pub dir_to: [[u8; 64]; 64],
    /// `step_bb[p][d]`: the neighbour of `p` in direction `d` as a bitboard, or empty.
    pub step_bb: [[u64; 8]; 64],
    /// The capture targets of a single piece, by table (see [`Geometry::capture_targets`]).
    targets: TargetTables,
}

/// Tables that give the capture targets of one piece in a few instructions: the enemy
/// pieces around the piece are rotated so that it sits at bit `align`, where the eight
/// neighbours (and the eight points two steps away) always have the same bits; a magic
/// multiplication gathers those bits into an index, and the table holds the targets for
/// that pattern, rotated back. Portable (no `pext`), and the magics are checked when the
/// tables are built: two patterns sharing an index stop the build.
#[derive(Debug)]
struct TargetTables {
    align: u32,
    withdrawal_magic: u64,
    withdrawal_shift: u32,
    approach_magic: u64,
    approach_shift: u32,
    /// Indexed by the enemy neighbours: the points a withdrawal from them steps to.
    withdrawal: [u64; 512],
    /// Indexed by the enemies two steps away: the points an approach to them steps to.
    approach: [u64; 512],
}

/// Magics found by a random search: `(withdrawal, bits, approach, bits)` for a width.
const fn magics(width: u8) -> (u64, u32, u64, u32) {
    match width {
        9 => (0x8803_014a_0001_1000, 8, 0x0400_1048_2080_0004, 8),
        5 => (0x0042_2000_0220_8018, 9, 0x0801_c840_0000_0000, 8),
        3 => (0x0100_800c_0040_0040, 8, 0x4201_4000_2001_4004, 8),
        _ => panic!("no capture magics for this width"),
    }
}

const fn target_tables(shift: &[i8; 8], width: u8) -> TargetTables {
    let align = 2 * (width as i32 + 1);
    let (wm, wb, am, ab) = magics(width);
    let mut t = TargetTables {
        align: align as u32,
        withdrawal_magic: wm,
        withdrawal_shift: 64 - wb,
        approach_magic: am,
        approach_shift: 64 - ab,
        withdrawal: [0; 512],
        approach: [0; 512],
    };
    let mut filled_w = [false; 512];
    let mut filled_a = [false; 512];
    let mut pattern = 0;
    while pattern < 256 {
        let (mut near, mut far, mut wd, mut ap) = (0u64, 0u64, 0u64, 0u64);
        let mut d = 0;
        while d < 8 {
            if pattern >> d & 1 == 1 {
                let o = shift[d] as i32;
                near |= 1 << (align + o);
                far |= 1 << (align + 2 * o);
                wd |= 1 << (align - o);
                ap |= 1 << (align + o);
            }
            d += 1;
        }
        let i = (near.wrapping_mul(wm) >> t.withdrawal_shift) as usize;
        assert!(!filled_w[i], "withdrawal magic collides");
        filled_w[i] = true;
        t.withdrawal[i] = wd;
        let i = (far.wrapping_mul(am) >> t.approach_shift) as usize;
        assert!(!filled_a[i], "approach magic collides");
        filled_a[i] = true;
        t.approach[i] = ap;
        pattern += 1;
    }
    t
}

const fn build(width: u8, height: u8) -> Geometry {
    let w = width as i32;
    let h = height as i32;
    let n = (w * h) as u32;
    let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let mut has_line = [0u64; 8];
    let mut shift = [0i8; 8];
    let mut neighbour = [[NO_POINT; 8]; 64];
    let mut d = 0;
    while d < 8 {
        let (dx, dy) = Direction::ALL[d].delta();
        shift[d] = (dy * w + dx) as i8;
        let mut y = 0;
        while y < h {
            let mut x = 0;
            while x < w {
                let (nx, ny) = (x + dx, y + dy);
                let diagonal = dx != 0 && dy != 0;
                // Diagonal lines only pass through points with x + y even (docs/RULES.md 1).
                let on_line = !diagonal || (x + y) % 2 == 0;
                if on_line && nx >= 0 && nx < w && ny >= 0 && ny < h {
                    let p = (y * w + x) as usize;
                    has_line[d] |= 1u64 << p;
                    neighbour[p][d] = (ny * w + nx) as u8;
                }
                x += 1;
            }
            y += 1;
        }
        d += 1;
    }
    let mut adjacent = [0u64; 64];
    let mut reach2 = [0u64; 64];
    let mut dir_to = [[NO_POINT; 64]; 64];
    let mut p = 0;
    while p < 64 {
        let mut d = 0;
        while d < 8 {
            let q = neighbour[p][d];
            if q != NO_POINT {
                adjacent[p] |= 1u64 << q;
                reach2[p] |= 1u64 << q;
                dir_to[p][q as usize] = d as u8;
                let r = neighbour[q as usize][d];
                if r != NO_POINT {
                    reach2[p] |= 1u64 << r;
                }
            }
            d += 1;
        }
        p += 1;
    }
    let mut ray = [[0u64; 8]; 64];
    let mut p = 0;
    while p < 64 {
        let mut d = 0;
        while d < 8 {
            let mut q = neighbour[p][d];
            while q != NO_POINT {
                ray[p][d] |= 1u64 << q;
                q = neighbour[q as usize][d];
            }
            d += 1;
        }
        p += 1;
    }
    let mut step_bb = [[0u64; 8]; 64];
    let mut p = 0;
    while p < 64 {
        let mut d = 0;
        while d < 8 {
            if neighbour[p][d] != NO_POINT {
                step_bb[p][d] = 1u64 << neighbour[p][d];
            }
            d += 1;
        }
        p += 1;
    }
    let targets = target_tables(&shift, width);
    Geometry {
        targets,
        step_bb,
        width,
        height,
        all: Bitboard(all),
        has_line,
        shift,
        neighbour,
        adjacent,
        reach2,
        ray,
        dir_to,
    }
}

/// The boards' geometries as constants, for code that needs every load from them to fold
/// (the generic generator's `Board::G`); everything else uses the statics below.
pub(crate) const TSIVY_GEOMETRY: Geometry = build(9, 5);
pub(crate) const DIMY_GEOMETRY: Geometry = build(5, 5);
pub(crate) const TELO_GEOMETRY: Geometry = build(3, 3);

/// fanoron-tsivy, 9 x 5.
pub static TSIVY: Geometry = TSIVY_GEOMETRY;
/// fanoron-dimy, 5 x 5.
pub static DIMY: Geometry = DIMY_GEOMETRY;
/// fanoron-telo, 3 x 3.
pub static TELO: Geometry = TELO_GEOMETRY;

impl Geometry {
    /// The points one step from each point of `bb` in direction `d`, along lines only.
    #[inline(always)]
    pub fn shift(&self, bb: Bitboard, d: Direction) -> Bitboard {
        let masked = bb.0 & self.has_line[d.index()];
        // Every point left after the mask has its neighbour on the board, so no bit
        // crosses the ends of the word and a rotation is the shift, in either direction,
        // without a branch (a right shift by k is a left rotation by 64 - k).
        Bitboard(masked.rotate_left(self.shift[d.index()] as u32 & 63))
    }
    /// The capture targets of a piece on `p` among enemies `them`, ignoring whether the
    /// targets are free: `(approach, withdrawal)`, the points next to `p` that a step
    /// capturing by approach (an enemy two steps away beyond it) or by withdrawal (an enemy
    /// on the other side of `p`) goes to. (The tables' index arithmetic can wrap past an
    /// edge to points that are not next to `p`; the mask of its neighbours drops them.)
    #[inline(always)]
    pub fn capture_targets(&self, p: Point, them: Bitboard) -> (u64, u64) {
        let t = &self.targets;
        let adjacent = self.adjacent[p.index()];
        let near = them.0 & adjacent;
        let far = them.0 & self.reach2[p.index()] & !adjacent;
        let rot = (p.0 as u32).wrapping_sub(t.align) & 63;
        let near = near.rotate_right(rot).wrapping_mul(t.withdrawal_magic) >> t.withdrawal_shift;
        let far = far.rotate_right(rot).wrapping_mul(t.approach_magic) >> t.approach_shift;
        (
            t.approach[far as usize].rotate_left(rot) & adjacent,
            t.withdrawal[near as usize].rotate_left(rot) & adjacent,
        )
    }
    /// The point one step from `p` in direction `d`, if a line goes there.
    #[inline(always)]
    pub fn neighbour(&self, p: Point, d: Direction) -> Option<Point> {
        let q = self.neighbour[p.index()][d.index()];
        if q == NO_POINT { None } else { Some(Point(q)) }
    }
    /// Number of points.
    #[inline]
    pub const fn points(&self) -> usize {
        self.width as usize * self.height as usize
    }
    /// Column `0..width` of `p`.
    #[inline]
    pub const fn x(&self, p: Point) -> usize {
        p.0 as usize % self.width as usize
    }
    /// Row `0..height` of `p` (0 is row 1).
    #[inline]
    pub const fn y(&self, p: Point) -> usize {
        p.0 as usize / self.width as usize
    }
    /// The point at `(x, y)`, if on the board.
    pub fn point(&self, x: i32, y: i32) -> Option<Point> {
        if x >= 0 && y >= 0 && x < self.width as i32 && y < self.height as i32 {
            Some(Point((y * self.width as i32 + x) as u8))
        } else {
            None
        }
    }
    /// The algebraic name of `p`, e.g. `e3`.
    pub fn name(&self, p: Point) -> PointName {
        PointName {
            file: b'a' + self.x(p) as u8,
            rank: b'1' + self.y(p) as u8,
        }
    }
    /// The traditional number of `p`: row 5 (the top row) is 1.., left to right, and so on down.
    pub fn number(&self, p: Point) -> u32 {
        ((self.height as usize - 1 - self.y(p)) * self.width as usize + self.x(p) + 1) as u32
    }
    /// The point with this traditional number (1-based), if on the board.
    pub fn from_number(&self, n: u32) -> Option<Point> {
        if n == 0 || n as usize > self.points() {
            return None;
        }
        let i = n as usize - 1;
        let row_from_top = i / self.width as usize;
        let x = i % self.width as usize;
        self.point(x as i32, (self.height as usize - 1 - row_from_top) as i32)
    }
    /// The point with this algebraic name (`a1`..), if on the board.
    pub fn parse_name(&self, s: &str) -> Option<Point> {
        let b = s.as_bytes();
        if b.len() != 2 || !b[0].is_ascii_lowercase() || !b[1].is_ascii_digit() {
            return None;
        }
        self.point((b[0] - b'a') as i32, b[1] as i32 - b'1' as i32)
    }
    /// The direction of a single step `from -> to` along a line, if they are joined.
    pub fn direction(&self, from: Point, to: Point) -> Option<Direction> {
        Direction::ALL
            .into_iter()
            .find(|&d| self.neighbour(from, d) == Some(to))
    }
}

/// A point's algebraic name, printable without allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointName {
    file: u8,
    rank: u8,
}

impl fmt::Display for PointName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file as char, self.rank as char)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagonals_only_from_even_points() {
        let g = &TSIVY;
        let a1 = g.parse_name("a1").unwrap();
        let b2 = g.parse_name("b2").unwrap();
        let a2 = g.parse_name("a2").unwrap();
        assert_eq!(g.neighbour(a1, Direction::NE), Some(b2));
        assert_eq!(g.neighbour(a2, Direction::SE), None);
        assert_eq!(g.direction(a2, g.parse_name("b1").unwrap()), None);
        // Line counts: tsivy has 8*5 + 9*4 horizontal+vertical and 2*16 diagonal segments... count by neighbours.
        let segs: u32 = (0..8).map(|d| g.has_line[d].count_ones()).sum::<u32>() / 2;
        assert_eq!(segs, 8 * 5 + 9 * 4 + 32);
        let segs: u32 = (0..8).map(|d| DIMY.has_line[d].count_ones()).sum::<u32>() / 2;
        assert_eq!(segs, 4 * 5 + 5 * 4 + 16);
    }

    #[test]
    fn traditional_numbers() {
        let g = &TSIVY;
        assert_eq!(g.number(g.parse_name("a5").unwrap()), 1);
        assert_eq!(g.number(g.parse_name("i1").unwrap()), 45);
        assert_eq!(g.number(g.parse_name("e3").unwrap()), 23);
        for p in 0..45u8 {
            assert_eq!(g.from_number(g.number(Point(p))), Some(Point(p)));
        }
        assert_eq!(g.from_number(46), None);
        assert_eq!(g.from_number(0), None);
    }

    #[test]
    fn shift_matches_neighbour_table() {
        for v in Variant::ALL {
            let g = v.geometry();
            for p in 0..g.points() as u8 {
                for d in Direction::ALL {
                    let s = g.shift(Point(p).bb(), d);
                    assert_eq!(s.first(), g.neighbour(Point(p), d));
                }
            }
        }
    }
}
