//! `fanorona tb build|probe`: endgame tablebases (crates/tb, docs/tablebases.md).

use crate::input_err;
use anyhow::Result;
use clap::{Args, Subcommand};
use fanorona_rules::notation::format_turn;
use fanorona_rules::{PointStyle, Position, Setup, Variant};
use fanorona_tb::Tablebase;
use std::path::PathBuf;
use std::time::Instant;

/// `fanorona tb`.
#[derive(Args, Debug)]
pub struct TbArgs {
    #[command(subcommand)]
    pub command: TbCommand,
}

/// What to do with tables.
#[derive(Subcommand, Debug)]
pub enum TbCommand {
    /// Solve every position of up to N pieces (either side to move) by retrograde
    /// analysis and write one file per material class; classes already in the folder are
    /// read, not rebuilt (an interrupted build resumes).
    Build(BuildArgs),
    /// The exact value of a position from the tables: win, draw or loss for the side to
    /// move with its quiet counter, the turns to the next capture, a best turn.
    Probe(ProbeArgs),
}

/// `fanorona tb build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// tsivy or dimy.
    #[arg(long, default_value = "tsivy")]
    pub variant: Variant,
    /// The most pieces (both sides together) of a position in the tables.
    #[arg(long)]
    pub pieces: u8,
    /// The folder for the files (default: $FANORONA_TB, else checkpoints/tablebases).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Turns without a capture before the draw (the rule option; default 100).
    #[arg(long, default_value_t = fanorona_rules::DEFAULT_QUIET_LIMIT)]
    pub quiet_limit: u16,
}

/// `fanorona tb probe`.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// The position (its quiet counter counts).
    #[arg(long, required_unless_present = "fen_file")]
    pub fen: Option<String>,
    /// Probe every FEN in this file (one a line; `#` comments and blank lines skipped),
    /// a line of output each.
    #[arg(long, value_name = "F", conflicts_with = "fen")]
    pub fen_file: Option<PathBuf>,
    /// The tables' folder (default: $FANORONA_TB, else checkpoints/tablebases).
    #[arg(long, value_name = "DIR")]
    pub tb: Option<PathBuf>,
    /// One line of JSON: fen, wdl, dtc, best.
    #[arg(long)]
    pub json: bool,
}

pub use fanorona_tb::default_dir;

/// The tables' answer for `pos` as JSON (`{"wdl", "dtc", "best"}`), when the tables of its
/// board are in `dir` (default [`default_dir`]) and cover it; read once a process.
pub fn tb_json(pos: &Position, dir: Option<&std::path::Path>) -> Option<serde_json::Value> {
    let dir = dir.map_or_else(default_dir, std::path::Path::to_path_buf);
    let tb = fanorona_nn::spec::load_tables(&dir, pos.variant()).ok()?;
    let p = tb.probe(pos)?;
    let best = p.best.map(|t| format_turn(pos, &t, PointStyle::Algebraic));
    Some(serde_json::json!({"wdl": p.wdl.name(), "dtc": p.dtc, "best": best}))
}

pub fn tb(a: TbArgs) -> Result<()> {
    match a.command {
        TbCommand::Build(b) => build(b),
        TbCommand::Probe(p) => probe(p),
    }
}

fn build(a: BuildArgs) -> Result<()> {
    let dir = a.out.unwrap_or_else(default_dir);
    let t0 = Instant::now();
    let tb = Tablebase::build(
        a.variant,
        a.quiet_limit,
        a.pieces,
        Some(&dir),
        &mut |line| eprintln!("{line}"),
    )
    .map_err(|e| match e {
        fanorona_tb::TbError::Io { .. } => anyhow::Error::new(e),
        other => input_err(other),
    })?;
    let bytes: u64 = fanorona_tb::stored_classes(a.variant, a.pieces)
        .iter()
        .filter_map(|c| std::fs::metadata(dir.join(fanorona_tb::file_name(a.variant, *c))).ok())
        .map(|m| m.len())
        .sum();
    println!(
        "{} tables of up to {} pieces in {}: {} positions, {:.1} MB, {:.1} s",
        a.variant,
        a.pieces,
        dir.display(),
        tb.positions(),
        bytes as f64 / 1e6,
        t0.elapsed().as_secs_f64()
    );
    if dir == default_dir() {
        println!(
            "play, analyze, serve, uci and Python's Engine() find them there (their players without tb=)"
        );
    } else {
        println!(
            "players use them with tb={0} (or FANORONA_TB={0} for play, analyze, serve, uci and Python's Engine())",
            dir.display()
        );
    }
    Ok(())
}

fn probe(a: ProbeArgs) -> Result<()> {
    let fens: Vec<String> = match (&a.fen, &a.fen_file) {
        (Some(f), _) => vec![f.clone()],
        (None, Some(file)) => std::fs::read_to_string(file)
            .map_err(|e| input_err(format!("{}: {e}", file.display())))?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect(),
        (None, None) => unreachable!("clap requires one"),
    };
    let dir = a.tb.clone().unwrap_or_else(default_dir);
    let mut tables: Vec<Tablebase> = Vec::new();
    for fen in fens {
        let variant = Setup::from_fen(&fen).map_err(input_err)?.variant();
        if !tables.iter().any(|t| t.variant() == variant) {
            tables.push(Tablebase::open(&dir, variant).map_err(input_err)?);
        }
        let tb = tables
            .iter()
            .find(|t| t.variant() == variant)
            .expect("opened above");
        probe_one(tb, &fen, &dir, a.json)?;
    }
    Ok(())
}

fn probe_one(tb: &Tablebase, fen: &str, dir: &std::path::Path, json: bool) -> Result<()> {
    let variant = tb.variant();
    let pos = Position::from_fen(fen, tb.rules()).map_err(input_err)?;
    let Some(p) = tb.probe(&pos) else {
        return Err(input_err(format!(
            "`{fen}` has {} pieces; the {variant} tables in {} hold up to {}",
            pos.occupied().count(),
            dir.display(),
            tb.max_pieces()
        )));
    };
    let best = p.best.map(|t| format_turn(&pos, &t, PointStyle::Algebraic));
    if json {
        println!(
            "{}",
            serde_json::json!({"fen": pos.fen(), "wdl": p.wdl.name(), "dtc": p.dtc, "best": best})
        );
    } else {
        let what = match p.wdl {
            fanorona_tb::Wdl::Draw => "draw".to_string(),
            w => format!("{} (next capture or the end in {} turns)", w.name(), p.dtc),
        };
        println!(
            "{}: {what} for {}; best: {}",
            pos.fen(),
            pos.side_to_move().name(),
            best.as_deref().unwrap_or("-")
        );
    }
    Ok(())
}
