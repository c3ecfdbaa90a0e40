//! `fanorona book`: make an opening book of balanced (or, with `--min-score`, unbalanced) positions.

use crate::input_err;
use anyhow::Result;
use clap::Args;
use fanorona_rules::{RuleOptions, Variant};
use fanorona_search::book::{BookSpec, format_book, make_book_excluding, read_book};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// `fanorona book`.
#[derive(Args, Debug)]
pub struct BookArgs {
    /// Board: tsivy or dimy.
    #[arg(long, value_name = "V")]
    pub variant: Variant,
    /// Positions wanted.
    #[arg(long, value_name = "N")]
    pub count: usize,
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
    if a.count == 0 {
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
    let mut spec = BookSpec::new(a.variant, a.count);
    spec.rules = rules;
    spec.turns = a.turns;
    spec.depth = a.depth.max(1);
    spec.max_score = a.max_score;
    spec.min_score = a.min_score;
    spec.seed = a.seed;
    let bar = ProgressBar::new(a.count as u64);
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
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
            }
            std::fs::write(p, text).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
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
