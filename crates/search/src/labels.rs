//! Labels for fitting a [`LearnedEval`]: [`label_games`] plays the alpha-beta engine's
//! games and scores their positions with a deeper search; [`fanorona_eval::fit`] fits
//! the network to those scores.

use crate::ab::{AbConfig, AlphaBeta, Limits};
use fanorona_eval::LearnedEval;
use fanorona_eval::fit::Labelled;
use fanorona_rules::Position;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Settings of [`label_games`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelConfig {
    /// Games to play.
    pub games: usize,
    /// Depth in turns of the engine that plays the games.
    pub play_depth: u32,
    /// Percent of the turns played at random instead (the position still labelled).
    pub explore_percent: u32,
    /// Depth in turns of the search that scores each position.
    pub label_depth: u32,
    /// A game ends as a draw after this many turns.
    pub max_turns: u32,
    /// Seed of the random turns.
    pub seed: u64,
}

impl Default for LabelConfig {
    fn default() -> Self {
        LabelConfig {
            games: 2000,
            play_depth: 3,
            explore_percent: 10,
            label_depth: 6,
            max_turns: 120,
            seed: 1,
        }
    }
}

/// Plays `cfg.games` games of the alpha-beta engine (game `i` from `starts[i % len]`) on
/// `threads` threads and scores every position before a turn with a search of
/// `cfg.label_depth` turns, the labels [`LearnedEval::fit`] learns from. `progress` is
/// told the games done now and then (from the calling thread). The same arguments give
/// the same positions and labels, in game order, whatever the number of threads. With
/// `eval`, both engines (the one that plays and the one that scores) evaluate with it:
/// each round of fitting then learns from searches that saw the last round's network.
pub fn label_games(
    starts: &[Position],
    cfg: &LabelConfig,
    eval: Option<&std::sync::Arc<LearnedEval>>,
    threads: usize,
    progress: &mut dyn FnMut(usize),
) -> Vec<Labelled> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    if starts.is_empty() || cfg.games == 0 {
        return Vec::new();
    }
    let threads = threads.max(1).min(cfg.games);
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, Vec<Labelled>)>();
    let mut games: Vec<Option<Vec<Labelled>>> = vec![None; cfg.games];
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                let small = AbConfig {
                    hash_mb: 4,
                    learned: eval.cloned(),
                    // Full width: labels of an exact search to the depth.
                    selective: false,
                    ..AbConfig::default()
                };
                let mut player = AlphaBeta::new(small.clone());
                let mut judge = AlphaBeta::new(small);
                let play = Limits {
                    depth: Some(cfg.play_depth.max(1)),
                    ..Limits::default()
                };
                let label = Limits {
                    depth: Some(cfg.label_depth.max(1)),
                    ..Limits::default()
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= cfg.games {
                        break;
                    }
                    let mut rng = SmallRng::seed_from_u64(
                        cfg.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                    );
                    player.new_game();
                    judge.new_game();
                    let mut game = fanorona_rules::History::new(starts[i % starts.len()]);
                    let mut out = Vec::new();
                    for _ in 0..cfg.max_turns {
                        let pos = *game.position();
                        let turns = pos.turns(fanorona_rules::TurnMode::Distinct);
                        if turns.is_empty() || game.outcome().is_some() {
                            break;
                        }
                        let score = judge.search(&game, &label).score;
                        out.push(Labelled {
                            position: pos,
                            score,
                        });
                        let turn = if rng.random_range(0..100) < cfg.explore_percent {
                            turns[rng.random_range(0..turns.len())]
                        } else {
                            player.search(&game, &play).best.unwrap_or(turns[0])
                        };
                        game.play_unchecked(&turn);
                    }
                    if tx.send((i, out)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut done = 0;
        for (i, out) in rx {
            games[i] = Some(out);
            done += 1;
            progress(done);
        }
    });
    games.into_iter().flatten().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_rules::Variant;

    fn positions(n: usize, seed: u64) -> Vec<Position> {
        fanorona_testkit::random_positions(Variant::Dimy, n, 20, seed)
    }

    #[test]
    fn labelled_games_do_not_depend_on_the_threads() {
        let starts = positions(3, 5);
        let cfg = LabelConfig {
            games: 4,
            play_depth: 1,
            label_depth: 2,
            max_turns: 12,
            ..LabelConfig::default()
        };
        let mut calls = 0;
        let one = label_games(&starts, &cfg, None, 1, &mut |_| calls += 1);
        let two = label_games(&starts, &cfg, None, 2, &mut |_| {});
        assert_eq!(calls, 4);
        assert!(one.len() > 8, "{} positions", one.len());
        assert_eq!(one, two);
        assert_eq!(one[0].position, starts[0]);
        let mut judge = crate::AlphaBeta::new(crate::AbConfig::default());
        let limits = crate::Limits {
            depth: Some(2),
            ..crate::Limits::default()
        };
        assert_eq!(
            one[0].score,
            judge.search_position(&starts[0], &limits).score
        );
    }
}
