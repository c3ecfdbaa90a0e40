//! The step-level `Game` interface: a fixed action space that search and training are
//! generic over.
//!
//! Fanorona actions are `(origin, direction, kind)` with kind paika, approach or
//! withdrawal, indexed `(origin * 8 + direction) * 3 + kind`, plus one `end turn` action
//! at index `points * 24` (tsivy: 1081 actions, dimy: 601). Telo actions are the 9
//! placements (index = point) then the 72 moves (`9 + origin * 8 + direction`), 81 in all.

use crate::bitboard::{Color, Direction, Point};
use crate::geometry::Variant;
use crate::position::{Outcome, Position};
use crate::telo::{TeloMove, TeloPosition};
use crate::turn::{Action, Step, StepKind};

/// A game seen one decision at a time, with actions as indices into a fixed space.
///
/// **The same player may move several times in a row.** Inside a Fanorona capture chain
/// the player who just captured decides again (continue or `end turn`). Search code must
/// never assume that players alternate: read [`Game::to_move`] at every node and keep
/// every value from that player's point of view.
///
/// Cloning is a plain copy of a few words, cheap enough to clone at every search node.
pub trait Game: Clone + Send + Sync + std::fmt::Debug {
    /// The variant (fixes the action space and the board).
    fn variant(&self) -> Variant;
    /// Size of the action space.
    fn num_actions(&self) -> usize {
        num_actions(self.variant())
    }
    /// The player who decides now.
    fn to_move(&self) -> Color;
    /// The legal action indices, into `out` (cleared first). Empty when the game is over.
    fn legal_actions(&self, out: &mut Vec<usize>);
    /// Plays a legal action (unchecked: an illegal index gives an unspecified position
    /// or a panic).
    fn apply(&mut self, action: usize);
    /// The outcome, if the game is over.
    fn outcome(&self) -> Option<Outcome>;
    /// A Zobrist hash of everything that decides the legal actions and the outcome
    /// (pieces, side, chain state), kept incrementally.
    fn hash(&self) -> u64;
    /// The action written for people (a step such as `d3e3(-)`, `end`, or a telo move).
    fn action_name(&self, action: usize) -> String;
}

/// Size of the action space of a variant: 1081 tsivy, 601 dimy, 81 telo.
pub const fn num_actions(v: Variant) -> usize {
    match v {
        Variant::Telo => 9 + 9 * 8,
        _ => v.points() * 24 + 1,
    }
}

/// Index of a Fanorona action on a board of `points` points.
#[inline]
pub fn action_index(points: usize, a: Action) -> usize {
    match a {
        Action::EndTurn => points * 24,
        Action::Step(s) => (s.from.index() * 8 + s.dir.index()) * 3 + s.kind.index(),
    }
}

/// The Fanorona action with this index on a board of `points` points, if in range.
#[inline]
pub fn action_from_index(points: usize, i: usize) -> Option<Action> {
    if i == points * 24 {
        return Some(Action::EndTurn);
    }
    if i > points * 24 {
        return None;
    }
    let kind = StepKind::ALL[i % 3];
    let dir = Direction::from_index(i / 3 % 8);
    Some(Action::Step(Step {
        from: Point((i / 24) as u8),
        dir,
        kind,
    }))
}

/// Index of a telo move.
#[inline]
pub fn telo_action_index(m: TeloMove) -> usize {
    match m {
        TeloMove::Place(p) => p.index(),
        TeloMove::Step { from, to } => {
            let d = crate::geometry::TELO.dir_to[from.index()][to.index()] as usize;
            9 + from.index() * 8 + d
        }
    }
}

/// The telo move with this index, if it names one on the board.
pub fn telo_action_from_index(i: usize) -> Option<TeloMove> {
    if i < 9 {
        return Some(TeloMove::Place(Point(i as u8)));
    }
    if i >= 81 {
        return None;
    }
    let from = Point(((i - 9) / 8) as u8);
    let to = crate::geometry::TELO.neighbour(from, Direction::from_index((i - 9) % 8))?;
    Some(TeloMove::Step { from, to })
}

impl Game for Position {
    fn variant(&self) -> Variant {
        self.variant
    }
    fn to_move(&self) -> Color {
        self.side
    }
    fn legal_actions(&self, out: &mut Vec<usize>) {
        out.clear();
        let n = self.variant.points();
        self.for_each_action(|a| out.push(action_index(n, a)));
        // The actions just listed tell whether a turn exists, so the outcome need not
        // generate the captures a second time (inside a chain the game is never over).
        if self.chain.is_none() && self.outcome_given(!out.is_empty()).is_some() {
            out.clear();
        }
    }
    fn apply(&mut self, action: usize) {
        let a = action_from_index(self.variant.points(), action).expect("action index in range");
        self.play_action_unchecked(a);
    }
    fn outcome(&self) -> Option<Outcome> {
        Position::outcome(self)
    }
    fn hash(&self) -> u64 {
        self.hash
    }
    fn action_name(&self, action: usize) -> String {
        let g = self.geometry();
        match action_from_index(self.variant.points(), action) {
            None => format!("<action {action} out of range>"),
            Some(Action::EndTurn) => "end".to_string(),
            Some(Action::Step(s)) => {
                let to = g
                    .neighbour(s.from, s.dir)
                    .map_or("??".to_string(), |q| g.name(q).to_string());
                let kind = match s.kind {
                    StepKind::Paika => "",
                    StepKind::Capture(crate::Capture::Approach) => "(+)",
                    StepKind::Capture(_) => "(-)",
                };
                format!("{}{to}{kind}", g.name(s.from))
            }
        }
    }
}

impl Game for TeloPosition {
    fn variant(&self) -> Variant {
        Variant::Telo
    }
    fn to_move(&self) -> Color {
        self.side_to_move()
    }
    fn legal_actions(&self, out: &mut Vec<usize>) {
        out.clear();
        if TeloPosition::outcome(self).is_some() {
            return;
        }
        let mut moves = Vec::with_capacity(24);
        self.moves_into(&mut moves);
        out.extend(moves.into_iter().map(telo_action_index));
    }
    fn apply(&mut self, action: usize) {
        self.play_unchecked(telo_action_from_index(action).expect("telo action in range"));
    }
    fn outcome(&self) -> Option<Outcome> {
        TeloPosition::outcome(self)
    }
    fn hash(&self) -> u64 {
        TeloPosition::hash(self)
    }
    fn action_name(&self, action: usize) -> String {
        match telo_action_from_index(action) {
            Some(m) => self.format_move(m),
            None => format!("<action {action} out of range>"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RuleOptions;

    #[test]
    fn action_space_sizes() {
        assert_eq!(num_actions(Variant::Tsivy), 1081);
        assert_eq!(num_actions(Variant::Dimy), 601);
        assert_eq!(num_actions(Variant::Telo), 81);
    }

    #[test]
    fn indices_round_trip() {
        for v in [Variant::Tsivy, Variant::Dimy] {
            let n = v.points();
            for i in 0..num_actions(v) {
                let a = action_from_index(n, i).unwrap();
                assert_eq!(action_index(n, a), i);
            }
            assert_eq!(action_from_index(n, num_actions(v)), None);
        }
        for i in 0..81 {
            if let Some(m) = telo_action_from_index(i) {
                assert_eq!(telo_action_index(m), i);
            }
        }
    }

    /// A search-like consumer: a depth-limited negamax over actions that reads `to_move`
    /// at every node, on a position whose best line is a capture chain.
    fn best_value<G: Game>(g: &G, depth: u32, me: Color) -> i32 {
        if let Some(o) = g.outcome() {
            return o.score_for(me) * 100;
        }
        if depth == 0 {
            return 0;
        }
        let mut acts = Vec::new();
        g.legal_actions(&mut acts);
        let vals = acts.iter().map(|&a| {
            let mut c = g.clone();
            c.apply(a);
            best_value(&c, depth - 1, me)
        });
        if g.to_move() == me {
            vals.max().unwrap()
        } else {
            vals.min().unwrap()
        }
    }

    #[test]
    fn chains_keep_the_same_player() {
        // White a1 -> b2 approaches c3 (+1), then b2 -> c2 withdraws from a2 (-1).
        let pos = Position::from_fen("9/9/2B6/B8/W8 w", RuleOptions::default()).unwrap();
        let mut acts = Vec::new();
        pos.legal_actions(&mut acts);
        assert!(!acts.is_empty());
        let mut p = pos;
        let a = acts
            .iter()
            .copied()
            .find(|&a| {
                let mut c = p;
                c.apply(a);
                c.chain().is_some()
            })
            .expect("a capture that can go on");
        p.apply(a);
        assert_eq!(p.to_move(), Color::White, "the capturer moves again");
        p.legal_actions(&mut acts);
        assert!(
            acts.contains(&(45 * 24)),
            "end turn is legal inside a chain"
        );
        // The search sees that White, moving twice, wins everything.
        assert_eq!(best_value(&pos, 2, Color::White), 100);
        // A search that assumed alternation would give Black the second move: the chain's
        // second capture must come from White.
        assert_eq!(p.action_name(acts[0]), "b2c2(-)");
    }
}
