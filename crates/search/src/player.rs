//! One interface for everything that plays: engines, random play, later networks.

use crate::ab::{AbConfig, AlphaBeta, Limits, SearchResult};
use fanorona_rules::{History, Turn, TurnMode};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// A player's decision, with what it knows about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The turn to play (`None` only when there is no legal turn).
    pub turn: Option<Turn>,
    /// The search behind it, for players that search.
    pub search: Option<SearchResult>,
}

/// Anything that chooses turns: the arena, `analyze` and `play` use only this.
pub trait Player: Send {
    /// A short name (the spec it was made from).
    fn name(&self) -> String;
    /// A new game starts: forget per-game state.
    fn new_game(&mut self) {}
    /// Chooses a turn for the current position of `game`.
    fn choose(&mut self, game: &History) -> Choice;
}

/// Uniformly random distinct turns, seeded.
#[derive(Debug)]
pub struct RandomPlayer {
    rng: SmallRng,
}

impl RandomPlayer {
    /// A random player with its own seeded stream.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: SmallRng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".to_string()
    }
    fn choose(&mut self, game: &History) -> Choice {
        let turns = game.position().turns(TurnMode::Distinct);
        let turn = (!turns.is_empty()).then(|| turns[self.rng.random_range(0..turns.len())]);
        Choice { turn, search: None }
    }
}

/// The alpha-beta engine under fixed limits.
#[derive(Debug)]
pub struct AbPlayer {
    engine: AlphaBeta,
    limits: Limits,
    name: String,
}

impl AbPlayer {
    /// An alpha-beta player.
    pub fn new(cfg: AbConfig, limits: Limits, name: impl Into<String>) -> AbPlayer {
        AbPlayer {
            engine: AlphaBeta::new(cfg),
            limits,
            name: name.into(),
        }
    }
}

impl Player for AbPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn new_game(&mut self) {
        self.engine.new_game();
    }
    fn choose(&mut self, game: &History) -> Choice {
        let r = self.engine.search(game, &self.limits);
        Choice {
            turn: r.best,
            search: Some(r),
        }
    }
}

/// Plays one game between two players from `start` (optionally after a fixed first turn,
/// as in the traditional match), to its end or `max_turns` turns (then a draw).
/// Returns the outcome and the turns played.
pub fn play_game(
    white: &mut dyn Player,
    black: &mut dyn Player,
    start: fanorona_rules::Position,
    opening: Option<&Turn>,
    max_turns: usize,
) -> (fanorona_rules::Outcome, Vec<Turn>) {
    use fanorona_rules::{Color, Outcome};
    let mut game = History::new(start);
    white.new_game();
    black.new_game();
    if let Some(t) = opening {
        game.play_unchecked(t);
    }
    while game.turns().len() < max_turns {
        if let Some(o) = game.outcome() {
            return (o, game.turns().to_vec());
        }
        let choice = if game.position().side_to_move() == Color::White {
            white.choose(&game)
        } else {
            black.choose(&game)
        };
        match choice.turn {
            Some(t) => game.play_unchecked(&t),
            None => break,
        }
    }
    (
        game.outcome().unwrap_or(Outcome::Draw),
        game.turns().to_vec(),
    )
}
