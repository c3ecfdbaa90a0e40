//! Observation planes and legal-action masks, in the frame of the player to move.
//!
//! **Frame.** Everything the network sees is turned so that the player to move sits at
//! the bottom: for White the board as it is, for Black the board turned 180 degrees
//! (point `p` becomes `points - 1 - p`, a direction its opposite). A 180-degree turn
//! keeps the lines (every board has an even `width + height - 2`) and commutes with every
//! board symmetry. Masks, policies and actions use the same frame; [`frame_action`] maps
//! an action between the frame and the real board (the map is its own inverse).
//!
//! **Layout.** An observation is `[planes, height, width]` f32, indexed `[plane, y, x]`
//! with `y = 0` the mover's home row. Piece planes hold 0 or 1; constant planes hold one
//! value everywhere.
//!
//! The planes, in order, with their meanings: [`FANORONA_PLANE_INFO`] (11 planes: the
//! pieces, the chain state, the draw clock, the vela and reply restrictions, the colour,
//! ones) and [`TELO_PLANE_INFO`] (7); `fanorona export` writes the same table into
//! `model.json`.

use fanorona_rules::game::{
    action_from_index, action_index, telo_action_from_index, telo_action_index,
};
use fanorona_rules::telo::{TeloMove, TeloPosition};
use fanorona_rules::{
    Action, Bitboard, Color, Direction, Game, Point, Position, Restriction, Step, TELO, Variant,
};

/// Planes of a tsivy or dimy observation.
pub const FANORONA_PLANES: usize = 11;
/// Planes of a telo observation.
pub const TELO_PLANES: usize = 7;

/// The Fanorona planes in order: a short name and what the plane holds.
pub const FANORONA_PLANE_INFO: [(&str, &str); FANORONA_PLANES] = [
    ("own", "the mover's pieces (1 where one stands)"),
    ("opponent", "the opponent's pieces"),
    (
        "chain_piece",
        "inside a capture chain: the piece that is capturing; otherwise empty",
    ),
    (
        "visited",
        "inside a capture chain: the points the chain piece has stood on this turn (it may not return to them)",
    ),
    (
        "last_from",
        "inside a capture chain: the point the chain piece just left; with chain_piece it gives the last direction, which the next step may not repeat",
    ),
    (
        "quiet",
        "constant: turns without a capture / the quiet limit (the draw clock; 1 means a draw)",
    ),
    (
        "vela_mover",
        "constant 1 when the mover is the vela player in the vela phase (its turn is one capture taking one piece)",
    ),
    (
        "vela_opponent",
        "constant 1 when the opponent is the vela player in the vela phase (the mover may only paika)",
    ),
    (
        "single_capture",
        "constant 1 when this turn is limited to one capturing step (Black's first turn under reply_chains = false)",
    ),
    ("mover_is_white", "constant 1 when the mover is White"),
    (
        "ones",
        "constant 1 (lets the convolutions see the board's edge)",
    ),
];

/// The telo planes in order: a short name and what the plane holds.
pub const TELO_PLANE_INFO: [(&str, &str); TELO_PLANES] = [
    ("own", "the mover's pieces"),
    ("opponent", "the opponent's pieces"),
    (
        "mover_placing",
        "constant 1 while the mover still has pieces to place",
    ),
    (
        "opponent_placing",
        "constant 1 while the opponent still has pieces to place",
    ),
    (
        "quiet",
        "constant: moves of the moving phase / the quiet limit (1 means a draw)",
    ),
    ("mover_is_white", "constant 1 when the mover is White"),
    ("ones", "constant 1"),
];

/// The planes of a variant in order: short name and meaning.
pub fn plane_info(v: Variant) -> &'static [(&'static str, &'static str)] {
    match v {
        Variant::Telo => &TELO_PLANE_INFO,
        _ => &FANORONA_PLANE_INFO,
    }
}

/// Number of observation planes of a variant.
pub const fn num_planes(v: Variant) -> usize {
    match v {
        Variant::Telo => TELO_PLANES,
        _ => FANORONA_PLANES,
    }
}

/// A game that can be shown to a network: observation planes and an action mask, both
/// in the mover's frame.
pub trait Encode: Game {
    /// Writes the observation (`num_planes * points` floats, `[plane, y, x]`) in the
    /// mover's frame. Every value is written.
    fn encode(&self, out: &mut [f32]);
    /// Calls `f` with every legal action, as an index in the mover's frame.
    fn for_each_legal_in_frame(&self, f: impl FnMut(usize));
    /// The position as a tsivy or dimy [`Position`] (`None` for telo): for what only
    /// Fanorona has, such as the alpha-beta engine.
    fn as_fanorona(&self) -> Option<&Position> {
        None
    }
    /// Writes the pieces (`points` values) in the frame of `mover`, who need not be the
    /// player to move: 1 where `mover` has a piece, -1 where its opponent has one, 0 on
    /// an empty point. Of a game's last position, seen by each of its movers, it is the
    /// target of the network's ownership head.
    fn ownership(&self, mover: Color, out: &mut [i8]);
}

/// The shared body of [`Encode::ownership`].
fn fill_ownership(points: usize, mover: Color, mine: Bitboard, theirs: Bitboard, out: &mut [i8]) {
    debug_assert_eq!(out.len(), points);
    out.fill(0);
    for p in frame_bb(points, mover, mine) {
        out[p.index()] = 1;
    }
    for p in frame_bb(points, mover, theirs) {
        out[p.index()] = -1;
    }
}

/// Maps a point between the board and the frame of `mover`.
#[inline(always)]
pub fn frame_point(points: usize, mover: Color, p: Point) -> Point {
    match mover {
        Color::White => p,
        Color::Black => Point((points - 1 - p.index()) as u8),
    }
}

#[inline(always)]
fn frame_dir(mover: Color, d: Direction) -> Direction {
    match mover {
        Color::White => d,
        Color::Black => d.opposite(),
    }
}

#[inline(always)]
fn frame_bb(points: usize, mover: Color, bb: Bitboard) -> Bitboard {
    match mover {
        Color::White => bb,
        Color::Black => Bitboard(bb.0.reverse_bits() >> (64 - points)),
    }
}

/// Maps an action index between the real board and the frame of `mover` (in either
/// direction: the map is its own inverse).
pub fn frame_action(variant: Variant, mover: Color, action: usize) -> usize {
    if mover == Color::White {
        return action;
    }
    let n = variant.points();
    if variant == Variant::Telo {
        return match telo_action_from_index(action) {
            Some(TeloMove::Place(p)) => {
                telo_action_index(TeloMove::Place(frame_point(n, mover, p)))
            }
            Some(TeloMove::Step { from, to }) => telo_action_index(TeloMove::Step {
                from: frame_point(n, mover, from),
                to: frame_point(n, mover, to),
            }),
            // Indices that name no move (off-board steps) map by arithmetic.
            None => action,
        };
    }
    match action_from_index(n, action) {
        Some(Action::Step(s)) => action_index(
            n,
            Action::Step(Step {
                from: frame_point(n, mover, s.from),
                dir: frame_dir(mover, s.dir),
                kind: s.kind,
            }),
        ),
        _ => action,
    }
}

#[inline(always)]
fn fill_bb(plane: &mut [f32], bb: Bitboard) {
    for p in bb {
        plane[p.index()] = 1.0;
    }
}

impl Encode for Position {
    fn as_fanorona(&self) -> Option<&Position> {
        Some(self)
    }

    fn encode(&self, out: &mut [f32]) {
        let n = self.variant().points();
        debug_assert_eq!(out.len(), FANORONA_PLANES * n);
        out.fill(0.0);
        let me = self.side_to_move();
        let (planes, _) = out.split_at_mut(FANORONA_PLANES * n);
        let mut plane = planes.chunks_exact_mut(n);
        let mut next = || plane.next().expect("plane count");
        fill_bb(next(), frame_bb(n, me, self.pieces(me)));
        fill_bb(next(), frame_bb(n, me, self.pieces(me.other())));
        let (p2, p3, p4) = (next(), next(), next());
        if let Some(c) = self.chain() {
            fill_bb(p2, frame_bb(n, me, c.piece.bb()));
            fill_bb(p3, frame_bb(n, me, c.visited));
            if let Some(prev) = self.geometry().neighbour(c.piece, c.last_dir.opposite()) {
                fill_bb(p4, frame_bb(n, me, prev.bb()));
            }
        }
        let limit = self.rules().fanorona_quiet_limit() as f32;
        next().fill((self.quiet() as f32 / limit).min(1.0));
        let restriction = if self.chain().is_some() {
            Restriction::None
        } else {
            self.restriction()
        };
        let vela = self.vela_phase();
        next().fill(if vela == Some(me) { 1.0 } else { 0.0 });
        next().fill(if vela == Some(me.other()) { 1.0 } else { 0.0 });
        next().fill(if restriction == Restriction::SingleCapture {
            1.0
        } else {
            0.0
        });
        next().fill(if me == Color::White { 1.0 } else { 0.0 });
        next().fill(1.0);
    }

    fn ownership(&self, mover: Color, out: &mut [i8]) {
        let n = self.variant().points();
        fill_ownership(
            n,
            mover,
            self.pieces(mover),
            self.pieces(mover.other()),
            out,
        );
    }

    fn for_each_legal_in_frame(&self, mut f: impl FnMut(usize)) {
        if self.outcome().is_some() {
            return;
        }
        let n = self.variant().points();
        let me = self.side_to_move();
        self.for_each_action(|a| {
            let a = match a {
                Action::Step(s) => Action::Step(Step {
                    from: frame_point(n, me, s.from),
                    dir: frame_dir(me, s.dir),
                    kind: s.kind,
                }),
                Action::EndTurn => Action::EndTurn,
            };
            f(action_index(n, a));
        });
    }
}

impl Encode for TeloPosition {
    fn encode(&self, out: &mut [f32]) {
        debug_assert_eq!(out.len(), TELO_PLANES * 9);
        out.fill(0.0);
        let me = self.side_to_move();
        let mut plane = out.chunks_exact_mut(9);
        let mut next = || plane.next().expect("plane count");
        fill_bb(next(), frame_bb(9, me, self.pieces(me)));
        fill_bb(next(), frame_bb(9, me, self.pieces(me.other())));
        next().fill(if self.pieces(me).count() < 3 {
            1.0
        } else {
            0.0
        });
        next().fill(if self.pieces(me.other()).count() < 3 {
            1.0
        } else {
            0.0
        });
        let limit = self.rules().telo_quiet_limit() as f32;
        next().fill((self.quiet() as f32 / limit).min(1.0));
        next().fill(if me == Color::White { 1.0 } else { 0.0 });
        next().fill(1.0);
    }

    fn ownership(&self, mover: Color, out: &mut [i8]) {
        fill_ownership(
            9,
            mover,
            self.pieces(mover),
            self.pieces(mover.other()),
            out,
        );
    }

    fn for_each_legal_in_frame(&self, mut f: impl FnMut(usize)) {
        if self.outcome().is_some() {
            return;
        }
        let me = self.side_to_move();
        let empty = TELO.all & !(self.pieces(Color::White) | self.pieces(Color::Black));
        if self.placing() {
            for p in empty {
                f(frame_point(9, me, p).index());
            }
            return;
        }
        for from in self.pieces(me) {
            for to in Bitboard(TELO.adjacent[from.index()]) & empty {
                f(telo_action_index(TeloMove::Step {
                    from: frame_point(9, me, from),
                    to: frame_point(9, me, to),
                }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_rules::RuleOptions;

    #[test]
    fn frame_action_is_an_involution_and_matches_the_legal_moves() {
        for v in [Variant::Tsivy, Variant::Dimy, Variant::Telo] {
            for a in 0..fanorona_rules::num_actions(v) {
                for c in [Color::White, Color::Black] {
                    assert_eq!(frame_action(v, c, frame_action(v, c, a)), a);
                }
            }
        }
        // Black's legal moves in its frame map back to its real legal moves.
        let mut p = Position::start(Variant::Tsivy, RuleOptions::default());
        p.apply(p.legal_indices()[0]);
        assert_eq!(p.side_to_move(), Color::Black);
        let mut real = p.legal_indices();
        let mut framed = Vec::new();
        p.for_each_legal_in_frame(|a| framed.push(frame_action(Variant::Tsivy, Color::Black, a)));
        real.sort();
        framed.sort();
        assert_eq!(real, framed);
    }

    /// Seen by the player to move, ownership is the own plane less the opponent plane;
    /// seen by the other player, the same board negated and turned (its frame).
    fn check_ownership<G: Encode>(g: &G, planes: usize, points: usize) {
        let me = g.to_move();
        let mut obs = vec![0.0; planes * points];
        g.encode(&mut obs);
        let (mut mine, mut theirs) = (vec![0i8; points], vec![0i8; points]);
        g.ownership(me, &mut mine);
        g.ownership(me.other(), &mut theirs);
        for p in 0..points {
            assert_eq!(mine[p] as f32, obs[p] - obs[points + p], "point {p}");
            let q = frame_point(points, me, Point(p as u8));
            let q = frame_point(points, me.other(), q).index();
            assert_eq!(theirs[q], -mine[p], "point {p} in the other frame");
        }
    }

    #[test]
    fn ownership_is_the_piece_planes_in_either_movers_frame() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        for v in [Variant::Tsivy, Variant::Dimy] {
            let mut p = Position::start(v, RuleOptions::default());
            for _ in 0..40 {
                check_ownership(&p, FANORONA_PLANES, v.points());
                let legal = p.legal_indices();
                if legal.is_empty() {
                    break;
                }
                p.apply(legal[rng.random_range(0..legal.len())]);
            }
        }
        let mut t = TeloPosition::start(RuleOptions::default());
        for _ in 0..12 {
            check_ownership(&t, TELO_PLANES, 9);
            let legal = t.legal_indices();
            if legal.is_empty() {
                break;
            }
            t.apply(legal[rng.random_range(0..legal.len())]);
        }
    }

    trait Legal {
        fn legal_indices(&self) -> Vec<usize>;
    }
    impl<G: Game> Legal for G {
        fn legal_indices(&self) -> Vec<usize> {
            let mut v = Vec::new();
            self.legal_actions(&mut v);
            v
        }
    }
}
