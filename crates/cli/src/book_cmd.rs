//! `fanorona book`: make a match book of balanced (or, with `--min-score`, unbalanced)
//! positions, or with `--opening` an opening book for players to play from.

use crate::input_err;
use anyhow::Result;
use clap::Args;
use fanorona_rules::notation::parse_turn;
use fanorona_rules::{Color, Outcome, Position, RuleOptions, Turn, Variant};
use fanorona_search::book::{BookSpec, format_book, make_book_excluding, read_book};
use fanorona_search::opening::{
    CHECKSUM_LINE, OpeningBook, OpeningSpec, learn_opening_book, make_opening_book,
};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::Arc;

/// `fanorona book`.
#[derive(Args, Debug)]
pub struct BookArgs {
    /// Board: tsivy or dimy.
    #[arg(long, value_name = "V")]
    pub variant: Variant,
    /// Positions wanted (a match book).
    #[arg(long, value_name = "N", required_unless_present_any = ["opening", "learn"])]
    pub count: Option<usize>,
    /// Make an opening book for play instead (`ab:book=FILE`, `book=release` beside the
    /// release files): every position of the first `--plies` turns reached by turns
    /// within `--margin` of the best, each legal turn scored by a `--depth` search after
    /// it. Needs `--out`; a stopped build goes on from what that file holds.
    #[arg(long)]
    pub opening: bool,
    /// Book learning: the opening book `--out` holds learns from these games (an arena's
    /// `games.jsonl` or its folder; repeatable): each of its positions where one of its
    /// turns lost a game, or scored below what its book score promised (150 a 73 %
    /// score), is searched again, every turn by a `--depth` search after it (deeper than
    /// the book was made: the release book's is 10), and its scores replaced, so that
    /// its choice changes where the deeper search says so. Prints each position it
    /// searched again.
    #[arg(long, value_name = "GAMES", conflicts_with = "opening")]
    pub learn: Vec<PathBuf>,
    /// Opening book: the turns from the start it covers.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub plies: usize,
    /// Opening book: follow the turns within this many hundredths of a piece of the best.
    #[arg(long, value_name = "S", default_value_t = 30)]
    pub margin: i32,
    /// Opening book: the searches' learned evaluation (`release`, a file, or `none` for
    /// the hand-written one).
    #[arg(long, value_name = "FILE", default_value = "release")]
    pub eval: String,
    /// Random turns from the start to each position.
    #[arg(long, value_name = "K", default_value_t = 4)]
    pub turns: usize,
    /// Depth of the alpha-beta search that judges each position.
    #[arg(long, value_name = "D", default_value_t = 6)]
    pub depth: u32,
    /// Keep positions that search scores within +-S hundredths of a piece.
    #[arg(long, value_name = "S", default_value_t = 50)]
    pub max_score: i32,
    /// Keep only positions scored at least S away from level (an unbalanced book: each
    /// position favours one side, e.g. `--min-score 70 --max-score 130` for about a piece)
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub min_score: i32,
    /// Seed of the random turns (the same arguments give the same book).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Keep no position of this book (a training book disjoint from the match book:
    /// `--exclude configs/books/dimy.fen`).
    #[arg(long, value_name = "FILE")]
    pub exclude: Option<PathBuf>,
    /// Write the book here (default: standard output).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// A rule option, repeatable (e.g. `--rule vela=black`).
    #[arg(long = "rule", value_name = "KEY=VALUE")]
    pub rules: Vec<String>,
}

pub fn book(a: BookArgs) -> Result<()> {
    if a.variant == Variant::Telo {
        return Err(input_err(
            "books are for tsivy and dimy (telo is solved: use `fanorona oracle`)",
        ));
    }
    if a.opening {
        return opening(&a);
    }
    if !a.learn.is_empty() {
        return learn(&a);
    }
    let count = a.count.unwrap_or(0);
    if count == 0 {
        return Err(input_err("--count must be at least 1"));
    }
    if a.max_score < 0 {
        return Err(input_err("--max-score must be at least 0"));
    }
    if a.min_score < 0 || a.min_score > a.max_score {
        return Err(input_err(format!(
            "--min-score must be from 0 to --max-score ({})",
            a.max_score
        )));
    }
    let mut rules = RuleOptions::default();
    for pair in &a.rules {
        rules.set_pair(pair).map_err(input_err)?;
    }
    let exclude = match &a.exclude {
        Some(p) => {
            read_book(p, rules, Some(a.variant)).map_err(|e| input_err(format!("--exclude {e}")))?
        }
        None => Vec::new(),
    };
    let mut spec = BookSpec::new(a.variant, count);
    spec.rules = rules;
    spec.turns = a.turns;
    spec.depth = a.depth.max(1);
    spec.max_score = a.max_score;
    spec.min_score = a.min_score;
    spec.seed = a.seed;
    let bar = ProgressBar::new(count as u64);
    bar.set_style(
        ProgressStyle::with_template("[{bar:30}] {pos}/{len} positions, {elapsed} {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let book = make_book_excluding(&spec, &exclude, |found, tried| {
        bar.set_position(found as u64);
        bar.set_message(format!("({tried} tried)"));
    })
    .map_err(input_err)?;
    bar.finish_and_clear();
    let mut text = format_book(&spec, &book);
    if let Some(p) = &a.exclude {
        // After the header's first two lines, so that it reads with the command.
        let note = format!(
            "# ... --exclude {}: none of its {} positions.\n",
            p.display(),
            exclude.len()
        );
        let at = text.match_indices('\n').nth(1).map_or(0, |(i, _)| i + 1);
        text.insert_str(at, &note);
    }
    match &a.out {
        Some(p) => {
            fanorona_rules::durable::write_atomic(p, text.as_bytes())
                .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
            eprintln!(
                "wrote {} positions to {} ({} tried)",
                book.positions.len(),
                p.display(),
                book.tried
            );
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// `fanorona book --opening`: an opening book for play, written position by position to
/// `--out` (a stopped build goes on from what the file holds).
fn opening(a: &BookArgs) -> Result<()> {
    let Some(out) = &a.out else {
        return Err(input_err(
            "--opening needs --out FILE (the build resumes from it)",
        ));
    };
    if !a.rules.is_empty() {
        return Err(input_err(
            "opening books are for the default rules (no --rule)",
        ));
    }
    if a.plies == 0 || a.depth < 2 || a.margin < 0 {
        return Err(input_err(
            "--plies must be at least 1, --depth at least 2 and --margin at least 0",
        ));
    }
    let learned = book_eval(a)?;
    let header = format!(
        "# Fanorona opening book: {} (scores in hundredths of a piece for the side to move, best first).\n\
         # Made by `fanorona book --variant {} --opening --plies {} --depth {} --margin {} --eval {}`:\n\
         # every position of the first {} turns reached by turns within {} of the best, each\n\
         # legal turn scored by alpha-beta at depth {} after it. Played from by `book=FILE`.\n",
        a.variant, a.variant, a.plies, a.depth, a.margin, a.eval, a.plies, a.margin, a.depth
    );
    let mut book = OpeningBook::default();
    if out.exists() {
        let mut text = std::fs::read_to_string(out)
            .map_err(|e| input_err(format!("{}: {e}", out.display())))?;
        if !text.is_empty() && !text.ends_with('\n') {
            // A build stopped in the middle of a line: that position is built again.
            let cut = text.rfind('\n').map_or(0, |i| i + 1);
            eprintln!(
                "{}: dropping its unfinished last line `{}`",
                out.display(),
                &text[cut..]
            );
            text.truncate(cut);
            fanorona_rules::durable::write_atomic(out, text.as_bytes())
                .map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
        }
        book = OpeningBook::parse(&out.display().to_string(), &text).map_err(input_err)?;
        eprintln!(
            "{}: going on from its {} positions",
            out.display(),
            book.len()
        );
    } else {
        fanorona_rules::durable::write_atomic(out, header.as_bytes())
            .map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
    }
    let mut file = fanorona_rules::durable::Appender::open(out, false)
        .map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
    let spec = OpeningSpec {
        variant: a.variant,
        plies: a.plies,
        depth: a.depth,
        margin: a.margin,
        engine: fanorona_search::AbConfig {
            learned,
            hash_mb: 64,
            ..fanorona_search::AbConfig::default()
        },
    };
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {pos} positions, {msg} queued, {elapsed}")
            .expect("valid template"),
    );
    let before = book.len();
    let mut failed = None;
    make_opening_book(
        &spec,
        &mut book,
        |pos, b| {
            let line = b.line(pos).expect("just added");
            if let Err(e) = file.line(&line) {
                failed.get_or_insert(e);
            }
        },
        |done, queued| {
            bar.set_position(done as u64);
            bar.set_message(queued.to_string());
        },
    );
    bar.finish_and_clear();
    if let Some(e) = failed {
        return Err(anyhow::anyhow!("{}: {e}", out.display()));
    }
    // The header says how the whole book was made: the last build's command, which
    // covers what earlier (shallower or narrower) builds put in.
    drop(file);
    let text =
        std::fs::read_to_string(out).map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut text = format!("{header}{body}");
    fanorona_rules::checksum::seal(&mut text, fanorona_search::opening::CHECKSUM_LINE);
    fanorona_rules::durable::write_atomic(out, text.as_bytes())
        .map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
    eprintln!(
        "{}: {} positions ({} new)",
        out.display(),
        book.len(),
        book.len() - before
    );
    Ok(())
}

/// The `--eval` of an opening book's searches.
fn book_eval(a: &BookArgs) -> Result<Option<Arc<fanorona_search::LearnedEval>>> {
    Ok(match a.eval.as_str() {
        "none" => None,
        e => Some(fanorona_nn::spec::load_learned(
            std::path::Path::new(e),
            a.variant,
        )?),
    })
}

/// The games of `--learn`'s files, from their starts, with their outcomes (games of
/// another board or of a vela are left out).
fn learn_games(a: &BookArgs) -> Result<Vec<(Position, Vec<Turn>, Outcome)>> {
    let mut games = Vec::new();
    for path in &a.learn {
        let file = if path.is_dir() {
            path.join("games.jsonl")
        } else {
            path.clone()
        };
        let name = file.display().to_string();
        let bytes = std::fs::read(&file).map_err(|e| input_err(format!("--learn {name}: {e}")))?;
        let (records, damaged) = fanorona_arena::parse_records(&bytes, &name);
        if let Some(first) = damaged.first() {
            return Err(input_err(format!(
                "--learn: {} damaged lines, the first {first}",
                damaged.len()
            )));
        }
        for r in records.into_iter().filter(|r| r.vela.is_none()) {
            let label = format!("--learn {name}, game {}", fanorona_rules::quote(&r.key));
            let start = match &r.fen {
                Some(fen) => Position::from_fen(fen, RuleOptions::default())
                    .map_err(|e| input_err(format!("{label}: its fen: {e}")))?,
                None => Position::start(a.variant, RuleOptions::default()),
            };
            if start.variant() != a.variant {
                continue;
            }
            let outcome = match r.result.as_str() {
                "white" => Outcome::Win(Color::White),
                "black" => Outcome::Win(Color::Black),
                "draw" => Outcome::Draw,
                other => {
                    return Err(input_err(format!(
                        "{label}: result {}: white, black or draw",
                        fanorona_rules::quote(other)
                    )));
                }
            };
            let mut pos = start;
            let mut turns = Vec::with_capacity(r.turns.len());
            for (i, text) in r.turns.iter().enumerate() {
                let t = parse_turn(&pos, text)
                    .map_err(|e| input_err(format!("{label}, turn {}: {e}", i + 1)))?;
                pos.play_unchecked(&t);
                turns.push(t);
            }
            games.push((start, turns, outcome));
        }
    }
    Ok(games)
}

fn learn(a: &BookArgs) -> Result<()> {
    let Some(out) = &a.out else {
        return Err(input_err(
            "--learn needs --out FILE: the opening book that learns (it is rewritten)",
        ));
    };
    if a.depth < 2 {
        return Err(input_err("--depth must be at least 2"));
    }
    let text = std::fs::read_to_string(out)
        .map_err(|e| input_err(format!("--out {}: {e}", out.display())))?;
    let mut book = OpeningBook::parse(&out.display().to_string(), &text).map_err(input_err)?;
    let games = learn_games(a)?;
    let engine = fanorona_search::AbConfig {
        learned: book_eval(a)?,
        hash_mb: 64,
        ..fanorona_search::AbConfig::default()
    };
    eprintln!(
        "{}: learning from {} games, positions searched again at depth {}",
        out.display(),
        games.len(),
        a.depth
    );
    let learned = learn_opening_book(&mut book, &games, engine, a.depth);
    for l in &learned {
        let r = &l.record;
        println!(
            "{}  {}: {} games, {:.1} points, {} lost (its score promised {:.0} %); best {} {} -> {} {}",
            l.position,
            l.turn,
            r.games,
            r.points,
            r.losses,
            100.0 * l.expected,
            l.before.0,
            l.before.1,
            l.after.0,
            l.after.1
        );
    }
    // The file again, its lines in their order, those searched again replaced; its
    // header says what was learned.
    let changed: std::collections::HashSet<&str> =
        learned.iter().map(|l| l.position.as_str()).collect();
    let (body, _) = fanorona_rules::checksum::unseal(&text, CHECKSUM_LINE).map_err(input_err)?;
    let mut header = String::new();
    let mut lines = String::new();
    for line in body.lines() {
        if line.starts_with('#') {
            header.push_str(line);
            header.push('\n');
            continue;
        }
        let key = line.split('\t').next().unwrap_or("");
        let replaced = changed
            .contains(key)
            .then(|| Position::from_fen(key, RuleOptions::default()).ok())
            .flatten()
            .and_then(|p| book.line(&p));
        lines.push_str(replaced.as_deref().unwrap_or(line));
        lines.push('\n');
    }
    let sources: Vec<String> = a.learn.iter().map(|p| p.display().to_string()).collect();
    header.push_str(&format!(
        "# Learned from {} games ({}) by `fanorona book --learn ... --depth {} --eval {}`: {} positions searched again.\n",
        games.len(),
        sources.join(", "),
        a.depth,
        a.eval,
        learned.len()
    ));
    let mut text = format!("{header}{lines}");
    fanorona_rules::checksum::seal(&mut text, CHECKSUM_LINE);
    fanorona_rules::durable::write_atomic(out, text.as_bytes())
        .map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
    eprintln!(
        "{}: {} positions searched again, {} with another best turn",
        out.display(),
        learned.len(),
        learned.iter().filter(|l| l.before.0 != l.after.0).count()
    );
    Ok(())
}
