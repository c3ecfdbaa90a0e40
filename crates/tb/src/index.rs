//! Positions of a material class `(white, black)` numbered densely: the white pieces as a
//! combination of the board's points, then the black ones as a combination of the points
//! left (both ranked in colexicographic order).

use fanorona_rules::{Bitboard, ByColor, Point};

/// Binomial coefficients `C(n, k)` for `n <= 64`, `k <= 64`.
#[derive(Debug, PartialEq, Eq)]
pub struct Binomial([[u64; 65]; 65]);

impl Binomial {
    /// The table.
    pub fn new() -> Binomial {
        let mut c = [[0u64; 65]; 65];
        for n in 0..65 {
            c[n][0] = 1;
            for k in 1..=n {
                c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            }
        }
        Binomial(c)
    }
    /// `C(n, k)` (0 when `k > n`).
    pub fn get(&self, n: usize, k: usize) -> u64 {
        if k > n { 0 } else { self.0[n][k] }
    }
}

impl Default for Binomial {
    fn default() -> Self {
        Binomial::new()
    }
}

/// A material class on a board of `points` points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Class {
    /// White's pieces.
    pub white: u8,
    /// Black's pieces.
    pub black: u8,
}

impl Class {
    /// Positions of the class for one side to move.
    pub fn size(self, b: &Binomial, points: usize) -> u64 {
        b.get(points, self.white as usize)
            * b.get(points - self.white as usize, self.black as usize)
    }
    /// The class of a position's pieces.
    pub fn of(pieces: &ByColor<Bitboard>) -> Class {
        Class {
            white: pieces.white.count() as u8,
            black: pieces.black.count() as u8,
        }
    }
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}v{}", self.white, self.black)
    }
}

/// Rank of a set of `k` positions `0..n` (ascending) in colex order.
fn rank(b: &Binomial, idx: impl Iterator<Item = usize>) -> u64 {
    idx.enumerate().map(|(i, p)| b.get(p, i + 1)).sum()
}

/// The `k` positions of colex rank `r`, ascending, into `out`.
fn unrank(b: &Binomial, mut r: u64, k: usize, n: usize, out: &mut Vec<usize>) {
    out.clear();
    let mut top = n;
    for i in (1..=k).rev() {
        // The largest p < top with C(p, i) <= r.
        let mut p = top - 1;
        while b.get(p, i) > r {
            p -= 1;
        }
        out.push(p);
        r -= b.get(p, i);
        top = p;
    }
    out.reverse();
}

/// The index of `pieces` in its class on a board of `points` points.
pub fn index_of(b: &Binomial, points: usize, pieces: &ByColor<Bitboard>) -> u64 {
    let w = pieces.white;
    let black_count = pieces.black.count() as usize;
    let rw = rank(b, w.map(|p| p.index()));
    // A black piece's place among the points white leaves free.
    let rb = rank(
        b,
        pieces
            .black
            .map(|p| p.index() - (w & Bitboard((1u64 << p.index()) - 1)).count() as usize),
    );
    rw * b.get(points - w.count() as usize, black_count) + rb
}

/// The pieces at `index` of `class` on a board of `points` points.
pub fn pieces_at(
    b: &Binomial,
    points: usize,
    class: Class,
    index: u64,
    scratch: &mut Vec<usize>,
) -> ByColor<Bitboard> {
    let (nw, nb) = (class.white as usize, class.black as usize);
    let per = b.get(points - nw, nb);
    let (rw, rb) = (index / per, index % per);
    unrank(b, rw, nw, points, scratch);
    let mut white = Bitboard(0);
    for &p in scratch.iter() {
        white = white.with(Point(p as u8));
    }
    unrank(b, rb, nb, points - nw, scratch);
    // Black's ranks count the points white leaves free: walk them in ascending order.
    let mut black = Bitboard(0);
    let (mut p, mut free) = (0usize, 0usize);
    for &q in scratch.iter() {
        loop {
            if !white.contains(Point(p as u8)) {
                if free == q {
                    break;
                }
                free += 1;
            }
            p += 1;
        }
        black = black.with(Point(p as u8));
        p += 1;
        free += 1;
    }
    ByColor { white, black }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_round_trip() {
        let b = Binomial::new();
        let mut s = Vec::new();
        for (points, class) in [
            (25, Class { white: 2, black: 1 }),
            (45, Class { white: 1, black: 3 }),
            (9, Class { white: 3, black: 3 }),
        ] {
            let n = class.size(&b, points);
            let mut seen = std::collections::HashSet::new();
            for i in 0..n {
                let p = pieces_at(&b, points, class, i, &mut s);
                assert_eq!(Class::of(&p), class);
                assert!((p.white & p.black).is_empty());
                assert_eq!(index_of(&b, points, &p), i);
                assert!(seen.insert((p.white.0, p.black.0)));
            }
        }
        assert_eq!(Class { white: 2, black: 3 }.size(&b, 45), 990 * 12341);
    }
}
