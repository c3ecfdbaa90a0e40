//! A warm start: before its first self-play generation, a new run can learn from games of
//! the alpha-beta engine (`[bootstrap]` in the config).
//!
//! A fresh network's search is close to random, and the first generations of self-play
//! spend most of an hour's budget learning what a shallow search already knows (take the
//! larger capture, do not leave a run of pieces en prise). The engine plays a few thousand
//! games against itself in a few minutes; each of its decisions becomes a sample whose
//! policy target is the engine's choice (every step of its turn) and whose value target is
//! the game's result. The network trains on them for a few passes, the newest of them seed
//! the replay window, and self-play goes on from there as usual. Off by default
//! (`bootstrap.games = 0`): a run then learns by self-play alone.
//!
//! To keep the games varied, each game may open with a few random turns
//! (`bootstrap.opening_turns`) and a share of the later turns (`bootstrap.explore`) is
//! played at random instead of the engine's choice; the sample of such a position still
//! holds the engine's choice, so no random move is ever a target. The value target may
//! mix the game's result with the engine's score of the position
//! (`bootstrap.score_weight`).

use crate::config::BootstrapConfig;
use crate::records::Sample;
use fanorona_rules::game::action_index;
use fanorona_rules::{Color, History, Outcome, Position, TurnMode};
use fanorona_search::{AbConfig, AlphaBeta, BlendConfig, Limits, score_wdl, wdl_index};
use fanorona_sim::{Encode, frame_action, num_planes};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

/// What the teacher's games produced.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BootstrapStats {
    /// Games played.
    pub games: u64,
    /// Turns played (the engine's and the random ones).
    pub turns: u64,
    /// Games won by White, by Black, drawn.
    pub white: u64,
    /// Games won by Black.
    pub black: u64,
    /// Drawn games (by the rules or at `max_turns`).
    pub draws: u64,
}

/// Plays `cfg.games` games of the alpha-beta engine at `cfg.depth` from `start`, in
/// parallel, and returns their samples (in game order) with the counts. Each game ends
/// by the rules or as a draw after `max_turns` turns. `on_games(n)` is told how many
/// games are done, now and then. Deterministic for a given `seed`.
pub fn teacher_samples(
    start: &Position,
    cfg: &BootstrapConfig,
    max_turns: u32,
    seed: u64,
    on_games: &mut dyn FnMut(usize),
) -> (Vec<Sample>, BootstrapStats) {
    let mut samples = Vec::new();
    let mut stats = BootstrapStats::default();
    // Chunks, so that progress is reported from this thread.
    let chunk = 32usize;
    let mut done = 0;
    while done < cfg.games {
        let n = chunk.min(cfg.games - done);
        let games: Vec<(Vec<Sample>, Outcome, u64)> = (done..done + n)
            .into_par_iter()
            .map_init(
                || {
                    AlphaBeta::new(AbConfig {
                        hash_mb: 16,
                        ..AbConfig::default()
                    })
                },
                |ab, i| teacher_game(ab, start, cfg, max_turns, game_seed(seed, i)),
            )
            .collect();
        for (s, outcome, turns) in games {
            samples.extend(s);
            stats.games += 1;
            stats.turns += turns;
            match outcome {
                Outcome::Win(Color::White) => stats.white += 1,
                Outcome::Win(Color::Black) => stats.black += 1,
                Outcome::Draw => stats.draws += 1,
            }
        }
        done += n;
        on_games(done);
    }
    (samples, stats)
}

fn game_seed(seed: u64, i: usize) -> u64 {
    seed ^ 0xB007_5742_0000_0000 ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// One game: its samples, its result and its length in turns.
fn teacher_game(
    ab: &mut AlphaBeta,
    start: &Position,
    cfg: &BootstrapConfig,
    max_turns: u32,
    seed: u64,
) -> (Vec<Sample>, Outcome, u64) {
    let variant = start.variant();
    let per = num_planes(variant) * variant.points();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = History::new(*start);
    ab.new_game();
    let limits = Limits {
        depth: Some(cfg.depth),
        ..Limits::default()
    };
    // (planes, action in the mover's frame, mover, engine's score for the mover) of
    // every decision.
    let mut pending: Vec<(Vec<f32>, u16, Color, i32)> = Vec::new();
    let opening = rng.random_range(0..=cfg.opening_turns);
    let outcome = loop {
        if let Some(o) = game.outcome() {
            break o;
        }
        if game.turns().len() as u32 >= max_turns {
            break Outcome::Draw;
        }
        let pos = *game.position();
        let result = ab.search(&game, &limits);
        let Some(best) = result.best else {
            // No turn: the rules' outcome says who won; reached only if they disagree.
            break pos.outcome().unwrap_or(Outcome::Draw);
        };
        // The engine's turn, step by step, as targets.
        let mut step = pos;
        for a in pos.turn_actions(&best) {
            let mover = step.side_to_move();
            let mut planes = vec![0.0; per];
            step.encode(&mut planes);
            let index = frame_action(variant, mover, action_index(variant.points(), a));
            pending.push((planes, index as u16, mover, result.score));
            step.play_action_unchecked(a);
        }
        let random = (game.turns().len() as u32) < opening;
        let turn = if random || rng.random_range(0.0f32..1.0) < cfg.explore {
            let turns = pos.turns(TurnMode::Distinct);
            turns[rng.random_range(0..turns.len())]
        } else {
            best
        };
        game.play_unchecked(&turn);
    };
    let turns = game.turns().len() as u64;
    let scale = BlendConfig::default().scale;
    let samples = pending
        .into_iter()
        .map(|(planes, action, mover, score)| {
            let mut wdl = [0.0; 3];
            wdl[wdl_index(outcome, mover)] = 1.0;
            let w = cfg.score_weight;
            if w > 0.0 {
                let engine = score_wdl(score, scale);
                for (x, y) in wdl.iter_mut().zip(engine) {
                    *x = (1.0 - w) * *x + w * y;
                }
            }
            Sample {
                planes,
                policy: vec![(action, 1.0)],
                wdl,
            }
        })
        .collect();
    (samples, outcome, turns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_rules::{Game, RuleOptions, Variant};

    #[test]
    fn teacher_samples_are_the_engines_legal_steps_with_the_games_results() {
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let cfg = BootstrapConfig {
            games: 6,
            depth: 2,
            explore: 0.2,
            ..BootstrapConfig::default()
        };
        let mut reported = Vec::new();
        let (samples, stats) = teacher_samples(&start, &cfg, 60, 7, &mut |n| reported.push(n));
        assert_eq!(reported, vec![6]);
        assert_eq!(stats.games, 6);
        assert_eq!(stats.white + stats.black + stats.draws, 6);
        // At least one sample a turn (chains give more).
        assert!(
            samples.len() as u64 >= stats.turns,
            "{} < {}",
            samples.len(),
            stats.turns
        );
        let per = num_planes(Variant::Dimy) * Variant::Dimy.points();
        for s in &samples {
            assert_eq!(s.planes.len(), per);
            assert_eq!(s.policy.len(), 1);
            assert_eq!(s.policy[0].1, 1.0);
            assert!((s.policy[0].0 as usize) < fanorona_rules::num_actions(Variant::Dimy));
            assert_eq!(s.wdl.iter().sum::<f32>(), 1.0);
        }
        // The first sample is White's first decision at the start: a legal action there.
        let mut legal = Vec::new();
        start.legal_actions(&mut legal);
        assert!(legal.contains(&(samples[0].policy[0].0 as usize)));
        // The same seed plays the same games; random turns make the games differ.
        let (again, _) = teacher_samples(&start, &cfg, 60, 7, &mut |_| {});
        assert_eq!(again.len(), samples.len());
        assert!(
            again
                .iter()
                .zip(&samples)
                .all(|(a, b)| a.policy == b.policy && a.wdl == b.wdl)
        );
    }

    #[test]
    fn random_openings_vary_the_games_and_scores_shape_the_values() {
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let cfg = BootstrapConfig {
            games: 8,
            depth: 1,
            explore: 0.0,
            opening_turns: 6,
            score_weight: 1.0,
            ..BootstrapConfig::default()
        };
        let (samples, stats) = teacher_samples(&start, &cfg, 40, 3, &mut |_| {});
        assert_eq!(stats.games, 8);
        // Without random openings the eight games are the engine's own game eight times
        // over (the test below); with them, they go different ways.
        let distinct = |samples: &[Sample]| {
            samples
                .iter()
                .map(|s| s.planes.iter().map(|x| x.to_bits()).collect::<Vec<u32>>())
                .collect::<std::collections::HashSet<_>>()
                .len()
        };
        let fixed = BootstrapConfig {
            opening_turns: 0,
            ..cfg
        };
        let (same, _) = teacher_samples(&start, &fixed, 40, 3, &mut |_| {});
        assert_eq!(distinct(&same) * 8, same.len());
        assert!(
            distinct(&samples) > 2 * distinct(&same),
            "{} distinct positions with random openings, {} without",
            distinct(&samples),
            distinct(&same)
        );
        // Values are the engine's alone: a win probability, no draw mass; at the start,
        // the engine's score of the start.
        for s in &samples {
            assert_eq!(s.wdl[1], 0.0);
            assert!((s.wdl[0] + s.wdl[2] - 1.0).abs() < 1e-6);
        }
        let mut ab = AlphaBeta::new(AbConfig::default());
        let limits = Limits {
            depth: Some(1),
            ..Limits::default()
        };
        let score = ab.search_position(&start, &limits).score;
        assert_eq!(
            samples[0].wdl,
            score_wdl(score, BlendConfig::default().scale)
        );
    }

    #[test]
    fn without_exploration_every_game_is_the_engines_own() {
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let cfg = BootstrapConfig {
            games: 2,
            depth: 1,
            explore: 0.0,
            ..BootstrapConfig::default()
        };
        let (samples, stats) = teacher_samples(&start, &cfg, 40, 1, &mut |_| {});
        // Two identical games: the first half of the samples equals the second.
        let half = samples.len() / 2;
        assert_eq!(stats.games, 2);
        assert!(
            samples[..half]
                .iter()
                .zip(&samples[half..])
                .all(|(a, b)| a.policy == b.policy && a.planes == b.planes)
        );
    }
}
