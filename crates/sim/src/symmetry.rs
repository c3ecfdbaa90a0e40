//! Board symmetries as permutations of points, directions and actions.
//!
//! tsivy (9 x 5) has the 4 symmetries of a rectangle; dimy and telo (square boards) all 8
//! of a square. Every one keeps the lines (diagonals only through points with `x + y`
//! even), so a position and its image play the same game. Index 0 is the identity.

use fanorona_rules::game::{
    action_from_index, action_index, telo_action_from_index, telo_action_index,
};
use fanorona_rules::telo::{TeloMove, TeloPosition};
use fanorona_rules::{Action, Direction, Point, Position, Step, Variant, num_actions};

/// One symmetry of a board, with its tables.
#[derive(Clone, Debug)]
pub struct Symmetry {
    name: &'static str,
    variant: Variant,
    points: Vec<u8>,
    dirs: [Direction; 8],
    actions: Vec<u32>,
    inverse: usize,
}

type Map = fn(i32, i32, i32, i32) -> (i32, i32);

const RECT: [(&str, Map); 4] = [
    ("identity", |x, y, _, _| (x, y)),
    ("mirror-x", |x, y, w, _| (w - 1 - x, y)),
    ("mirror-y", |x, y, _, h| (x, h - 1 - y)),
    ("rotate-180", |x, y, w, h| (w - 1 - x, h - 1 - y)),
];
const SQUARE: [(&str, Map); 4] = [
    ("transpose", |x, y, _, _| (y, x)),
    ("anti-transpose", |x, y, w, h| (h - 1 - y, w - 1 - x)),
    ("rotate-90", |x, y, _, h| (h - 1 - y, x)),
    ("rotate-270", |x, y, w, _| (y, w - 1 - x)),
];

impl Symmetry {
    fn build(variant: Variant, name: &'static str, f: Map) -> Symmetry {
        let g = variant.geometry();
        let (w, h) = (g.width as i32, g.height as i32);
        let n = variant.points();
        let points: Vec<u8> = (0..n)
            .map(|p| {
                let (x, y) = (p as i32 % w, p as i32 / w);
                let (nx, ny) = f(x, y, w, h);
                (ny * w + nx) as u8
            })
            .collect();
        // A direction's image: the linear part of the map, read off the delta.
        let dirs = Direction::ALL.map(|d| {
            let (dx, dy) = d.delta();
            let (ox, oy) = f(1, 1, 3, 3);
            let (tx, ty) = f(1 + dx, 1 + dy, 3, 3);
            let delta = (tx - ox, ty - oy);
            *Direction::ALL
                .iter()
                .find(|e| e.delta() == delta)
                .expect("a direction")
        });
        let mut s = Symmetry {
            name,
            variant,
            points,
            dirs,
            actions: Vec::new(),
            inverse: 0,
        };
        s.actions = (0..num_actions(variant))
            .map(|a| s.map_action(a) as u32)
            .collect();
        s
    }

    fn map_action(&self, a: usize) -> usize {
        let n = self.variant.points();
        if self.variant == Variant::Telo {
            return match telo_action_from_index(a) {
                Some(TeloMove::Place(p)) => telo_action_index(TeloMove::Place(self.point(p))),
                Some(TeloMove::Step { from, to }) => telo_action_index(TeloMove::Step {
                    from: self.point(from),
                    to: self.point(to),
                }),
                None => {
                    // A step off the board: map (origin, direction) arithmetically.
                    let (from, d) = ((a - 9) / 8, (a - 9) % 8);
                    9 + self.points[from] as usize * 8 + self.dirs[d].index()
                }
            };
        }
        match action_from_index(n, a).expect("in range") {
            Action::EndTurn => a,
            Action::Step(s) => action_index(
                n,
                Action::Step(Step {
                    from: self.point(s.from),
                    dir: self.dir(s.dir),
                    kind: s.kind,
                }),
            ),
        }
    }

    /// Its name (`identity`, `mirror-x`, `rotate-90`, ...).
    pub fn name(&self) -> &'static str {
        self.name
    }
    /// The image of a point.
    #[inline]
    pub fn point(&self, p: Point) -> Point {
        Point(self.points[p.index()])
    }
    /// The image of a direction.
    #[inline]
    pub fn dir(&self, d: Direction) -> Direction {
        self.dirs[d.index()]
    }
    /// The image of an action index.
    #[inline]
    pub fn action(&self, a: usize) -> usize {
        self.actions[a] as usize
    }
    /// The index (in [`symmetries`]) of the inverse symmetry.
    pub fn inverse(&self) -> usize {
        self.inverse
    }

    /// Observation planes `[planes, points]` mapped: `out[k][σ(p)] = input[k][p]`.
    pub fn apply_planes(&self, input: &[f32], out: &mut [f32]) {
        let n = self.points.len();
        assert_eq!(input.len(), out.len());
        for (src, dst) in input.chunks_exact(n).zip(out.chunks_exact_mut(n)) {
            for (p, &v) in src.iter().enumerate() {
                dst[self.points[p] as usize] = v;
            }
        }
    }
    /// A vector over actions (policy, mask, visit counts) mapped: `out[σ(a)] = input[a]`.
    pub fn apply_actions<T: Copy>(&self, input: &[T], out: &mut [T]) {
        assert_eq!(input.len(), self.actions.len());
        assert_eq!(out.len(), self.actions.len());
        for (a, &v) in input.iter().enumerate() {
            out[self.actions[a] as usize] = v;
        }
    }
    /// The image of a position.
    pub fn position(&self, pos: &Position) -> Position {
        pos.relabel(|p| self.point(p), |d| self.dir(d))
    }
    /// The image of a telo position.
    pub fn telo(&self, pos: &TeloPosition) -> TeloPosition {
        pos.relabel(|p| self.point(p))
    }
}

/// Every symmetry of the variant's board, the identity first (4 for tsivy, 8 otherwise).
pub fn symmetries(variant: Variant) -> Vec<Symmetry> {
    let square = variant.width() == variant.height();
    let mut v: Vec<Symmetry> = RECT
        .iter()
        .map(|&(n, f)| Symmetry::build(variant, n, f))
        .collect();
    if square {
        v.extend(SQUARE.iter().map(|&(n, f)| Symmetry::build(variant, n, f)));
    }
    let inverses: Vec<usize> = v
        .iter()
        .map(|s| {
            v.iter()
                .position(|t| {
                    (0..s.points.len()).all(|p| t.points[s.points[p] as usize] as usize == p)
                })
                .expect("the group is closed")
        })
        .collect();
    for (s, i) in v.iter_mut().zip(inverses) {
        s.inverse = i;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_lines_kept() {
        assert_eq!(symmetries(Variant::Tsivy).len(), 4);
        assert_eq!(symmetries(Variant::Dimy).len(), 8);
        assert_eq!(symmetries(Variant::Telo).len(), 8);
        for v in Variant::ALL {
            let g = v.geometry();
            for s in symmetries(v) {
                for p in 0..v.points() as u8 {
                    for d in Direction::ALL {
                        let image = g.neighbour(Point(p), d).map(|q| s.point(q));
                        assert_eq!(
                            g.neighbour(s.point(Point(p)), s.dir(d)),
                            image,
                            "{} {v}",
                            s.name
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn inverse_undoes() {
        for v in Variant::ALL {
            let syms = symmetries(v);
            for s in &syms {
                let inv = &syms[s.inverse()];
                for a in 0..num_actions(v) {
                    assert_eq!(inv.action(s.action(a)), a);
                }
                let x: Vec<f32> = (0..v.points() * 3).map(|i| i as f32).collect();
                let mut y = vec![0.0; x.len()];
                let mut z = vec![0.0; x.len()];
                s.apply_planes(&x, &mut y);
                inv.apply_planes(&y, &mut z);
                assert_eq!(x, z);
            }
        }
    }
}
