//! The Fanorona position (tsivy and dimy): legal turns and steps, playing them, outcomes.

use crate::bitboard::{Bitboard, ByColor, Color, Direction, Point};
use crate::geometry::{DIMY, Geometry, TELO, TSIVY, Variant};
use crate::options::{RuleOptions, VelaForm};
use crate::turn::{Action, Capture, Step, StepKind, Turn};
use crate::zobrist::KEYS;
use std::fmt;

/// What a static evaluation asks of a position's steps, found in one pass over the
/// directions by [`Position::step_features`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct StepFeatures {
    /// Paika mobility ([`Position::mobility`]) of the side to move, then of the other.
    pub mobility: [u32; 2],
    /// The other side's pieces the side to move could capture with one step, whole runs
    /// (`attacked_by(side to move, true)`).
    pub hanging: Bitboard,
    /// The side to move's pieces the other could capture with one step, first pieces
    /// only (`attacked_by(other, false)`).
    pub attacked: Bitboard,
}

/// The state of a capture chain in progress (step level only).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Chain {
    /// The piece that captured and may go on.
    pub piece: Point,
    /// Every point the piece has stood on this turn, the starting point included.
    pub visited: Bitboard,
    /// The direction of the step just made.
    pub last_dir: Direction,
}

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// This side won.
    Win(Color),
    /// A draw (quiet limit, or repetition where enabled).
    Draw,
}

impl Outcome {
    /// `"white"`, `"black"` or `"draw"`.
    pub const fn name(self) -> &'static str {
        match self {
            Outcome::Win(c) => c.name(),
            Outcome::Draw => "draw",
        }
    }
    /// The result for `c`: 1 win, 0 draw, -1 loss.
    pub fn score_for(self, c: Color) -> i32 {
        match self {
            Outcome::Win(w) if w == c => 1,
            Outcome::Win(_) => -1,
            Outcome::Draw => 0,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which turns to list.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TurnMode {
    /// One turn per (origin, end, captured set): what perft counts and search plays.
    Distinct,
    /// Every step path, including paths that end the same way.
    Paths,
}

/// A rule that restricts the turn of the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Restriction {
    /// Normal rules.
    None,
    /// One capturing step only (the reply with `reply_chains = false`).
    SingleCapture,
    /// The vela player's turn in the vela phase: one capturing step taking one piece.
    VelaCapture,
    /// The other side in the vela phase: paika only.
    PaikaOnly,
}

/// How far capture chains may go in the current turn.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum CaptureRule {
    /// Normal chains.
    Chains,
    /// One capturing step, whole run (the reply with `reply_chains = false`).
    Single,
    /// One capturing step that removes only the first piece of the run (vela player).
    VelaSingle,
    /// No captures at all: paika only (the other side during the vela phase).
    Forbidden,
}

/// A Fanorona position of tsivy or dimy, valid and playable, with its rule options.
///
/// At a turn boundary `chain()` is `None`. The step-level methods ([`Position::play_action`])
/// may leave a position inside a capture chain, where the same side moves again.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pub(crate) variant: Variant,
    pub(crate) rules: RuleOptions,
    pub(crate) pieces: ByColor<Bitboard>,
    pub(crate) side: Color,
    pub(crate) quiet: u16,
    pub(crate) ply: u16,
    pub(crate) chain: Option<Chain>,
    pub(crate) hash: u64,
}

/// Error for a position that is not a legal Fanorona position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The board size matches no variant (or telo where tsivy/dimy is needed).
    Board {
        /// Columns given.
        width: usize,
        /// Rows given.
        height: usize,
    },
    /// One side has more pieces than it starts with.
    TooManyPieces {
        /// The side.
        color: Color,
        /// How many it has.
        count: u32,
        /// The most allowed.
        max: u32,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Board { width, height } => write!(
                f,
                "a {width}x{height} board is not a Fanorona board (tsivy is 9x5, dimy 5x5, telo 3x3)"
            ),
            PositionError::TooManyPieces { color, count, max } => {
                write!(
                    f,
                    "{color} has {count} pieces, more than the {max} it starts with"
                )
            }
        }
    }
}
impl std::error::Error for PositionError {}

impl Position {
    /// The start position of `variant` (tsivy or dimy) under `rules`. With `vela` set,
    /// the vela player moves first, and in the kely form the riatra winner's back row is
    /// empty (docs/RULES.md section 8).
    ///
    /// # Panics
    /// If `variant` is telo (see [`crate::telo`]).
    pub fn start(variant: Variant, rules: RuleOptions) -> Position {
        assert!(variant != Variant::Telo, "telo has its own position type");
        let g = variant.geometry();
        let w = g.width as u32;
        let h = g.height as u32;
        let row = |y: u32| Bitboard(((1u64 << w) - 1) << (y * w));
        let mut white = row(0) | row(1);
        let mut black = row(h - 2) | row(h - 1);
        // Middle row: B W B W . B W B W (tsivy), B W . B W (dimy).
        let mid = h / 2;
        for x in 0..w {
            let p = Point((mid * w + x) as u8);
            let centre = x == w / 2;
            if centre {
                continue;
            }
            let left = x < w / 2;
            let even = x.is_multiple_of(2);
            if even == left {
                black |= p.bb();
            } else {
                white |= p.bb();
            }
        }
        // Vela kely: the riatra winner (the vela player's opponent) loses its back row.
        if let Some(v) = rules.vela
            && rules.vela_form == VelaForm::Kely
        {
            match v.other() {
                Color::White => white &= !row(0),
                Color::Black => black &= !row(h - 1),
            }
        }
        let side = rules.vela.unwrap_or(Color::White);
        Position::from_parts(variant, rules, ByColor { white, black }, side, 0, 0)
    }

    /// A position from its parts, validated.
    ///
    /// # Errors
    /// If a side has more pieces than it starts with.
    pub fn new(
        variant: Variant,
        rules: RuleOptions,
        pieces: ByColor<Bitboard>,
        side: Color,
        quiet: u16,
        ply: u16,
    ) -> Result<Position, PositionError> {
        if variant == Variant::Telo {
            return Err(PositionError::Board {
                width: 3,
                height: 3,
            });
        }
        let all = variant.geometry().all;
        let white = pieces.white & all;
        let black = pieces.black & all & !white;
        for (color, bb) in [(Color::White, white), (Color::Black, black)] {
            if bb.count() > variant.pieces_each() {
                return Err(PositionError::TooManyPieces {
                    color,
                    count: bb.count(),
                    max: variant.pieces_each(),
                });
            }
        }
        Ok(Position::from_parts(
            variant,
            rules,
            ByColor { white, black },
            side,
            quiet,
            ply,
        ))
    }

    fn from_parts(
        variant: Variant,
        rules: RuleOptions,
        pieces: ByColor<Bitboard>,
        side: Color,
        quiet: u16,
        ply: u16,
    ) -> Position {
        let mut p = Position {
            variant,
            rules,
            pieces,
            side,
            quiet,
            ply,
            chain: None,
            hash: 0,
        };
        p.hash = p.hash_from_scratch();
        p
    }

    /// The variant.
    #[inline]
    pub fn variant(&self) -> Variant {
        self.variant
    }
    /// The rule options in force.
    #[inline]
    pub fn rules(&self) -> &RuleOptions {
        &self.rules
    }
    /// The board geometry.
    #[inline(always)]
    pub fn geometry(&self) -> &'static Geometry {
        self.variant.geometry()
    }
    /// Calls `f` with this variant's geometry as a constant: each arm is compiled on its
    /// own, so the shifts and edge masks of the hot loops become immediates.
    #[inline(always)]
    fn with_geometry<R>(&self, f: impl Fn(&'static Geometry) -> R) -> R {
        match self.variant {
            Variant::Tsivy => f(&TSIVY),
            Variant::Dimy => f(&DIMY),
            Variant::Telo => f(&TELO),
        }
    }
    /// The pieces of `c`.
    #[inline]
    pub fn pieces(&self, c: Color) -> Bitboard {
        *self.pieces.get(c)
    }
    /// Both sides' pieces.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.pieces.white | self.pieces.black
    }
    /// The side to move.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }
    /// Turns since the last capture.
    #[inline]
    pub fn quiet(&self) -> u16 {
        self.quiet
    }
    /// Turns played so far (FEN's turn field).
    #[inline]
    pub fn ply(&self) -> u16 {
        self.ply
    }
    /// The capture chain in progress, if the position is in the middle of a turn.
    #[inline]
    pub fn chain(&self) -> Option<&Chain> {
        self.chain.as_ref()
    }
    /// The Zobrist hash, kept incrementally.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The Zobrist hash computed from scratch (tests compare it with [`Position::hash`]).
    pub fn hash_from_scratch(&self) -> u64 {
        let mut h = KEYS.board(&self.pieces, self.side);
        if self.ply < 2 {
            h ^= KEYS.opening[self.ply as usize];
        }
        if let Some(c) = &self.chain {
            h ^= chain_key(c);
        }
        h
    }

    /// The side whose vela turns are restricted, while the vela phase lasts: the vela player
    /// while the other side has more than 5 pieces (dimy: 3; [`Variant::vela_phase_pieces`]).
    #[inline]
    pub fn vela_phase(&self) -> Option<Color> {
        match self.rules.vela {
            Some(v) if self.pieces(v.other()).count() > self.variant.vela_phase_pieces() => Some(v),
            _ => None,
        }
    }

    /// What restricts the current turn (the reply rule and the vela phase).
    pub fn restriction(&self) -> Restriction {
        match self.capture_rule() {
            CaptureRule::Chains => Restriction::None,
            CaptureRule::Single => Restriction::SingleCapture,
            CaptureRule::VelaSingle => Restriction::VelaCapture,
            CaptureRule::Forbidden => Restriction::PaikaOnly,
        }
    }

    #[inline]
    fn capture_rule(&self) -> CaptureRule {
        if let Some(v) = self.vela_phase() {
            return if v == self.side {
                CaptureRule::VelaSingle
            } else {
                CaptureRule::Forbidden
            };
        }
        if self.ply == 1 && !self.rules.reply_chains {
            CaptureRule::Single
        } else {
            CaptureRule::Chains
        }
    }

    /// Origins of capturing steps by direction: `(approach[d], withdrawal[d])`.
    #[inline(always)]
    fn capture_origins(&self, g: &Geometry) -> ([Bitboard; 8], [Bitboard; 8], Bitboard) {
        let us = self.pieces(self.side);
        let them = self.pieces(self.side.other());
        let empty = g.all & !(us | them);
        let mut app = [Bitboard::EMPTY; 8];
        let mut wd = [Bitboard::EMPTY; 8];
        let mut any = Bitboard::EMPTY;
        for d in Direction::ALL {
            let back = d.opposite();
            // p + d is empty
            let can_step = us & g.shift(empty, back);
            // p + 2d is an enemy, p + d empty
            let a = can_step & g.shift(empty & g.shift(them, back), back);
            // p - d is an enemy
            let w = can_step & g.shift(them, d);
            app[d.index()] = a;
            wd[d.index()] = w;
            any |= a | w;
        }
        (app, wd, any)
    }

    /// The pieces of `by`'s opponent that `by` could capture with one step (the first
    /// piece of each capturable run, or the whole run with `whole_runs`), ignoring whose
    /// turn it is and the vela and reply restrictions. For evaluation: pieces under attack.
    pub fn attacked_by(&self, by: Color, whole_runs: bool) -> Bitboard {
        let g = self.geometry();
        let us = self.pieces(by);
        let them = self.pieces(by.other());
        let empty = g.all & !(us | them);
        let mut hit = Bitboard::EMPTY;
        for d in Direction::ALL {
            let back = d.opposite();
            let can_step = us & g.shift(empty, back);
            // Approach: p + d empty, p + 2d enemy; withdrawal: p + d empty, p - d enemy.
            let a = g.shift(g.shift(can_step, d) & empty, d) & them;
            let w = g.shift(can_step, back) & them;
            if whole_runs {
                hit |= extend_runs(g, a, them, d) | extend_runs(g, w, them, back);
            } else {
                hit |= a | w;
            }
        }
        hit
    }

    /// [`Position::mobility`] of both sides and the [`Position::attacked_by`] sets an
    /// evaluation uses, at once: the eight shifts of the empty points serve all four.
    pub fn step_features(&self) -> StepFeatures {
        self.with_geometry(|g| {
            let me = self.pieces(self.side);
            let them = self.pieces(self.side.other());
            let empty = g.all & !(me | them);
            let mut f = StepFeatures {
                mobility: [0; 2],
                hanging: Bitboard::EMPTY,
                attacked: Bitboard::EMPTY,
            };
            for d in Direction::ALL {
                let back = d.opposite();
                // Points whose neighbour in direction d is empty.
                let open = g.shift(empty, back);
                let (my_steps, their_steps) = (me & open, them & open);
                f.mobility[0] += my_steps.count();
                f.mobility[1] += their_steps.count();
                // Approach: p + d empty, p + 2d enemy; withdrawal: p - d enemy.
                let a = g.shift(g.shift(my_steps, d) & empty, d) & them;
                let w = g.shift(my_steps, back) & them;
                f.hanging |= extend_runs(g, a, them, d) | extend_runs(g, w, them, back);
                let a = g.shift(g.shift(their_steps, d) & empty, d) & me;
                let w = g.shift(their_steps, back) & me;
                f.attacked |= a | w;
            }
            f
        })
    }

    /// Number of (piece, direction) steps of `c` to an adjacent empty point: its paika
    /// mobility, whoever is to move.
    pub fn mobility(&self, c: Color) -> u32 {
        let g = self.geometry();
        let empty = g.all & !self.occupied();
        let us = self.pieces(c);
        Direction::ALL
            .into_iter()
            .map(|d| (us & g.shift(empty, d.opposite())).count())
            .sum()
    }

    /// Whether the side to move has a capturing step (before the vela restrictions).
    pub fn has_capture(&self) -> bool {
        debug_assert!(self.chain.is_none());
        self.capture_origins(self.geometry()).2.any()
    }

    /// Whether the side to move's turns are captures: a capturing step exists and the
    /// reply and vela rules let it be played (captures are compulsory, so then every
    /// legal turn captures). The same as the first of [`Position::turns_into`]'s turns
    /// being a capture, without building the list.
    ///
    /// Only meaningful at a turn boundary (`chain()` is `None`).
    #[inline]
    pub fn must_capture(&self) -> bool {
        self.capture_rule() != CaptureRule::Forbidden
            && self.with_geometry(|g| self.capture_origins(g).2.any())
    }

    /// The legal turns, written into `out` (cleared first). No allocation once `out` has
    /// grown to the largest list it meets.
    ///
    /// Only meaningful at a turn boundary (`chain()` is `None`).
    pub fn turns_into(&self, out: &mut Vec<Turn>, mode: TurnMode) {
        out.clear();
        with_chain_keys(|seen| {
            self.generate(ListSink {
                out,
                seen: (mode == TurnMode::Distinct).then_some(seen),
                turn: Turn::new(Point(0)),
            });
        });
    }

    /// The number of legal turns, without building the list (perft's leaves).
    #[inline]
    pub fn count_turns(&self, mode: TurnMode) -> u64 {
        with_chain_keys(|seen| match mode {
            TurnMode::Distinct => self.count_with(CountSink::<true> { n: 0, seen }),
            TurnMode::Paths => self.count_with(CountSink::<false> { n: 0, seen }),
        })
    }

    #[inline(always)]
    fn count_with<const DISTINCT: bool>(&self, sink: CountSink<'_, DISTINCT>) -> u64 {
        self.generate(sink).n
    }

    #[inline(always)]
    fn generate<S: TurnSink>(&self, sink: S) -> S {
        match self.variant {
            Variant::Tsivy => self.generate_in::<S, TsivyBoard>(sink),
            Variant::Dimy => self.generate_in::<S, DimyBoard>(sink),
            Variant::Telo => self.generate_in::<S, TeloBoard>(sink),
        }
    }

    #[inline(always)]
    fn generate_in<S: TurnSink, B: Board>(&self, mut sink: S) -> S {
        debug_assert!(self.chain.is_none(), "turn-level generation inside a chain");
        let g = B::G;
        let us = self.pieces(self.side);
        let them = self.pieces(self.side.other());
        let rule = self.capture_rule();
        if rule != CaptureRule::Forbidden {
            let (app, wd, any) = self.capture_origins(g);
            if any.any() {
                let empty = g.all & !(us | them);
                let mut chains = ChainGen::<S, B> {
                    sink,
                    rule,
                    board: std::marker::PhantomData,
                };
                // Direction by direction, so that each direction is a constant in its
                // code (shifts, rays, the run's end); chains are told apart by origin
                // in the sink, so the origins may come in any order.
                macro_rules! dirs {
                    ($($d:literal)*) => {$(
                        chains.first_steps::<$d>(app[$d], Capture::Approach, us, them, empty);
                        chains.first_steps::<$d>(wd[$d], Capture::Withdrawal, us, them, empty);
                    )*};
                }
                dirs!(0 1 2 3 4 5 6 7);
                return chains.sink;
            }
            if rule == CaptureRule::VelaSingle {
                // The vela player must capture; without a capture it has won (no turn).
                return sink;
            }
        }
        let empty = g.all & !(us | them);
        sink.paika(g, us, empty);
        sink
    }

    /// The legal turns as a new vector.
    pub fn turns(&self, mode: TurnMode) -> Vec<Turn> {
        let mut v = Vec::new();
        self.turns_into(&mut v, mode);
        v
    }

    /// Whether the side to move has any legal turn (or is inside a chain).
    pub fn has_turn(&self) -> bool {
        if self.chain.is_some() {
            return true;
        }
        self.with_geometry(|g| self.has_turn_in(g))
    }

    #[inline(always)]
    fn has_turn_in(&self, g: &'static Geometry) -> bool {
        let rule = self.capture_rule();
        if rule != CaptureRule::Forbidden && self.capture_origins(g).2.any() {
            return true;
        }
        if rule == CaptureRule::VelaSingle {
            return false;
        }
        let us = self.pieces(self.side);
        let empty = g.all & !self.occupied();
        Direction::ALL
            .into_iter()
            .any(|d| (us & g.shift(empty, d.opposite())).any())
    }

    /// The outcome, if the game is over at this position (repetition is judged by
    /// [`crate::History`], which knows the earlier positions).
    ///
    /// In order: a side to move with no pieces loses (and one whose opponent has none wins);
    /// in the vela phase a vela player with no capturing step wins; a side with no legal
    /// turn loses; `quiet_limit` turns without a capture draw. Inside a chain: `None`.
    pub fn outcome(&self) -> Option<Outcome> {
        if self.chain.is_some() {
            return None;
        }
        self.outcome_given(self.has_turn())
    }

    /// [`Position::outcome`] at a turn boundary when the caller already knows whether the
    /// side to move has a turn (e.g. from a turn list it generated).
    #[inline]
    pub fn outcome_given(&self, has_turn: bool) -> Option<Outcome> {
        let side = self.side;
        if self.pieces(side).is_empty() {
            return Some(Outcome::Win(side.other()));
        }
        if self.pieces(side.other()).is_empty() {
            return Some(Outcome::Win(side));
        }
        if !has_turn {
            return Some(if self.vela_phase() == Some(side) {
                Outcome::Win(side)
            } else {
                Outcome::Win(side.other())
            });
        }
        if self.quiet >= self.rules.fanorona_quiet_limit() {
            return Some(Outcome::Draw);
        }
        None
    }

    /// Plays a legal turn (from [`Position::turns_into`]) without checking it.
    #[inline]
    pub fn play_unchecked(&mut self, turn: &Turn) {
        debug_assert!(self.chain.is_none());
        self.play_parts::<true>(turn.from, turn.to(), turn.captured);
    }

    /// Plays the turn of the side to move's piece from `from` to `to` that takes
    /// `captured` (empty for a paika). `HASH`: keep the position's hash (a playout or
    /// perft, which never read it, do without).
    #[inline(always)]
    pub(crate) fn play_parts<const HASH: bool>(
        &mut self,
        from: Point,
        to: Point,
        captured: Bitboard,
    ) {
        let side = self.side;
        let keys = &KEYS.piece;
        let own = self.pieces.get_mut(side);
        *own = own.without(from).with(to);
        if HASH {
            self.hash ^= keys[side.index()][from.index()] ^ keys[side.index()][to.index()];
        }
        let capture = captured.any();
        if capture {
            let them = side.other();
            *self.pieces.get_mut(them) &= !captured;
            if HASH {
                for p in captured {
                    self.hash ^= keys[them.index()][p.index()];
                }
            }
        }
        self.finish_turn::<HASH>(capture);
    }

    /// The side to move gives up its turn: no rule allows this, but a search asks "what
    /// if the opponent moved twice?" to find positions so good that they need no deeper
    /// look (null-move pruning). Counts as a turn without a capture (the quiet clock and
    /// the turn count advance). Only at a turn boundary.
    #[inline]
    pub fn null_turn(&mut self) {
        debug_assert!(self.chain.is_none());
        self.finish_turn::<true>(false);
    }

    /// Plays `turn` if it is legal (compared by path and kinds).
    ///
    /// # Errors
    /// Returns the position unchanged if the turn is not among the legal turns.
    pub fn play(&mut self, turn: &Turn) -> Result<(), IllegalTurn> {
        let legal = self.turns(TurnMode::Paths);
        if legal.iter().any(|t| t == turn) {
            self.play_unchecked(turn);
            Ok(())
        } else {
            Err(IllegalTurn)
        }
    }

    #[inline(always)]
    fn finish_turn<const HASH: bool>(&mut self, captured: bool) {
        if let Some(c) = self.chain.take()
            && HASH
        {
            self.hash ^= chain_key(&c);
        }
        if HASH && self.ply < 2 {
            self.hash ^= KEYS.opening[self.ply as usize];
            if self.ply == 0 {
                self.hash ^= KEYS.opening[1];
            }
        }
        self.ply = self.ply.saturating_add(1);
        self.quiet = if captured {
            0
        } else {
            self.quiet.saturating_add(1)
        };
        self.side = self.side.other();
        if HASH {
            self.hash ^= KEYS.black_to_move;
        }
    }

    // ---------------------------------------------------------------- step level

    /// The legal actions at the step level, written into `out` (cleared first).
    ///
    /// At a turn boundary: every legal first step (captures if any exist, else paika).
    /// Inside a chain: every legal continuation of the chain piece, then
    /// [`Action::EndTurn`]. The same side moves again after a capture that can continue.
    pub fn actions_into(&self, out: &mut Vec<Action>) {
        out.clear();
        self.for_each_action(|a| out.push(a));
    }

    /// Calls `f` with every legal action, in the order of [`Position::actions_into`].
    #[inline]
    pub fn for_each_action(&self, f: impl FnMut(Action)) {
        match self.variant {
            Variant::Tsivy => self.for_each_action_in(&TSIVY, f),
            Variant::Dimy => self.for_each_action_in(&DIMY, f),
            Variant::Telo => self.for_each_action_in(&TELO, f),
        }
    }

    #[inline(always)]
    fn for_each_action_in(&self, g: &'static Geometry, mut f: impl FnMut(Action)) {
        let us = self.pieces(self.side);
        let them = self.pieces(self.side.other());
        if let Some(c) = &self.chain {
            for_each_continuation(g, c.piece, c.last_dir, c.visited, us, them, |d, cap, _| {
                f(Action::Step(Step {
                    from: c.piece,
                    dir: d,
                    kind: StepKind::Capture(cap),
                }));
            });
            f(Action::EndTurn);
            return;
        }
        let rule = self.capture_rule();
        if rule != CaptureRule::Forbidden {
            let (app, wd, any) = self.capture_origins(g);
            if any.any() {
                for p in any {
                    for d in Direction::ALL {
                        if app[d.index()].contains(p) {
                            f(Action::Step(Step {
                                from: p,
                                dir: d,
                                kind: StepKind::Capture(Capture::Approach),
                            }));
                        }
                        if wd[d.index()].contains(p) {
                            f(Action::Step(Step {
                                from: p,
                                dir: d,
                                kind: StepKind::Capture(Capture::Withdrawal),
                            }));
                        }
                    }
                }
                return;
            }
            if rule == CaptureRule::VelaSingle {
                return;
            }
        }
        let empty = g.all & !(us | them);
        for p in us {
            for q in Bitboard(g.adjacent[p.index()]) & empty {
                let dir = Direction::from_index(g.dir_to[p.index()][q.index()] as usize);
                f(Action::Step(Step {
                    from: p,
                    dir,
                    kind: StepKind::Paika,
                }));
            }
        }
    }

    /// The position with every point renamed by `point` and every direction by `dir`
    /// (a board symmetry: the caller makes sure both maps preserve the lines). Pieces, the
    /// chain state and the hash are carried over.
    pub fn relabel(
        &self,
        point: impl Fn(Point) -> Point,
        dir: impl Fn(Direction) -> Direction,
    ) -> Position {
        let map = |bb: Bitboard| bb.fold(Bitboard::EMPTY, |acc, p| acc.with(point(p)));
        let mut p = Position {
            pieces: ByColor {
                white: map(self.pieces.white),
                black: map(self.pieces.black),
            },
            chain: self.chain.map(|c| Chain {
                piece: point(c.piece),
                visited: map(c.visited),
                last_dir: dir(c.last_dir),
            }),
            ..*self
        };
        p.hash = p.hash_from_scratch();
        p
    }

    /// The legal actions as a new vector.
    pub fn actions(&self) -> Vec<Action> {
        let mut v = Vec::new();
        self.actions_into(&mut v);
        v
    }

    /// Whether `action` is legal here.
    pub fn is_legal_action(&self, action: Action) -> bool {
        self.actions().contains(&action)
    }

    /// Plays a legal action (from [`Position::actions_into`]) without checking it.
    ///
    /// After a capture the turn goes on (the same side to move, `chain()` set) when the
    /// piece has a legal continuation; otherwise the turn ends by itself.
    pub fn play_action_unchecked(&mut self, action: Action) {
        let step = match action {
            Action::EndTurn => {
                debug_assert!(self.chain.is_some());
                self.finish_turn::<true>(true);
                return;
            }
            Action::Step(s) => s,
        };
        let g = self.geometry();
        let side = self.side;
        let them_c = side.other();
        let from = step.from;
        let to = g.neighbour(from, step.dir).expect("step along a line");
        let keys = &KEYS.piece;
        let own = self.pieces.get_mut(side);
        *own = own.without(from).with(to);
        self.hash ^= keys[side.index()][from.index()] ^ keys[side.index()][to.index()];
        let cap = match step.kind {
            StepKind::Paika => {
                self.finish_turn::<true>(false);
                return;
            }
            StepKind::Capture(c) => c,
        };
        let rule = if self.chain.is_some() {
            CaptureRule::Chains
        } else {
            self.capture_rule()
        };
        let them = self.pieces(them_c);
        let run = capture_run(
            g,
            from,
            to,
            step.dir,
            cap,
            them,
            rule == CaptureRule::VelaSingle,
        );
        *self.pieces.get_mut(them_c) &= !run;
        for p in run {
            self.hash ^= keys[them_c.index()][p.index()];
        }
        let visited = match self.chain.take() {
            Some(c) => {
                self.hash ^= chain_key(&c);
                c.visited
            }
            None => from.bb(),
        }
        .with(to);
        if rule != CaptureRule::Chains {
            self.finish_turn::<true>(true);
            return;
        }
        let us = self.pieces(side);
        let them = self.pieces(them_c);
        let mut can_go_on = false;
        for_each_continuation(g, to, step.dir, visited, us, them, |_, _, _| {
            can_go_on = true
        });
        if can_go_on {
            let c = Chain {
                piece: to,
                visited,
                last_dir: step.dir,
            };
            self.hash ^= chain_key(&c);
            self.chain = Some(c);
        } else {
            self.finish_turn::<true>(true);
        }
    }

    /// Plays `action` if legal.
    ///
    /// # Errors
    /// If the action is not legal here; the position is unchanged.
    pub fn play_action(&mut self, action: Action) -> Result<(), IllegalTurn> {
        if self.is_legal_action(action) {
            self.play_action_unchecked(action);
            Ok(())
        } else {
            Err(IllegalTurn)
        }
    }

    /// The step-level actions that make up a turn of this position, in order
    /// (with a final [`Action::EndTurn`] when the turn stops while the chain could go on).
    pub fn turn_actions(&self, turn: &Turn) -> Vec<Action> {
        let g = self.geometry();
        let mut pos = *self;
        let mut out = Vec::with_capacity(turn.len() + 1);
        for (from, to, kind) in turn.steps() {
            let dir = g.direction(from, to).expect("turn steps are along lines");
            let a = Action::Step(Step { from, dir, kind });
            pos.play_action_unchecked(a);
            out.push(a);
        }
        if pos.chain.is_some() {
            out.push(Action::EndTurn);
        }
        out
    }

    /// The legal turn that the step-level `actions` play from here, the inverse of
    /// [`Position::turn_actions`]: the actions must be a whole turn, exactly as the
    /// step level plays it (ending with [`Action::EndTurn`] when the chain stops while a
    /// continuation was still legal, without it when the chain ran out of continuations).
    /// `None` if they are not a whole legal turn of this position.
    pub fn turn_of_actions(&self, actions: &[Action]) -> Option<Turn> {
        let mut buf = Vec::new();
        self.turns_into(&mut buf, TurnMode::Paths);
        buf.into_iter()
            .find(|t| self.turn_actions(t).as_slice() == actions)
    }
}

/// Scratch space for random playouts ([`playout`], [`Position::play_random_turn`]): the
/// capturing turns of a position, each as its origin, end and captured set, all that
/// playing one needs. Reused without allocation once grown.
#[derive(Clone, Debug, Default)]
pub struct PlayoutBuffer {
    turns: Vec<(Bitboard, Point, Point)>,
}

/// Plays random turns from `pos` to the end of the game; `pick(n)` chooses an index below
/// `n` among the distinct turns. Returns the outcome and the number of turns played.
pub fn playout(
    pos: &Position,
    mut pick: impl FnMut(usize) -> usize,
    buf: &mut PlayoutBuffer,
) -> (Outcome, u32) {
    let mut p = *pos;
    let mut n = 0;
    loop {
        // The position is thrown away at the end: its hash need not be kept.
        if let Some(o) = p.random_turn::<false>(&mut pick, buf) {
            return (o, n);
        }
        n += 1;
    }
}

impl Position {
    /// One turn of a random playout, at a turn boundary: the outcome if the game is over
    /// (as [`Position::outcome`]), else plays the turn `pick(n)` of the `n` distinct turns
    /// and returns `None`.
    ///
    /// Captures are indexed in the order [`Position::turns_into`] lists them; a paika is
    /// picked without a list, counted per direction and found by its rank (so the index
    /// of a paika is not its index in the list).
    #[inline]
    pub fn play_random_turn(
        &mut self,
        pick: impl FnMut(usize) -> usize,
        buf: &mut PlayoutBuffer,
    ) -> Option<Outcome> {
        self.random_turn::<true>(pick, buf)
    }

    #[inline(always)]
    fn random_turn<const HASH: bool>(
        &mut self,
        pick: impl FnMut(usize) -> usize,
        buf: &mut PlayoutBuffer,
    ) -> Option<Outcome> {
        match self.variant {
            Variant::Tsivy => self.random_turn_in::<HASH, TsivyBoard>(pick, buf),
            Variant::Dimy => self.random_turn_in::<HASH, DimyBoard>(pick, buf),
            Variant::Telo => self.random_turn_in::<HASH, TeloBoard>(pick, buf),
        }
    }

    #[inline(always)]
    fn random_turn_in<const HASH: bool, B: Board>(
        &mut self,
        mut pick: impl FnMut(usize) -> usize,
        buf: &mut PlayoutBuffer,
    ) -> Option<Outcome> {
        let g = B::G;
        let rule = self.capture_rule();
        if rule != CaptureRule::Forbidden {
            let list = &mut buf.turns;
            list.clear();
            with_chain_keys(|seen| {
                self.generate_in::<_, B>(PlayoutSink {
                    out: list,
                    seen,
                    from: Point(0),
                });
            });
            if !list.is_empty() {
                if let Some(o) = self.outcome_given(true) {
                    return Some(o);
                }
                let (captured, from, to) = list[pick(list.len())];
                self.play_parts::<HASH>(from, to, captured);
                return None;
            }
            if rule == CaptureRule::VelaSingle {
                return self.outcome_given(false);
            }
        }
        let us = self.pieces(self.side);
        let empty = g.all & !self.occupied();
        let mut by_dir = [Bitboard::EMPTY; 8];
        let mut counts = [0usize; 8];
        let mut total = 0;
        for d in Direction::ALL {
            let m = us & g.shift(empty, d.opposite());
            by_dir[d.index()] = m;
            counts[d.index()] = m.count() as usize;
            total += counts[d.index()];
        }
        if let Some(o) = self.outcome_given(total > 0) {
            return Some(o);
        }
        let mut k = pick(total);
        let mut d = 0;
        while k >= counts[d] {
            k -= counts[d];
            d += 1;
        }
        let mut m = by_dir[d].0;
        for _ in 0..k {
            m &= m - 1;
        }
        let from = Point(m.trailing_zeros() as u8);
        let to = Point(g.neighbour[from.index()][d]);
        self.play_parts::<HASH>(from, to, Bitboard::EMPTY);
        None
    }
}

/// Draws a board with coordinates: White `W`, Black `B`, empty `.`, row 1 at the bottom.
pub(crate) fn draw_board(
    f: &mut fmt::Formatter<'_>,
    g: &Geometry,
    pieces: &ByColor<Bitboard>,
) -> fmt::Result {
    for y in (0..g.height as i32).rev() {
        write!(f, "{}", y + 1)?;
        for x in 0..g.width as i32 {
            let p = g.point(x, y).expect("on the board");
            let c = if pieces.white.contains(p) {
                'W'
            } else if pieces.black.contains(p) {
                'B'
            } else {
                '.'
            };
            write!(f, " {c}")?;
        }
        writeln!(f)?;
    }
    write!(f, " ")?;
    for x in 0..g.width {
        write!(f, " {}", (b'a' + x) as char)?;
    }
    writeln!(f)
}

/// The turn is not legal in the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalTurn;

impl fmt::Display for Position {
    /// The board with coordinates, White's pieces `W`, Black's `B`, then the side to move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = self.geometry();
        draw_board(f, g, &self.pieces)?;
        let g = self.geometry();
        write!(
            f,
            "{} to move",
            if self.side == Color::White {
                "White"
            } else {
                "Black"
            }
        )?;
        if let Some(c) = &self.chain {
            write!(f, " (chain: {} may go on)", g.name(c.piece))?;
        }
        Ok(())
    }
}

impl fmt::Display for IllegalTurn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("illegal turn")
    }
}
impl std::error::Error for IllegalTurn {}

#[inline]
fn chain_key(c: &Chain) -> u64 {
    let mut h = KEYS.chain_piece[c.piece.index()] ^ KEYS.last_dir[c.last_dir.index()];
    for p in c.visited {
        h ^= KEYS.visited[p.index()];
    }
    h
}

/// The enemy pieces captured by a step `from -> to` in direction `d`.
#[inline(always)]
pub(crate) fn capture_run(
    g: &Geometry,
    from: Point,
    to: Point,
    d: Direction,
    cap: Capture,
    them: Bitboard,
    first_only: bool,
) -> Bitboard {
    let (ray, dir) = match cap {
        Capture::Approach => (g.ray[to.index()][d.index()], d),
        Capture::Withdrawal => (g.ray[from.index()][d.opposite().index()], d.opposite()),
    };
    if first_only {
        // The first point of the ray, if it holds an enemy.
        let first = match dir {
            Direction::N | Direction::NE | Direction::E | Direction::NW => ray & ray.wrapping_neg(),
            _ if ray == 0 => 0,
            _ => 1u64 << (63 - ray.leading_zeros()),
        };
        return Bitboard(first & them.0);
    }
    // The run is the enemy pieces along the ray up to the first point that is not one.
    // Both cases are computed without a branch (the direction is often not a constant).
    let blockers = ray & !them.0;
    // The ray goes up the index order: keep the bits below the lowest blocker (all of
    // them when there is none: 0 - 1 is every bit).
    let up = ray & (blockers & blockers.wrapping_neg()).wrapping_sub(1);
    // The ray goes down: keep the bits above the highest blocker.
    let down = ray & !u64::MAX.checked_shr(blockers.leading_zeros()).unwrap_or(0);
    Bitboard(match dir {
        Direction::N | Direction::NE | Direction::E | Direction::NW => up,
        _ => down,
    })
}

/// Grows each first piece in `first` along direction `d` through the enemy run behind it.
#[inline]
fn extend_runs(g: &Geometry, first: Bitboard, them: Bitboard, d: Direction) -> Bitboard {
    let mut run = first;
    let mut front = first;
    while front.any() {
        front = g.shift(front, d) & them & !run;
        run |= front;
    }
    run
}

/// The capturing continuations of a chain piece at `p` that arrived going `last`: the
/// end points of its approach and of its withdrawal steps. `blocked`: the points it may
/// not step to for want of an enemy there (its own side's pieces, itself included, and
/// the points it has visited).
#[inline(always)]
fn continuations(
    g: &Geometry,
    p: Point,
    last: Direction,
    blocked: Bitboard,
    them: Bitboard,
) -> (u64, u64) {
    // The step straight on is forbidden.
    let free = g.adjacent[p.index()] & !(blocked | them).0 & !g.step_bb[p.index()][last.index()];
    continuations_into(g, p, free, them)
}

/// [`continuations`] of a piece at `p` that could step to `free`.
#[inline(always)]
fn continuations_into(g: &Geometry, p: Point, free: u64, them: Bitboard) -> (u64, u64) {
    // Most captures cannot go on: no free point next to the piece, or no enemy within
    // two steps.
    if them.0 & g.reach2[p.index()] == 0 || free == 0 {
        return (0, 0);
    }
    let (approach, withdrawal) = g.capture_targets(p, them);
    (approach & free, withdrawal & free)
}

/// Calls `f(d, capture, q)` for every capturing continuation of a chain piece at `p`
/// (`q` is where the step ends), in the order of `q`, approach before withdrawal. `us`
/// includes the piece at `p`.
#[inline(always)]
fn for_each_continuation(
    g: &Geometry,
    p: Point,
    last: Direction,
    visited: Bitboard,
    us: Bitboard,
    them: Bitboard,
    mut f: impl FnMut(Direction, Capture, Point),
) {
    let (approach, withdrawal) = continuations(g, p, last, visited | us, them);
    for q in Bitboard(approach | withdrawal) {
        let d = Direction::from_index(g.dir_to[p.index()][q.index()] as usize);
        if approach >> q.0 & 1 == 1 {
            f(d, Capture::Approach, q);
        }
        if withdrawal >> q.0 & 1 == 1 {
            f(d, Capture::Withdrawal, q);
        }
    }
}

thread_local! {
    /// Chain keys for de-duplicating distinct turns: per-thread scratch, so generation
    /// allocates nothing once warm.
    static SEEN: std::cell::RefCell<ChainKeys> = const { std::cell::RefCell::new(ChainKeys::new()) };
}

/// Runs `f` with this thread's chain keys, emptied for a new position.
#[inline(always)]
fn with_chain_keys<R>(f: impl FnOnce(&mut ChainKeys) -> R) -> R {
    SEEN.with_borrow_mut(|seen| {
        seen.new_position();
        f(seen)
    })
}

/// Where generated turns go: a list of turns, a playout's list of what each turn
/// changes, or a counter.
///
/// The chain generator walks the tree of capture chains depth first and tells the sink
/// each step as it is made ([`TurnSink::first`], [`TurnSink::next`]) and taken back
/// ([`TurnSink::back`]); a list builds the [`Turn`] as it goes, the others need only the
/// origin, the end point and the captured set.
trait TurnSink {
    /// The chains of two or more steps from `from` follow (until the next call).
    fn begin_chain(&mut self, from: Point);
    /// A one-step capture `from -> to` taking `run`: a turn, distinct from every other.
    fn first(&mut self, from: Point, to: Point, cap: Capture, run: Bitboard);
    /// A further chain step to `to` taking `run`, `captured` in all so far: a turn of two
    /// or more steps, which may repeat an earlier turn of the same origin.
    fn next(&mut self, to: Point, cap: Capture, run: Bitboard, captured: Bitboard);
    /// Takes back the last [`TurnSink::next`], which took `run`.
    fn back(&mut self, run: Bitboard);
    /// Every paika of `us` into `empty`.
    fn paika(&mut self, g: &Geometry, us: Bitboard, empty: Bitboard);
}

/// The chains seen so far in one position, for telling distinct turns apart: a chain's
/// identity is its origin, its end point and its captured set. One-step turns are never
/// recorded: one never equals another turn (two to the same end go the same way and take
/// disjoint runs; a chain ending there with the same captured set would have to take the
/// first step's run along that step's own line, which no later step of it can).
///
/// Origins come in any order (first steps are generated direction by direction), so a
/// key holds the origin too. A table of hash buckets says which keys are new without a
/// search in all but a few cases (duplicates, which are rare, and collisions): a bucket
/// holds the stamp of the last position that recorded a key in it, so that a new position
/// forgets the old keys without clearing the table.
struct ChainKeys {
    /// The current chain's origin, in bits 56..62 of its keys.
    from: u64,
    /// The current position's stamp (never 0, which marks an unused bucket).
    stamp: u16,
    /// Per bucket: the stamp of the last position that recorded a key in it.
    buckets: [u16; ChainKeys::BUCKETS],
    /// The keys: the captured set (bits 0..45), the end point (bits 50..56) and the
    /// origin (bits 56..62).
    keys: Vec<u64>,
}

impl ChainKeys {
    const BUCKETS: usize = 4096;
    const fn new() -> ChainKeys {
        ChainKeys {
            from: 0,
            stamp: 0,
            buckets: [0; ChainKeys::BUCKETS],
            keys: Vec::new(),
        }
    }
    /// Forgets the previous position's chains.
    #[inline(always)]
    fn new_position(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.buckets = [0; Self::BUCKETS];
            self.stamp = 1;
        }
        self.keys.clear();
    }
    #[inline(always)]
    fn begin_chain(&mut self, from: Point) {
        self.from = (from.0 as u64) << 56;
    }
    /// Whether `(to, captured)` is new for the current origin; records it.
    #[inline(always)]
    fn first_time(&mut self, to: Point, captured: Bitboard) -> bool {
        let k = captured.0 | self.from | (to.0 as u64) << 50;
        // A multiplicative hash: the top 12 bits of the product.
        let bucket = &mut self.buckets[(k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize];
        if *bucket != self.stamp {
            *bucket = self.stamp;
        } else if self.keys.contains(&k) {
            return false;
        }
        self.keys.push(k);
        true
    }
}

struct ListSink<'a> {
    out: &'a mut Vec<Turn>,
    /// With `Some`, distinct mode: the chains so far.
    seen: Option<&'a mut ChainKeys>,
    /// The chain being built.
    turn: Turn,
}

impl TurnSink for ListSink<'_> {
    #[inline(always)]
    fn begin_chain(&mut self, from: Point) {
        if let Some(seen) = self.seen.as_deref_mut() {
            seen.begin_chain(from);
        }
    }
    #[inline(always)]
    fn first(&mut self, from: Point, to: Point, cap: Capture, run: Bitboard) {
        self.turn.reset(from);
        self.turn.push(to, StepKind::Capture(cap), run);
        self.out.push(self.turn);
    }
    #[inline(always)]
    fn next(&mut self, to: Point, cap: Capture, run: Bitboard, captured: Bitboard) {
        self.turn.push(to, StepKind::Capture(cap), run);
        if let Some(seen) = self.seen.as_deref_mut()
            && !seen.first_time(to, captured)
        {
            return;
        }
        self.out.push(self.turn);
    }
    #[inline(always)]
    fn back(&mut self, run: Bitboard) {
        self.turn.pop(run);
    }
    #[inline(always)]
    fn paika(&mut self, g: &Geometry, us: Bitboard, empty: Bitboard) {
        for p in us {
            for q in Bitboard(g.adjacent[p.index()]) & empty {
                let mut t = Turn::new(p);
                t.push(q, StepKind::Paika, Bitboard::EMPTY);
                self.out.push(t);
            }
        }
    }
}

/// Counts the turns; `DISTINCT`: distinct turns (else every path).
struct CountSink<'a, const DISTINCT: bool> {
    n: u64,
    /// The chains so far (distinct turns only).
    seen: &'a mut ChainKeys,
}

impl<const DISTINCT: bool> TurnSink for CountSink<'_, DISTINCT> {
    #[inline(always)]
    fn begin_chain(&mut self, from: Point) {
        if DISTINCT {
            self.seen.begin_chain(from);
        }
    }
    #[inline(always)]
    fn first(&mut self, _: Point, _: Point, _: Capture, _: Bitboard) {
        self.n += 1;
    }
    #[inline(always)]
    fn next(&mut self, to: Point, _: Capture, _: Bitboard, captured: Bitboard) {
        if !DISTINCT || self.seen.first_time(to, captured) {
            self.n += 1;
        }
    }
    #[inline(always)]
    fn back(&mut self, _: Bitboard) {}
    #[inline(always)]
    fn paika(&mut self, g: &Geometry, us: Bitboard, empty: Bitboard) {
        for d in Direction::ALL {
            self.n += (us & g.shift(empty, d.opposite())).count() as u64;
        }
    }
}

/// The distinct capturing turns as (captured set, origin, end): a playout's list.
struct PlayoutSink<'a> {
    out: &'a mut Vec<(Bitboard, Point, Point)>,
    seen: &'a mut ChainKeys,
    /// The origin of the chains being generated.
    from: Point,
}

impl TurnSink for PlayoutSink<'_> {
    #[inline(always)]
    fn begin_chain(&mut self, from: Point) {
        self.from = from;
        self.seen.begin_chain(from);
    }
    #[inline(always)]
    fn first(&mut self, from: Point, to: Point, _: Capture, run: Bitboard) {
        self.out.push((run, from, to));
    }
    #[inline(always)]
    fn next(&mut self, to: Point, _: Capture, _: Bitboard, captured: Bitboard) {
        if self.seen.first_time(to, captured) {
            self.out.push((captured, self.from, to));
        }
    }
    #[inline(always)]
    fn back(&mut self, _: Bitboard) {}
    #[inline(always)]
    fn paika(&mut self, _: &Geometry, _: Bitboard, _: Bitboard) {}
}

/// A board's geometry as a type, so that code generic over it sees the geometry as a
/// constant (shifts and edge masks become immediates in the chain search). `G` refers to
/// a constant (`TSIVY_GEOMETRY`, ...), not to the `static` (`TSIVY`, ...): a static reached
/// from another crate (a playout's code is instantiated in its caller's) is read through
/// the global offset table and none of its loads fold.
trait Board {
    const G: &'static Geometry;
}
struct TsivyBoard;
impl Board for TsivyBoard {
    const G: &'static Geometry = &crate::geometry::TSIVY_GEOMETRY;
}
struct DimyBoard;
impl Board for DimyBoard {
    const G: &'static Geometry = &crate::geometry::DIMY_GEOMETRY;
}
/// Never used for a [`Position`] (telo has its own type); here so that dispatch on the
/// variant is total.
struct TeloBoard;
impl Board for TeloBoard {
    const G: &'static Geometry = &crate::geometry::TELO_GEOMETRY;
}

/// Depth-first enumeration of capture chains into a sink.
struct ChainGen<S, B> {
    sink: S,
    rule: CaptureRule,
    board: std::marker::PhantomData<B>,
}

impl<S: TurnSink, B: Board> ChainGen<S, B> {
    /// The first steps of direction `D` and kind `cap` from each of `origins`, and the
    /// chains that go on from them.
    #[inline(always)]
    fn first_steps<const D: usize>(
        &mut self,
        origins: Bitboard,
        cap: Capture,
        us: Bitboard,
        them: Bitboard,
        empty: Bitboard,
    ) {
        for p in origins {
            self.first_step(p, Direction::from_index(D), cap, us, them, empty);
        }
    }

    #[inline(always)]
    fn first_step(
        &mut self,
        p: Point,
        d: Direction,
        cap: Capture,
        us: Bitboard,
        them: Bitboard,
        empty: Bitboard,
    ) {
        let g = B::G;
        let q = Point(g.neighbour[p.index()][d.index()]);
        let run = capture_run(g, p, q, d, cap, them, self.rule == CaptureRule::VelaSingle);
        self.sink.first(p, q, cap, run);
        if self.rule == CaptureRule::Chains {
            // Most captures cannot go on, and the chain search is entered only when they
            // can. The points a first step's piece could go on to are the empty points
            // next to it (its origin was not empty, and the run it took is not next to it
            // but straight ahead, where it may not go), so they are known before the run.
            let free = g.adjacent[q.index()] & empty.0 & !g.step_bb[q.index()][d.index()];
            let them = them & !run;
            let (approach, withdrawal) = continuations_into(g, q, free, them);
            if (approach | withdrawal) != 0 {
                // `us` still holds the origin, which the piece has visited.
                let blocked = us.with(q);
                self.sink.begin_chain(p);
                self.extend(q, approach, withdrawal, blocked, them, run);
            }
        }
    }

    /// The chains going on from the piece at `p` through its continuations `approach`
    /// and `withdrawal` (end points, not both empty). `blocked`: the points it may not
    /// step to for want of an enemy there (its own pieces and the points it has visited).
    fn extend(
        &mut self,
        p: Point,
        approach: u64,
        withdrawal: u64,
        blocked: Bitboard,
        them: Bitboard,
        captured: Bitboard,
    ) {
        let g = B::G;
        let mut targets = approach | withdrawal;
        while targets != 0 {
            let q = Point(targets.trailing_zeros() as u8);
            targets &= targets - 1;
            let d = Direction::from_index(g.dir_to[p.index()][q.index()] as usize & 7);
            if approach >> q.0 & 1 == 1 {
                let run = capture_run(g, p, q, d, Capture::Approach, them, false);
                self.step(q, d, Capture::Approach, run, blocked, them, captured);
            }
            if withdrawal >> q.0 & 1 == 1 {
                let run = capture_run(g, p, q, d, Capture::Withdrawal, them, false);
                self.step(q, d, Capture::Withdrawal, run, blocked, them, captured);
            }
        }
    }

    /// A chain step to `q` taking `run`, then the chains going on from there.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        q: Point,
        d: Direction,
        cap: Capture,
        run: Bitboard,
        blocked: Bitboard,
        them: Bitboard,
        captured: Bitboard,
    ) {
        let captured = captured | run;
        self.sink.next(q, cap, run, captured);
        // A duplicate's continuations are still explored: another path to the same
        // state may have a different visited set, so its continuations may be new.
        let them = them & !run;
        let blocked = blocked.with(q);
        let (approach, withdrawal) = continuations(B::G, q, d, blocked, them);
        if (approach | withdrawal) != 0 {
            self.extend(q, approach, withdrawal, blocked, them, captured);
        }
        self.sink.back(run);
    }
}
