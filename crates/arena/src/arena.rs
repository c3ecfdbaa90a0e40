//! Round robins and gauntlets of traditional matches, played in parallel, recorded as they
//! finish so that an interrupted arena resumes without replaying a finished game.

use crate::elo::{PairResult, Rating, ratings};
use crate::spec::{EngineSpec, SpecError};
use fanorona_nn::burn::prelude::Device;
use fanorona_rules::notation::format_turn;
use fanorona_rules::{Color, Outcome, PointStyle, Position, RuleOptions, TurnMode, Variant};
use fanorona_search::play_game;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One finished game, as recorded in `games.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Spec of White.
    pub white: String,
    /// Spec of Black.
    pub black: String,
    /// Which of the start position's turns opened the game (0..5).
    pub opening: usize,
    /// `white`, `black` or `draw`.
    pub result: String,
    /// The game in notation.
    pub turns: Vec<String>,
    /// The key that identifies the game within its pairing.
    pub key: String,
}

/// What to play.
#[derive(Clone, Debug)]
pub struct ArenaConfig {
    /// The variant (tsivy or dimy).
    pub variant: Variant,
    /// Rule options.
    pub rules: RuleOptions,
    /// Games per pairing (10: the traditional match, each opening once by each side).
    pub games: usize,
    /// Games played at once (each player single-threaded).
    pub threads: usize,
    /// Seed for random players.
    pub seed: u64,
    /// A game longer than this many turns is a draw.
    pub max_turns: usize,
    /// Where results accumulate (`games.jsonl`); `None`: nowhere.
    pub out: Option<PathBuf>,
    /// Device for network players.
    pub device: Device,
}

/// Why the arena could not run.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// A player spec that cannot be used.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The output folder.
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    /// A game that was asked for no legal players.
    #[error("{0}")]
    Invalid(String),
}

/// A game to play: players by index, which opening, and its key.
#[derive(Clone, Debug)]
struct Job {
    white: usize,
    black: usize,
    opening: usize,
    key: String,
}

/// The games of one pairing `a` vs `b`: game `g` opens with turn `(g / 2) % 5`, `a`
/// White in even games.
fn pairing_jobs(specs: &[String], a: usize, b: usize, games: usize, openings: usize) -> Vec<Job> {
    (0..games)
        .map(|g| {
            let (white, black) = if g % 2 == 0 { (a, b) } else { (b, a) };
            Job {
                white,
                black,
                opening: (g / 2) % openings,
                key: format!("{} | {} | {g}", specs[a], specs[b]),
            }
        })
        .collect()
}

/// Reads the games already recorded in `out/games.jsonl` (damaged lines are reported in
/// the second vector and ignored).
pub fn read_records(out: &Path) -> (Vec<GameRecord>, Vec<String>) {
    let path = out.join("games.jsonl");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return (Vec::new(), Vec::new());
    };
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for (i, l) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        match serde_json::from_str(l) {
            Ok(r) => good.push(r),
            Err(e) => bad.push(format!("{}:{}: {e}", path.display(), i + 1)),
        }
    }
    (good, bad)
}

/// Plays every game of `pairings` not yet recorded, in parallel. `on_game` sees each
/// finished game with the counts (done, total). Returns every record of these pairings,
/// old and new.
///
/// # Errors
/// A spec that cannot be used, or an output folder that cannot be written.
pub fn play_pairings(
    cfg: &ArenaConfig,
    specs: &[String],
    pairings: &[(usize, usize)],
    on_game: &(dyn Fn(&GameRecord, usize, usize) + Sync),
) -> Result<Vec<GameRecord>, ArenaError> {
    let parsed: Vec<EngineSpec> = specs
        .iter()
        .map(|s| EngineSpec::parse(s))
        .collect::<Result<_, _>>()?;
    // Fail early on a checkpoint that cannot be loaded.
    for (s, p) in specs.iter().zip(&parsed) {
        p.player(s, cfg.variant, &cfg.device)?;
    }
    let start = Position::start(cfg.variant, cfg.rules);
    let openings = start.turns(TurnMode::Distinct);
    let (old, _) = cfg.out.as_deref().map(read_records).unwrap_or_default();
    let done: HashSet<String> = old.iter().map(|r| r.key.clone()).collect();
    let jobs: Vec<Job> = pairings
        .iter()
        .flat_map(|&(a, b)| pairing_jobs(specs, a, b, cfg.games, openings.len()))
        .filter(|j| !done.contains(&j.key))
        .collect();
    let file = match &cfg.out {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| ArenaError::Io(dir.clone(), e))?;
            let p = dir.join("games.jsonl");
            Some(Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&p)
                    .map_err(|e| ArenaError::Io(p, e))?,
            ))
        }
        None => None,
    };
    let total = jobs.len();
    let counter = std::sync::atomic::AtomicUsize::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads.max(1))
        .build()
        .map_err(|e| ArenaError::Invalid(e.to_string()))?;
    let new: Vec<GameRecord> = pool.install(|| {
        jobs.par_iter()
            .enumerate()
            .map(|(i, j)| {
                let seed = cfg.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let mk = |k: usize, salt: u64| {
                    let spec = match &parsed[k] {
                        EngineSpec::Random { seed: s } => EngineSpec::Random {
                            seed: s ^ seed ^ salt,
                        },
                        other => other.clone(),
                    };
                    spec.player(&specs[k], cfg.variant, &cfg.device)
                        .expect("checked above")
                };
                let mut w = mk(j.white, 1);
                let mut b = mk(j.black, 2);
                let (outcome, turns) = play_game(
                    w.as_mut(),
                    b.as_mut(),
                    start,
                    Some(&openings[j.opening]),
                    cfg.max_turns,
                );
                let mut p = start;
                let mut text = Vec::with_capacity(turns.len());
                for t in &turns {
                    text.push(format_turn(&p, t, PointStyle::Algebraic));
                    p.play_unchecked(t);
                }
                let rec = GameRecord {
                    white: specs[j.white].clone(),
                    black: specs[j.black].clone(),
                    opening: j.opening,
                    result: outcome.name().to_string(),
                    turns: text,
                    key: j.key.clone(),
                };
                if let Some(f) = &file {
                    let line = serde_json::to_string(&rec).expect("records serialise");
                    let mut f = f.lock().expect("not poisoned");
                    let _ = writeln!(f, "{line}");
                    let _ = f.flush();
                }
                let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                on_game(&rec, n, total);
                rec
            })
            .collect()
    });
    let wanted: HashSet<String> = pairings
        .iter()
        .flat_map(|&(a, b)| pairing_jobs(specs, a, b, cfg.games, openings.len()))
        .map(|j| j.key)
        .collect();
    Ok(old
        .into_iter()
        .filter(|r| wanted.contains(&r.key))
        .chain(new)
        .collect())
}

/// Pairwise results of `specs` from game records.
pub fn tally(specs: &[String], records: &[GameRecord]) -> Vec<PairResult> {
    let mut out: Vec<PairResult> = Vec::new();
    for r in records {
        let (Some(w), Some(b)) = (
            specs.iter().position(|s| *s == r.white),
            specs.iter().position(|s| *s == r.black),
        ) else {
            continue;
        };
        let (a, bb, flip) = if w < b { (w, b, false) } else { (b, w, true) };
        let entry = match out.iter_mut().find(|p| p.a == a && p.b == bb) {
            Some(e) => e,
            None => {
                out.push(PairResult {
                    a,
                    b: bb,
                    ..PairResult::default()
                });
                out.last_mut().expect("just pushed")
            }
        };
        let white_won = r.result == "white";
        let black_won = r.result == "black";
        match (white_won, black_won, flip) {
            (true, _, false) | (_, true, true) => entry.wins += 1,
            (_, true, false) | (true, _, true) => entry.losses += 1,
            _ => entry.draws += 1,
        }
    }
    out
}

/// The anchor: `random` if playing, else `ab:depth=1`, else the first player; but only
/// a player whose score is neither 0 nor 100 % can anchor finite ratings, so when the
/// preferred one has such a score the player scoring closest to 50 % anchors instead.
pub fn default_anchor(specs: &[String], records: &[GameRecord]) -> usize {
    let results = tally(specs, records);
    let mut score = vec![(0.0f64, 0u32); specs.len()];
    for r in &results {
        let g = r.wins + r.draws + r.losses;
        score[r.a].0 += r.wins as f64 + 0.5 * r.draws as f64;
        score[r.a].1 += g;
        score[r.b].0 += r.losses as f64 + 0.5 * r.draws as f64;
        score[r.b].1 += g;
    }
    let finite = |i: usize| score[i].1 == 0 || (score[i].0 > 0.0 && score[i].0 < score[i].1 as f64);
    let preferred = specs
        .iter()
        .position(|s| s == "random" || s.starts_with("random:"))
        .or_else(|| specs.iter().position(|s| s == "ab:depth=1"))
        .unwrap_or(0);
    if finite(preferred) {
        return preferred;
    }
    (0..specs.len())
        .filter(|&i| finite(i))
        .min_by(|&a, &b| {
            let d = |i: usize| (score[i].0 / score[i].1.max(1) as f64 - 0.5).abs();
            d(a).total_cmp(&d(b))
        })
        .unwrap_or(preferred)
}

/// Ratings of `specs` from records, anchored on `anchor`.
pub fn rate(specs: &[String], records: &[GameRecord], anchor: usize) -> Vec<Rating> {
    ratings(specs.len(), &tally(specs, records), anchor)
}

/// Score of `c` in an outcome (1, 0.5, 0).
pub fn points(o: Outcome, c: Color) -> f64 {
    (o.score_for(c) as f64 + 1.0) / 2.0
}
