//! A game with its history: positions played through, for undo and repetition.

use crate::position::{Outcome, Position};
use crate::turn::Turn;

/// A game from a start position: the current position, the turns played, and the hash of
/// every position at a turn boundary (for the repetition rule and for undo).
#[derive(Clone, Debug)]
pub struct History {
    positions: Vec<Position>,
    turns: Vec<Turn>,
}

impl History {
    /// A game starting at `start`.
    pub fn new(start: Position) -> History {
        History {
            positions: vec![start],
            turns: Vec::new(),
        }
    }
    /// The current position.
    pub fn position(&self) -> &Position {
        self.positions.last().expect("never empty")
    }
    /// The start position.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }
    /// The position before turn `i` (0 is the start).
    pub fn position_at(&self, i: usize) -> &Position {
        &self.positions[i]
    }
    /// Turns played so far.
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }
    /// Plays a legal turn of the current position (unchecked).
    pub fn play_unchecked(&mut self, turn: &Turn) {
        let mut p = *self.position();
        p.play_unchecked(turn);
        self.positions.push(p);
        self.turns.push(*turn);
    }
    /// Takes back the last turn; false if there is none.
    pub fn undo(&mut self) -> bool {
        if self.turns.pop().is_some() {
            self.positions.pop();
            true
        } else {
            false
        }
    }
    /// How many times the current position (same side to move) has occurred, itself included.
    /// Only positions since the last capture can repeat.
    pub fn repetitions(&self) -> usize {
        let cur = self.position();
        let window = cur.quiet() as usize;
        self.positions
            .iter()
            .rev()
            .take(window + 1)
            .filter(|p| p.hash() == cur.hash() && p.pieces == cur.pieces && p.side == cur.side)
            .count()
    }
    /// The outcome: the position's own, or a draw by third repetition where
    /// `repetition_draw` is on.
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = self.position();
        pos.outcome().or_else(|| {
            (pos.rules().repetition_draw && self.repetitions() >= 3).then_some(Outcome::Draw)
        })
    }
}
