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
//! The policy target is the engine's choice alone by default. With
//! `bootstrap.soft_temperature` above 0 every distinct turn is searched one turn less
//! deep and the target spreads over them by a softmax of their scores (that many
//! hundredths of a piece per factor e): turns nearly as good as the engine's choice keep
//! some probability, as a search's visit counts would, instead of none.
//!
//! With `bootstrap.sibling_values = K`, each of the engine's turns also yields up to K
//! value-only samples: the positions after other turns it could have played (drawn at
//! random), valued by the engine's score of them, so that the network learns what
//! follows a blunder, which the engine's own games never show. They are searched by a
//! second engine, so the games stay the ones played without them.

use crate::config::BootstrapConfig;
use crate::records::{Sample, ownership_targets};
use crate::selfplay::AbEval;
use fanorona_rules::game::action_index;
use fanorona_rules::{Action, Color, History, Outcome, Position, Turn, TurnMode};
use fanorona_search::{AbConfig, AlphaBeta, BlendConfig, Limits, score_wdl, wdl_index};
use fanorona_sim::{Encode, frame_action, num_planes};
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
    eval: &AbEval,
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
    eval: &AbEval,
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
    type Engines = (AlphaBeta, Option<AlphaBeta>);
    let spare: Mutex<Vec<Engines>> = Mutex::new(Vec::new());
    let engines = || {
        let engine = || {
            AlphaBeta::new(AbConfig {
                hash_mb: 16,
                learned: eval.clone(),
                ..AbConfig::default()
            })
        };
        (engine(), (cfg.sibling_values > 0).then(engine))
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
                    let (mut ab, mut sibling_ab) = taken.unwrap_or_else(engines);
                    let game = teacher_game(
                        &mut ab,
                        sibling_ab.as_mut(),
                        start,
                        cfg,
                        max_turns,
                        game_seed(seed, i),
                    );
                    spare
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push((ab, sibling_ab));
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

/// A teacher decision waiting for its game's result.
struct Decision {
    planes: Vec<f32>,
    /// The policy target, in the mover's frame.
    policy: Vec<(u16, f32)>,
    mover: Color,
    /// The engine's score for the mover.
    score: i32,
}

/// One game: its samples, its result and its length in turns. `sibling_ab` searches the
/// positions of `cfg.sibling_values` (its own tables, so that the game is unchanged).
fn teacher_game(
    ab: &mut AlphaBeta,
    mut sibling_ab: Option<&mut AlphaBeta>,
    start: &Position,
    cfg: &BootstrapConfig,
    max_turns: u32,
    seed: u64,
) -> GameResult {
    let variant = start.variant();
    let per = num_planes(variant) * variant.points();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = History::new(*start);
    // Fresh tables: a game does not depend on which games the engines played before.
    ab.new_game();
    if let Some(sab) = sibling_ab.as_deref_mut() {
        sab.new_game();
    }
    let limits = Limits {
        depth: Some(cfg.depth),
        ..Limits::default()
    };
    let mut pending: Vec<Decision> = Vec::new();
    let mut siblings: Vec<Sample> = Vec::new();
    // The siblings' own random stream, so that the games' is the same with or without.
    let mut sibling_rng = SmallRng::seed_from_u64(seed ^ 0x5EB1_1265);
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
        if let Some(sab) = sibling_ab.as_deref_mut() {
            sibling_samples(sab, &mut game, best, cfg, &mut sibling_rng, &mut siblings);
        }
        let weighted = turn_weights(ab, &mut game, best, cfg);
        // The engine's turn, step by step, as targets.
        let paths: Vec<(Vec<Action>, f32)> = weighted
            .iter()
            .map(|(t, w)| (pos.turn_actions(t), *w))
            .collect();
        let chosen = pos.turn_actions(&best);
        let mut step = pos;
        for (j, &a) in chosen.iter().enumerate() {
            let mover = step.side_to_move();
            let mut planes = vec![0.0; per];
            step.encode(&mut planes);
            let policy = step_target(&paths, &chosen[..j], |x| {
                frame_action(variant, mover, action_index(variant.points(), x)) as u16
            });
            pending.push(Decision {
                planes,
                policy,
                mover,
                score: result.score,
            });
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
    let ownership = ownership_targets(game.position());
    let samples = pending
        .into_iter()
        .map(
            |Decision {
                 planes,
                 policy,
                 mover,
                 score,
             }| {
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
                    policy,
                    wdl,
                    ownership: ownership(mover),
                }
            },
        )
        .chain(siblings)
        .collect();
    (samples, outcome, turns)
}

/// Up to `cfg.sibling_values` distinct turns other than `best`, drawn with `rng`, each as
/// a value-only sample: the position after it (not a finished game), its value the
/// engine's score of it searched one turn less deep than the teacher. `game` is as it
/// was on return.
fn sibling_samples(
    ab: &mut AlphaBeta,
    game: &mut History,
    best: Turn,
    cfg: &BootstrapConfig,
    rng: &mut SmallRng,
    out: &mut Vec<Sample>,
) {
    let pos = game.position();
    let variant = pos.variant();
    let mut others: Vec<Turn> = pos
        .turns(TurnMode::Distinct)
        .into_iter()
        .filter(|t| t.key() != best.key())
        .collect();
    let limits = Limits {
        depth: Some(cfg.depth.saturating_sub(1).max(1)),
        ..Limits::default()
    };
    let scale = BlendConfig::default().scale;
    for _ in 0..cfg.sibling_values {
        if others.is_empty() {
            break;
        }
        let turn = others.swap_remove(rng.random_range(0..others.len()));
        game.play_unchecked(&turn);
        if game.outcome().is_none() {
            let after = game.position();
            let mut planes = vec![0.0; num_planes(variant) * variant.points()];
            after.encode(&mut planes);
            let score = ab.search(game, &limits).score.clamp(-10_000, 10_000);
            out.push(Sample {
                planes,
                policy: Vec::new(),
                wdl: score_wdl(score, scale),
                ownership: Vec::new(),
            });
        }
        game.undo();
    }
}

/// The turns a decision's policy targets spread over, with weights summing to 1: the
/// engine's choice alone, or with `cfg.soft_temperature > 0` every distinct turn by a
/// softmax of its score (each searched one turn less deep, after it is played on `game`;
/// `game` is as it was on return). The engine's `best` stands for its own distinct turn.
fn turn_weights(
    ab: &mut AlphaBeta,
    game: &mut History,
    best: Turn,
    cfg: &BootstrapConfig,
) -> Vec<(Turn, f32)> {
    let turns = game.position().turns(TurnMode::Distinct);
    if cfg.soft_temperature <= 0.0 || turns.len() < 2 {
        return vec![(best, 1.0)];
    }
    let limits = Limits {
        depth: Some(cfg.depth.saturating_sub(1).max(1)),
        ..Limits::default()
    };
    // Scores for the mover, capped at 100 pieces so that mate scores stay finite.
    let scores: Vec<f64> = turns
        .iter()
        .map(|t| {
            game.play_unchecked(t);
            let s = -ab.search(game, &limits).score;
            game.undo();
            f64::from(s.clamp(-10_000, 10_000))
        })
        .collect();
    let top = scores.iter().copied().fold(f64::MIN, f64::max);
    let t = f64::from(cfg.soft_temperature);
    let e: Vec<f64> = scores.iter().map(|s| ((s - top) / t).exp()).collect();
    let sum: f64 = e.iter().sum();
    turns
        .into_iter()
        .zip(e)
        .map(|(turn, x)| {
            let turn = if turn.key() == best.key() { best } else { turn };
            (turn, (x / sum) as f32)
        })
        .filter(|&(_, w)| w > 0.0)
        .collect()
}

/// The policy target of the decision after `prefix` (the chosen turn's first actions):
/// the weights of the turns that begin with `prefix`, gathered by their next action
/// (`index` maps it to the mover's frame) and normalised.
fn step_target(
    paths: &[(Vec<Action>, f32)],
    prefix: &[Action],
    index: impl Fn(Action) -> u16,
) -> Vec<(u16, f32)> {
    let j = prefix.len();
    let mut target: Vec<(u16, f32)> = Vec::new();
    for (actions, w) in paths {
        if actions.len() > j && actions[..j] == *prefix {
            let i = index(actions[j]);
            match target.iter_mut().find(|(k, _)| *k == i) {
                Some(e) => e.1 += w,
                None => target.push((i, *w)),
            }
        }
    }
    let total: f32 = target.iter().map(|e| e.1).sum();
    for e in &mut target {
        e.1 /= total;
    }
    target
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
        // reused across games (siblings too): one thread and four give the same stream.
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let cfg = BootstrapConfig {
            games: 70,
            depth: 1,
            explore: 0.1,
            opening_turns: 6,
            sibling_values: 1,
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
    fn step_targets_gather_the_turns_that_share_the_chosen_prefix() {
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let a = start.actions();
        assert!(a.len() >= 3);
        let (x, y, z) = (a[0], a[1], a[2]);
        let index = |act: Action| match act {
            Action::EndTurn => 999,
            _ => a.iter().position(|&b| b == act).unwrap() as u16,
        };
        let paths = vec![
            (vec![x, y], 0.5),
            (vec![x, Action::EndTurn], 0.3),
            (vec![z], 0.2),
        ];
        let close = |got: Vec<(u16, f32)>, want: &[(u16, f32)]| {
            assert_eq!(got.len(), want.len(), "{got:?}");
            for ((i, p), (j, q)) in got.iter().zip(want) {
                assert_eq!(i, j);
                assert!((p - q).abs() < 1e-6, "{got:?}");
            }
        };
        close(step_target(&paths, &[], index), &[(0, 0.8), (2, 0.2)]);
        close(
            step_target(&paths, &[x], index),
            &[(1, 0.625), (999, 0.375)],
        );
        close(step_target(&paths, &[x, y], index), &[]);
    }

    #[test]
    fn soft_targets_spread_over_legal_actions_and_keep_the_engines_choice() {
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let hard = BootstrapConfig {
            games: 1,
            depth: 3,
            explore: 0.0,
            ..BootstrapConfig::default()
        };
        let soft = BootstrapConfig {
            soft_temperature: 10_000.0,
            ..hard.clone()
        };
        let (h, _) = teacher_samples(&start, &hard, &None, 30, 2, &mut |_| {});
        let (s, _) = teacher_samples(&start, &soft, &None, 30, 2, &mut |_| {});
        for x in &s {
            assert!((x.policy.iter().map(|e| e.1).sum::<f32>() - 1.0).abs() < 1e-5);
            assert!(x.policy.iter().all(|e| e.1 > 0.0));
        }
        // The first decision is at the start: every target action is legal there, the
        // engine's choice among them, and a high temperature spreads over several.
        let mut legal = Vec::new();
        start.legal_actions(&mut legal);
        assert_eq!(s[0].planes, h[0].planes);
        assert!(s[0].policy.len() > 1, "{:?}", s[0].policy);
        assert!(s[0].policy.iter().all(|e| legal.contains(&(e.0 as usize))));
        assert!(s[0].policy.iter().any(|e| e.0 == h[0].policy[0].0));
        // Spread, not one-hot, somewhere in the game; one-hot everywhere without it.
        assert!(h.iter().all(|x| x.policy.len() == 1));
    }

    #[test]
    fn sibling_values_add_value_only_samples_and_leave_the_games_alone() {
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let plain = BootstrapConfig {
            games: 3,
            depth: 3,
            explore: 0.1,
            opening_turns: 4,
            ..BootstrapConfig::default()
        };
        let with = BootstrapConfig {
            sibling_values: 2,
            ..plain.clone()
        };
        let (p, ps) = teacher_samples(&start, &plain, &None, 40, 5, &mut |_| {});
        let (w, ws) = teacher_samples(&start, &with, &None, 40, 5, &mut |_| {});
        assert_eq!(ps, ws, "the same games");
        let (games, extra): (Vec<&Sample>, Vec<&Sample>) =
            w.iter().partition(|s| !s.policy.is_empty());
        assert_eq!(games.len(), p.len());
        assert!(
            games
                .iter()
                .zip(&p)
                .all(|(a, b)| a.planes == b.planes && a.wdl == b.wdl)
        );
        // Up to two a turn, fewer where a position has fewer other turns.
        assert!(extra.len() as u64 > ws.turns / 2 && extra.len() as u64 <= 2 * ws.turns);
        // Each is a position the engine values: no draw mass, a win probability.
        for s in &extra {
            assert_eq!(s.wdl[1], 0.0);
            assert!((s.wdl[0] + s.wdl[2] - 1.0).abs() < 1e-6);
        }
        // Not the games' positions: positions the engine did not play into.
        let played: std::collections::HashSet<Vec<u32>> = p
            .iter()
            .map(|s| s.planes.iter().map(|x| x.to_bits()).collect())
            .collect();
        let unseen = extra
            .iter()
            .filter(|s| !played.contains(&s.planes.iter().map(|x| x.to_bits()).collect::<Vec<_>>()))
            .count();
        assert!(
            unseen * 2 > extra.len(),
            "{unseen} of {} unseen",
            extra.len()
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
