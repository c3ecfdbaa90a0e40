//! The Fanorona position (tsivy and dimy): legal turns and steps, playing them, outcomes.

use crate::bitboard::{Bitboard, ByColor, Color, Direction, Point};
use crate::geometry::{Geometry, Variant};
use crate::options::{RuleOptions, VelaForm};
use crate::turn::{Action, Capture, Step, StepKind, Turn};
use crate::zobrist::KEYS;
use std::fmt;

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
        let mut h = 0;
        for p in self.pieces.white {
            h ^= KEYS.piece[0][p.index()];
        }
        for p in self.pieces.black {
            h ^= KEYS.piece[1][p.index()];
        }
        if self.side == Color::Black {
            h ^= KEYS.black_to_move;
        }
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

    /// The legal turns, written into `out` (cleared first). No allocation once `out` has
    /// grown to the largest list it meets.
    ///
    /// Only meaningful at a turn boundary (`chain()` is `None`).
    pub fn turns_into(&self, out: &mut Vec<Turn>, mode: TurnMode) {
        out.clear();
        SEEN.with_borrow_mut(|seen| {
            let seen = (mode == TurnMode::Distinct).then_some(seen);
            self.generate(&mut ListSink { out, seen });
        });
    }

    /// The number of legal turns, without building the list (perft's leaves). `scratch`
    /// holds chain keys for de-duplication, reused across calls.
    pub fn count_turns(&self, mode: TurnMode, scratch: &mut Vec<u64>) -> u64 {
        let mut sink = CountSink {
            n: 0,
            distinct: mode == TurnMode::Distinct,
            seen: scratch,
        };
        self.generate(&mut sink);
        sink.n
    }

    #[inline(always)]
    fn generate<S: TurnSink>(&self, sink: &mut S) {
        debug_assert!(self.chain.is_none(), "turn-level generation inside a chain");
        let g = self.geometry();
        let us = self.pieces(self.side);
        let them = self.pieces(self.side.other());
        let rule = self.capture_rule();
        if rule != CaptureRule::Forbidden {
            let (app, wd, any) = self.capture_origins(g);
            if any.any() {
                let mut chains = ChainGen {
                    g,
                    sink,
                    rule,
                    turn: Turn::new(Point(0)),
                };
                for p in any {
                    chains.sink.begin_origin();
                    let us_rest = us.without(p);
                    for d in Direction::ALL {
                        if app[d.index()].contains(p) {
                            chains.first_step(p, d, Capture::Approach, us_rest, them);
                        }
                        if wd[d.index()].contains(p) {
                            chains.first_step(p, d, Capture::Withdrawal, us_rest, them);
                        }
                    }
                }
                return;
            }
            if rule == CaptureRule::VelaSingle {
                // The vela player must capture; without a capture it has won (no turn).
                return;
            }
        }
        let empty = g.all & !(us | them);
        sink.paika(g, us, empty);
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
        let g = self.geometry();
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
        let side = self.side;
        let from = turn.from;
        let to = turn.to();
        let keys = &KEYS.piece;
        let own = self.pieces.get_mut(side);
        *own = own.without(from).with(to);
        self.hash ^= keys[side.index()][from.index()] ^ keys[side.index()][to.index()];
        if turn.capture {
            let them = side.other();
            *self.pieces.get_mut(them) &= !turn.captured;
            for p in turn.captured {
                self.hash ^= keys[them.index()][p.index()];
            }
        }
        self.finish_turn(turn.capture);
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

    #[inline]
    fn finish_turn(&mut self, captured: bool) {
        if let Some(c) = self.chain.take() {
            self.hash ^= chain_key(&c);
        }
        if self.ply < 2 {
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
        self.hash ^= KEYS.black_to_move;
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
    pub fn for_each_action(&self, mut f: impl FnMut(Action)) {
        let g = self.geometry();
        let us = self.pieces(self.side);
        let them = self.pieces(self.side.other());
        if let Some(c) = &self.chain {
            for_each_continuation(g, c.piece, c.last_dir, c.visited, us, them, |d, cap| {
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
                self.finish_turn(true);
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
                self.finish_turn(false);
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
            self.finish_turn(true);
            return;
        }
        let us = self.pieces(side);
        let them = self.pieces(them_c);
        let mut can_go_on = false;
        for_each_continuation(g, to, step.dir, visited, us, them, |_, _| can_go_on = true);
        if can_go_on {
            let c = Chain {
                piece: to,
                visited,
                last_dir: step.dir,
            };
            self.hash ^= chain_key(&c);
            self.chain = Some(c);
        } else {
            self.finish_turn(true);
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

/// Plays random turns from `pos` to the end of the game; `pick(n)` chooses an index below
/// `n` among the distinct turns. Returns the outcome and the number of turns played.
/// `buf` is scratch space, reused without allocation once grown.
pub fn playout(
    pos: &Position,
    mut pick: impl FnMut(usize) -> usize,
    buf: &mut Vec<Turn>,
) -> (Outcome, u32) {
    let mut p = *pos;
    let mut n = 0;
    loop {
        p.turns_into(buf, TurnMode::Distinct);
        if let Some(o) = p.outcome_given(!buf.is_empty()) {
            return (o, n);
        }
        let t = buf[pick(buf.len())];
        p.play_unchecked(&t);
        n += 1;
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
    let blockers = ray & !them.0;
    Bitboard(match dir {
        Direction::N | Direction::NE | Direction::E | Direction::NW => {
            // The ray goes up the index order: keep the bits below the lowest blocker.
            if blockers == 0 {
                ray
            } else {
                ray & ((blockers & blockers.wrapping_neg()) - 1)
            }
        }
        _ => {
            if blockers == 0 {
                ray
            } else {
                let h = 63 - blockers.leading_zeros();
                ray & !((2u64 << h).wrapping_sub(1))
            }
        }
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

/// Calls `f(d, capture)` for every capturing continuation of a chain piece at `p`.
/// `us` includes the piece at `p`.
#[inline(always)]
fn for_each_continuation(
    g: &Geometry,
    p: Point,
    last: Direction,
    visited: Bitboard,
    us: Bitboard,
    them: Bitboard,
    mut f: impl FnMut(Direction, Capture),
) {
    // Most captures cannot go on: reject them with two masks before any table walk.
    if them.0 & g.reach2[p.index()] == 0 {
        return;
    }
    let free = Bitboard(g.adjacent[p.index()]) & !(us | them | visited);
    for q in free {
        let d = Direction::from_index(g.dir_to[p.index()][q.index()] as usize);
        if d == last {
            continue;
        }
        let a = g.neighbour[q.index()][d.index()];
        if a != crate::geometry::NO_POINT && them.contains(Point(a)) {
            f(d, Capture::Approach);
        }
        let w = g.neighbour[p.index()][d.opposite().index()];
        if w != crate::geometry::NO_POINT && them.contains(Point(w)) {
            f(d, Capture::Withdrawal);
        }
    }
}

thread_local! {
    /// Chain keys for de-duplicating distinct turns: per-thread scratch, so generation
    /// allocates nothing once warm.
    static SEEN: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Where generated turns go: a list, or a counter.
trait TurnSink {
    /// Turns from a new origin follow.
    fn begin_origin(&mut self);
    /// A one-step capture (always distinct from every other turn).
    fn single(&mut self, t: &Turn);
    /// A capture chain of two or more steps (may repeat an earlier turn's key).
    fn multi(&mut self, t: &Turn);
    /// Every paika of `us` into `empty`.
    fn paika(&mut self, g: &Geometry, us: Bitboard, empty: Bitboard);
}

struct ListSink<'a> {
    out: &'a mut Vec<Turn>,
    /// With `Some`, distinct mode: the keys of this origin's chains so far.
    seen: Option<&'a mut Vec<u64>>,
}

/// A chain's identity within one origin: the captured set (bits 0..45) and the end point.
#[inline(always)]
fn chain_key_of(t: &Turn) -> u64 {
    t.captured.0 | (t.to().0 as u64) << 58
}

impl TurnSink for ListSink<'_> {
    #[inline(always)]
    fn begin_origin(&mut self) {
        if let Some(seen) = self.seen.as_deref_mut() {
            seen.clear();
        }
    }
    #[inline(always)]
    fn single(&mut self, t: &Turn) {
        self.out.push(*t);
    }
    #[inline(always)]
    fn multi(&mut self, t: &Turn) {
        if let Some(seen) = self.seen.as_deref_mut() {
            let k = chain_key_of(t);
            if seen.contains(&k) {
                return;
            }
            seen.push(k);
        }
        self.out.push(*t);
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

struct CountSink<'a> {
    n: u64,
    distinct: bool,
    seen: &'a mut Vec<u64>,
}

impl TurnSink for CountSink<'_> {
    #[inline(always)]
    fn begin_origin(&mut self) {
        self.seen.clear();
    }
    #[inline(always)]
    fn single(&mut self, _: &Turn) {
        self.n += 1;
    }
    #[inline(always)]
    fn multi(&mut self, t: &Turn) {
        if self.distinct {
            let k = chain_key_of(t);
            if self.seen.contains(&k) {
                return;
            }
            self.seen.push(k);
        }
        self.n += 1;
    }
    #[inline(always)]
    fn paika(&mut self, g: &Geometry, us: Bitboard, empty: Bitboard) {
        for d in Direction::ALL {
            self.n += (us & g.shift(empty, d.opposite())).count() as u64;
        }
    }
}

/// Depth-first enumeration of capture chains into a sink.
struct ChainGen<'a, S> {
    g: &'static Geometry,
    sink: &'a mut S,
    rule: CaptureRule,
    /// The chain being built; steps are pushed and popped as the search goes.
    turn: Turn,
}

impl<S: TurnSink> ChainGen<'_, S> {
    #[inline(always)]
    fn first_step(
        &mut self,
        p: Point,
        d: Direction,
        cap: Capture,
        us_rest: Bitboard,
        them: Bitboard,
    ) {
        let g = self.g;
        let q = Point(g.neighbour[p.index()][d.index()]);
        let run = capture_run(g, p, q, d, cap, them, self.rule == CaptureRule::VelaSingle);
        self.turn.reset(p);
        self.turn.push(q, StepKind::Capture(cap), run);
        self.sink.single(&self.turn);
        if self.rule == CaptureRule::Chains {
            self.extend(q, d, p.bb().with(q), us_rest, them & !run);
        }
    }

    fn extend(
        &mut self,
        p: Point,
        last: Direction,
        visited: Bitboard,
        us_rest: Bitboard,
        them: Bitboard,
    ) {
        let g = self.g;
        for_each_continuation(g, p, last, visited, us_rest.with(p), them, |d, cap| {
            let q = Point(g.neighbour[p.index()][d.index()]);
            let run = capture_run(g, p, q, d, cap, them, false);
            self.turn.push(q, StepKind::Capture(cap), run);
            self.sink.multi(&self.turn);
            // A duplicate's continuations are still explored: another path to the same
            // state may have a different visited set, so its continuations may be new.
            self.extend(q, d, visited.with(q), us_rest, them & !run);
            self.turn.pop(run);
        });
    }
}
