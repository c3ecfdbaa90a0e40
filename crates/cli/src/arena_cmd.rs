//! `fanorona arena`: round robins and gauntlets.

use crate::input_err;
use crate::rules_cmds::PositionArgs;
use anyhow::Result;
use clap::Args;
use fanorona_arena::arena::{
    ArenaConfig, Format, GameRecord, Openings, pentanomial, play_pairings,
};
use fanorona_arena::elo::{Pentanomial, Sprt, SprtDecision};
use fanorona_arena::match_report::{Axis, MatchReport};
use fanorona_arena::report;
use fanorona_nn::checkpoint;
use fanorona_rules::{Position, RuleOptions, Variant, VelaForm, quote};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// The arena's schedule (`--format`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    /// Independent games, each start twice.
    Riatras,
    /// The match as played in Madagascar, with velas and tournament points.
    Malagasy,
}

fn parse_vela_form(s: &str) -> std::result::Result<VelaForm, String> {
    s.parse()
        .map_err(|e: fanorona_rules::RuleOptionError| e.to_string())
}

/// What a gauntlet's plot puts along its x axis (`--x`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum XAxis {
    /// The checkpoint's training generation.
    Generation,
    /// The run's seconds of training when the checkpoint was saved (its `state.json`).
    Seconds,
}

impl XAxis {
    fn axis(self) -> Axis {
        match self {
            XAxis::Generation => Axis {
                label: "generation",
                per: "generation",
                unit: 1.0,
            },
            XAxis::Seconds => Axis {
                label: "seconds of training",
                per: "hour",
                unit: 3600.0,
            },
        }
    }
}

/// `fanorona arena`.
#[derive(Args, Debug)]
pub struct ArenaArgs {
    /// Players of a round robin (every pair plays), e.g. `random ab:depth=1 ab:depth=3
    /// mcts:ckpt=checkpoints/run1,sims=100`.
    #[arg(long, num_args = 1.., value_name = "SPEC", conflicts_with = "gauntlet")]
    pub players: Vec<String>,
    /// A run folder: its checkpoints (see --max-checkpoints) each play the --vs players.
    #[arg(long, value_name = "DIR", requires = "vs")]
    pub gauntlet: Option<PathBuf>,
    /// The fixed opponents of a gauntlet.
    #[arg(long, num_args = 1.., value_name = "SPEC")]
    pub vs: Vec<String>,
    /// Simulations per decision of the gauntlet's network players.
    #[arg(long, default_value_t = 100)]
    pub sims: u32,
    /// Checkpoints of the run in a gauntlet, evenly spaced, the latest always included.
    #[arg(long, default_value_t = 8)]
    pub max_checkpoints: usize,
    /// More options of the gauntlet's network players, appended to their spec, e.g.
    /// `guard=0,blend=0` for the network alone (a learning curve not hidden by the
    /// players' search).
    #[arg(long, value_name = "OPTS", requires = "gauntlet")]
    pub player_opts: Option<String>,
    /// The gauntlet's order and plot: by generation, or by the run's seconds of training
    /// (Elo against wall time). Default: seconds for a warm start's snapshots
    /// (`<run>/warm`, which are all generation 0), generation otherwise.
    #[arg(long, value_enum, requires = "gauntlet")]
    pub x: Option<XAxis>,
    /// Games per pairing. Default: 10 for the traditional match (each of the 5 openings
    /// once by each side), twice the book's positions with --book (N takes the first N/2
    /// positions; more than that plays the book again), 2 with --fen. With --sprt: the
    /// most games the test may play.
    #[arg(long)]
    pub games: Option<usize>,
    /// Start games from a book of positions (one FEN a line, `#` comments; make one with
    /// `fanorona book`): every pairing plays each position twice, each player once on
    /// each side. The variant is the book's.
    #[arg(long, value_name = "FILE", conflicts_with = "fen")]
    pub book: Option<PathBuf>,
    /// How games are scheduled. `riatras`: independent games, each start played twice
    /// (each player once on each side). `malagasy`: the match as played in Madagascar
    /// (the five openings, the players taking turns to open them, each opening twice in a
    /// row, the order reversed after the five; the loser of a riatra at once plays velas,
    /// handicap games, until it wins one or --max-velas were played), scored in
    /// tournament points beside the riatras' Elo.
    #[arg(long, value_enum, default_value_t = FormatArg::Riatras)]
    pub format: FormatArg,
    /// The vela's form in the malagasy format: `be` (the start position) or `kely` (less
    /// the riatra winner's back row).
    #[arg(long, value_name = "be|kely", default_value = "be", value_parser = parse_vela_form)]
    pub vela_form: VelaForm,
    /// The most velas after one riatra in the malagasy format; a debt still unpaid after
    /// them is reported as unpaid and the match goes on.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_velas: u32,
    /// A sequential probability ratio test between two players (--players A B): plays
    /// game pairs until the pentanomial LLR crosses a bound, e.g. `--sprt 0,20` tests
    /// "A is at least 20 Elo stronger" against "A is no stronger".
    #[arg(long, value_name = "ELO0,ELO1", requires = "players")]
    pub sprt: Option<String>,
    /// The SPRT's false-positive rate.
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    pub alpha: f64,
    /// The SPRT's false-negative rate.
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    pub beta: f64,
    /// The SPRT decides nothing before this many finished pairs (its variance estimate
    /// needs them; Fanorona pairs are often 1-1).
    #[arg(long, default_value_t = 50, requires = "sprt")]
    pub min_pairs: u32,
    /// Where results accumulate (a rerun skips finished games). Default:
    /// experiments/arena, or <run>/../../experiments/<run>/gauntlet for a gauntlet.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Games played at once (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seed of random players.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The player rated 0 (default: random, else ab:depth=1, else the first).
    #[arg(long)]
    pub anchor: Option<String>,
    /// End each game at the first position the endgame tables in DIR cover, with their
    /// result (`fanorona tb build`; off by default: games are played out). The report
    /// says how many games the tables ended.
    #[arg(long, value_name = "DIR")]
    pub adjudicate: Option<PathBuf>,
    /// Each player's clock for a game, BASE+INCREMENT in seconds (`60+0.6`: a minute
    /// each, 0.6 s added after each turn): the searches take the time manager's share
    /// of it, within their own limits a turn, and a player whose clock runs out loses
    /// the game. The report gives each player's mean and longest turn and its games
    /// lost on time. Off by default: each turn has the player's own limit.
    #[arg(long, value_name = "BASE+INC")]
    pub tc: Option<fanorona_search::TimeControl>,
    /// End with one line of JSON: ratings and game count.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub pos: PositionArgs,
}

/// Reads a book file (with the rule options of the command).
pub fn read_book(path: &std::path::Path, rules: RuleOptions) -> Result<Vec<Position>> {
    fanorona_search::book::read_book(path, rules, None)
        .map_err(|e| input_err(format!("--book {e}")))
}

/// Parses `--sprt ELO0,ELO1` with the error rates.
fn parse_sprt(s: &str, alpha: f64, beta: f64, min_pairs: u32) -> Result<Sprt> {
    let bad = || {
        input_err(format!(
            "--sprt {}: expected ELO0,ELO1 with ELO0 < ELO1, e.g. 0,20",
            quote(s)
        ))
    };
    let (e0, e1) = s.split_once(',').ok_or_else(bad)?;
    let (e0, e1): (f64, f64) = (
        e0.trim().parse().map_err(|_| bad())?,
        e1.trim().parse().map_err(|_| bad())?,
    );
    if !(e0.is_finite() && e1.is_finite() && e0 < e1) {
        return Err(bad());
    }
    for (name, v) in [("--alpha", alpha), ("--beta", beta)] {
        if !(v > 0.0 && v < 0.5) {
            return Err(input_err(format!(
                "{name} {v}: expected a rate between 0 and 0.5"
            )));
        }
    }
    Ok(Sprt {
        elo0: e0,
        elo1: e1,
        alpha,
        beta,
        min_pairs,
    })
}

/// `fanorona arena`: where games start, who plays whom, the games (with the SPRT's
/// stopping rule), then the reports.
pub fn arena(a: ArenaArgs) -> Result<()> {
    let rules = a.pos.rule_options()?;
    if a.games == Some(0) {
        return Err(input_err("--games must be at least 1"));
    }
    let (openings, book_variant) = openings(&a, rules)?;
    let format = format(&a, &openings)?;
    let games = a.games.unwrap_or(match &openings {
        Openings::Traditional => 10,
        Openings::Book(b) => 2 * b.len(),
    });
    let sprt = match &a.sprt {
        Some(s) => {
            if a.players.len() != 2 {
                return Err(input_err("--sprt tests two players: --players A B"));
            }
            Some(parse_sprt(s, a.alpha, a.beta, a.min_pairs)?)
        }
        None => None,
    };
    let x_axis = a.x.unwrap_or(match &a.gauntlet {
        Some(run) if is_warm(run) => XAxis::Seconds,
        _ => XAxis::Generation,
    });
    let lineup = match &a.gauntlet {
        Some(run) => gauntlet_lineup(&a, run, x_axis)?,
        None => round_robin_lineup(&a, book_variant)?,
    };
    let anchor = check_lineup(&a, &lineup, book_variant)?;
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let cfg = ArenaConfig {
        variant: lineup.variant,
        rules,
        openings,
        format,
        games,
        threads,
        seed: a.seed,
        max_turns: 400,
        out: Some(lineup.out.clone()),
        device: crate::backend::device(),
        adjudicate: match &a.adjudicate {
            Some(dir) => Some(std::sync::Arc::new(
                fanorona_tb::Tablebase::open(dir, lineup.variant).map_err(|e| {
                    crate::input_err(format!("--adjudicate {}: {e}", dir.display()))
                })?,
            )),
            None => None,
        },
        clock: a.tc,
    };
    let records = play(&a, &cfg, &lineup, sprt.as_ref())?;
    let sprt_json = sprt
        .as_ref()
        .map(|t| sprt_summary(&a, t, &lineup.specs, &records));
    report_results(&a, &cfg, &lineup, anchor, x_axis, &records, sprt_json)
}

/// Whether a gauntlet's folder is a warm start's snapshots (`<run>/warm`).
fn is_warm(run: &std::path::Path) -> bool {
    run.file_name()
        .is_some_and(|n| n == fanorona_train::WARM_DIR)
}

/// Where games start (a book, one position, or the traditional openings), and the
/// positions' variant.
fn openings(a: &ArenaArgs, rules: RuleOptions) -> Result<(Openings, Option<Variant>)> {
    // Where games start: a book, one position, or the traditional openings.
    let openings = if let Some(path) = &a.book {
        Openings::Book(read_book(path, rules)?)
    } else if a.pos.fen.is_some() {
        match a.pos.position()? {
            crate::rules_cmds::AnyPosition::Fanorona(p) => {
                if p.outcome().is_some() {
                    return Err(input_err(format!(
                        "--fen `{}`: the game is already over there",
                        p.fen()
                    )));
                }
                Openings::Book(vec![p])
            }
            crate::rules_cmds::AnyPosition::Telo(_) => {
                return Err(input_err(
                    "the arena plays tsivy and dimy (telo is solved: use `fanorona oracle`)",
                ));
            }
        }
    } else {
        Openings::Traditional
    };
    let book_variant = match &openings {
        Openings::Book(b) => {
            let v = b[0].variant();
            if let Some(want) = a.pos.variant
                && want != v
            {
                return Err(input_err(format!(
                    "--variant {want} does not match the positions, which are {v}"
                )));
            }
            Some(v)
        }
        Openings::Traditional => None,
    };
    Ok((openings, book_variant))
}

/// The match format (`--format`), checked against where the games start.
fn format(a: &ArenaArgs, openings: &Openings) -> Result<Format> {
    Ok(match a.format {
        FormatArg::Riatras => Format::Riatras,
        FormatArg::Malagasy => {
            if *openings != Openings::Traditional {
                return Err(input_err(
                    "--format malagasy plays the five openings: it takes no --book or --fen",
                ));
            }
            if a.sprt.is_some() {
                return Err(input_err(
                    "--sprt needs game pairs of independent games: use --format riatras",
                ));
            }
            Format::Malagasy {
                vela_form: a.vela_form,
                max_velas: a.max_velas,
            }
        }
    })
}

/// Who plays whom, and where the results go.
struct Lineup {
    specs: Vec<String>,
    pairings: Vec<(usize, usize)>,
    variant: Variant,
    out: PathBuf,
    /// A gauntlet's checkpoints: (index in `specs`, generation or seconds).
    generations: Vec<(usize, u64)>,
}

/// A gauntlet: up to `--max-checkpoints` of the run's checkpoints, evenly spaced, each
/// against every `--vs` player.
fn gauntlet_lineup(a: &ArenaArgs, run: &std::path::Path, x_axis: XAxis) -> Result<Lineup> {
    let mut ck: Vec<(u64, PathBuf)> = std::fs::read_dir(run)
        .map_err(|e| input_err(format!("gauntlet run folder `{}`: {e}", run.display())))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join("meta.json").is_file() && !p.to_string_lossy().ends_with(".tmp"))
        .filter_map(|p| checkpoint::read_meta(&p).ok().map(|m| (m.generation, p)))
        .collect();
    if x_axis == XAxis::Seconds {
        ck = ck
            .into_iter()
            .map(|(_, p)| Ok((training_seconds(&p)?, p)))
            .collect::<Result<_>>()?;
    }
    ck.sort();
    if ck.is_empty() {
        return Err(input_err(format!(
            "`{}` holds no checkpoints",
            run.display()
        )));
    }
    let variant: Variant = checkpoint::read_meta(&ck[0].1)
        .map_err(input_err)?
        .variant
        .parse()
        .map_err(input_err)?;
    let keep = a.max_checkpoints.max(1).min(ck.len());
    let chosen: Vec<(u64, PathBuf)> = (0..keep)
        .map(|i| {
            if keep == 1 {
                ck.len() - 1
            } else {
                i * (ck.len() - 1) / (keep - 1)
            }
        })
        .map(|i| ck[i].clone())
        .collect();
    let mut specs: Vec<String> = chosen
        .iter()
        .map(|(_, p)| {
            let mut spec = format!("mcts:ckpt={},sims={}", p.display(), a.sims);
            if let Some(o) = a.player_opts.as_deref().filter(|o| !o.is_empty()) {
                spec = format!("{spec},{o}");
            }
            spec
        })
        .collect();
    let generations = chosen
        .iter()
        .enumerate()
        .map(|(i, (g, _))| (i, *g))
        .collect();
    let n = specs.len();
    specs.extend(a.vs.iter().cloned());
    let pairings: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (n..specs.len()).map(move |j| (i, j)))
        .collect();
    let folder = |p: &std::path::Path| {
        p.file_name()
            .map_or("run".into(), |s| s.to_string_lossy().into_owned())
    };
    // A warm start's snapshots (`<run>/warm`) report beside the run's gauntlet.
    let (name, leaf) = match run.parent() {
        Some(parent) if is_warm(run) => (folder(parent), "warm-gauntlet"),
        _ => (folder(run), "gauntlet"),
    };
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("experiments").join(name).join(leaf));
    Ok(Lineup {
        specs,
        pairings,
        variant,
        out,
        generations,
    })
}

/// A round robin of `--players`.
fn round_robin_lineup(a: &ArenaArgs, book_variant: Option<Variant>) -> Result<Lineup> {
    if a.players.len() < 2 {
        return Err(input_err(
            "a round robin needs at least two --players (or use --gauntlet DIR --vs SPEC...)",
        ));
    }
    let specs = a.players.clone();
    let n = specs.len();
    let pairings: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    let variant = book_variant.or(a.pos.variant).unwrap_or(Variant::Tsivy);
    Ok(Lineup {
        specs,
        pairings,
        variant,
        out: a
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("experiments/arena")),
        generations: Vec::new(),
    })
}

/// Checks the lineup (the board, the book's board, no player twice) and returns the
/// anchor `--anchor` names, if any.
fn check_lineup(
    a: &ArenaArgs,
    lineup: &Lineup,
    book_variant: Option<Variant>,
) -> Result<Option<usize>> {
    let (specs, variant) = (&lineup.specs, lineup.variant);
    if variant == Variant::Telo {
        return Err(input_err(
            "the arena plays tsivy and dimy (telo is solved: use `fanorona oracle`)",
        ));
    }
    if let Some(bv) = book_variant
        && bv != variant
    {
        return Err(input_err(format!(
            "the positions are {bv}, the checkpoints play {variant}"
        )));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(d) = specs.iter().find(|s| !seen.insert(s.as_str())) {
        return Err(input_err(format!("player {} is named twice", quote(d))));
    }
    Ok(match &a.anchor {
        Some(s) => Some(
            specs
                .iter()
                .position(|x| x == s)
                .ok_or_else(|| input_err(format!("anchor {} is not a player", quote(s))))?,
        ),
        None => None,
    })
}

/// Plays the games with a progress bar (and the SPRT's stopping rule).
fn play(
    a: &ArenaArgs,
    cfg: &ArenaConfig,
    lineup: &Lineup,
    sprt: Option<&Sprt>,
) -> Result<Vec<GameRecord>> {
    let (specs, pairings, games) = (&lineup.specs, &lineup.pairings, cfg.games);
    let total = pairings.len() * games;
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("[{bar:30}] {pos}/{len} games, {elapsed} (eta {eta}) {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    if a.json {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let first = specs[0].clone();
    let score = std::sync::Mutex::new((0.0f64, 0u32));
    let on_game = |r: &GameRecord, _done: usize, _total: usize| {
        if r.vela.is_some() {
            return; // the bar counts riatras
        }
        bar.inc(1);
        let mut s = score.lock().expect("not poisoned");
        let side = if r.white == first {
            Some("white")
        } else if r.black == first {
            Some("black")
        } else {
            None
        };
        if let Some(side) = side {
            s.0 += if r.result == side {
                1.0
            } else if r.result == "draw" {
                0.5
            } else {
                0.0
            };
            s.1 += 1;
            bar.set_message(format!("{first}: {:.1}/{}", s.0, s.1));
        }
    };
    // The SPRT: after every game, the pairs finished so far decide whether to go on.
    let last_llr = std::sync::Mutex::new(None::<(f64, Pentanomial)>);
    let sprt_stop = |records: &[GameRecord]| -> bool {
        let Some(t) = sprt else { return false };
        let p = pentanomial(&specs[0], &specs[1], records);
        let llr = t.llr(&p);
        let (lo, hi) = t.bounds();
        let mut last = last_llr.lock().expect("not poisoned");
        if last.is_none_or(|(_, q)| q != p) {
            *last = Some((llr, p));
            let msg = format!(
                "SPRT [{}, {}]: LLR {llr:+.2} in [{lo:.2}, {hi:.2}], {} pairs {:?}",
                t.elo0,
                t.elo1,
                p.pairs(),
                p.0
            );
            if a.json {
                eprintln!("{msg}");
            } else {
                bar.println(msg);
            }
        }
        t.decide(&p) != SprtDecision::Continue
    };
    let stop: Option<fanorona_arena::arena::StopRule<'_>> =
        sprt.map(|_| &sprt_stop as fanorona_arena::arena::StopRule<'_>);
    let records = play_pairings(cfg, specs, pairings, &on_game, stop).map_err(|e| match e {
        fanorona_arena::ArenaError::Spec(_) | fanorona_arena::ArenaError::Invalid(_) => {
            input_err(e)
        }
        e => anyhow::Error::new(e),
    })?;
    bar.finish_and_clear();
    Ok(records)
}

/// The SPRT's decision over `records`, printed (unless `--json`) and as JSON.
fn sprt_summary(
    a: &ArenaArgs,
    t: &Sprt,
    specs: &[String],
    records: &[GameRecord],
) -> serde_json::Value {
    let p = pentanomial(&specs[0], &specs[1], records);
    let llr = t.llr(&p);
    let (lower, upper) = t.bounds();
    let decision = t.decide(&p);
    let (elo, lo, hi) = p.elo();
    if !a.json {
        println!(
            "SPRT elo0={} elo1={} alpha={} beta={}: {} after {} pairs (LLR {llr:+.3}, bounds [{lower:.3}, {upper:.3}]); pentanomial LL..WW {:?}; {} {elo:+.1} Elo [{lo:+.1}, {hi:+.1}] by pairs\n",
            t.elo0,
            t.elo1,
            t.alpha,
            t.beta,
            match decision {
                SprtDecision::AcceptH1 => "H1 accepted",
                SprtDecision::AcceptH0 => "H0 accepted",
                SprtDecision::Continue => "no decision",
            },
            p.pairs(),
            p.0,
            specs[0],
        );
    }
    serde_json::json!({
        "llr": (llr * 1000.0).round() / 1000.0,
        "lower": (lower * 1000.0).round() / 1000.0,
        "upper": (upper * 1000.0).round() / 1000.0,
        "result": decision.name(),
        "pairs": p.pairs(),
        "pentanomial": p.0,
    })
}

/// Ratings, reports (files, tables or JSON), and a gauntlet's curve.
fn report_results(
    a: &ArenaArgs,
    cfg: &ArenaConfig,
    lineup: &Lineup,
    anchor: Option<usize>,
    x_axis: XAxis,
    records: &[GameRecord],
    sprt_json: Option<serde_json::Value>,
) -> Result<()> {
    let (specs, generations, out) = (&lineup.specs, &lineup.generations, &lineup.out);
    let variant = cfg.variant;
    let max_velas = match cfg.format {
        Format::Malagasy { max_velas, .. } => Some(max_velas),
        _ => None,
    };
    let axis = x_axis.axis();
    // Ratings and game counts are of riatras; velas are counted apart.
    let r = MatchReport::new(specs, records, anchor, generations, axis, max_velas);
    report::save(out, specs, &r.results, &r.ratings, r.rated)
        .map_err(|e| anyhow::anyhow!("writing reports into {}: {e}", out.display()))?;
    if !generations.is_empty() {
        let p = out.join("steps.json");
        let text = serde_json::to_string_pretty(&r.curve_json()).expect("serialises");
        if let Err(e) = fanorona_rules::durable::write_atomic(&p, text.as_bytes()) {
            eprintln!("warning: {}: {e}", p.display());
        }
        let pts: Vec<(u64, f64, f64, f64)> = generations
            .iter()
            .map(|&(i, g)| (g, r.ratings[i].elo, r.ratings[i].low, r.ratings[i].high))
            .collect();
        let title = format!("Elo against {} (anchor {})", axis.label, specs[r.anchor]);
        if let Err(e) = report::plot_elo(&out.join("elo.svg"), &title, axis.label, &pts) {
            eprintln!("warning: no plot: {e}");
        }
    }
    if a.json {
        let mut j = r.json(!generations.is_empty());
        if let Some(sp) = sprt_json {
            j["sprt"] = sp;
        }
        println!("{j}");
        return Ok(());
    }
    let velas = if r.velas > 0 {
        format!(" and {} velas", r.velas)
    } else {
        String::new()
    };
    let clock =
        a.tc.map(|tc| format!(", on a clock of {tc} each"))
            .unwrap_or_default();
    println!(
        "{} games{velas} ({variant}{clock}), results in {}\n",
        r.rated,
        out.display()
    );
    if r.adjudicated > 0 || a.adjudicate.is_some() {
        println!(
            "{} of them ended by the endgame tables at their first covered position (--adjudicate), with the tables' result\n",
            r.adjudicated
        );
    }
    print!("{}", r.markdown(axis));
    Ok(())
}

/// The seconds of training a checkpoint folder's `state.json` records (a run's
/// checkpoints and its warm-start snapshots have one).
fn training_seconds(dir: &std::path::Path) -> Result<u64> {
    let state = fanorona_train::RunState::read(dir).map_err(|e| {
        input_err(format!(
            "{e} (--x seconds needs the run's state.json in each checkpoint)"
        ))
    })?;
    Ok(state.whole_seconds())
}

/// `fanorona plot`.
#[derive(Args, Debug)]
pub struct PlotArgs {
    /// A run's metrics.jsonl.
    #[arg(long, value_name = "FILE")]
    pub metrics: PathBuf,
    /// Tags to draw, e.g. `loss/policy loss/value` or `arena/score`.
    #[arg(long, num_args = 1.., required = true)]
    pub tag: Vec<String>,
    /// The SVG to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Title of the plot.
    #[arg(long, default_value = "training")]
    pub title: String,
    /// The x axis: each line's `step` (the generation); `seconds`: its `time` less the
    /// file's first `time`, the wall clock of the run; `cpu-hours`: the run's CPU-hours
    /// at the line's generation, as tree learning's curve logs them (`curve/cpu_hours`;
    /// draw `curve/vs_hand curve/vs_release`, whose `_low` and `_high` become bars).
    #[arg(long, value_enum, default_value = "step")]
    pub x: PlotX,
}

/// What `fanorona plot` draws its lines against.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotX {
    /// The line's `step`: the generation of a training run.
    Step,
    /// Seconds since the file's first line (its `time` field): wall time.
    Seconds,
    /// The run's CPU-hours at the line's step (`curve/cpu_hours` at that step).
    CpuHours,
}

impl PlotX {
    /// The metrics line's field the axis reads.
    fn field(self) -> &'static str {
        match self {
            PlotX::Step | PlotX::CpuHours => "step",
            PlotX::Seconds => "time",
        }
    }

    /// The axis' label.
    fn label(self) -> &'static str {
        match self {
            PlotX::Step => "generation",
            PlotX::Seconds => "wall seconds",
            PlotX::CpuHours => "CPU-hours",
        }
    }
}

pub fn plot(a: PlotArgs) -> Result<()> {
    let text = std::fs::read_to_string(&a.metrics)
        .map_err(|e| input_err(format!("metrics file `{}`: {e}", a.metrics.display())))?;
    let mut series: Vec<(String, Vec<(f64, f64)>)> =
        a.tag.iter().map(|t| (t.clone(), Vec::new())).collect();
    // Each tag's `_low` and `_high` at a step, for its bars; the CPU-hours of a step.
    let mut ends: std::collections::HashMap<(String, u64), f64> = Default::default();
    let mut hours: std::collections::HashMap<u64, f64> = Default::default();
    for v in text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
    {
        if let (Some(tag), Some(step), Some(value)) =
            (v["tag"].as_str(), v["step"].as_u64(), v["value"].as_f64())
        {
            if tag == "curve/cpu_hours" {
                hours.insert(step, value);
            } else if tag.ends_with("_low") || tag.ends_with("_high") {
                ends.insert((tag.to_string(), step), value);
            }
        }
    }
    let mut bars: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new(); series.len()];
    let mut t0: Option<f64> = None;
    for (i, line) in text.lines().enumerate() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            eprintln!(
                "warning: {}:{}: not a metrics line, skipped",
                a.metrics.display(),
                i + 1
            );
            continue;
        };
        let x = v[a.x.field()].as_f64().and_then(|x| match a.x {
            PlotX::Step => Some(x),
            PlotX::Seconds => Some(x - *t0.get_or_insert(x)),
            PlotX::CpuHours => hours.get(&(x as u64)).copied(),
        });
        if let (Some(tag), Some(x), Some(value)) = (v["tag"].as_str(), x, v["value"].as_f64())
            && let Some(k) = series.iter().position(|s| s.0 == tag)
        {
            series[k].1.push((x, value));
            let step = v["step"].as_u64().unwrap_or_default();
            let end = |s: &str| ends.get(&(format!("{tag}_{s}"), step)).copied();
            if let (Some(low), Some(high)) = (end("low"), end("high")) {
                bars[k].push((x, low, high));
            }
        }
    }
    if let Some(empty) = series.iter().find(|s| s.1.is_empty()) {
        return Err(input_err(format!(
            "no `{}` values with a `{}` in {}",
            empty.0,
            a.x.field(),
            a.metrics.display()
        )));
    }
    report::plot_series(&a.out, &a.title, a.x.label(), &series, &bars)
        .map_err(|e| anyhow::anyhow!("plot: {e}"))?;
    println!("wrote {}", a.out.display());
    Ok(())
}
