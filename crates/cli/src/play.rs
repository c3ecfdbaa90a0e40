//! `fanorona play`: a person against an engine in the terminal.

use crate::engine::{EngineSpec, Nets};
use crate::input_err;
use crate::rules_cmds::{AnyPosition, PositionArgs};
use anyhow::Result;
use clap::{Args, ValueEnum};
use fanorona_rules::notation::{format_turn, parse_turn};
use fanorona_rules::telo::TeloPosition;
use fanorona_rules::{Color, History, PointStyle, TurnMode};
use std::io::{BufRead, Write};

/// The person's colour.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// White moves first (unless vela says otherwise).
    White,
    /// Black.
    Black,
}

/// `fanorona play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The opponent (default: alpha-beta with the release's learned evaluation and opening
    /// book, 1 s a turn, the strongest player shipped): `ab:time=5s,eval=release`,
    /// `mcts:time=1s` (the release network), `ab:depth=6`, `mcts:ckpt=DIR,sims=400`,
    /// `random`, ... (telo: the exact solver, or a telo network's `mcts:ckpt=DIR`).
    #[arg(long, default_value = fanorona_nn::spec::DEFAULT_PLAYER)]
    pub engine: String,
    /// Your colour.
    #[arg(long, value_enum, default_value_t = Side::White)]
    pub color: Side,
    #[command(flatten)]
    pub pos: PositionArgs,
}

const HELP: &str = "Enter a turn in notation (e.g. d3e3(-1), d4d3-c3(-)-d2-e3, 22-23(-1)), \
`?` for the legal turns, `undo` to take back your last turn, `quit` to stop.";

pub fn play(a: PlayArgs) -> Result<()> {
    let spec = crate::engine::parse_interactive(&a.engine)?;
    let me = match a.color {
        Side::White => Color::White,
        Side::Black => Color::Black,
    };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let out = std::io::stdout();
    let mut out = out.lock();
    match a.pos.position()? {
        AnyPosition::Fanorona(start) => play_fanorona(start, me, &spec, &mut input, &mut out),
        AnyPosition::Telo(start) => play_telo(start, me, &spec, &mut input, &mut out),
    }
}

/// Reads one trimmed line; `None` at the end of input.
fn read_line(input: &mut impl BufRead, out: &mut impl Write) -> Result<Option<String>> {
    write!(out, "> ")?;
    out.flush()?;
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        writeln!(out)?;
        return Ok(None);
    }
    Ok(Some(line.trim().to_string()))
}

fn play_fanorona(
    start: fanorona_rules::Position,
    me: Color,
    spec: &EngineSpec,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<()> {
    let mut engine = crate::engine::player(spec, "engine", start.variant())?;
    engine.new_game();
    let mut game = History::new(start);
    writeln!(out, "You play {me}. {HELP}\n\n{}\n", game.position())?;
    loop {
        if let Some(o) = game.outcome() {
            let verdict = match o {
                fanorona_rules::Outcome::Win(c) if c == me => "you win",
                fanorona_rules::Outcome::Win(_) => "the engine wins",
                fanorona_rules::Outcome::Draw => "draw",
            };
            writeln!(
                out,
                "Game over: {o} ({verdict}) after {} turns.",
                game.turns().len()
            )?;
            return Ok(());
        }
        let pos = *game.position();
        if pos.side_to_move() != me {
            let choice = engine.choose(&game);
            let Some(t) = choice.turn else { continue };
            let score = choice
                .search
                .as_ref()
                .map_or(String::new(), |r| match r.mate_in() {
                    Some(m) if m > 0 => format!("  (engine: win in {m})"),
                    Some(m) => format!("  (engine: loss in {})", -m),
                    None => format!("  (engine: {:+.2})", r.score as f64 / 100.0),
                });
            writeln!(
                out,
                "Engine plays {}{score}\n\n{}\n",
                format_turn(&pos, &t, PointStyle::Algebraic),
                {
                    game.play_unchecked(&t);
                    game.position()
                }
            )?;
            continue;
        }
        let Some(line) = read_line(input, out)? else {
            writeln!(out, "End of input: game abandoned.")?;
            return Ok(());
        };
        match line.as_str() {
            "" => {}
            "quit" | "exit" => {
                writeln!(out, "Game abandoned.")?;
                return Ok(());
            }
            "help" | "h" => writeln!(out, "{HELP}")?,
            "?" => {
                let list: Vec<String> = pos
                    .turns(TurnMode::Distinct)
                    .iter()
                    .map(|t| format_turn(&pos, t, PointStyle::Algebraic))
                    .collect();
                writeln!(out, "{}", list.join("  "))?;
            }
            "undo" => {
                // Take back the engine's replies and your last turn.
                let mut undone = false;
                while game.undo() {
                    if game.position().side_to_move() == me {
                        undone = true;
                        break;
                    }
                }
                if undone {
                    writeln!(out, "Taken back.\n\n{}\n", game.position())?;
                } else {
                    writeln!(out, "Nothing to take back.\n\n{}\n", game.position())?;
                }
            }
            text => match parse_turn(&pos, text) {
                Ok(t) => {
                    game.play_unchecked(&t);
                    writeln!(
                        out,
                        "You play {}\n\n{}\n",
                        format_turn(&pos, &t, PointStyle::Algebraic),
                        game.position()
                    )?;
                }
                Err(e) => writeln!(out, "{e}\nTry again (`?` lists the legal turns).")?,
            },
        }
    }
}

fn play_telo(
    start: TeloPosition,
    me: Color,
    spec: &EngineSpec,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<()> {
    let device = crate::backend::device();
    let mut history = vec![start];
    writeln!(
        out,
        "You play {me}. Enter a placement (b2) or a move (a1b2), `?`, `undo`, `quit`.\n\n{start}\n"
    )?;
    loop {
        let pos = *history.last().expect("never empty");
        if let Some(o) = pos.outcome() {
            writeln!(out, "Game over: {o}.")?;
            return Ok(());
        }
        if pos.side_to_move() != me {
            // The spec's answer: the exact solution, or a telo network's search.
            let a = spec
                .analyse_telo(&pos, &Nets::on(&device))
                .map_err(input_err)?;
            let Some(m) = a.best.as_deref().and_then(|b| pos.parse_move(b).ok()) else {
                return Ok(());
            };
            let mut next = pos;
            next.play_unchecked(m);
            let v = match (a.mate(), a.score) {
                (Some(n), _) if n > 0 => format!("engine wins in {n}"),
                (Some(n), _) => format!("engine loses in {}", -n),
                (None, Some(0)) if !spec.has_network(fanorona_rules::Variant::Telo) => {
                    "draw".to_string()
                }
                (None, s) => format!("score {:+}", s.unwrap_or(0)),
            };
            writeln!(out, "Engine plays {} ({v})\n\n{next}\n", pos.format_move(m))?;
            history.push(next);
            continue;
        }
        let Some(line) = read_line(input, out)? else {
            writeln!(out, "End of input: game abandoned.")?;
            return Ok(());
        };
        match line.as_str() {
            "" => {}
            "quit" | "exit" => return Ok(()),
            "?" => {
                let list: Vec<String> = pos.moves().iter().map(|&m| pos.format_move(m)).collect();
                writeln!(out, "{}", list.join("  "))?;
            }
            "undo" => {
                let mut undone = false;
                while history.len() > 1 {
                    history.pop();
                    if history.last().expect("kept").side_to_move() == me {
                        undone = true;
                        break;
                    }
                }
                writeln!(
                    out,
                    "{}\n\n{}\n",
                    if undone {
                        "Taken back."
                    } else {
                        "Nothing to take back."
                    },
                    history.last().expect("kept")
                )?;
            }
            text => match pos.parse_move(text) {
                Ok(m) => {
                    let mut next = pos;
                    next.play_unchecked(m);
                    writeln!(out, "You play {}\n\n{next}\n", pos.format_move(m))?;
                    history.push(next);
                }
                Err(e) => writeln!(out, "{e}\nTry again (`?` lists the legal moves).")?,
            },
        }
    }
}
