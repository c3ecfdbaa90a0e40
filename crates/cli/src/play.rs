//! `fanorona play`: a person against an engine in the terminal, on any board: one loop
//! over `fanorona_engine::Game` (turns in notation, undo, the outcome), the engine's
//! side from the spec (a player on tsivy and dimy; telo's exact solver or a network).

use crate::engine::{EngineSpec, Nets};
use crate::input_err;
use crate::rules_cmds::{AnyPosition, PositionArgs};
use anyhow::Result;
use clap::{Args, ValueEnum};
use fanorona_engine::{EngineError, Game};
use fanorona_rules::notation::format_turn;
use fanorona_rules::{Color, Outcome, PointStyle};
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

/// What the person may type, by board.
fn help(start: &AnyPosition) -> &'static str {
    match start {
        AnyPosition::Fanorona(_) => {
            "Enter a turn in notation (e.g. d3e3(-1), d4d3-c3(-)-d2-e3, 22-23(-1)), `?` for \
             the legal turns, `undo` to take back your last turn, `quit` to stop."
        }
        AnyPosition::Telo(_) => {
            "Enter a placement (b2) or a move (a1b2), `?` for the legal moves, `undo` to take \
             back your last move, `quit` to stop."
        }
    }
}

/// The engine's side of a game: its turn in notation and a note on what its search
/// says (`None`: it found no turn).
type Opponent<'a> = Box<dyn FnMut(&Game) -> Result<Option<(String, String)>> + 'a>;

pub fn play(a: PlayArgs) -> Result<()> {
    let spec = crate::engine::parse_interactive(&a.engine)?;
    let me = match a.color {
        Side::White => Color::White,
        Side::Black => Color::Black,
    };
    let start = a.pos.position()?;
    let mut engine = opponent(&spec, &start)?;
    let stdin = std::io::stdin();
    let out = std::io::stdout();
    let mut out = out.lock();
    writeln!(out, "You play {me}. {}\n\n{start}\n", help(&start))?;
    play_game(
        Game::from_position(start),
        me,
        &mut engine,
        &mut stdin.lock(),
        &mut out,
    )
}

/// The engine `spec` describes, on `start`'s board.
fn opponent<'a>(spec: &'a EngineSpec, start: &AnyPosition) -> Result<Opponent<'a>> {
    let device = crate::backend::device();
    Ok(match start {
        AnyPosition::Fanorona(p) => {
            let mut player = crate::engine::player(spec, "engine", p.variant())?;
            player.new_game();
            Box::new(move |game: &Game| {
                let history = game.fanorona().expect("a tsivy or dimy game");
                let pos = *history.position();
                let choice = player.choose(history);
                let Some(t) = choice.turn else {
                    return Ok(None);
                };
                let note = choice.search.map_or(String::new(), |r| match r.mate_in() {
                    Some(m) if m > 0 => format!("  (engine: win in {m})"),
                    Some(m) => format!("  (engine: loss in {})", -m),
                    None => format!("  (engine: {:+.2})", r.score as f64 / 100.0),
                });
                Ok(Some((format_turn(&pos, &t, PointStyle::Algebraic), note)))
            })
        }
        AnyPosition::Telo(_) => Box::new(move |game: &Game| {
            let AnyPosition::Telo(pos) = game.position() else {
                unreachable!("a telo game")
            };
            // The spec's answer: the exact solution, or a telo network's search.
            let a = spec
                .analyse_telo(&pos, &Nets::on(&device))
                .map_err(input_err)?;
            let Some(best) = a.best.clone() else {
                return Ok(None);
            };
            let note = match (a.mate(), a.score) {
                (Some(n), _) if n > 0 => format!("  (engine: win in {n})"),
                (Some(n), _) => format!("  (engine: loss in {})", -n),
                (None, Some(0)) if !spec.has_network(fanorona_rules::Variant::Telo) => {
                    "  (engine: draw)".to_string()
                }
                (None, s) => format!("  (engine: {:+})", s.unwrap_or(0)),
            };
            Ok(Some((best, note)))
        }),
    })
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

/// The one play loop, every board: the engine's turns, the person's from `input`.
fn play_game(
    mut game: Game,
    me: Color,
    engine: &mut Opponent<'_>,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<()> {
    let help = help(&game.position());
    loop {
        if let Some(o) = game.outcome() {
            let verdict = match o {
                Outcome::Win(c) if c == me => "you win",
                Outcome::Win(_) => "the engine wins",
                Outcome::Draw => "draw",
            };
            let turns = game.history().len();
            writeln!(out, "Game over: {o} ({verdict}) after {turns} turns.")?;
            return Ok(());
        }
        if game.position().side_to_move() != me {
            let Some((turn, note)) = engine(&game)? else {
                writeln!(out, "The engine found no turn: game abandoned.")?;
                return Ok(());
            };
            game.play(&turn).map_err(input_err)?;
            writeln!(out, "Engine plays {turn}{note}\n\n{}\n", game.position())?;
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
            "help" | "h" => writeln!(out, "{help}")?,
            "?" => writeln!(out, "{}", game.turns().join("  "))?,
            "undo" => {
                // Take back the engine's replies and your last turn.
                let mut undone = false;
                while game.undo() {
                    if game.position().side_to_move() == me {
                        undone = true;
                        break;
                    }
                }
                let what = if undone {
                    "Taken back."
                } else {
                    "Nothing to take back."
                };
                writeln!(out, "{what}\n\n{}\n", game.position())?;
            }
            text => match game.play(text) {
                Ok(()) => {
                    let played = game.history().pop().expect("a turn was played");
                    writeln!(out, "You play {played}\n\n{}\n", game.position())?;
                }
                Err(EngineError::Turn { reason, .. }) => {
                    writeln!(
                        out,
                        "turn {}: {reason}\nTry again (`?` lists the legal turns).",
                        fanorona_engine::quote(text)
                    )?;
                }
                Err(e) => return Err(input_err(e)),
            },
        }
    }
}
