//! One interface for everything that plays: engines, random play, later networks.

use crate::ab::{AbConfig, AlphaBeta, Limits, SearchResult};
use crate::clock::{ClockState, TimeControl};
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
    /// The side's clock for the next [`Player::choose`] (`None`: no clock, the player's
    /// own limits alone). A player that searches takes the time manager's share of it
    /// ([`ClockState::cap`], or alpha-beta's [`ClockState::turn_time`], stretched or
    /// shrunk as its search goes); one that does not think ignores it.
    fn set_clock(&mut self, clock: Option<ClockState>) {
        let _ = clock;
    }
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

/// The alpha-beta engine under fixed limits; on a game's clock
/// ([`Player::set_clock`]) a time a turn stays as given (within the clock's limit), and
/// without one the time manager decides each turn's length ([`Limits::target`]), a depth
/// or node limit still binding.
#[derive(Debug)]
pub struct AbPlayer {
    engine: AlphaBeta,
    limits: Limits,
    name: String,
    clock: Option<ClockState>,
}

impl AbPlayer {
    /// An alpha-beta player.
    pub fn new(cfg: AbConfig, limits: Limits, name: impl Into<String>) -> AbPlayer {
        AbPlayer {
            engine: AlphaBeta::new(cfg),
            limits,
            name: name.into(),
            clock: None,
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
        let limits = self.clock.map_or(self.limits, |c| c.limits(self.limits));
        let r = self.engine.search(game, &limits);
        Choice {
            turn: r.best,
            search: Some(r),
        }
    }
    fn set_clock(&mut self, clock: Option<ClockState>) {
        self.clock = clock;
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
    /// The longest a turn of each side took (White, Black), seconds.
    pub longest: [f64; 2],
    /// On a clock ([`play_game_on_clock`]): the side whose clock ran out; it lost.
    pub flagged: Option<fanorona_rules::Color>,
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
    play_game_on_clock(white, black, start, opening, max_turns, tables, None)
}

/// As [`play_game_adjudicated`], and with `clock` each side has a clock for the game:
/// before each turn the player is told its clock ([`Player::set_clock`]); the time its
/// [`Player::choose`] takes is taken off, then the increment added. A side whose clock
/// runs out during its turn loses the game (`flagged`), whatever the turn it chose.
///
/// # Errors
/// As [`play_game`].
pub fn play_game_on_clock(
    white: &mut dyn Player,
    black: &mut dyn Player,
    start: fanorona_rules::Position,
    opening: Option<&Turn>,
    max_turns: usize,
    tables: Option<&fanorona_tb::Tablebase>,
    clock: Option<TimeControl>,
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
    let mut longest = [0.0f64; 2];
    let mut chosen = [0; 2];
    let mut left = clock.map(|c| [c.base; 2]);
    let done = |o: Outcome, game: &History, seconds, chosen, longest| PlayedGame {
        outcome: o,
        turns: game.turns().to_vec(),
        seconds,
        chosen,
        adjudicated: false,
        longest,
        flagged: None,
    };
    while game.turns().len() < max_turns {
        if let Some(o) = game.outcome() {
            return Ok(done(o, &game, seconds, chosen, longest));
        }
        if let Some(o) = tables.and_then(|t| t.outcome(game.position())) {
            return Ok(PlayedGame {
                adjudicated: true,
                ..done(o, &game, seconds, chosen, longest)
            });
        }
        let side = game.position().side_to_move();
        let k = usize::from(side == Color::Black);
        let player: &mut dyn Player = if side == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        if let (Some(tc), Some(left)) = (clock, left) {
            player.set_clock(Some(ClockState {
                left: left[k],
                increment: tc.increment,
                turns_played: chosen[k],
                moves_to_go: None,
            }));
        }
        let started = web_time::Instant::now();
        let choice = player.choose(&game);
        let took = started.elapsed();
        seconds[k] += took.as_secs_f64();
        longest[k] = longest[k].max(took.as_secs_f64());
        chosen[k] += 1;
        if let (Some(tc), Some(left)) = (clock, left.as_mut()) {
            if took > left[k] {
                return Ok(PlayedGame {
                    flagged: Some(side),
                    ..done(Outcome::Win(side.other()), &game, seconds, chosen, longest)
                });
            }
            left[k] = left[k] - took + tc.increment;
        }
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
        longest,
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

    /// Random play that takes its `.1` a turn, and remembers the clocks it was told.
    struct Slow(RandomPlayer, std::time::Duration, Vec<ClockState>);
    impl Player for Slow {
        fn name(&self) -> String {
            "slow".into()
        }
        fn choose(&mut self, game: &History) -> Choice {
            std::thread::sleep(self.1);
            self.0.choose(game)
        }
        fn set_clock(&mut self, clock: Option<ClockState>) {
            self.2.extend(clock);
        }
    }

    #[test]
    fn a_player_whose_clock_runs_out_loses_the_game() {
        use fanorona_rules::{Color, Outcome};
        use std::time::Duration;
        let dimy = Position::start(Variant::Dimy, RuleOptions::default());
        // 200 ms + 10 ms a turn; Black spends 80 ms a turn: its clock falls from 200 to
        // 130, then 60, and runs out on its third turn, after White's third.
        let tc: TimeControl = "0.2+0.01".parse().unwrap();
        let mut white = Slow(RandomPlayer::new(1), Duration::ZERO, Vec::new());
        let mut black = Slow(RandomPlayer::new(2), Duration::from_millis(80), Vec::new());
        let g =
            play_game_on_clock(&mut white, &mut black, dimy, None, 400, None, Some(tc)).unwrap();
        assert_eq!(g.flagged, Some(Color::Black));
        assert_eq!(g.outcome, Outcome::Win(Color::White));
        assert_eq!(g.chosen, [3, 3]);
        // The turn that ran out is not played.
        assert_eq!(g.turns.len(), 5);
        assert!(g.longest[1] >= 0.08 && g.longest[1] >= g.seconds[1] / 3.0);
        // Each side was told its own clock before each turn: Black's fell by its turns'
        // time and rose by the increment; White's only rose.
        let told = |c: &Vec<ClockState>| {
            c.iter()
                .map(|c| (c.turns_played, c.left))
                .collect::<Vec<_>>()
        };
        assert_eq!(told(&black.2).len(), 3);
        assert!(black.2.windows(2).all(|w| w[1].left < w[0].left));
        assert!(white.2.windows(2).all(|w| w[1].left >= w[0].left));
        assert_eq!(told(&white.2)[0], (0, Duration::from_millis(200)));
        assert!(
            black
                .2
                .iter()
                .all(|c| c.increment == Duration::from_millis(10))
        );
        // No clock: the same players play the game out.
        let g = play_game_adjudicated(
            &mut white,
            &mut Slow(RandomPlayer::new(2), Duration::ZERO, Vec::new()),
            dimy,
            None,
            400,
            None,
        )
        .unwrap();
        assert_eq!(g.flagged, None);
    }

    #[test]
    fn alpha_beta_on_a_clock_keeps_within_it() {
        let dimy = Position::start(Variant::Dimy, RuleOptions::default());
        // Unlimited depth: only the clock stops the searches. A second each and 10 ms a
        // turn: the time manager gives a turn a 40th of what is left plus 7.5 ms.
        let limits = Limits {
            depth: Some(60),
            ..Limits::default()
        };
        let mut a = AbPlayer::new(AbConfig::default(), limits, "a");
        let mut b = AbPlayer::new(AbConfig::default(), limits, "b");
        let tc: TimeControl = "1+0.01".parse().unwrap();
        let g = play_game_on_clock(&mut a, &mut b, dimy, None, 40, None, Some(tc)).unwrap();
        assert_eq!(g.flagged, None, "{g:?}");
        for k in 0..2 {
            // Never half a clock, which is never above its start plus the increments.
            assert!(g.longest[k] < 0.5 + 0.01 * f64::from(g.chosen[k]), "{g:?}");
            assert!(g.seconds[k] < 1.0 + 0.01 * f64::from(g.chosen[k]), "{g:?}");
            // The searches used the clock: more than their per-turn minimum of 1 ms.
            assert!(g.longest[k] > 0.005, "{g:?}");
        }
    }
}
