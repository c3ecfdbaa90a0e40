//! A learned evaluation for the alpha-beta engine: a small network (one hidden layer)
//! that corrects [`crate::evaluate`]'s score, fitted to what deeper searches say.
//!
//! The way chess engines went with NNUE: a network cheap enough to evaluate at every leaf
//! of an alpha-beta search, trained on positions scored by a search deeper than the one
//! that will call it, so that each leaf sees a little of what lies below it. Here the
//! network sees the board from the side to move (the board turned half round when Black
//! is to move): one input for each of its pieces on each point, one for each of the
//! other side's, and a few counts the hand-written evaluation already computes (paika
//! moves of each side, pieces hanging and attacked, material). Its output, in pieces, is
//! added to the hand-written score; a network whose last layer is zero is that score
//! exactly, which is where [`LearnedEval::new`] starts.
//!
//! [`LearnedEval::fit`] ([`crate::fit`]) fits it to positions that deeper searches
//! scored, in floating point. The engine evaluates it in 16-bit integers, as NNUE engines
//! do: an [`Accumulator`] of the board's part of the hidden sums updated by the points a
//! turn changes, and at each leaf four rows for the counts, the ReLU and the output's dot
//! product, in vector instructions (the `simd` module); up to [`MAX_ACC_HIDDEN`] hidden
//! units. Its scores are the floating-point network's within the rounding of its weights
//! (the tests bound every position's difference). The file format is plain text
//! ([`LearnedEval::to_text`]), a header then the weights.

use crate::handwritten::{EvalWeights, evaluate_with};
use crate::simd::{self, EXTRA as COUNTS, LANES, Level};
use fanorona_rules::{Bitboard, Color, Position, StepFeatures, Variant};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::fmt::Write as _;
use thiserror::Error;

/// Dense inputs after the board's: paika moves of the side to move and of the other
/// (over 16), pieces the side to move can capture next and its own attacked ones (over
/// 4), and each side's material (over the starting count).
const DENSE: usize = 6;

/// Hundredths of a piece per unit of the logistic that turns scores into win chances.
pub const SCALE: f32 = 200.0;

/// The header's first line.
const MAGIC: &str = "fanorona-learned-eval";

/// The newest file format, written by [`LearnedEval::to_text`]; every older one a release
/// was made in stays readable.
const FORMAT: u32 = 2;

/// Most hidden units the engine's integer, accumulated path handles; a larger network
/// is computed whole in floating point at every leaf.
pub const MAX_ACC_HIDDEN: usize = 256;

/// The dense inputs the engine's path takes as integer counts, in [`DENSE`]'s order (the
/// last two, material, are counts of the board inputs and are folded into the board
/// rows), and what each is divided by in the network's inputs.
const COUNT_DIV: [f32; COUNTS] = [16.0, 16.0, 4.0, 4.0];

/// The counts' largest values as inputs on `v`'s board: a count above is taken as this
/// (only paika moves can be more, up to eight a piece: over 20 000 positions of random
/// play from tsivy's start, at most 44; pieces hanging or attacked are at most a side's).
/// They bound each hidden sum, which sets its integer scale.
fn count_caps(v: Variant) -> [u32; COUNTS] {
    [64, 64, v.pieces_each(), v.pieces_each()]
}

/// Largest scale of the hidden sums and of the output weights: beyond it rounding no
/// longer matters, and a network with zero weights gets a finite one.
const MAX_SCALE: f32 = 16384.0;

/// A learned correction of the hand-written evaluation (see the module's documentation).
/// Its weights are always finite numbers (reading rejects others), so it is `Eq`.
#[derive(Clone, Debug, PartialEq)]
pub struct LearnedEval {
    pub(crate) variant: Variant,
    pub(crate) hidden: usize,
    /// Inputs by hidden units, one row of `hidden` weights an input.
    pub(crate) w1: Vec<f32>,
    pub(crate) b1: Vec<f32>,
    pub(crate) w2: Vec<f32>,
    pub(crate) b2: f32,
    /// Whether the output corrects the hand-written evaluation (`true`, every file of
    /// format 1) or is the whole score (`false`: an evaluation learned from zero
    /// knowledge, [`LearnedEval::zero`]).
    pub(crate) hand_base: bool,
    /// The engine's copy of the weights, set from the others by
    /// [`LearnedEval::quantize`].
    packed: Packed,
}

/// The weights as the engine's hot path reads them: 16-bit integers, hidden units padded
/// to `width` (a multiple of [`LANES`]; padding units have zero weights), as NNUE
/// engines keep theirs. Each hidden unit's sums are `scale_a[u]` times the network's,
/// the largest scale that keeps its sum inside 16 bits for every board and counts, so
/// that no sum overflows (and an accumulator is exact whatever path it was updated
/// along); the output's dot product is in 32 bits and cannot overflow either. The scores
/// differ from the floating-point network's by the weights' rounding alone.
#[derive(Clone, Debug, Default, PartialEq)]
struct Packed {
    width: usize,
    /// The board inputs' rows of `w1`, the material inputs folded in.
    board: Vec<i16>,
    /// `b1`: where every accumulator starts.
    bias: Vec<i16>,
    /// The count inputs' part of the hidden sums, a row for each value of each count
    /// (each product rounded once, and a leaf adds four rows instead of multiplying):
    /// `count_caps(variant)[0] + 1` rows of the first count's values 0, 1, ..., then the
    /// second's, and so on ([`count_rows`]).
    counts: Vec<i16>,
    w2: Vec<i16>,
    /// Each hidden unit's scale, and the output weights' (which also take back each
    /// unit's).
    scale_a: Vec<f32>,
    scale_b: f32,
    /// `1 / scale_b`.
    unscale_b: f32,
    /// The kernels' compilation for this processor.
    level: Level,
}

/// The board inputs' part of the hidden sums of one position (with the first layer's
/// bias), from both sides' views (White to move, Black to move), in the engine's 16-bit
/// fixed point: what an alpha-beta search keeps for each position on its path and
/// updates by the few points a turn changes ([`LearnedEval::update`]), as NNUE engines
/// do, instead of adding up every piece at every leaf. Integer sums are the same
/// whatever order the pieces were added and removed in, so a sum updated along a search
/// path equals the one computed from scratch, bit for bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Accumulator {
    sums: [[i16; MAX_ACC_HIDDEN]; 2],
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            sums: [[0; MAX_ACC_HIDDEN]; 2],
        }
    }
}

/// Points whose pieces differ between two positions, as board rows of one view: at most
/// every point twice over.
struct RowList {
    rows: [u16; 2 * MAX_POINTS],
    len: usize,
}

/// The most points of a board the learned evaluation serves (tsivy's 45).
const MAX_POINTS: usize = 45;

impl Default for RowList {
    fn default() -> Self {
        RowList {
            rows: [0; 2 * MAX_POINTS],
            len: 0,
        }
    }
}

impl RowList {
    #[inline(always)]
    fn push(&mut self, r: usize) {
        self.rows[self.len] = r as u16;
        self.len += 1;
    }

    #[inline(always)]
    fn as_slice(&self) -> &[u16] {
        &self.rows[..self.len]
    }
}

impl Eq for LearnedEval {}

/// Why a learned evaluation could not be read.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum LearnedEvalError {
    /// Not this format (the first line is wrong).
    #[error("not a learned evaluation (its first line must be `{MAGIC} {FORMAT}`)")]
    Magic,
    /// A format this build cannot read.
    #[error(
        "format {0}, which this build cannot read (it reads 1 to {FORMAT}): made by a newer build?"
    )]
    Format(u32),
    /// A header line is missing or wrong.
    #[error("bad header line: {0}")]
    Header(String),
    /// A weight that is not a finite number.
    #[error("weight {index} is not a finite number: {}", fanorona_rules::quote(.text))]
    Weight {
        /// Which weight, from 0.
        index: usize,
        /// What stood there.
        text: String,
    },
    /// Too few or too many weights for the header's sizes.
    #[error("expected {expected} weights, found {found}")]
    Count {
        /// How many the sizes ask for.
        expected: usize,
        /// How many there were.
        found: usize,
    },
    /// Made for another board.
    #[error("made for {found}, not {expected}")]
    Variant {
        /// The board asked for.
        expected: &'static str,
        /// The board of the file.
        found: &'static str,
    },
    /// The file could not be read (the system's message).
    #[error("{0}")]
    Io(String),
    /// Its last line's checksum does not match the lines before it.
    #[error("{0}")]
    Checksum(#[from] fanorona_rules::checksum::ChecksumMismatch),
}

/// The last line of a learned evaluation's file: the checksum of the lines before it
/// (`fanorona_rules::checksum`; files without it, hand-made or older, still read).
const CHECKSUM_LINE: &str = "checksum ";

/// One position's inputs, as [`LearnedEval`] sees them.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    /// Indices of the board inputs that are on.
    pub board: Vec<u16>,
    /// The dense inputs.
    pub dense: [f32; DENSE],
    /// The hand-written evaluation, in hundredths of a piece.
    pub hand: f32,
}

/// The counts among the dense inputs, each at most its cap ([`count_caps`]).
#[inline]
fn counts(v: Variant, f: &StepFeatures) -> [u32; COUNTS] {
    let cap = count_caps(v);
    [
        f.mobility[0].min(cap[0]),
        f.mobility[1].min(cap[1]),
        f.hanging.count().min(cap[2]),
        f.attacked.count().min(cap[3]),
    ]
}

/// The rows of [`Packed`]'s `counts` for the counts of `f`.
#[inline]
fn count_rows(v: Variant, f: &StepFeatures) -> [u16; COUNTS] {
    let (c, cap) = (counts(v, f), count_caps(v));
    let mut first = 0;
    std::array::from_fn(|j| {
        let row = first + c[j];
        first += cap[j] + 1;
        row as u16
    })
}

/// The dense inputs of `pos` (see [`DENSE`]), given its step features.
#[inline]
fn dense_inputs(pos: &Position, f: &StepFeatures) -> [f32; DENSE] {
    let me = pos.side_to_move();
    let start = pos.variant().pieces_each() as f32;
    let c = counts(pos.variant(), f);
    [
        c[0] as f32 / COUNT_DIV[0],
        c[1] as f32 / COUNT_DIV[1],
        c[2] as f32 / COUNT_DIV[2],
        c[3] as f32 / COUNT_DIV[3],
        pos.pieces(me).count() as f32 / start,
        pos.pieces(me.other()).count() as f32 / start,
    ]
}

/// The point `p` seen from `side`, mirrored left to right when `mirror`.
#[inline]
fn view(p: usize, side: Color, mirror: bool, w: usize, n: usize) -> usize {
    let p = if side == Color::Black { n - 1 - p } else { p };
    if mirror {
        let (y, x) = (p / w, p % w);
        y * w + (w - 1 - x)
    } else {
        p
    }
}

impl LearnedEval {
    /// A network for `variant` with `hidden` units whose output is zero: it evaluates as
    /// the hand-written evaluation does until fitted.
    pub fn new(variant: Variant, hidden: usize, seed: u64) -> LearnedEval {
        let inputs = 2 * variant.points() + DENSE;
        let mut rng = SmallRng::seed_from_u64(seed);
        let bound = (6.0 / (inputs as f32 / 8.0 + hidden as f32)).sqrt();
        let mut e = LearnedEval {
            variant,
            hidden,
            w1: (0..inputs * hidden)
                .map(|_| rng.random_range(-bound..bound))
                .collect(),
            b1: vec![0.0; hidden],
            w2: vec![0.0; hidden],
            b2: 0.0,
            hand_base: true,
            packed: Packed::default(),
        };
        e.quantize();
        e
    }

    /// A network for `variant` with `hidden` units and no hand-written base: its output
    /// is the whole score (zero everywhere until fitted). What a run from zero knowledge
    /// starts from: its inputs are the pieces and counts computed by the rules (see
    /// [`DENSE`]), no hand-set weight.
    pub fn zero(variant: Variant, hidden: usize, seed: u64) -> LearnedEval {
        let mut e = LearnedEval::new(variant, hidden, seed);
        e.hand_base = false;
        e
    }

    /// Whether the output corrects the hand-written evaluation (else it is the whole
    /// score).
    pub fn hand_base(&self) -> bool {
        self.hand_base
    }

    /// Sets the engine's copy ([`Packed`]) from the weights (after every change of them).
    pub(crate) fn quantize(&mut self) {
        let (h, v) = (self.hidden, self.variant);
        let n = v.points();
        let d0 = 2 * n;
        let width = h.div_ceil(LANES) * LANES;
        let start = v.pieces_each() as f32;
        // Board row `i`'s weight for unit `u` with the material inputs folded in: the
        // material inputs count the pieces of each side over the starting count, that is
        // the board inputs that are on.
        let board = |i: usize, u: usize| {
            let material = if i < n { d0 + 4 } else { d0 + 5 };
            self.w1[i * h + u] + self.w1[material * h + u] / start
        };
        let count = |j: usize, u: usize| self.w1[(d0 + j) * h + u] / COUNT_DIV[j];
        let caps = count_caps(v);
        // Each unit's own scale (exact: the ReLU commutes with a positive factor, which
        // its output weight takes back), the largest that keeps its sum inside 16 bits
        // for any board and counts: the bias, each point's weight of the colour that
        // makes the sum largest (or smallest) or none, each count at its cap or zero.
        let scale_a: Vec<f32> = (0..h)
            .map(|u| {
                let (mut lo, mut hi) = (self.b1[u], self.b1[u]);
                for p in 0..n {
                    let (a, b) = (board(p, u), board(n + p, u));
                    lo += a.min(b).min(0.0);
                    hi += a.max(b).max(0.0);
                }
                for (j, &cap) in caps.iter().enumerate() {
                    let c = cap as f32 * count(j, u);
                    lo += c.min(0.0);
                    hi += c.max(0.0);
                }
                let top = lo.abs().max(hi.abs());
                (i16::MAX as f32 / (top * 1.01 + 1e-3)).min(MAX_SCALE)
            })
            .collect();
        let q = |x: f32| x.round() as i16;
        // The output weights take back each unit's scale; their common scale is the
        // largest that keeps them inside 16 bits and the dot product inside 32 with
        // every hidden sum at its 16-bit largest.
        let w2: Vec<f32> = (0..h).map(|u| self.w2[u] / scale_a[u]).collect();
        let total: f32 = w2.iter().map(|x| x.abs()).sum();
        let top_w2 = w2.iter().fold(0f32, |a, &b| a.max(b.abs()));
        let scale_b = (i32::MAX as f32 / i16::MAX as f32 / (total * 1.01 + 1e-12))
            .min(i16::MAX as f32 / (top_w2 * 1.01 + 1e-12))
            .min(MAX_SCALE * MAX_SCALE);
        let padded = |f: &dyn Fn(usize) -> i16| -> Vec<i16> {
            (0..width).map(|u| if u < h { f(u) } else { 0 }).collect()
        };
        self.packed = Packed {
            width,
            board: (0..d0)
                .flat_map(|i| padded(&|u| q(board(i, u) * scale_a[u])))
                .collect(),
            bias: padded(&|u| q(self.b1[u] * scale_a[u])),
            counts: (0..COUNTS)
                .flat_map(|j| (0..=caps[j]).map(move |c| (j, c as f32)))
                .flat_map(|(j, c)| padded(&|u| q(c * count(j, u) * scale_a[u])))
                .collect(),
            w2: padded(&|u| q(w2[u] * scale_b)),
            scale_a,
            scale_b,
            unscale_b: 1.0 / scale_b,
            level: Level::detect(),
        };
    }

    /// The name of the kernels' compilation the engine's path runs on this processor
    /// (`avx512`, `avx2` or `baseline`).
    pub fn simd_level(&self) -> &'static str {
        self.packed.level.name()
    }

    /// Whether the accumulated path serves positions of `variant`.
    #[inline]
    fn accumulates(&self, variant: Variant) -> bool {
        variant == self.variant && self.hidden <= MAX_ACC_HIDDEN
    }

    /// Appends the board rows of `c`'s pieces on `points` in `side`'s view to `rows`.
    #[inline]
    fn push_rows(&self, rows: &mut RowList, side: Color, c: Color, points: Bitboard) {
        let (w, n) = (self.variant.width(), self.variant.points());
        let k = usize::from(c != side);
        for p in points {
            rows.push(k * n + view(p.index(), side, false, w, n));
        }
    }

    /// `side`'s view of `pos` added up from scratch into `sums`.
    #[inline]
    fn add_up(&self, sums: &mut [i16], pos: &Position, side: Color) {
        let mut rows = RowList::default();
        for c in [Color::White, Color::Black] {
            self.push_rows(&mut rows, side, c, pos.pieces(c));
        }
        let k = &self.packed;
        simd::update(k.level, sums, &k.bias, &k.board, rows.as_slice(), &[]);
    }

    /// `pos`'s accumulator, added up from scratch (empty for a position this network
    /// does not accumulate: another board, or more than [`MAX_ACC_HIDDEN`] units).
    pub fn accumulate(&self, pos: &Position) -> Accumulator {
        let mut acc = Accumulator::default();
        if self.accumulates(pos.variant()) {
            let width = self.packed.width;
            for side in [Color::White, Color::Black] {
                self.add_up(&mut acc.sums[side.index()][..width], pos, side);
            }
        }
        acc
    }

    /// `side`'s view in `child` (the accumulator of `after`) from the same view in `acc`
    /// (of `before`, any earlier position of the same game or search path): only the
    /// points whose pieces differ are removed or added. The other view of `child` is
    /// left as it was.
    pub fn update(
        &self,
        acc: &Accumulator,
        before: &Position,
        child: &mut Accumulator,
        after: &Position,
        side: Color,
    ) {
        if !self.accumulates(after.variant()) {
            return;
        }
        let (mut add, mut sub) = (RowList::default(), RowList::default());
        for c in [Color::White, Color::Black] {
            let (b, a) = (before.pieces(c), after.pieces(c));
            self.push_rows(&mut sub, side, c, b & !a);
            self.push_rows(&mut add, side, c, a & !b);
        }
        let k = &self.packed;
        let width = k.width;
        simd::update(
            k.level,
            &mut child.sums[side.index()][..width],
            &acc.sums[side.index()][..width],
            &k.board,
            add.as_slice(),
            sub.as_slice(),
        );
    }

    /// A network with random weights throughout, every input mattering (for tests of the
    /// searches that call it: a zero last layer would hide their mistakes).
    pub fn random(variant: Variant, hidden: usize, seed: u64) -> LearnedEval {
        let mut e = LearnedEval::new(variant, hidden, seed);
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x5EED);
        for x in e.w2.iter_mut().chain(e.b1.iter_mut()) {
            *x = rng.random_range(-1.0..1.0);
        }
        for x in e.w1.iter_mut() {
            *x *= 4.0;
        }
        e.quantize();
        e
    }

    /// The board it was made for.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Hidden units.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// `pos`'s inputs, seen from the side to move (mirrored left to right when `mirror`).
    pub fn features(pos: &Position, weights: &EvalWeights, mirror: bool) -> Features {
        let f = pos.step_features();
        let hand = evaluate_with(pos, weights, &f) as f32;
        let me = pos.side_to_move();
        let v = pos.variant();
        let (w, n) = (v.width(), v.points());
        let mut board = Vec::with_capacity(2 * v.pieces_each() as usize);
        for (k, c) in [me, me.other()].into_iter().enumerate() {
            for p in pos.pieces(c) {
                board.push((k * n + view(p.index(), me, mirror, w, n)) as u16);
            }
        }
        let dense = dense_inputs(pos, &f);
        Features { board, dense, hand }
    }

    /// `pos`'s inputs as this network sees them: [`LearnedEval::features`], with no
    /// hand-written score when it has no hand-written base.
    pub fn inputs(&self, pos: &Position, weights: &EvalWeights, mirror: bool) -> Features {
        let mut x = LearnedEval::features(pos, weights, mirror);
        if !self.hand_base {
            x.hand = 0.0;
        }
        x
    }

    /// The hidden layer's sums for `x`, into `z`.
    #[inline]
    fn hidden_sums(&self, x: &Features, z: &mut [f32]) {
        let h = self.hidden;
        z.copy_from_slice(&self.b1);
        for &i in &x.board {
            let row = &self.w1[i as usize * h..(i as usize + 1) * h];
            for (a, b) in z.iter_mut().zip(row) {
                *a += b;
            }
        }
        let d0 = 2 * self.variant.points();
        for (j, &d) in x.dense.iter().enumerate() {
            let row = &self.w1[(d0 + j) * h..(d0 + j + 1) * h];
            for (a, b) in z.iter_mut().zip(row) {
                *a += d * b;
            }
        }
    }

    /// The correction for `x`, in pieces.
    pub(crate) fn output(&self, x: &Features, z: &mut [f32]) -> f32 {
        self.hidden_sums(x, z);
        self.b2
            + z.iter()
                .zip(&self.w2)
                .map(|(a, w)| a.max(0.0) * w)
                .sum::<f32>()
    }

    /// The score of `pos` for the side to move, in hundredths of a piece: the
    /// hand-written evaluation with `weights`, corrected. A position of another board
    /// than the network's gets the hand-written score alone. Adds up the board from
    /// scratch; a search keeps an [`Accumulator`] along its path and calls
    /// [`LearnedEval::evaluate_acc`], which scores the same.
    pub fn evaluate(&self, pos: &Position, weights: &EvalWeights) -> i32 {
        if !self.accumulates(pos.variant()) {
            return self.evaluate_whole(pos, weights);
        }
        let mut acc = Accumulator::default();
        let me = pos.side_to_move();
        self.add_up(&mut acc.sums[me.index()][..self.packed.width], pos, me);
        self.evaluate_acc(pos, weights, &acc)
    }

    /// [`LearnedEval::evaluate`] given `pos`'s accumulator ([`LearnedEval::accumulate`],
    /// or [`LearnedEval::update`] along a search path): the engine's hot path, in integers
    /// and with no allocation. Differs from the network in floating point
    /// ([`LearnedEval::output`]) by the rounding of its weights alone.
    #[inline]
    pub fn evaluate_acc(&self, pos: &Position, weights: &EvalWeights, acc: &Accumulator) -> i32 {
        if !self.accumulates(pos.variant()) {
            return self.evaluate_whole(pos, weights);
        }
        let k = &self.packed;
        let f = pos.step_features();
        let hand = if self.hand_base {
            evaluate_with(pos, weights, &f) as f32
        } else {
            0.0
        };
        let rows = count_rows(pos.variant(), &f);
        let sums = &acc.sums[pos.side_to_move().index()][..k.width];
        let dot = simd::output(k.level, sums, &k.counts, &rows, &k.w2);
        let y = self.b2 + dot as f32 * k.unscale_b;
        (hand + 100.0 * y).round() as i32
    }

    /// The score computed in floating point from the inputs (a network too wide to
    /// accumulate), or the hand-written one for another board.
    fn evaluate_whole(&self, pos: &Position, weights: &EvalWeights) -> i32 {
        if pos.variant() != self.variant {
            return crate::handwritten::evaluate(pos, weights);
        }
        let x = self.inputs(pos, weights, false);
        let y = self.output(&x, &mut vec![0.0; self.hidden]);
        (x.hand + 100.0 * y).round() as i32
    }

    /// How many parameters [`LearnedEval::params_mut`] gives.
    pub(crate) fn params_len(&self) -> usize {
        self.w1.len() + 2 * self.hidden + 1
    }

    /// The parameters in the order of the file and the gradient: w1, b1, w2, b2.
    pub(crate) fn params_mut(&mut self) -> impl Iterator<Item = &mut f32> {
        self.w1
            .iter_mut()
            .chain(self.b1.iter_mut())
            .chain(self.w2.iter_mut())
            .chain(std::iter::once(&mut self.b2))
    }

    /// The network as text: [`MAGIC`] and [`FORMAT`], `variant NAME`, `hidden H`, `base
    /// hand|none`, then the weights (w1 by input, b1, w2, b2), one line each group.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{MAGIC} {FORMAT}\nvariant {}\nhidden {}\nbase {}\n",
            self.variant.name(),
            self.hidden,
            if self.hand_base { "hand" } else { "none" }
        );
        for group in [&self.w1[..], &self.b1[..], &self.w2[..], &[self.b2][..]] {
            let mut first = true;
            for w in group {
                if !first {
                    s.push(' ');
                }
                first = false;
                let _ = write!(s, "{w}");
            }
            s.push('\n');
        }
        fanorona_rules::checksum::seal(&mut s, CHECKSUM_LINE);
        s
    }

    /// Reads [`LearnedEval::to_text`]'s format.
    ///
    /// # Errors
    /// If the header or the weights are wrong (see [`LearnedEvalError`]).
    pub fn from_text(text: &str) -> Result<LearnedEval, LearnedEvalError> {
        let (text, _) = fanorona_rules::checksum::unseal(text, CHECKSUM_LINE)?;
        let mut lines = text.lines();
        let format = lines
            .next()
            .and_then(|l| l.trim().strip_prefix(MAGIC))
            .and_then(|v| v.trim().parse::<u32>().ok())
            .ok_or(LearnedEvalError::Magic)?;
        // Format 1 has no `base` line (its networks correct the hand-written score);
        // format 2 adds it.
        if !(1..=FORMAT).contains(&format) {
            return Err(LearnedEvalError::Format(format));
        }
        let mut field = |name: &str| -> Result<String, LearnedEvalError> {
            let line = lines.next().unwrap_or("").trim();
            match line.split_once(' ') {
                Some((k, v)) if k == name => Ok(v.trim().to_string()),
                _ => Err(LearnedEvalError::Header(format!(
                    "{} (expected `{name} ...`)",
                    fanorona_rules::quote(line)
                ))),
            }
        };
        let vname = field("variant")?;
        let variant: Variant = vname.parse().map_err(|_| {
            LearnedEvalError::Header(format!("variant {}", fanorona_rules::quote(&vname)))
        })?;
        if variant == Variant::Telo {
            return Err(LearnedEvalError::Header(
                "variant telo (no alpha-beta)".into(),
            ));
        }
        let hname = field("hidden")?;
        let hidden: usize = hname
            .parse()
            .ok()
            .filter(|&h| (1..=1024).contains(&h))
            .ok_or_else(|| {
                LearnedEvalError::Header(format!(
                    "hidden {} (1 to 1024)",
                    fanorona_rules::quote(&hname)
                ))
            })?;
        let hand_base = if format >= 2 {
            match field("base")?.as_str() {
                "hand" => true,
                "none" => false,
                other => {
                    return Err(LearnedEvalError::Header(format!(
                        "base {} (hand or none)",
                        fanorona_rules::quote(other)
                    )));
                }
            }
        } else {
            true
        };
        let mut values = Vec::new();
        for (index, word) in lines.flat_map(str::split_whitespace).enumerate() {
            match word.parse::<f32>() {
                Ok(v) if v.is_finite() => values.push(v),
                _ => {
                    return Err(LearnedEvalError::Weight {
                        index,
                        text: word.to_string(),
                    });
                }
            }
        }
        let mut e = LearnedEval::new(variant, hidden, 0);
        let expected = e.params_len();
        if values.len() != expected {
            return Err(LearnedEvalError::Count {
                expected,
                found: values.len(),
            });
        }
        for (p, v) in e.params_mut().zip(values) {
            *p = v;
        }
        e.hand_base = hand_base;
        e.quantize();
        Ok(e)
    }

    /// Reads the file at `path` ([`LearnedEval::to_text`]'s form), made for `variant`.
    ///
    /// # Errors
    /// The file cannot be read, is not a learned evaluation, or is for another board; the
    /// caller names the file.
    pub fn read(path: &std::path::Path, variant: Variant) -> Result<LearnedEval, LearnedEvalError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| LearnedEvalError::Io(e.to_string()))?;
        let e = LearnedEval::from_text(&text)?;
        e.check_variant(variant)?;
        Ok(e)
    }

    /// Checks that it was made for `variant`.
    ///
    /// # Errors
    /// [`LearnedEvalError::Variant`] when not.
    pub fn check_variant(&self, variant: Variant) -> Result<(), LearnedEvalError> {
        if self.variant == variant {
            Ok(())
        } else {
            Err(LearnedEvalError::Variant {
                expected: variant.name(),
                found: self.variant.name(),
            })
        }
    }

    #[cfg(test)]
    fn input_count(&self) -> usize {
        self.w1.len() / self.hidden
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use fanorona_rules::{RuleOptions, TurnMode};

    pub(crate) fn positions(n: usize, seed: u64) -> Vec<Position> {
        positions_of(Variant::Dimy, n, seed)
    }

    fn positions_of(variant: Variant, n: usize, seed: u64) -> Vec<Position> {
        fanorona_testkit::random_positions(variant, n, 20, seed)
    }

    /// The score of `pos` in floating point ([`LearnedEval::output`]) and the most the
    /// engine's integer score may differ from it by the rounding of the weights it adds:
    /// half a step of the hidden scale for each term of a hidden sum (the bias, each
    /// piece, each count), half a step of the output scale for each output weight, and
    /// the last rounding of each score to whole hundredths.
    pub(crate) fn float_score(e: &LearnedEval, pos: &Position, w: &EvalWeights) -> (f32, f32) {
        let x = e.inputs(pos, w, false);
        let mut z = vec![0.0; e.hidden];
        let y = e.output(&x, &mut z);
        let (sa, sb) = (&e.packed.scale_a, e.packed.scale_b);
        let dy: f32 = (0..e.hidden)
            .map(|u| {
                let dz = 0.5 * (1.0 + x.board.len() as f32 + COUNTS as f32) / sa[u];
                let dw = 0.5 * sa[u] / sb;
                (e.w2[u].abs() + dw) * dz + z[u].max(0.0) * dw
            })
            .sum();
        (
            x.hand + 100.0 * y,
            100.0 * dy + 1.0 + 1e-3 * (x.hand + 100.0 * y).abs(),
        )
    }

    /// The engine's score of `pos` is the floating-point network's within its rounding.
    pub(crate) fn assert_rounding(e: &LearnedEval, pos: &Position, w: &EvalWeights) {
        let (float, bound) = float_score(e, pos, w);
        let int = e.evaluate(pos, w);
        assert!(
            (int as f32 - float).abs() <= bound,
            "{int} against {float} (bound {bound}) at {pos}"
        );
    }

    #[test]
    fn a_damaged_evaluation_file_is_refused() {
        let mut e = LearnedEval::zero(Variant::Dimy, 8, 1);
        for (k, p) in e.params_mut().enumerate() {
            *p = (k as f32 * 0.37).sin();
        }
        e.quantize();
        let text = e.to_text();
        let bytes = text.as_bytes();
        let body_len = text.trim_end().rfind('\n').unwrap() + 1;
        for i in (0..bytes.len()).step_by(3) {
            let mut b = bytes.to_vec();
            b[i] ^= 1 << (i % 7);
            let Ok(t) = std::str::from_utf8(&b) else {
                continue;
            };
            // Refused, unless the flip hit the seal line and what is left is the
            // evaluation itself.
            if let Ok(back) = LearnedEval::from_text(t) {
                assert!(i >= body_len && back == e, "byte {i} flipped and read");
            }
        }
        for len in (0..bytes.len()).step_by(bytes.len() / 50 + 1) {
            // Cut anywhere: refused, or (cut at the seal) the same evaluation.
            if let Ok(back) = LearnedEval::from_text(&text[..len]) {
                assert_eq!(back, e, "cut at {len}");
            }
        }
    }

    #[test]
    fn the_release_evaluations_score_as_in_floating_point() {
        let w = EvalWeights::default();
        for (variant, text) in [
            (
                Variant::Tsivy,
                include_str!("../../../checkpoints/release/tsivy/eval.txt"),
            ),
            (
                Variant::Dimy,
                include_str!("../../../checkpoints/release/dimy/eval.txt"),
            ),
        ] {
            let e = LearnedEval::from_text(text).unwrap();
            let (mut worst, mut total, mut same) = (0f32, 0f32, 0);
            let positions = positions_of(variant, 5000, 11);
            for pos in &positions {
                assert_rounding(&e, pos, &w);
                let d = (e.evaluate(pos, &w) as f32 - float_score(&e, pos, &w).0.round()).abs();
                worst = worst.max(d);
                total += d;
                same += usize::from(d == 0.0);
            }
            let mean = total / positions.len() as f32;
            eprintln!(
                "{variant}: integer against floating point over {} positions: {same} the same, mean {mean:.3}, worst {worst} hundredths",
                positions.len()
            );
            assert!(
                worst <= 4.0 && mean < 0.75,
                "{variant}: mean {mean}, worst {worst}"
            );
        }
    }

    #[test]
    fn another_board_gets_the_hand_written_score() {
        let w = EvalWeights::default();
        let mut e = LearnedEval::new(Variant::Dimy, 8, 3);
        e.b2 = 1.0;
        let dimy = Position::start(Variant::Dimy, RuleOptions::default());
        assert_eq!(e.evaluate(&dimy, &w), crate::evaluate(&dimy, &w) + 100);
        for pos in positions_of(Variant::Tsivy, 20, 2) {
            assert_eq!(e.evaluate(&pos, &w), crate::evaluate(&pos, &w));
        }
    }

    #[test]
    fn a_new_network_is_the_hand_written_evaluation() {
        let w = EvalWeights::default();
        let e = LearnedEval::new(Variant::Dimy, 16, 3);
        for pos in positions(50, 1) {
            assert_eq!(e.evaluate(&pos, &w), crate::evaluate(&pos, &w));
        }
    }

    #[test]
    fn a_network_with_no_base_scores_its_output_alone() {
        let w = EvalWeights::default();
        for variant in [Variant::Dimy, Variant::Tsivy] {
            let mut e = LearnedEval::zero(variant, 16, 3);
            for pos in positions_of(variant, 20, 9) {
                assert_eq!(e.evaluate(&pos, &w), 0, "zero until fitted");
            }
            let mut rng = SmallRng::seed_from_u64(4);
            for x in e.w2.iter_mut().chain(e.b1.iter_mut()) {
                *x = rng.random_range(-1.0..1.0);
            }
            e.quantize();
            for pos in positions_of(variant, 60, 7) {
                let x = e.inputs(&pos, &w, false);
                assert_eq!(x.hand, 0.0);
                assert_rounding(&e, &pos, &w);
            }
        }
    }

    #[test]
    fn the_fast_evaluation_is_the_features_one() {
        let w = EvalWeights::default();
        for variant in [Variant::Dimy, Variant::Tsivy] {
            let mut e = LearnedEval::new(variant, 16, 3);
            assert_eq!(e.variant(), variant);
            assert_eq!(e.hidden(), 16);
            let mut rng = SmallRng::seed_from_u64(4);
            for x in e.w2.iter_mut().chain(e.b1.iter_mut()) {
                *x = rng.random_range(-1.0..1.0);
            }
            e.quantize();
            for pos in positions_of(variant, 60, 7) {
                assert_rounding(&e, &pos, &w);
            }
        }
    }

    #[test]
    fn an_accumulator_updated_along_games_is_the_one_added_up_from_scratch() {
        let w = EvalWeights::default();
        for variant in [Variant::Dimy, Variant::Tsivy] {
            let e = LearnedEval::random(variant, 24, 5);
            let mut rng = SmallRng::seed_from_u64(6);
            for game in 0..8 {
                let start = Position::start(variant, RuleOptions::default());
                let first = e.accumulate(&start);
                let (mut pos, mut acc) = (start, first);
                for _ in 0..60 + game * 10 {
                    let turns = pos.turns(TurnMode::Distinct);
                    if turns.is_empty() {
                        break;
                    }
                    let mut next = pos;
                    next.play_unchecked(&turns[rng.random_range(0..turns.len())]);
                    let mut child = Accumulator::default();
                    e.update(&acc, &pos, &mut child, &next, Color::White);
                    e.update(&acc, &pos, &mut child, &next, Color::Black);
                    assert_eq!(child, e.accumulate(&next));
                    let side = next.side_to_move();
                    let mut far = Accumulator::default();
                    e.update(&first, &start, &mut far, &next, side);
                    assert_eq!(e.evaluate_acc(&next, &w, &far), e.evaluate(&next, &w));
                    assert_eq!(e.evaluate_acc(&next, &w, &child), e.evaluate(&next, &w));
                    assert_rounding(&e, &next, &w);
                    (pos, acc) = (next, child);
                }
            }
        }
    }

    #[test]
    fn the_text_format_round_trips_and_bad_files_are_named() {
        let mut e = LearnedEval::new(Variant::Dimy, 4, 3);
        e.w2 = vec![0.5, -0.25, 1.0, 0.0];
        e.b2 = 0.125;
        e.quantize();
        let back = LearnedEval::from_text(&e.to_text()).unwrap();
        assert_eq!(back, e);
        assert_eq!(back.input_count(), 2 * 25 + DENSE);
        assert_eq!(
            LearnedEval::from_text("hello"),
            Err(LearnedEvalError::Magic)
        );
        let sealed = e.to_text();
        assert!(sealed.starts_with("fanorona-learned-eval 2\n"));
        // The lines without their checksum (what a file written by hand holds) read too.
        let text = fanorona_rules::checksum::unseal(&sealed, CHECKSUM_LINE)
            .unwrap()
            .0
            .to_string();
        assert_ne!(text, sealed);
        assert_eq!(LearnedEval::from_text(&text), Ok(e.clone()));
        // Format 1 (no base line) reads as a correction of the hand-written score.
        let old = text
            .replacen("eval 2", "eval 1", 1)
            .replacen("base hand\n", "", 1);
        assert_eq!(LearnedEval::from_text(&old), Ok(e.clone()));
        let mut zero = LearnedEval::zero(Variant::Dimy, 4, 3);
        zero.b2 = 0.5;
        zero.quantize();
        let back_zero = LearnedEval::from_text(&zero.to_text()).unwrap();
        assert!(!back_zero.hand_base());
        assert_eq!(back_zero, zero);
        assert!(matches!(
            LearnedEval::from_text(&text.replacen("base hand", "base maybe", 1)),
            Err(LearnedEvalError::Header(_))
        ));
        assert_eq!(
            LearnedEval::from_text(&text.replacen("eval 2", "eval 7", 1)),
            Err(LearnedEvalError::Format(7))
        );
        let cut = &text[..text.rfind('\n').unwrap() - 6];
        assert!(matches!(
            LearnedEval::from_text(cut),
            Err(LearnedEvalError::Count { .. }) | Err(LearnedEvalError::Weight { .. })
        ));
        let nan = text.replacen("0.125", "NaN", 1);
        assert!(matches!(
            LearnedEval::from_text(&nan),
            Err(LearnedEvalError::Weight { .. })
        ));
        assert!(matches!(
            LearnedEval::from_text(&text.replace("hidden 4", "hidden 0")),
            Err(LearnedEvalError::Header(_))
        ));
        assert!(back.check_variant(Variant::Tsivy).is_err());
        // From a file: read back, refused for another board, a missing one an I/O error.
        let path = std::env::temp_dir().join(format!("fanorona-eval-{}.txt", std::process::id()));
        std::fs::write(&path, e.to_text()).unwrap();
        assert_eq!(LearnedEval::read(&path, Variant::Dimy), Ok(e));
        assert!(matches!(
            LearnedEval::read(&path, Variant::Tsivy),
            Err(LearnedEvalError::Variant { .. })
        ));
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(
            LearnedEval::read(&path, Variant::Dimy),
            Err(LearnedEvalError::Io(_))
        ));
    }

    #[test]
    fn the_side_to_move_sees_the_same_board_either_colour() {
        // The start position turned half round with the colours swapped is itself: both
        // sides see the same inputs.
        let w = EvalWeights::default();
        let pos = Position::start(Variant::Tsivy, RuleOptions::default());
        let mut black = pos;
        let turns = pos.turns(TurnMode::Distinct);
        black.play_unchecked(&turns[0]);
        let fw = LearnedEval::features(&pos, &w, false);
        let mut sorted = fw.board.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, fw.board, "own pieces first, then the other side's");
        assert_eq!(fw.board.len(), 44);
        let mirrored = LearnedEval::features(&pos, &w, true);
        assert_eq!(mirrored.hand, fw.hand);
        assert_ne!(mirrored.board, fw.board, "the middle row is not symmetric");
    }
}
