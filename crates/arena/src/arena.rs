//! Round robins and gauntlets, from the traditional openings or from a book of positions
//! (each played twice, each player once on each side), played in parallel, recorded as
//! they finish so that an interrupted arena resumes without replaying a finished game.

use crate::elo::{PairResult, Pentanomial, Rating, ratings};
use crate::spec::{EngineSpec, SpecError};
use fanorona_nn::burn::prelude::Device;
use fanorona_rules::notation::format_turn;
use fanorona_rules::{Color, Outcome, PointStyle, Position, RuleOptions, Turn, TurnMode, Variant};
use fanorona_search::{GameError, Player, play_game};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// One finished game, as recorded in `games.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Spec of White.
    pub white: String,
    /// Spec of Black.
    pub black: String,
    /// Which of the start position's turns opened the game (0..5), in the traditional
    /// match; the index of the book position otherwise.
    pub opening: usize,
    /// `white`, `black` or `draw`.
    pub result: String,
    /// The game in notation (after the opening turn, in the traditional match).
    pub turns: Vec<String>,
    /// The key that identifies the game within its pairing.
    pub key: String,
    /// The position the game started from, when not the start position (a book
    /// position or `--fen`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    /// The key of the pair of games this one belongs to (the same start, each player
    /// once on each side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<String>,
    /// Seconds White and Black spent choosing their turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<[f64; 2]>,
    /// Turns White and Black chose (the traditional opening turn excluded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<[u32; 2]>,
}

/// Each player's mean thinking time per turn over `records` (seconds), for players
/// whose games record it: `(player, seconds per turn, turns)`.
pub fn time_per_turn(specs: &[String], records: &[GameRecord]) -> Vec<(String, f64, u64)> {
    let mut acc = vec![(0.0f64, 0u64); specs.len()];
    for r in records {
        let (Some(secs), Some(n)) = (r.seconds, r.chosen) else {
            continue;
        };
        for (side, name) in [&r.white, &r.black].into_iter().enumerate() {
            if let Some(i) = specs.iter().position(|s| s == name) {
                acc[i].0 += secs[side];
                acc[i].1 += u64::from(n[side]);
            }
        }
    }
    specs
        .iter()
        .zip(acc)
        .filter(|(_, (_, n))| *n > 0)
        .map(|(s, (t, n))| (s.clone(), t / n as f64, n))
        .collect()
}

/// Where the games of a pairing start.
#[derive(Clone, Debug, PartialEq)]
pub enum Openings {
    /// The traditional match: the start position, opened by each of its distinct first
    /// turns in turn.
    Traditional,
    /// Book positions (or the one position of `--fen`), used in order, each played twice.
    Book(Vec<Position>),
}

/// What to play.
#[derive(Clone, Debug)]
pub struct ArenaConfig {
    /// The variant (tsivy or dimy).
    pub variant: Variant,
    /// Rule options.
    pub rules: RuleOptions,
    /// Where games start.
    pub openings: Openings,
    /// Games per pairing (10: the traditional match, each opening once by each side).
    /// Game `g` plays start `g / 2`, the first player White in even games.
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
    /// A player failed in a game (no turn, or an illegal one): a bug, never a result.
    #[error("{0}")]
    Game(#[from] GameError),
    /// A game that was asked for no legal players.
    #[error("{0}")]
    Invalid(String),
}

/// A game to play: players by index, where it starts, and its keys.
#[derive(Clone, Debug)]
struct Job {
    white: usize,
    black: usize,
    opening: usize,
    start: Position,
    first: Option<Turn>,
    fen: Option<String>,
    key: String,
    pair: String,
}

/// The games of one pairing `a` vs `b`: game `g` plays start `g / 2` (cycling), `a`
/// White in even games. Traditional keys are `a | b | g` (as they always were); book keys
/// name the position, so a reordered book still resumes: `a | b | FEN | round.colour`.
fn pairing_jobs(
    specs: &[String],
    a: usize,
    b: usize,
    games: usize,
    start: &Position,
    openings: &Openings,
    traditional: &[Turn],
) -> Vec<Job> {
    (0..games)
        .map(|g| {
            let (white, black) = if g % 2 == 0 { (a, b) } else { (b, a) };
            let p = g / 2;
            match openings {
                Openings::Traditional => {
                    let o = p % traditional.len();
                    Job {
                        white,
                        black,
                        opening: o,
                        start: *start,
                        first: Some(traditional[o]),
                        fen: None,
                        key: format!("{} | {} | {g}", specs[a], specs[b]),
                        pair: format!("{} | {} | pair {p}", specs[a], specs[b]),
                    }
                }
                Openings::Book(book) => {
                    let i = p % book.len();
                    let round = p / book.len();
                    let fen = book[i].fen();
                    let pair = format!("{} | {} | {fen} | {round}", specs[a], specs[b]);
                    Job {
                        white,
                        black,
                        opening: i,
                        start: book[i],
                        first: None,
                        key: format!("{pair}.{}", g % 2),
                        fen: Some(fen),
                        pair,
                    }
                }
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

/// Decides, from every record of the pairings so far, whether to stop early (an SPRT
/// that has decided).
pub type StopRule<'a> = &'a (dyn Fn(&[GameRecord]) -> bool + Sync);

/// Plays every game of `pairings` not yet recorded, in parallel, in order (game pairs
/// finish together). `on_game` sees each finished game with the counts (done, total).
/// With `stop`, no new game starts once it holds for the records so far (those in
/// flight finish and are kept). Returns every record of these pairings, old and new.
///
/// # Errors
/// A spec that cannot be used, an output folder that cannot be written, or a player that
/// fails in a game (returns no turn, or an illegal one; the error names the player and
/// the position).
pub fn play_pairings(
    cfg: &ArenaConfig,
    specs: &[String],
    pairings: &[(usize, usize)],
    on_game: &(dyn Fn(&GameRecord, usize, usize) + Sync),
    stop: Option<StopRule<'_>>,
) -> Result<Vec<GameRecord>, ArenaError> {
    let parsed: Vec<EngineSpec> = specs
        .iter()
        .map(|s| EngineSpec::parse(s))
        .collect::<Result<_, _>>()?;
    // Fail early on a checkpoint that cannot be loaded.
    for (s, p) in specs.iter().zip(&parsed) {
        p.player(s, cfg.variant, &cfg.device)?;
    }
    let make = |k: usize, seed: u64| -> Result<Box<dyn Player>, ArenaError> {
        let spec = match &parsed[k] {
            EngineSpec::Random { seed: s } => EngineSpec::Random { seed: s ^ seed },
            other => other.clone(),
        };
        Ok(spec.player(&specs[k], cfg.variant, &cfg.device)?)
    };
    play_pairings_with(cfg, specs, pairings, &make, on_game, stop)
}

/// Makes player `k` of the specs for one game, with a seed for that game.
pub type PlayerFactory<'a> = &'a (dyn Fn(usize, u64) -> Result<Box<dyn Player>, ArenaError> + Sync);

/// As [`play_pairings`], with the players made by `make` (player index, seed) rather than
/// from their specs: for players that are not specs (tests, other front ends).
///
/// # Errors
/// As [`play_pairings`].
pub fn play_pairings_with(
    cfg: &ArenaConfig,
    specs: &[String],
    pairings: &[(usize, usize)],
    make: PlayerFactory<'_>,
    on_game: &(dyn Fn(&GameRecord, usize, usize) + Sync),
    stop: Option<StopRule<'_>>,
) -> Result<Vec<GameRecord>, ArenaError> {
    if let Openings::Book(b) = &cfg.openings {
        if b.is_empty() {
            return Err(ArenaError::Invalid("the book holds no positions".into()));
        }
        if let Some(p) = b.iter().find(|p| p.variant() != cfg.variant) {
            return Err(ArenaError::Invalid(format!(
                "book position `{}` is {}, the arena plays {}",
                p.fen(),
                p.variant(),
                cfg.variant
            )));
        }
    }
    let start = Position::start(cfg.variant, cfg.rules);
    let traditional = start.turns(TurnMode::Distinct);
    let all_jobs: Vec<Job> = pairings
        .iter()
        .flat_map(|&(a, b)| {
            pairing_jobs(specs, a, b, cfg.games, &start, &cfg.openings, &traditional)
        })
        .collect();
    let wanted: HashSet<&str> = all_jobs.iter().map(|j| j.key.as_str()).collect();
    let (old, _) = cfg.out.as_deref().map(read_records).unwrap_or_default();
    let old: Vec<GameRecord> = old
        .into_iter()
        .filter(|r| wanted.contains(r.key.as_str()))
        .collect();
    let done: HashSet<&str> = old.iter().map(|r| r.key.as_str()).collect();
    let jobs: Vec<&Job> = all_jobs
        .iter()
        .filter(|j| !done.contains(j.key.as_str()))
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
    let records = Mutex::new(old);
    let halt = AtomicBool::new(stop.is_some_and(|f| f(&records.lock().expect("not poisoned"))));
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let failure: Mutex<Option<ArenaError>> = Mutex::new(None);
    let play = |i: usize, j: &Job| -> Result<GameRecord, ArenaError> {
        let seed = cfg.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut w = make(j.white, seed ^ 1)?;
        let mut b = make(j.black, seed ^ 2)?;
        let played = play_game(
            w.as_mut(),
            b.as_mut(),
            j.start,
            j.first.as_ref(),
            cfg.max_turns,
        )?;
        let mut p = j.start;
        let mut text = Vec::with_capacity(played.turns.len());
        for t in &played.turns {
            text.push(format_turn(&p, t, PointStyle::Algebraic));
            p.play_unchecked(t);
        }
        Ok(GameRecord {
            white: specs[j.white].clone(),
            black: specs[j.black].clone(),
            opening: j.opening,
            result: played.outcome.name().to_string(),
            turns: text,
            key: j.key.clone(),
            fen: j.fen.clone(),
            pair: Some(j.pair.clone()),
            seconds: Some(played.seconds),
            chosen: Some(played.chosen),
        })
    };
    std::thread::scope(|scope| {
        for _ in 0..cfg.threads.max(1).min(total.max(1)) {
            scope.spawn(|| {
                loop {
                    if halt.load(Ordering::Relaxed) {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(j) = jobs.get(i) else { return };
                    match play(i, j) {
                        Ok(rec) => {
                            if let Some(f) = &file {
                                let line = serde_json::to_string(&rec).expect("records serialise");
                                let mut f = f.lock().expect("not poisoned");
                                let _ = writeln!(f, "{line}");
                                let _ = f.flush();
                            }
                            let n = finished.fetch_add(1, Ordering::Relaxed) + 1;
                            on_game(&rec, n, total);
                            let mut all = records.lock().expect("not poisoned");
                            all.push(rec);
                            if stop.is_some_and(|f| f(&all)) {
                                halt.store(true, Ordering::Relaxed);
                            }
                        }
                        Err(e) => {
                            halt.store(true, Ordering::Relaxed);
                            failure.lock().expect("not poisoned").get_or_insert(e);
                            return;
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().expect("not poisoned") {
        return Err(e);
    }
    Ok(records.into_inner().expect("not poisoned"))
}

/// The pentanomial counts of the finished pairs of `a` (first) against `b` in `records`:
/// pairs whose two games are both recorded, from `a`'s side.
pub fn pentanomial(a: &str, b: &str, records: &[GameRecord]) -> Pentanomial {
    let mut halves: HashMap<&str, Vec<f64>> = HashMap::new();
    for r in records {
        let score_a = if r.white == a && r.black == b {
            match r.result.as_str() {
                "white" => 1.0,
                "black" => 0.0,
                _ => 0.5,
            }
        } else if r.white == b && r.black == a {
            match r.result.as_str() {
                "white" => 0.0,
                "black" => 1.0,
                _ => 0.5,
            }
        } else {
            continue;
        };
        if let Some(p) = &r.pair {
            halves.entry(p.as_str()).or_default().push(score_a);
        }
    }
    let mut out = Pentanomial::default();
    for v in halves.values().filter(|v| v.len() == 2) {
        out.add(v[0], v[1]);
    }
    out
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
