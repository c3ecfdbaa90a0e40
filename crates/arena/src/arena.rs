//! Round robins and gauntlets, from the traditional openings or from a book of positions
//! (each played twice, each player once on each side), played in parallel, recorded as
//! they finish so that an interrupted arena resumes without replaying a finished game.

use crate::elo::{PairResult, PairedDiff, Pentanomial, Rating, Trend, ratings};
use fanorona_nn::burn::prelude::Device;
use fanorona_nn::spec::{EngineSpec, Nets, SpecError};
use fanorona_rules::notation::format_turn;
use fanorona_rules::{
    Color, Outcome, PointStyle, Position, RuleOptions, Turn, TurnMode, Variant, VelaForm,
};
use fanorona_search::{GameError, Player, TimeControl, play_game_on_clock};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub use fanorona_formats::arena::{GameRecord, parse_records, read_records};

/// A player's thinking time over a match's records, and its games lost on time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TurnTimes {
    /// The player's spec.
    pub player: String,
    /// Mean seconds a turn, over the games that record it.
    pub mean: f64,
    /// The longest turn, seconds (over the games that record it; 0 if none does).
    pub longest: f64,
    /// Turns those means are over.
    pub turns: u64,
    /// Games it lost because its clock ran out.
    pub lost_on_time: u32,
}

/// Each player's thinking time per turn over `records`, for players whose games record
/// it, with its games lost on time.
pub fn time_per_turn(specs: &[String], records: &[GameRecord]) -> Vec<TurnTimes> {
    let mut acc: Vec<TurnTimes> = specs
        .iter()
        .map(|s| TurnTimes {
            player: s.clone(),
            mean: 0.0,
            longest: 0.0,
            turns: 0,
            lost_on_time: 0,
        })
        .collect();
    for r in records {
        for (side, name) in [&r.white, &r.black].into_iter().enumerate() {
            let Some(t) = specs.iter().position(|s| s == name).map(|i| &mut acc[i]) else {
                continue;
            };
            if let (Some(secs), Some(n)) = (r.seconds, r.chosen) {
                t.mean += secs[side];
                t.turns += u64::from(n[side]);
            }
            if let Some(l) = r.longest {
                t.longest = t.longest.max(l[side]);
            }
            if r.flagged.as_deref() == Some(["white", "black"][side]) {
                t.lost_on_time += 1;
            }
        }
    }
    acc.into_iter()
        .filter(|t| t.turns > 0)
        .map(|t| TurnTimes {
            mean: t.mean / t.turns as f64,
            ..t
        })
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

/// How the games of a pairing are scheduled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Independent games (riatras): each start played twice, each player once on each side.
    #[default]
    Riatras,
    /// The match as played in Madagascar (docs/RULES.md section 9): the players take turns
    /// to open riatras, each of the five openings twice in a row (once by each), the order
    /// of the players reversed after the five; the loser of a riatra at once plays a vela
    /// of `vela_form` as the vela player, again after a vela lost or drawn, until it wins
    /// one or `max_velas` were played (the debt then stays unpaid). Drawn riatras have no
    /// vela. Needs [`Openings::Traditional`].
    Malagasy {
        /// The vela's form agreed for the match.
        vela_form: VelaForm,
        /// The most velas after one riatra.
        max_velas: u32,
    },
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
    /// How games are scheduled.
    pub format: Format,
    /// Games per pairing (10: the traditional match, each opening once by each side).
    /// Game `g` plays start `g / 2`, the first player White in even games. In the
    /// Malagasy format: riatras per pairing (their velas come on top).
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
    /// Endgame tables that end a game at the first position they cover, with their
    /// result (`None`, the default: every game is played out).
    pub adjudicate: Option<std::sync::Arc<fanorona_tb::Tablebase>>,
    /// Each player's clock for a game (`None`, the default: the players' own limits a
    /// turn alone). A player whose clock runs out loses the game.
    pub clock: Option<TimeControl>,
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
    pair: Option<String>,
    vela: Option<String>,
}

impl Job {
    /// A game of players `(white, black)` from `start` opened by traditional opening `o`
    /// (of `traditional`), recorded under `key` and paired under `pair`.
    fn traditional(
        (white, black): (usize, usize),
        start: &Position,
        traditional: &[Turn],
        o: usize,
        key: String,
        pair: String,
    ) -> Job {
        Job {
            white,
            black,
            opening: o,
            start: *start,
            first: Some(traditional[o]),
            fen: None,
            key,
            pair: Some(pair),
            vela: None,
        }
    }
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
            let (white, black) = if g.is_multiple_of(2) { (a, b) } else { (b, a) };
            let p = g / 2;
            match openings {
                Openings::Traditional => Job::traditional(
                    (white, black),
                    start,
                    traditional,
                    p % traditional.len(),
                    format!("{} | {} | {g}", specs[a], specs[b]),
                    format!("{} | {} | pair {p}", specs[a], specs[b]),
                ),
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
                        pair: Some(pair),
                        vela: None,
                    }
                }
            }
        })
        .collect()
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
        p.player(s, cfg.variant, &Nets::on(&cfg.device))?;
    }
    let make = |k: usize, seed: u64| -> Result<Box<dyn Player>, ArenaError> {
        let spec = match &parsed[k] {
            EngineSpec::Random { seed: s } => EngineSpec::Random { seed: s ^ seed },
            other => other.clone(),
        };
        Ok(spec.player(&specs[k], cfg.variant, &Nets::on(&cfg.device))?)
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
    // Units of work: one game, or in the Malagasy format a riatra with its velas.
    let units: Vec<Job> = match cfg.format {
        Format::Riatras => pairings
            .iter()
            .flat_map(|&(a, b)| {
                pairing_jobs(specs, a, b, cfg.games, &start, &cfg.openings, &traditional)
            })
            .collect(),
        Format::Malagasy { .. } => {
            if cfg.openings != Openings::Traditional {
                return Err(ArenaError::Invalid(
                    "the Malagasy match format plays the five openings (no book, no --fen)".into(),
                ));
            }
            pairings
                .iter()
                .flat_map(|&(a, b)| riatra_jobs(specs, a, b, cfg.games, &start, &traditional))
                .collect()
        }
    };
    let wanted: HashSet<&str> = units.iter().map(|j| j.key.as_str()).collect();
    let (old, _) = cfg.out.as_deref().map(read_records).unwrap_or_default();
    let old: Vec<GameRecord> = old
        .into_iter()
        .filter(|r| {
            let unit = r.key.split(VELA_KEY).next().unwrap_or_default();
            wanted.contains(unit)
        })
        .collect();
    let tc = cfg.clock.map(|c| c.to_string());
    if let Some(r) = old.iter().find(|r| r.tc != tc) {
        let on = |t: &Option<String>| {
            t.as_deref()
                .map_or("no clock".to_string(), |t| format!("tc {t}"))
        };
        return Err(ArenaError::Invalid(format!(
            "{} holds games played on {}, and this match is on {}: give it another --out",
            cfg.out
                .as_deref()
                .unwrap_or(Path::new(""))
                .join("games.jsonl")
                .display(),
            on(&r.tc),
            on(&tc)
        )));
    }
    let known: HashMap<String, GameRecord> =
        old.iter().map(|r| (r.key.clone(), r.clone())).collect();
    let total = units.iter().filter(|j| !known.contains_key(&j.key)).count();
    let file = match &cfg.out {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| ArenaError::Io(dir.clone(), e))?;
            let p = dir.join("games.jsonl");
            let f = fanorona_rules::durable::Appender::open(&p, true)
                .map_err(|e| ArenaError::Io(p.clone(), e))?;
            Some((p, Mutex::new(f)))
        }
        None => None,
    };
    let records = Mutex::new(old);
    let halt = AtomicBool::new(stop.is_some_and(|f| f(&records.lock().expect("not poisoned"))));
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let failure: Mutex<Option<ArenaError>> = Mutex::new(None);
    // A game recorded by an earlier run, or played now and recorded.
    let game = |j: &Job, seed: u64| -> Result<GameRecord, ArenaError> {
        if let Some(r) = known.get(&j.key) {
            return Ok(r.clone());
        }
        let rec = play_job(cfg, specs, make, j, seed)?;
        if let Some((p, f)) = &file {
            // A game that cannot be recorded stops the match (a resumed one plays it).
            let line = serde_json::to_string(&rec).expect("records serialise");
            f.lock()
                .expect("not poisoned")
                .line(&line)
                .map_err(|e| ArenaError::Io(p.clone(), e))?;
        }
        let n = if rec.vela.is_none() {
            finished.fetch_add(1, Ordering::Relaxed) + 1
        } else {
            finished.load(Ordering::Relaxed)
        };
        on_game(&rec, n, total);
        let mut all = records.lock().expect("not poisoned");
        all.push(rec.clone());
        if stop.is_some_and(|f| f(&all)) {
            halt.store(true, Ordering::Relaxed);
        }
        Ok(rec)
    };
    let unit = |i: usize, j: &Job| -> Result<(), ArenaError> {
        let seed = cfg.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        play_unit(cfg, j, seed, &game)
    };
    std::thread::scope(|scope| {
        for _ in 0..cfg.threads.max(1).min(total.max(1)) {
            scope.spawn(|| {
                loop {
                    if halt.load(Ordering::Relaxed) {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(j) = units.get(i) else { return };
                    if let Err(e) = unit(i, j) {
                        halt.store(true, Ordering::Relaxed);
                        failure.lock().expect("not poisoned").get_or_insert(e);
                        return;
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

/// Plays a unit of work with `game`: the game `j`, and in the Malagasy format the velas
/// its loser then owes.
fn play_unit(
    cfg: &ArenaConfig,
    j: &Job,
    seed: u64,
    game: &dyn Fn(&Job, u64) -> Result<GameRecord, ArenaError>,
) -> Result<(), ArenaError> {
    let riatra = game(j, seed)?;
    let Format::Malagasy {
        vela_form,
        max_velas,
    } = cfg.format
    else {
        return Ok(());
    };
    // The loser owes velas until it wins one.
    let debtor = match riatra.result.as_str() {
        "white" => Color::Black,
        "black" => Color::White,
        _ => return Ok(()),
    };
    let rules = RuleOptions {
        vela: Some(debtor),
        vela_form,
        ..cfg.rules
    };
    let from = Position::start(cfg.variant, rules);
    for k in 1..=max_velas {
        let vela = Job {
            start: from,
            first: None,
            fen: Some(from.fen()),
            key: format!("{}{VELA_KEY}{k}", j.key),
            pair: None,
            vela: Some(format!("{} {vela_form}", debtor.name())),
            ..j.clone()
        };
        let rec = game(
            &vela,
            seed ^ u64::from(k).wrapping_mul(0xD6E8_FEB8_6659_FD93),
        )?;
        if rec.result == debtor.name() {
            break;
        }
    }
    Ok(())
}

/// What separates a riatra's key from its velas' (`KEY | vela K`).
const VELA_KEY: &str = " | vela ";

/// Plays one game and records it.
fn play_job(
    cfg: &ArenaConfig,
    specs: &[String],
    make: PlayerFactory<'_>,
    j: &Job,
    seed: u64,
) -> Result<GameRecord, ArenaError> {
    let mut w = make(j.white, seed ^ 1)?;
    let mut b = make(j.black, seed ^ 2)?;
    let played = play_game_on_clock(
        w.as_mut(),
        b.as_mut(),
        j.start,
        j.first.as_ref(),
        cfg.max_turns,
        cfg.adjudicate.as_deref(),
        cfg.clock,
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
        pair: j.pair.clone(),
        seconds: Some(played.seconds),
        chosen: Some(played.chosen),
        vela: j.vela.clone(),
        adjudicated: played.adjudicated,
        longest: Some(played.longest),
        tc: cfg.clock.map(|c| c.to_string()),
        flagged: played.flagged.map(|c| c.name().to_string()),
    })
}

/// The riatras of the Malagasy match between `a` and `b`: riatra `r` plays opening
/// `(r / 2) % 5`, opened (as White) by the first player of its round in even `r` and by
/// the other in odd `r`; the first player is `a` in the first round of five openings, `b`
/// in the next, and so on. Keys: `a | b | riatra r`.
fn riatra_jobs(
    specs: &[String],
    a: usize,
    b: usize,
    riatras: usize,
    start: &Position,
    traditional: &[Turn],
) -> Vec<Job> {
    let n = traditional.len();
    (0..riatras)
        .map(|r| {
            let round = r / (2 * n);
            let (first, second) = if round.is_multiple_of(2) {
                (a, b)
            } else {
                (b, a)
            };
            let (white, black) = if r.is_multiple_of(2) {
                (first, second)
            } else {
                (second, first)
            };
            Job::traditional(
                (white, black),
                start,
                traditional,
                (r / 2) % n,
                format!("{} | {} | riatra {r}", specs[a], specs[b]),
                format!("{} | {} | riatra pair {}", specs[a], specs[b], r / 2),
            )
        })
        .collect()
}

/// Tournament points of one player in the Malagasy format (docs/RULES.md section 9).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MatchPoints {
    /// The player's spec.
    pub player: String,
    /// Points: 3 a riatra won, 3 a vela won as the riatra winner; nothing else scores.
    pub points: u32,
    /// Riatras won, drawn, lost.
    pub riatras: [u32; 3],
    /// Velas played as the riatra winner: won, drawn, lost (each lost one clears the
    /// other's debt).
    pub velas_given: [u32; 3],
    /// Velas played as the debtor: won (debt cleared), drawn, lost.
    pub velas_owed: [u32; 3],
    /// Riatras lost whose debt was still unpaid after the last vela allowed.
    pub unpaid: u32,
}

/// Tournament points of each player from the records of Malagasy matches. `max_velas`
/// is the match's cap (a debt is unpaid when that many velas were played and the last
/// was not won by the debtor).
pub fn match_points(specs: &[String], records: &[GameRecord], max_velas: u32) -> Vec<MatchPoints> {
    let mut out: Vec<MatchPoints> = specs
        .iter()
        .map(|s| MatchPoints {
            player: s.clone(),
            ..MatchPoints::default()
        })
        .collect();
    let idx = |s: &str| specs.iter().position(|x| x == s);
    // Velas by their riatra's key.
    let mut velas: HashMap<&str, Vec<&GameRecord>> = HashMap::new();
    for r in records {
        if r.vela.is_some()
            && let Some(unit) = r.key.split(VELA_KEY).next()
        {
            velas.entry(unit).or_default().push(r);
        }
    }
    for r in records {
        let (Some(w), Some(b)) = (idx(&r.white), idx(&r.black)) else {
            continue;
        };
        let side = |c: &str| if c == "white" { w } else { b };
        match &r.vela {
            None => match r.result.as_str() {
                "draw" => {
                    out[w].riatras[1] += 1;
                    out[b].riatras[1] += 1;
                }
                winner => {
                    let (won, lost) = if winner == "white" { (w, b) } else { (b, w) };
                    out[won].points += 3;
                    out[won].riatras[0] += 1;
                    out[lost].riatras[2] += 1;
                    let played = velas.get(r.key.as_str()).map_or(0, Vec::len) as u32;
                    let loser_colour = if winner == "white" { "black" } else { "white" };
                    let cleared = velas
                        .get(r.key.as_str())
                        .is_some_and(|v| v.iter().any(|x| x.result == loser_colour));
                    if played >= max_velas && !cleared {
                        out[lost].unpaid += 1;
                    }
                }
            },
            Some(v) => {
                let debtor_colour = v.split(' ').next().unwrap_or_default();
                let debtor = side(debtor_colour);
                let giver = if debtor == w { b } else { w };
                match r.result.as_str() {
                    "draw" => {
                        out[giver].velas_given[1] += 1;
                        out[debtor].velas_owed[1] += 1;
                    }
                    c if c == debtor_colour => {
                        out[giver].velas_given[2] += 1;
                        out[debtor].velas_owed[0] += 1;
                    }
                    _ => {
                        out[giver].points += 3;
                        out[giver].velas_given[0] += 1;
                        out[debtor].velas_owed[2] += 1;
                    }
                }
            }
        }
    }
    out
}

/// The score of `player` in game `r` and its opponent's spec, if it played it (velas left
/// out).
fn score_of<'r>(r: &'r GameRecord, player: &str) -> Option<(f64, &'r str)> {
    if r.vela.is_some() {
        return None;
    }
    let (side, opponent) = if r.white == player {
        ("white", r.black.as_str())
    } else if r.black == player {
        ("black", r.white.as_str())
    } else {
        return None;
    };
    let s = match r.result.as_str() {
        "draw" => 0.5,
        x if x == side => 1.0,
        _ => 0.0,
    };
    Some((s, opponent))
}

/// The scores of `players` in their twin games: a game of each against the same opponent
/// from the same start with the same colours (their keys equal once each player's own
/// spec is taken off the front, as in a gauntlet, where every checkpoint is its pairings'
/// first player). One row per start and colour that all of them played, their scores in
/// the order given; games among the players themselves, velas and games without a twin
/// for every player are left out. Rows come in the keys' order.
pub fn twin_scores(players: &[&str], records: &[GameRecord]) -> Vec<Vec<f64>> {
    let mut rows: std::collections::BTreeMap<(String, bool), Vec<Option<f64>>> =
        std::collections::BTreeMap::new();
    for r in records {
        for (i, p) in players.iter().enumerate() {
            let Some((s, opponent)) = score_of(r, p) else {
                continue;
            };
            if players.contains(&opponent) {
                continue;
            }
            let Some(rest) = r.key.strip_prefix(p).and_then(|k| k.strip_prefix(" | ")) else {
                continue;
            };
            let row = rows
                .entry((rest.to_string(), r.white == *p))
                .or_insert_with(|| vec![None; players.len()]);
            row[i] = Some(s);
        }
    }
    rows.into_values()
        .filter_map(|row| row.into_iter().collect::<Option<Vec<f64>>>())
        .collect()
}

/// The paired comparison of `a` and `b` on their twin games (see [`twin_scores`]).
pub fn paired_diff(a: &str, b: &str, records: &[GameRecord]) -> PairedDiff {
    let pairs: Vec<(f64, f64)> = twin_scores(&[a, b], records)
        .iter()
        .map(|r| (r[0], r[1]))
        .collect();
    PairedDiff::from_pairs(&pairs)
}

/// How the score of `players`, standing at `xs` on the curve's axis, changes along it, on
/// their twin games (see [`twin_scores`] and [`Trend::fit`]); `None` without twins or
/// without two different `xs`.
pub fn paired_trend(players: &[&str], xs: &[f64], records: &[GameRecord]) -> Option<Trend> {
    Trend::fit(xs, &twin_scores(players, records))
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

/// Pairwise results of `specs` from game records (velas left out).
pub fn tally(specs: &[String], records: &[GameRecord]) -> Vec<PairResult> {
    let mut out: Vec<PairResult> = Vec::new();
    // Elo counts riatras only: a vela is a handicap game.
    for r in records.iter().filter(|r| r.vela.is_none()) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The record of job `j` with the given result and no turns.
    fn scripted(specs: &[String], j: &Job, result: &str) -> GameRecord {
        GameRecord {
            white: specs[j.white].clone(),
            black: specs[j.black].clone(),
            opening: j.opening,
            result: result.into(),
            turns: Vec::new(),
            key: j.key.clone(),
            fen: j.fen.clone(),
            pair: j.pair.clone(),
            seconds: None,
            chosen: None,
            vela: j.vela.clone(),
            adjudicated: false,
            longest: None,
            tc: None,
            flagged: None,
        }
    }

    /// The Malagasy match with scripted results: who opens which riatra, the velas after
    /// each lost riatra, the repeat after a lost or drawn vela, the cap, and the points.
    #[test]
    fn malagasy_match_schedule_and_points() {
        let specs = vec!["A".to_string(), "B".to_string()];
        let cfg = ArenaConfig {
            variant: Variant::Dimy,
            rules: RuleOptions::default(),
            openings: Openings::Traditional,
            format: Format::Malagasy {
                vela_form: VelaForm::Kely,
                max_velas: 3,
            },
            games: 20,
            threads: 1,
            seed: 1,
            max_turns: 400,
            out: None,
            device: Device::flex(),
            adjudicate: None,
            clock: None,
        };
        let start = Position::start(Variant::Dimy, cfg.rules);
        let traditional = start.turns(TurnMode::Distinct);
        let units = riatra_jobs(&specs, 0, 1, 20, &start, &traditional);
        // Results by key: the winner's colour, or a draw.
        let script: HashMap<&str, &str> = [
            ("A | B | riatra 0", "white"),          // A (White) wins: B owes
            ("A | B | riatra 0 | vela 1", "white"), // A wins the vela: B still owes
            ("A | B | riatra 0 | vela 2", "draw"),  // drawn: B still owes
            ("A | B | riatra 0 | vela 3", "black"), // B wins: debt cleared
            ("A | B | riatra 2", "black"),          // B wins as Black: A owes
            ("A | B | riatra 2 | vela 1", "white"), // A (the debtor, White) clears it
            ("A | B | riatra 3", "white"),          // B wins as White: A owes
            ("A | B | riatra 3 | vela 1", "white"),
            ("A | B | riatra 3 | vela 2", "white"),
            ("A | B | riatra 3 | vela 3", "white"), // the cap: unpaid
        ]
        .into();
        let played: Mutex<Vec<GameRecord>> = Mutex::new(Vec::new());
        let game = |j: &Job, _seed: u64| -> Result<GameRecord, ArenaError> {
            let result = script.get(j.key.as_str()).copied().unwrap_or("draw");
            let rec = scripted(&specs, j, result);
            // A vela starts from the vela kely position with the debtor to move.
            if let Some(v) = &j.vela {
                assert_eq!(j.start.rules().vela_form, VelaForm::Kely);
                assert_eq!(j.start.side_to_move().name(), v.split(' ').next().unwrap());
                assert_eq!(j.start.pieces(j.start.side_to_move().other()).count(), 7);
            }
            played.lock().unwrap().push(rec.clone());
            Ok(rec)
        };
        for (i, j) in units.iter().enumerate() {
            play_unit(&cfg, j, i as u64, &game).unwrap();
        }
        let records = played.into_inner().unwrap();
        let order: Vec<String> = records
            .iter()
            .map(|r| {
                format!(
                    "{} o{} {}-{}{}",
                    r.key.trim_start_matches("A | B | "),
                    r.opening,
                    r.white,
                    r.black,
                    r.vela
                        .as_ref()
                        .map(|v| format!(" [{v}]"))
                        .unwrap_or_default()
                )
            })
            .collect();
        let head = [
            "riatra 0 o0 A-B",
            "riatra 0 | vela 1 o0 A-B [black kely]",
            "riatra 0 | vela 2 o0 A-B [black kely]",
            "riatra 0 | vela 3 o0 A-B [black kely]",
            "riatra 1 o0 B-A",
            "riatra 2 o1 A-B",
            "riatra 2 | vela 1 o1 A-B [white kely]",
            "riatra 3 o1 B-A",
            "riatra 3 | vela 1 o1 B-A [black kely]",
            "riatra 3 | vela 2 o1 B-A [black kely]",
            "riatra 3 | vela 3 o1 B-A [black kely]",
            "riatra 4 o2 A-B",
        ];
        assert_eq!(order[..head.len()], head);
        // After the five openings the order of the players reverses: B opens first.
        let r10 = order
            .iter()
            .position(|o| o.starts_with("riatra 10 "))
            .unwrap();
        assert_eq!(order[r10], "riatra 10 o0 B-A");
        assert_eq!(order[r10 + 1], "riatra 11 o0 A-B");
        assert_eq!(order.len(), 20 + 3 + 1 + 3);
        let points = match_points(&specs, &records, 3);
        // A player's points, riatras won/drawn/lost, velas given and owed, and unpaid.
        let expect = |player: &str, points, riatras, velas_given, velas_owed, unpaid| MatchPoints {
            player: player.into(),
            points,
            riatras,
            velas_given,
            velas_owed,
            unpaid,
        };
        assert_eq!(
            points[0],
            expect("A", 6, [1, 17, 2], [1, 1, 1], [1, 0, 3], 1)
        );
        assert_eq!(
            points[1],
            expect("B", 15, [2, 17, 1], [3, 0, 1], [1, 1, 1], 0)
        );
        // Elo counts riatras only.
        let t = tally(&specs, &records);
        assert_eq!((t[0].wins, t[0].draws, t[0].losses), (1, 17, 2));
    }

    /// Two gauntlet checkpoints' twin games against a common opponent: matched by start
    /// and colour, their games with each other, velas and games without a twin left out.
    #[test]
    fn paired_diff_matches_twin_games() {
        let specs: Vec<String> = ["A", "B", "X", "Y"].map(String::from).to_vec();
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let traditional = start.turns(TurnMode::Distinct);
        let jobs = |a, b| {
            pairing_jobs(
                &specs,
                a,
                b,
                4,
                &start,
                &Openings::Traditional,
                &traditional,
            )
        };
        let rec = |j: &Job, result: &str| scripted(&specs, j, result);
        // Game g: A's score, B's score in its twin: 1 | 0.5, 0.5 | 0.5, 1 | 0, 1 | 0.5.
        let a_results = ["white", "draw", "white", "black"];
        let b_results = ["draw", "draw", "black", "draw"];
        let mut records: Vec<GameRecord> = Vec::new();
        for (j, r) in jobs(0, 2).iter().zip(a_results) {
            records.push(rec(j, r));
        }
        for (j, r) in jobs(1, 2).iter().zip(b_results) {
            records.push(rec(j, r));
        }
        // Not twins: A against B, B against an opponent A never met, a vela.
        records.extend(jobs(0, 1).iter().map(|j| rec(j, "white")));
        records.extend(jobs(1, 3).iter().map(|j| rec(j, "white")));
        let mut vela = rec(&jobs(0, 2)[0], "black");
        vela.key.push_str(" | vela 1");
        vela.vela = Some("black kely".into());
        records.push(vela);

        let d = paired_diff("A", "B", &records);
        assert_eq!(d.games, 4);
        assert!((d.score_a - 0.875).abs() < 1e-12, "{d:?}");
        assert!((d.score_b - 0.375).abs() < 1e-12, "{d:?}");
        assert_eq!((d.better, d.worse), (3, 0));
        // Differences 0.5, 0, 1, 0.5: sample variance 1/6, half = 1.96 * sqrt(1/24).
        assert!(
            (d.half - 1.96 * (1.0f64 / 24.0).sqrt()).abs() < 1e-12,
            "{d:?}"
        );
        assert!(d.significant());
        let (e, lo, hi) = d.elo();
        assert!(lo > 0.0 && lo < e && e < hi, "{e} [{lo}, {hi}]");
        // The other way round: the same games, the signs reversed.
        let r = paired_diff("B", "A", &records);
        assert_eq!((r.games, r.better, r.worse), (4, 0, 3));
        assert!((r.diff() + 0.5).abs() < 1e-12 && r.significant());
        // Three players' twins: C has only games 0 and 1 against X, so two rows.
        let mut with_c = records.clone();
        let mut specs_c = specs.clone();
        specs_c.push("C".into());
        let c_jobs = pairing_jobs(
            &specs_c,
            4,
            2,
            2,
            &start,
            &Openings::Traditional,
            &traditional,
        );
        with_c.extend(c_jobs.iter().map(|j| scripted(&specs_c, j, "black")));
        let rows = twin_scores(&["A", "B", "C"], &with_c);
        // Game 0: C White loses; game 1: C Black wins.
        assert_eq!(rows, vec![vec![1.0, 0.5, 0.0], vec![0.5, 0.5, 1.0]]);
        let t = paired_trend(&["A", "B", "C"], &[0.0, 1.0, 2.0], &with_c).unwrap();
        assert_eq!(t.twins, 2);
        // Slopes -0.5 and +0.25.
        assert!((t.slope + 0.125).abs() < 1e-12, "{t:?}");
        assert!(paired_trend(&["A", "B"], &[3.0, 3.0], &records).is_none());
        // No common games, nothing to compare.
        let none = paired_diff("A", "Y", &records);
        assert_eq!(none.games, 0);
        assert!(!none.significant());
    }
}
