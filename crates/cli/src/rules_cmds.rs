//! Commands on the rules: `perft`, `turns`, `replay`.

use crate::input_err;
use anyhow::{Context, Result};
use clap::Args;
pub use fanorona_rules::AnyPosition;
use fanorona_rules::notation::{format_turn, parse_turn, split_game};
use fanorona_rules::{
    History, PointStyle, RuleOptions, TurnMode, Variant, divide, perft as count, quote, telo_perft,
};
use std::time::Instant;

/// The position a command starts from: `--variant`, `--fen`, `--rule`.
#[derive(Args, Debug, Clone)]
pub struct PositionArgs {
    /// Board: tsivy (9x5), dimy (5x5) or telo (3x3). With --fen, taken from the FEN.
    #[arg(long, value_name = "V")]
    pub variant: Option<Variant>,
    /// Start from this position instead of the start (docs/RULES.md section 6).
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,
    /// A rule option, repeatable: reply_chains, quiet_limit, repetition_draw, vela,
    /// vela_form (e.g. `--rule vela=black --rule vela_form=kely`).
    #[arg(long = "rule", value_name = "KEY=VALUE")]
    pub rules: Vec<String>,
}

impl PositionArgs {
    /// The rule options from `--rule`.
    pub fn rule_options(&self) -> Result<RuleOptions> {
        let mut r = RuleOptions::default();
        for pair in &self.rules {
            r.set_pair(pair).map_err(input_err)?;
        }
        Ok(r)
    }

    /// The position: the FEN if given (checked against `--variant`), else the start.
    pub fn position(&self) -> Result<AnyPosition> {
        let rules = self.rule_options()?;
        let Some(fen) = &self.fen else {
            return Ok(AnyPosition::start(
                self.variant.unwrap_or(Variant::Tsivy),
                rules,
            ));
        };
        let p = AnyPosition::from_fen(fen, rules).map_err(input_err)?;
        let v = p.variant();
        if let Some(want) = self.variant
            && want != v
        {
            return Err(input_err(format!(
                "--variant {want} does not match the FEN {}, which is a {v} board",
                quote(fen)
            )));
        }
        Ok(p)
    }
}

/// `fanorona perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Depth in turns.
    #[arg(long)]
    pub depth: u32,
    #[command(flatten)]
    pub pos: PositionArgs,
    /// Count every step path instead of distinct turns.
    #[arg(long)]
    pub paths: bool,
    /// Print the count below each legal turn.
    #[arg(long)]
    pub divide: bool,
    /// One line of JSON: variant, depth, nodes, seconds, nodes_per_second.
    #[arg(long)]
    pub json: bool,
}

pub fn perft(a: PerftArgs) -> Result<()> {
    let mode = if a.paths {
        TurnMode::Paths
    } else {
        TurnMode::Distinct
    };
    let start = Instant::now();
    let (variant, nodes) = match a.pos.position()? {
        AnyPosition::Fanorona(p) => {
            if a.divide && a.depth >= 1 {
                let mut total = 0;
                for (t, n) in divide(&p, a.depth, mode) {
                    println!("{} {n}", format_turn(&p, &t, PointStyle::Algebraic));
                    total += n;
                }
                (p.variant(), total)
            } else {
                (p.variant(), count(&p, a.depth, mode))
            }
        }
        AnyPosition::Telo(p) => {
            if a.divide && a.depth >= 1 {
                let mut total = 0;
                for m in p.moves() {
                    let mut c = p;
                    c.play_unchecked(m);
                    let n = telo_perft(&c, a.depth - 1);
                    println!("{} {n}", p.format_move(m));
                    total += n;
                }
                (Variant::Telo, total)
            } else {
                (Variant::Telo, telo_perft(&p, a.depth))
            }
        }
    };
    let secs = start.elapsed().as_secs_f64();
    let nps = if secs > 0.0 { nodes as f64 / secs } else { 0.0 };
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "variant": variant.name(), "depth": a.depth, "nodes": nodes,
                "seconds": secs, "nodes_per_second": nps.round(),
            })
        );
    } else {
        if a.divide {
            println!();
        }
        println!(
            "perft({}) = {nodes}  ({secs:.3} s, {:.1} M nodes/s)",
            a.depth,
            nps / 1e6
        );
    }
    Ok(())
}

/// `fanorona turns`.
#[derive(Args, Debug)]
pub struct TurnsArgs {
    #[command(flatten)]
    pub pos: PositionArgs,
    /// List every step path, not only distinct turns.
    #[arg(long)]
    pub paths: bool,
    /// Write points as traditional numbers (1-45).
    #[arg(long)]
    pub numbers: bool,
}

pub fn turns(a: TurnsArgs) -> Result<()> {
    match a.pos.position()? {
        AnyPosition::Fanorona(p) => {
            let mode = if a.paths {
                TurnMode::Paths
            } else {
                TurnMode::Distinct
            };
            let style = if a.numbers {
                PointStyle::Numbers
            } else {
                PointStyle::Algebraic
            };
            for t in p.turns(mode) {
                println!("{}", format_turn(&p, &t, style));
            }
        }
        AnyPosition::Telo(p) => {
            for m in p.moves() {
                println!("{}", p.format_move(m));
            }
        }
    }
    Ok(())
}

/// `fanorona replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub pos: PositionArgs,
    /// Read the game from this file (`-` for standard input) instead of the arguments.
    #[arg(long, value_name = "F", conflicts_with = "turns")]
    pub file: Option<String>,
    /// The turns, in notation (spaces or `;` between them; move numbers are ignored).
    #[arg(value_name = "TURNS")]
    pub turns: Vec<String>,
    /// Print only one line of JSON: fen, turns, result.
    #[arg(long)]
    pub json: bool,
}

/// The text of a game file, `-` for standard input.
pub fn read_game_file(f: &str) -> Result<String> {
    if f == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .context("reading the game from standard input")?;
        Ok(s)
    } else {
        std::fs::read_to_string(f)
            .map_err(|e| input_err(format!("cannot read game file `{f}`: {e}")))
    }
}

pub fn replay(a: ReplayArgs) -> Result<()> {
    let text = match &a.file {
        Some(f) => read_game_file(f)?,
        None => a.turns.join(" "),
    };
    let tokens = split_game(&text);
    let (fen, result) = match a.pos.position()? {
        AnyPosition::Fanorona(start) => {
            let mut h = History::new(start);
            if !a.json {
                println!("{start}\n");
            }
            for (i, tok) in tokens.iter().enumerate() {
                let pos = *h.position();
                if h.outcome().is_some() {
                    return Err(input_err(format!(
                        "turn {} {}: the game is already over in position `{}`",
                        i + 1,
                        quote(tok),
                        pos.fen()
                    )));
                }
                let t =
                    parse_turn(&pos, tok).map_err(|e| input_err(format!("turn {}: {e}", i + 1)))?;
                h.play_unchecked(&t);
                if !a.json {
                    println!(
                        "{}. {}\n{}\n",
                        i + 1,
                        format_turn(&pos, &t, PointStyle::Algebraic),
                        h.position()
                    );
                }
            }
            (h.position().fen(), h.outcome().map(|o| o.name()))
        }
        AnyPosition::Telo(mut p) => {
            if !a.json {
                println!("{p}\n");
            }
            for (i, tok) in tokens.iter().enumerate() {
                if p.outcome().is_some() {
                    return Err(input_err(format!(
                        "turn {} {}: the game is already over in position `{}`",
                        i + 1,
                        quote(tok),
                        p.fen()
                    )));
                }
                let m = p
                    .parse_move(tok)
                    .map_err(|e| input_err(format!("turn {}: {e}", i + 1)))?;
                p.play_unchecked(m);
                if !a.json {
                    println!("{}. {tok}\n{p}\n", i + 1);
                }
            }
            (p.fen(), p.outcome().map(|o| o.name()))
        }
    };
    let result = result.unwrap_or("ongoing");
    if a.json {
        println!(
            "{}",
            serde_json::json!({"fen": fen, "turns": tokens.len(), "result": result})
        );
    } else {
        println!("{} turns, result: {result}\nfen: {fen}", tokens.len());
    }
    Ok(())
}
