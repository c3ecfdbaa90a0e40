//! `fanorona tune-eval`: fit a learned evaluation for the alpha-beta engine
//! (`fanorona_eval::learned`) to positions scored by a deeper search.

use crate::input_err;
use anyhow::{Context, Result};
use clap::Args;
use fanorona_eval::FitConfig;
use fanorona_eval::fit::Labelled;
use fanorona_nn::spec::load_learned;
use fanorona_rules::{Position, RuleOptions, Variant};
use fanorona_search::book::read_book;
use fanorona_search::labels::{LabelConfig, label_games};
use fanorona_search::{EvalWeights, LearnedEval};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `fanorona tune-eval`.
#[derive(Args, Debug)]
pub struct TuneEvalArgs {
    /// Board: tsivy or dimy.
    #[arg(long, value_name = "V")]
    pub variant: Variant,
    /// Write the learned evaluation here (`ab:eval=FILE` plays with it).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Start the games from this book's positions in turn (default: the start position).
    #[arg(long, value_name = "FILE")]
    pub book: Option<PathBuf>,
    /// Games of the alpha-beta engine to label.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub games: usize,
    /// Depth in turns of the engine that plays the games.
    #[arg(long, value_name = "D", default_value_t = 3)]
    pub play_depth: u32,
    /// Percent of turns played at random, for variety.
    #[arg(long, value_name = "P", default_value_t = 10)]
    pub explore: u32,
    /// Depth in turns of the search that scores every position (the labels).
    #[arg(long, value_name = "D", default_value_t = 6)]
    pub label_depth: u32,
    /// Turns after which a game stops.
    #[arg(long, value_name = "N", default_value_t = 120)]
    pub max_turns: u32,
    /// Play and label the games with this learned evaluation (a round of fitting that
    /// learns from searches which saw the last round's network).
    #[arg(long, value_name = "FILE", conflicts_with = "data")]
    pub label_eval: Option<PathBuf>,
    /// Read labelled positions from this file (lines `FEN ; score`) instead of playing.
    #[arg(long, value_name = "FILE", conflicts_with = "book")]
    pub data: Option<PathBuf>,
    /// Also write the labelled positions here, to fit again without playing.
    #[arg(long, value_name = "FILE")]
    pub save_data: Option<PathBuf>,
    /// Hidden units of the network.
    #[arg(long, value_name = "H", default_value_t = 32)]
    pub hidden: usize,
    /// Passes over the positions.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub epochs: u32,
    /// Adam's step size.
    #[arg(long, default_value_t = 1e-3)]
    pub lr: f32,
    /// Positions a step.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub batch: usize,
    /// Seed of the random turns, the initial weights and the shuffles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads for the games (default: every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

pub fn tune_eval(a: TuneEvalArgs) -> Result<()> {
    if a.variant == Variant::Telo {
        return Err(input_err(
            "a learned evaluation is for tsivy and dimy (telo is solved)",
        ));
    }
    if !(1..=1024).contains(&a.hidden) {
        return Err(input_err("--hidden must be 1 to 1024"));
    }
    if a.epochs == 0 || a.batch == 0 {
        return Err(input_err("--epochs and --batch must be at least 1"));
    }
    if !(a.lr.is_finite() && a.lr > 0.0) {
        return Err(input_err("--lr must be a positive number"));
    }
    let rules = RuleOptions::default();
    let weights = EvalWeights::default();
    let started = Instant::now();
    let data = match &a.data {
        Some(p) => read_data(p, rules, a.variant)?,
        None => {
            if a.games == 0 {
                return Err(input_err("--games must be at least 1"));
            }
            let starts = match &a.book {
                Some(p) => read_book(p, rules, Some(a.variant))
                    .map_err(|e| input_err(format!("--book {e}")))?,
                None => vec![Position::start(a.variant, rules)],
            };
            let cfg = LabelConfig {
                games: a.games,
                play_depth: a.play_depth.max(1),
                explore_percent: a.explore.min(100),
                label_depth: a.label_depth.max(1),
                max_turns: a.max_turns,
                seed: a.seed,
            };
            let threads = a
                .threads
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let bar = ProgressBar::new(a.games as u64);
            bar.set_style(
                ProgressStyle::with_template("[{bar:30}] {pos}/{len} games labelled, {elapsed}")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            let eval = match &a.label_eval {
                Some(p) => Some(load_learned(p, a.variant).map_err(input_err)?),
                None => None,
            };
            // A hidden bar (stderr not a terminal: a log file) shows nothing, so a long
            // run says where it is a line each tenth of the games.
            let tenth = a.games.div_ceil(10);
            let data = label_games(&starts, &cfg, eval.as_ref(), threads, &mut |n| {
                bar.set_position(n as u64);
                if bar.is_hidden() && n % tenth == 0 && n < a.games {
                    eprintln!(
                        "labelled {n}/{} games, {:.0} s",
                        a.games,
                        started.elapsed().as_secs_f64()
                    );
                }
            });
            bar.finish_and_clear();
            eprintln!(
                "labelled {} positions of {} games in {:.0} s",
                data.len(),
                a.games,
                started.elapsed().as_secs_f64()
            );
            data
        }
    };
    if data.is_empty() {
        return Err(input_err("no positions to fit"));
    }
    if let Some(p) = &a.save_data {
        write_atomic(p, &format_data(&data))?;
        eprintln!("wrote {} labelled positions to {}", data.len(), p.display());
    }
    let mut e = LearnedEval::new(a.variant, a.hidden, a.seed);
    let cfg = FitConfig {
        epochs: a.epochs,
        batch: a.batch,
        lr: a.lr,
        seed: a.seed,
        ..FitConfig::default()
    };
    let fit_start = Instant::now();
    let report = e.fit(&data, &weights, &cfg, &mut |epoch, loss| {
        eprintln!(
            "pass {epoch}/{}: held-out loss {loss:.5} ({:.0} s)",
            cfg.epochs,
            fit_start.elapsed().as_secs_f64()
        );
    });
    eprintln!(
        "fitted on {} positions, {} held out: loss {:.5} (the hand-written evaluation {:.5})",
        report.train, report.holdout, report.loss, report.hand_loss
    );
    write_atomic(&a.out, &e.to_text())?;
    eprintln!("wrote {}", a.out.display());
    Ok(())
}

/// Labelled positions as text: `FEN ; score` a line.
fn format_data(data: &[Labelled]) -> String {
    let mut s = String::new();
    for d in data {
        s.push_str(&d.position.fen());
        s.push_str(" ; ");
        s.push_str(&d.score.to_string());
        s.push('\n');
    }
    s
}

/// Reads [`format_data`]'s text from `path`, every position of `variant`.
fn read_data(path: &Path, rules: RuleOptions, variant: Variant) -> Result<Vec<Labelled>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| input_err(format!("--data {}: {e}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("--data {} line {}", path.display(), i + 1);
        let (fen, score) = line
            .rsplit_once(';')
            .ok_or_else(|| input_err(format!("{}: expected `FEN ; score`", at())))?;
        let position = Position::from_fen(fen.trim(), rules)
            .map_err(|e| input_err(format!("{}: {e}", at())))?;
        if position.variant() != variant {
            return Err(input_err(format!(
                "{}: a {} position, not {}",
                at(),
                position.variant().name(),
                variant.name()
            )));
        }
        let score = score
            .trim()
            .parse()
            .map_err(|_| input_err(format!("{}: bad score `{}`", at(), score.trim())))?;
        out.push(Labelled { position, score });
    }
    Ok(out)
}

/// Writes `text` to `path` through a temporary file beside it, so that a stopped run
/// never leaves half a file.
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    fanorona_rules::durable::write_atomic(path, text.as_bytes())
        .with_context(|| path.display().to_string())
}
