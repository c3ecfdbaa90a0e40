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
//! (`bootstrap.score_weight`). Each sample also holds the game's last position, the target
//! of the ownership head when the network has one (`train.ownership_weight`).
//!
//! Soft policy targets (a softmax of every turn's score) and value-only samples of the
//! turns not played were measured and deleted (experiments/dimy12, dimy20, dimy28; commit
//! ba10c4c has them): self-play erased what they added.

use crate::config::BootstrapConfig;
use crate::decisions::{Decision, samples, turn_decisions};
use crate::records::Sample;
use crate::selfplay::AbLearned;
use fanorona_rules::{Color, History, Outcome, Position, TurnMode};
use fanorona_search::{AbConfig, AlphaBeta, Limits};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError, mpsc};

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
/// games are done, now and then. Deterministic for a given `seed`. With `eval`, the
/// engine evaluates with that learned evaluation (`bootstrap.ab_eval`).
pub fn teacher_samples(
    start: &Position,
    cfg: &BootstrapConfig,
    eval: &AbLearned,
    max_turns: u32,
    seed: u64,
    on_games: &mut dyn FnMut(usize),
) -> (Vec<Sample>, BootstrapStats) {
    let mut samples = Vec::new();
    let stats = teacher_chunks(
        start,
        cfg,
        eval,
        0..cfg.games,
        max_turns,
        seed,
        &mut |s, done| {
            samples.extend(s);
            on_games(done);
        },
    );
    (samples, stats)
}

/// [`teacher_samples`] as a stream, for the games numbered `games` (each game's seed
/// depends on its number alone, so `0..n` then `n..m` plays the games of `0..m`):
/// `on_chunk(samples, games_done)` receives the samples in game order, a few dozen games
/// at a time, as soon as those games and every game before them are played;
/// `games_done` counts from 0, the games before `games.start` included.
///
/// The games run on a rayon pool of their own, as many threads as the current pool (so
/// that a caller's tensor work on the global pool never queues behind whole games), each
/// thread taking the next game as soon as it finishes one; this thread puts them back in
/// order. Games differ in length several times over, so a barrier after each chunk
/// would idle most cores of a large machine while the chunk's longest game finishes (7
/// of 16 cores were busy on average in a tsivy warm start that waited so).
#[allow(clippy::too_many_arguments)]
pub fn teacher_chunks(
    start: &Position,
    cfg: &BootstrapConfig,
    eval: &AbLearned,
    games: std::ops::Range<usize>,
    max_turns: u32,
    seed: u64,
    on_chunk: &mut dyn FnMut(Vec<Sample>, usize),
) -> BootstrapStats {
    const CHUNK: usize = 32;
    let threads = match cfg.threads {
        0 => rayon::current_num_threads(),
        n => n,
    };
    // Engines are kept for the next game (each game clears its tables first, so which
    // engine plays which game does not change the game).
    let spare: Mutex<Vec<AlphaBeta>> = Mutex::new(Vec::new());
    let engine = || {
        AlphaBeta::new(AbConfig {
            hash_mb: 16,
            learned: eval.clone(),
            // Full width: the teacher the recipe was measured with.
            selective: false,
            ..AbConfig::default()
        })
    };
    let (tx, rx) = mpsc::channel::<(usize, GameResult)>();
    let mut stats = BootstrapStats::default();
    let (begin, end) = (games.start, games.end);
    std::thread::scope(|scope| {
        let spare = &spare;
        let players = scope.spawn(move || {
            let play = || {
                games.clone().par_bridge().for_each(|i| {
                    let taken = spare.lock().unwrap_or_else(PoisonError::into_inner).pop();
                    let mut ab = taken.unwrap_or_else(engine);
                    let game = teacher_game(&mut ab, start, cfg, max_turns, game_seed(seed, i));
                    spare
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(ab);
                    // The receiver lives until every game is in.
                    let _ = tx.send((i, game));
                });
            };
            crate::on_own_pool(threads, "teacher", play)
        });
        let mut waiting: BTreeMap<usize, GameResult> = BTreeMap::new();
        let mut samples = Vec::new();
        let mut next = begin;
        for (i, game) in rx {
            waiting.insert(i, game);
            while let Some((s, outcome, turns)) = waiting.remove(&next) {
                next += 1;
                samples.extend(s);
                stats.games += 1;
                stats.turns += turns;
                match outcome {
                    Outcome::Win(Color::White) => stats.white += 1,
                    Outcome::Win(Color::Black) => stats.black += 1,
                    Outcome::Draw => stats.draws += 1,
                }
                if next % CHUNK == 0 || next == end {
                    on_chunk(std::mem::take(&mut samples), next);
                }
            }
        }
        players
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
    });
    stats
}

/// A teacher game's samples, result and number of turns.
type GameResult = (Vec<Sample>, Outcome, u64);

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
) -> GameResult {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = History::new(*start);
    // Fresh tables: a game does not depend on which games the engines played before.
    ab.new_game();
    let limits = Limits {
        depth: Some(cfg.depth),
        ..Limits::default()
    };
    let mut pending: Vec<Decision> = Vec::new();
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
        turn_decisions(&pos, &best, result.score, &mut pending);
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
    (
        samples(pending, outcome, game.position(), cfg.score_weight),
        outcome,
        turns,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_rules::{Game, RuleOptions, Variant};
    use fanorona_search::{BlendConfig, score_wdl};
    use fanorona_sim::num_planes;

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
        let (samples, stats) =
            teacher_samples(&start, &cfg, &None, 60, 7, &mut |n| reported.push(n));
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
        let (again, _) = teacher_samples(&start, &cfg, &None, 60, 7, &mut |_| {});
        assert_eq!(again.len(), samples.len());
        assert!(
            again
                .iter()
                .zip(&samples)
                .all(|(a, b)| a.policy == b.policy && a.wdl == b.wdl)
        );
    }

    #[test]
    fn chunks_come_in_game_order_whatever_the_threads() {
        // Games of very different lengths (random openings, up to 30 turns), engines
        // reused across games: one thread and four give the same stream.
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let cfg = BootstrapConfig {
            games: 70,
            depth: 1,
            explore: 0.1,
            opening_turns: 6,
            ..BootstrapConfig::default()
        };
        let stream = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut chunks = Vec::new();
                let mut all = Vec::new();
                let stats =
                    teacher_chunks(&start, &cfg, &None, 0..cfg.games, 30, 11, &mut |s, done| {
                        chunks.push(done);
                        all.extend(s);
                    });
                (chunks, all, stats)
            })
        };
        let (chunks, one, stats) = stream(1);
        assert_eq!(chunks, vec![32, 64, 70]);
        assert_eq!(stats.games, 70);
        let (chunks4, four, stats4) = stream(4);
        assert_eq!(chunks4, chunks);
        assert_eq!(stats4, stats);
        assert_eq!(one.len(), four.len());
        assert!(
            one.iter()
                .zip(&four)
                .all(|(a, b)| a.planes == b.planes && a.policy == b.policy && a.wdl == b.wdl)
        );
        // The engine's own thread count (`bootstrap.threads`) changes nothing either.
        let three = BootstrapConfig {
            threads: 3,
            ..cfg.clone()
        };
        let mut own = Vec::new();
        let stats3 = teacher_chunks(
            &start,
            &three,
            &None,
            0..three.games,
            30,
            11,
            &mut |s, _| own.extend(s),
        );
        assert_eq!(stats3, stats);
        assert!(
            own.iter()
                .zip(&one)
                .all(|(a, b)| a.planes == b.planes && a.policy == b.policy && a.wdl == b.wdl)
                && own.len() == one.len()
        );
        // Games 0..40 and then 40..70 (a warm start resumed): the same games, and the
        // counts go on from where the first part stopped.
        let (mut parts, mut done) = (Vec::new(), Vec::new());
        let first = teacher_chunks(&start, &cfg, &None, 0..40, 30, 11, &mut |s, d| {
            parts.extend(s);
            done.push(d);
        });
        let second = teacher_chunks(&start, &cfg, &None, 40..70, 30, 11, &mut |s, d| {
            parts.extend(s);
            done.push(d);
        });
        assert_eq!(done, vec![32, 40, 64, 70]);
        assert_eq!((first.games, second.games), (40, 30));
        assert_eq!(first.turns + second.turns, stats.turns);
        assert!(
            parts.len() == one.len()
                && parts
                    .iter()
                    .zip(&one)
                    .all(|(a, b)| a.planes == b.planes && a.policy == b.policy && a.wdl == b.wdl)
        );
        // And the same as the whole at once.
        let (whole, _) = teacher_samples(&start, &cfg, &None, 30, 11, &mut |_| {});
        assert_eq!(whole.len(), one.len());
        assert!(
            whole
                .iter()
                .zip(&one)
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
        let (samples, stats) = teacher_samples(&start, &cfg, &None, 40, 3, &mut |_| {});
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
        let (same, _) = teacher_samples(&start, &fixed, &None, 40, 3, &mut |_| {});
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
        let (samples, stats) = teacher_samples(&start, &cfg, &None, 40, 1, &mut |_| {});
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

    #[test]
    fn a_learned_evaluation_changes_the_teachers_values_and_plays_the_same_games_again() {
        // bootstrap.ab_eval: the engine's searches score their leaves with it, so the
        // values it gives (score_weight 1: the targets are its scores) differ; the same
        // evaluation gives the same games again.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../checkpoints/release/dimy/eval.txt");
        let learned = fanorona_search::LearnedEval::read(&path, Variant::Dimy).unwrap();
        let eval = Some(std::sync::Arc::new(learned));
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let cfg = BootstrapConfig {
            games: 4,
            depth: 3,
            explore: 0.1,
            opening_turns: 4,
            score_weight: 1.0,
            ..BootstrapConfig::default()
        };
        let values = |samples: &[Sample]| samples.iter().map(|s| s.wdl).collect::<Vec<_>>();
        let (hand, hs) = teacher_samples(&start, &cfg, &None, 40, 5, &mut |_| {});
        let (with, ws) = teacher_samples(&start, &cfg, &eval, 40, 5, &mut |_| {});
        let (again, _) = teacher_samples(&start, &cfg, &eval, 40, 5, &mut |_| {});
        assert_eq!((hs.games, ws.games), (4, 4));
        assert_ne!(
            values(&hand),
            values(&with),
            "the evaluation changed no search"
        );
        assert_eq!(values(&with), values(&again));
        assert_eq!(
            with.iter().map(|s| &s.policy).collect::<Vec<_>>(),
            again.iter().map(|s| &s.policy).collect::<Vec<_>>()
        );
    }
}
