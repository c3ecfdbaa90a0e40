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

    /// Searches with `limits` from the next turn on (the hash stays).
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
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

/// A game that could not be played to its end because a player failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// The player returned no turn in a position that has legal turns.
    #[error("player {} returned no turn in {}, which has legal turns", fanorona_rules::quote(.player), fanorona_rules::quote(.fen))]
    NoTurn {
        /// The player's name.
        player: String,
        /// The position it was asked about.
        fen: String,
    },
    /// The player returned a turn that is not legal.
    #[error("player {} returned an illegal turn ({}) in {}", fanorona_rules::quote(.player), fanorona_rules::quote(.turn), fanorona_rules::quote(.fen))]
    IllegalTurn {
        /// The player's name.
        player: String,
        /// The position it was asked about.
        fen: String,
        /// The turn as the player gave it (not notation: an illegal turn may not be
        /// writable in this board's notation at all).
        turn: String,
    },
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedGame {
    /// How it ended (a draw at the turn limit too).
    pub outcome: fanorona_rules::Outcome,
    /// Every turn played, the fixed opening turn included.
    pub turns: Vec<Turn>,
    /// Seconds each side spent choosing its turns (White, Black), measured around
    /// [`Player::choose`]: what "equal time" claims rest on.
    pub seconds: [f64; 2],
    /// Turns each side chose (White, Black), the fixed opening excluded.
    pub chosen: [u32; 2],
    /// Whether the game was ended by endgame tables ([`play_game_adjudicated`]).
    pub adjudicated: bool,
}

/// Plays one game between two players from `start` (optionally after a fixed first turn,
/// as in the traditional match), to its end or `max_turns` turns (then a draw).
///
/// # Errors
/// A player that returns no turn where legal turns exist, or an illegal one: a broken
/// player is never scored as a draw or a loss.
pub fn play_game(
    white: &mut dyn Player,
    black: &mut dyn Player,
    start: fanorona_rules::Position,
    opening: Option<&Turn>,
    max_turns: usize,
) -> Result<PlayedGame, GameError> {
    play_game_adjudicated(white, black, start, opening, max_turns, None)
}

/// As [`play_game`], and with `tables` the game ends at the first position they cover,
/// with their result (exact with best play from there, the quiet counter counted): the
/// arena's adjudication, off unless asked for.
///
/// # Errors
/// As [`play_game`].
pub fn play_game_adjudicated(
    white: &mut dyn Player,
    black: &mut dyn Player,
    start: fanorona_rules::Position,
    opening: Option<&Turn>,
    max_turns: usize,
    tables: Option<&fanorona_tb::Tablebase>,
) -> Result<PlayedGame, GameError> {
    use fanorona_rules::{Color, Outcome};
    let mut game = History::new(start);
    white.new_game();
    black.new_game();
    if let Some(t) = opening {
        game.play_unchecked(t);
    }
    let mut legal = Vec::new();
    let mut seconds = [0.0; 2];
    let mut chosen = [0; 2];
    let done = |o: Outcome, game: &History, seconds, chosen| PlayedGame {
        outcome: o,
        turns: game.turns().to_vec(),
        seconds,
        chosen,
        adjudicated: false,
    };
    while game.turns().len() < max_turns {
        if let Some(o) = game.outcome() {
            return Ok(done(o, &game, seconds, chosen));
        }
        if let Some(o) = tables.and_then(|t| t.outcome(game.position())) {
            return Ok(PlayedGame {
                adjudicated: true,
                ..done(o, &game, seconds, chosen)
            });
        }
        let side = game.position().side_to_move();
        let player: &mut dyn Player = if side == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        let clock = web_time::Instant::now();
        let choice = player.choose(&game);
        let k = usize::from(side == Color::Black);
        seconds[k] += clock.elapsed().as_secs_f64();
        chosen[k] += 1;
        let pos = *game.position();
        pos.turns_into(&mut legal, TurnMode::Paths);
        match choice.turn {
            Some(t) if legal.contains(&t) => game.play_unchecked(&t),
            Some(t) => {
                return Err(GameError::IllegalTurn {
                    player: player.name(),
                    fen: pos.fen(),
                    turn: format!("{t:?}"),
                });
            }
            None => {
                return Err(GameError::NoTurn {
                    player: player.name(),
                    fen: pos.fen(),
                });
            }
        }
    }
    Ok(done(
        game.outcome().unwrap_or(Outcome::Draw),
        &game,
        seconds,
        chosen,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_rules::{Position, RuleOptions, Variant};

    /// Returns no turn at all.
    struct Mute;
    impl Player for Mute {
        fn name(&self) -> String {
            "mute".into()
        }
        fn choose(&mut self, _: &History) -> Choice {
            Choice {
                turn: None,
                search: None,
            }
        }
    }

    /// Returns a turn of another position.
    struct Cheat(Turn);
    impl Player for Cheat {
        fn name(&self) -> String {
            "cheat".into()
        }
        fn choose(&mut self, _: &History) -> Choice {
            Choice {
                turn: Some(self.0),
                search: None,
            }
        }
    }

    #[test]
    fn a_player_without_a_turn_is_an_error_not_a_draw() {
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let e = play_game(&mut RandomPlayer::new(1), &mut Mute, start, None, 400).unwrap_err();
        match &e {
            GameError::NoTurn { player, fen } => {
                assert_eq!(player, "mute");
                // Black was asked, after White's first turn.
                assert!(fen.contains(" b "), "{fen}");
            }
            other => panic!("{other:?}"),
        }
        assert!(e.to_string().contains("mute"), "{e}");
        // White fails at once, from the start.
        let e = play_game(&mut Mute, &mut RandomPlayer::new(1), start, None, 400).unwrap_err();
        assert_eq!(
            e,
            GameError::NoTurn {
                player: "mute".into(),
                fen: start.fen()
            }
        );
    }

    #[test]
    fn an_illegal_turn_is_an_error() {
        // A first turn of tsivy is no turn of dimy's start.
        let tsivy = Position::start(Variant::Tsivy, RuleOptions::default());
        let t = tsivy.turns(TurnMode::Distinct)[0];
        let dimy = Position::start(Variant::Dimy, RuleOptions::default());
        let e = play_game(&mut Cheat(t), &mut RandomPlayer::new(1), dimy, None, 400).unwrap_err();
        assert!(
            matches!(&e, GameError::IllegalTurn { player, .. } if player == "cheat"),
            "{e:?}"
        );
        // Sound players finish the game.
        let g = play_game(
            &mut RandomPlayer::new(1),
            &mut RandomPlayer::new(2),
            dimy,
            None,
            400,
        )
        .unwrap();
        assert!(!g.turns.is_empty());
        assert_eq!((g.chosen[0] + g.chosen[1]) as usize, g.turns.len());
        assert!(g.seconds.iter().all(|&s| s >= 0.0));
    }
}
