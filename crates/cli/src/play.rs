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
use fanorona_search::{ClockState, TimeControl};
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

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
    /// A clock for each side, BASE+INCREMENT in seconds (`300+3`: five minutes each, 3 s
    /// added after each turn): yours runs while you type, the engine's while it thinks
    /// (its time manager decides how long), both are shown after each turn, and a side
    /// whose clock runs out loses. Taking back turns gives no time back. Off by default.
    #[arg(long, value_name = "BASE+INC")]
    pub tc: Option<TimeControl>,
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

/// The engine's side of a game, told its clock (if any): its turn in notation and a note
/// on what its search says (`None`: it found no turn).
type Opponent<'a> =
    Box<dyn FnMut(&Game, Option<ClockState>) -> Result<Option<(String, String)>> + 'a>;

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
    if let Some(tc) = a.tc {
        writeln!(out, "On a clock of {tc} each.\n")?;
    }
    play_game(
        Game::from_position(start),
        me,
        a.tc,
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
            Box::new(move |game: &Game, clock| {
                let history = game.fanorona().expect("a tsivy or dimy game");
                let pos = *history.position();
                player.set_clock(clock);
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
        // Telo's exact solver answers at once; a telo network searches its spec's budget.
        AnyPosition::Telo(_) => Box::new(move |game: &Game, _clock| {
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

/// Both sides' clocks in a game played on one.
struct Clocks {
    tc: TimeControl,
    /// Time left, by colour (White, Black).
    left: [Duration; 2],
    /// Turns played, by colour.
    turns: [u32; 2],
}

impl Clocks {
    fn new(tc: TimeControl) -> Clocks {
        Clocks {
            tc,
            left: [tc.base; 2],
            turns: [0; 2],
        }
    }

    /// What `side` is told before its turn.
    fn state(&self, side: Color) -> ClockState {
        ClockState {
            left: self.left[side.index()],
            increment: self.tc.increment,
            turns_played: self.turns[side.index()],
            moves_to_go: None,
        }
    }

    /// `side`'s turn took `took`: false when its clock ran out.
    fn spend(&mut self, side: Color, took: Duration) -> bool {
        let k = side.index();
        if took > self.left[k] {
            self.left[k] = Duration::ZERO;
            return false;
        }
        self.left[k] = self.left[k] - took + self.tc.increment;
        self.turns[k] += 1;
        true
    }

    /// `White 4:58.3  Black 5:00.0`.
    fn line(&self) -> String {
        let show = |d: Duration| {
            let tenths = d.as_millis() / 100;
            format!("{}:{:02}.{}", tenths / 600, tenths / 10 % 60, tenths % 10)
        };
        format!(
            "Clocks: White {}  Black {}",
            show(self.left[0]),
            show(self.left[1])
        )
    }
}

/// The one play loop, every board: the engine's turns, the person's from `input`, on
/// a clock `tc` if given.
fn play_game(
    mut game: Game,
    me: Color,
    tc: Option<TimeControl>,
    engine: &mut Opponent<'_>,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<()> {
    let help = help(&game.position());
    let mut clocks = tc.map(Clocks::new);
    // When the person's clock started for the turn they are choosing.
    let mut thinking: Option<Instant> = None;
    let flagged = |out: &mut dyn Write, side: Color, game: &Game| -> Result<()> {
        let who = if side == me { "your" } else { "the engine's" };
        let verdict = if side == me {
            "the engine wins"
        } else {
            "you win"
        };
        let turns = game.history().len();
        writeln!(
            out,
            "Game over: {who} clock ran out ({verdict}) after {turns} turns."
        )?;
        Ok(())
    };
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
        let side = game.position().side_to_move();
        if side != me {
            let started = Instant::now();
            let Some((turn, note)) = engine(&game, clocks.as_ref().map(|c| c.state(side)))? else {
                writeln!(out, "The engine found no turn: game abandoned.")?;
                return Ok(());
            };
            if let Some(c) = clocks.as_mut()
                && !c.spend(side, started.elapsed())
            {
                return flagged(out, side, &game);
            }
            game.play(&turn).map_err(input_err)?;
            writeln!(out, "Engine plays {turn}{note}\n\n{}\n", game.position())?;
            if let Some(c) = &clocks {
                writeln!(out, "{}\n", c.line())?;
            }
            continue;
        }
        let started = *thinking.get_or_insert_with(Instant::now);
        let Some(line) = read_line(input, out)? else {
            writeln!(out, "End of input: game abandoned.")?;
            return Ok(());
        };
        // Whatever was typed, a clock that ran out while typing has fallen.
        if let Some(c) = &clocks
            && started.elapsed() > c.left[me.index()]
        {
            return flagged(out, me, &game);
        }
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
                    thinking = None;
                    if let Some(c) = clocks.as_mut()
                        && !c.spend(me, started.elapsed())
                    {
                        game.undo();
                        return flagged(out, me, &game);
                    }
                    let played = game.history().pop().expect("a turn was played");
                    writeln!(out, "You play {played}\n\n{}\n", game.position())?;
                    if let Some(c) = &clocks {
                        writeln!(out, "{}\n", c.line())?;
                    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Input whose lines arrive `.1` apart.
    struct Slow(std::io::Cursor<Vec<u8>>, Duration);
    impl std::io::Read for Slow {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0.read(buf)
        }
    }
    impl BufRead for Slow {
        fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
            self.0.fill_buf()
        }
        fn consume(&mut self, n: usize) {
            self.0.consume(n)
        }
        fn read_line(&mut self, buf: &mut String) -> std::io::Result<usize> {
            std::thread::sleep(self.1);
            std::io::BufRead::read_line(&mut self.0, buf)
        }
    }

    /// The engine's side: the first legal turn, the clocks it was told kept.
    fn first_turn(told: &mut Vec<ClockState>) -> Opponent<'_> {
        Box::new(move |g: &Game, clock| {
            told.extend(clock);
            Ok(g.turns().first().map(|t| (t.clone(), String::new())))
        })
    }

    fn played(tc: &str, lines: &str, delay_ms: u64) -> (String, Vec<ClockState>) {
        let mut told = Vec::new();
        let mut out = Vec::new();
        let mut input = Slow(
            std::io::Cursor::new(lines.as_bytes().to_vec()),
            Duration::from_millis(delay_ms),
        );
        play_game(
            Game::new("dimy").unwrap(),
            Color::White,
            Some(tc.parse().unwrap()),
            &mut first_turn(&mut told),
            &mut input,
            &mut out,
        )
        .unwrap();
        (String::from_utf8(out).unwrap(), told)
    }

    #[test]
    fn a_person_whose_clock_runs_out_loses() {
        // 0.1 s for the game, and the person takes 0.3 s to type a turn.
        let first = Game::new("dimy").unwrap().turns()[0].clone();
        let (out, told) = played("0.1", &format!("{first}\n"), 300);
        assert!(
            out.contains("Game over: your clock ran out (the engine wins) after 0 turns."),
            "{out}"
        );
        assert!(told.is_empty());
    }

    #[test]
    fn both_clocks_are_shown_and_the_engine_is_told_its_own() {
        // A minute each and a second a turn: the person's turn is quick; the engine
        // is told a clock of 60 s, then its clock gains its increment.
        let first = Game::new("dimy").unwrap().turns()[0].clone();
        let (out, told) = played("60+1", &format!("{first}\nquit\n"), 0);
        assert!(out.contains("You play"), "{out}");
        assert!(out.contains("Clocks: White 1:00."), "{out}");
        assert!(out.contains("Engine plays"), "{out}");
        assert_eq!(told.len(), 1, "{out}");
        assert_eq!(told[0].left, Duration::from_secs(60));
        assert_eq!(told[0].increment, Duration::from_secs(1));
        // After both turns each side has about 61 s.
        let last = out
            .lines()
            .rev()
            .find(|l| l.starts_with("Clocks:"))
            .unwrap();
        assert!(
            last.contains("White 1:0") && last.contains("Black 1:0"),
            "{last}"
        );
    }
}
