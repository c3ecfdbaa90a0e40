//! Steps, actions and turns: the units of play.

use crate::bitboard::{Bitboard, Direction, Point};

/// How a step captures.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Capture {
    /// The step ends next to the captured run, moving towards it (`+`).
    Approach,
    /// The step starts next to the captured run, moving away from it (`-`).
    Withdrawal,
}

impl Capture {
    /// `'+'` or `'-'`.
    pub const fn sign(self) -> char {
        match self {
            Capture::Approach => '+',
            Capture::Withdrawal => '-',
        }
    }
}

/// The kind of a step: a paika (no capture) or a capture by approach or withdrawal.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum StepKind {
    /// A non-capturing step (only as a whole turn, when no capture exists).
    Paika,
    /// A capture.
    Capture(Capture),
}

impl StepKind {
    /// The three kinds, in action-index order (paika, approach, withdrawal).
    pub const ALL: [StepKind; 3] = [
        StepKind::Paika,
        StepKind::Capture(Capture::Approach),
        StepKind::Capture(Capture::Withdrawal),
    ];
    /// Index `0..3` in [`StepKind::ALL`].
    #[inline]
    pub const fn index(self) -> usize {
        match self {
            StepKind::Paika => 0,
            StepKind::Capture(Capture::Approach) => 1,
            StepKind::Capture(Capture::Withdrawal) => 2,
        }
    }
    /// Whether the step captures.
    #[inline]
    pub const fn is_capture(self) -> bool {
        !matches!(self, StepKind::Paika)
    }
}

/// One step of one piece to an adjacent point: the unit of the step-level interface.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Step {
    /// Where the piece starts.
    pub from: Point,
    /// Where it goes.
    pub dir: Direction,
    /// Paika, approach or withdrawal.
    pub kind: StepKind,
}

/// A decision at the step level: a step, or ending a capture chain early.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Action {
    /// Move a piece one step.
    Step(Step),
    /// Stop the current capture chain (legal only inside a chain, after a capture).
    EndTurn,
}

/// The longest possible turn, in steps. Every step of a chain captures at least one enemy
/// piece, and a position never holds more enemy pieces than a side starts with
/// (22 in tsivy; positions are validated), so a chain has at most 22 steps.
pub const MAX_CHAIN: usize = 22;

/// A whole turn: a paika, or a capture chain of 1..=[`MAX_CHAIN`] steps of one piece.
///
/// It stores the path (the points reached, and each step's capture kind) and the set of
/// captured points, so that playing it is a few bit operations and notation can be
/// written from it. Two turns are the same *distinct* turn when their origin, end and
/// captured set agree ([`Turn::key`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Turn {
    pub(crate) from: Point,
    pub(crate) len: u8,
    pub(crate) capture: bool,
    /// Bit `i` set: step `i` captures by approach (otherwise withdrawal); only for captures.
    pub(crate) approach: u32,
    pub(crate) captured: Bitboard,
    pub(crate) path: [u8; MAX_CHAIN],
}

impl Turn {
    pub(crate) const fn new(from: Point) -> Turn {
        Turn {
            from,
            len: 0,
            capture: false,
            approach: 0,
            captured: Bitboard::EMPTY,
            path: [0; MAX_CHAIN],
        }
    }
    /// The point the piece starts from.
    #[inline]
    pub const fn from(&self) -> Point {
        self.from
    }
    /// The point the piece ends on.
    #[inline]
    pub const fn to(&self) -> Point {
        Point(self.path[self.len as usize - 1])
    }
    /// Number of steps (1 for a paika).
    #[inline]
    pub const fn len(&self) -> usize {
        self.len as usize
    }
    /// Always false: a turn has at least one step.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Whether the turn captures (otherwise it is a paika).
    #[inline]
    pub const fn is_capture(&self) -> bool {
        self.capture
    }
    /// Every point captured during the turn.
    #[inline]
    pub const fn captured(&self) -> Bitboard {
        self.captured
    }
    /// The identity of the turn for "distinct turn" purposes: origin, end, captured set.
    #[inline]
    pub const fn key(&self) -> (Point, Point, Bitboard) {
        (self.from, self.to(), self.captured)
    }
    /// The kind of step `i`.
    #[inline]
    pub const fn kind(&self, i: usize) -> StepKind {
        if !self.capture {
            StepKind::Paika
        } else if self.approach >> i & 1 == 1 {
            StepKind::Capture(Capture::Approach)
        } else {
            StepKind::Capture(Capture::Withdrawal)
        }
    }
    /// The points of the path: origin, then the end of every step.
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        std::iter::once(self.from).chain(self.path[..self.len()].iter().map(|&p| Point(p)))
    }
    /// The steps as `(from, to, kind)`.
    pub fn steps(&self) -> impl Iterator<Item = (Point, Point, StepKind)> + '_ {
        (0..self.len()).map(move |i| {
            let from = if i == 0 {
                self.from
            } else {
                Point(self.path[i - 1])
            };
            (from, Point(self.path[i]), self.kind(i))
        })
    }
    /// Starts a new chain at `from`, keeping the path buffer as it is.
    #[inline(always)]
    pub(crate) fn reset(&mut self, from: Point) {
        self.from = from;
        self.len = 0;
        self.capture = false;
        self.approach = 0;
        self.captured = Bitboard::EMPTY;
    }
    /// Takes back the last step of a capture chain, which captured `run`.
    #[inline(always)]
    pub(crate) fn pop(&mut self, run: Bitboard) {
        self.len -= 1;
        self.captured ^= run;
    }
    #[inline(always)]
    pub(crate) fn push(&mut self, to: Point, kind: StepKind, captured: Bitboard) {
        let i = self.len as usize;
        self.path[i] = to.0;
        if let StepKind::Capture(c) = kind {
            self.capture = true;
            if c == Capture::Approach {
                self.approach |= 1 << i;
            } else {
                self.approach &= !(1 << i);
            }
        }
        self.captured |= captured;
        self.len += 1;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn turn_is_small() {
        // Turns are copied into move lists by the million: keep them compact.
        assert!(std::mem::size_of::<super::Turn>() <= 48);
    }
}
