//! `fanorona analyze`: the best turn of a position (or of every position in a file).

use crate::engine::EngineSpec;
use crate::input_err;
use crate::rules_cmds::{AnyPosition, PositionArgs};
use anyhow::Result;
use clap::Args;
use fanorona_rules::notation::format_turn;
use fanorona_rules::telo::{TeloPosition, TeloSolution, TeloValue};
use fanorona_rules::{History, PointStyle, Position, RuleOptions, Setup, Variant};
use fanorona_search::{MATE, MATE_BOUND};
use std::time::Instant;

/// `fanorona analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub pos: PositionArgs,
    /// Analyse every FEN in this file (one a line, any variant; `#` comments and blank
    /// lines skipped), printing one result per position.
    #[arg(long, value_name = "F", conflicts_with = "fen")]
    pub fen_file: Option<String>,
    /// The engine: `ab:depth=8`, `ab:time=1s`, `ab:nodes=N`, `random`, `mcts:time=1s` (the
    /// release network), `mcts:ckpt=DIR,sims=400`. Telo positions are answered by the
    /// exact telo solver (or by a network with `mcts:ckpt=DIR`).
    #[arg(long, default_value = "ab:time=1s")]
    pub engine: String,
    /// One line of JSON per position: fen, best, score, pv, depth, nodes (and mate,
    /// seconds, nodes_per_second).
    #[arg(long)]
    pub json: bool,
}

/// What an analysis found (the fields of `analyze --json`).
pub(crate) struct Analysis {
    fen: String,
    best: Option<String>,
    score: Option<i32>,
    pv: Vec<String>,
    depth: u32,
    nodes: u64,
    seconds: f64,
}

impl Analysis {
    fn mate(&self) -> Option<i32> {
        let s = self.score?;
        if s > MATE_BOUND {
            Some(MATE - s)
        } else if s < -MATE_BOUND {
            Some(-(MATE + s))
        } else {
            None
        }
    }
    fn nodes_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.nodes as f64 / self.seconds
        } else {
            0.0
        }
    }
    /// The JSON object of `analyze --json` (and of the server's `/api/analyze`).
    pub(crate) fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "fen": self.fen, "best": self.best, "score": self.score, "pv": self.pv,
            "depth": self.depth, "nodes": self.nodes, "mate": self.mate(),
            "seconds": self.seconds, "nodes_per_second": self.nodes_per_second().round(),
        })
    }
    fn print(&self, json: bool) {
        let nps = self.nodes_per_second();
        if json {
            println!("{}", self.to_json());
            return;
        }
        println!("position: {}", self.fen);
        match &self.best {
            None => println!("no legal turn: the game is over"),
            Some(b) => {
                let score = match (self.mate(), self.score) {
                    (Some(m), _) if m > 0 => format!("win in {m} turns"),
                    (Some(m), _) => format!("loss in {} turns", -m),
                    (None, Some(s)) => format!("{:+.2} pieces", s as f64 / 100.0),
                    (None, None) => "-".to_string(),
                };
                println!(
                    "best: {b}\nscore: {score} (for the side to move)\npv: {}",
                    self.pv.join(" ")
                );
                println!(
                    "depth {}, {} nodes, {:.2} s, {:.2} M nodes/s",
                    self.depth,
                    self.nodes,
                    self.seconds,
                    nps / 1e6
                );
            }
        }
    }
}

pub(crate) fn analyse_fanorona(pos: &Position, spec: &EngineSpec) -> Result<Analysis> {
    let start = Instant::now();
    let mut player = crate::engine::player(spec, "analyze", pos.variant())?;
    let choice = player.choose(&History::new(*pos));
    let mut pv = Vec::new();
    let mut p = *pos;
    let (score, depth, nodes, turns) = match &choice.search {
        Some(r) => (Some(r.score), r.depth, r.nodes, r.pv.clone()),
        None => (None, 0, 0, choice.turn.into_iter().collect()),
    };
    for t in &turns {
        pv.push(format_turn(&p, t, PointStyle::Algebraic));
        p.play_unchecked(t);
    }
    Ok(Analysis {
        fen: pos.fen(),
        best: choice
            .turn
            .map(|t| format_turn(pos, &t, PointStyle::Algebraic)),
        score,
        pv,
        depth,
        nodes,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// A telo position answered by a network and search.
pub(crate) fn analyse_telo_mcts(pos: &TeloPosition, spec: &EngineSpec) -> Result<Analysis> {
    let start = Instant::now();
    let (action, wdl, sims) = crate::train_cmd::telo_mcts(spec, pos)?;
    let best = action
        .and_then(fanorona_rules::game::telo_action_from_index)
        .map(|m| pos.format_move(m));
    Ok(Analysis {
        fen: pos.fen(),
        best: best.clone(),
        score: best
            .as_ref()
            .map(|_| ((wdl[0] - wdl[2]) * 100.0).round() as i32),
        pv: best.into_iter().collect(),
        depth: 0,
        nodes: sims as u64,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Telo is small enough to know exactly: the solver's value and a value-keeping line.
pub(crate) fn analyse_telo(pos: &TeloPosition, solution: &TeloSolution) -> Analysis {
    let start = Instant::now();
    let value = solution.value(pos);
    let score = match value {
        TeloValue::Win(n) => MATE - n as i32,
        TeloValue::Loss(n) => -(MATE - n as i32),
        TeloValue::Draw => 0,
    };
    let mut pv = Vec::new();
    let mut p = *pos;
    let plies = match value {
        TeloValue::Win(n) | TeloValue::Loss(n) => n as usize,
        TeloValue::Draw => 8,
    };
    while pv.len() < plies && p.outcome().is_none() {
        // The fastest win, or the longest defence, or any drawing move.
        let moves = solution.value_preserving_moves(&p);
        let Some(&m) = moves.iter().min_by_key(|&&m| {
            let mut c = p;
            c.play_unchecked(m);
            match solution.value(&c) {
                TeloValue::Loss(n) => n as i32,
                TeloValue::Win(n) => -(n as i32),
                TeloValue::Draw => 0,
            }
        }) else {
            break;
        };
        pv.push(p.format_move(m));
        p.play_unchecked(m);
    }
    Analysis {
        fen: pos.fen(),
        best: pv.first().cloned(),
        score: Some(score),
        pv,
        depth: plies as u32,
        nodes: 0,
        seconds: start.elapsed().as_secs_f64(),
    }
}

pub fn analyze(a: AnalyzeArgs) -> Result<()> {
    let spec = crate::engine::parse(&a.engine)?;
    let rules = a.pos.rule_options()?;
    let mut solution: Option<TeloSolution> = None;
    let mut run = |p: AnyPosition| -> Result<Analysis> {
        Ok(match p {
            AnyPosition::Fanorona(p) => analyse_fanorona(&p, &spec)?,
            AnyPosition::Telo(t) if matches!(spec, EngineSpec::Mcts { .. }) => {
                analyse_telo_mcts(&t, &spec)?
            }
            AnyPosition::Telo(t) => {
                analyse_telo(&t, solution.get_or_insert_with(TeloSolution::solve))
            }
        })
    };
    match &a.fen_file {
        None => run(a.pos.position()?)?.print(a.json),
        Some(f) => {
            let text = std::fs::read_to_string(f)
                .map_err(|e| input_err(format!("cannot read FEN file `{f}`: {e}")))?;
            for (i, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let pos = read_any(line, rules)
                    .map_err(|e| input_err(format!("{f}, line {}: {e}", i + 1)))?;
                run(pos)?.print(a.json);
                if !a.json {
                    println!();
                }
            }
        }
    }
    Ok(())
}

/// A position of any variant from FEN.
pub fn read_any(fen: &str, rules: RuleOptions) -> Result<AnyPosition, fanorona_rules::FenError> {
    let setup = Setup::from_fen(fen)?;
    Ok(if setup.variant() == Variant::Telo {
        AnyPosition::Telo(TeloPosition::from_fen(fen, rules)?)
    } else {
        AnyPosition::Fanorona(Position::from_fen(fen, rules)?)
    })
}
