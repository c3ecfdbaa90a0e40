//! Turn and game notation (docs/RULES.md section 5).
//!
//! ```text
//! e2e3(+2)                        approach capturing two
//! d4d3(+2)-c3(-1)-d2(+1)-e3(-1)   a four-step chain
//! c4c3                            a paika
//! 23-22(-1)-13                    the same style with traditional point numbers
//! d4d3Ac3Wd2Ae3W                  the engine protocol's (`fanorona uci`): the points
//!                                 visited, each capture followed by `A` (approach) or
//!                                 `W` (withdrawal), no counts
//! ```
//!
//! [`parse_turn`] reads every form.

use crate::bitboard::Point;
use crate::geometry::Geometry;
use crate::position::{Position, TurnMode};
use crate::turn::{Action, Capture, MAX_CHAIN, StepKind, Turn};
use std::fmt;

/// How points are written.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum PointStyle {
    /// `e3` (default).
    #[default]
    Algebraic,
    /// Traditional numbers, `23`.
    Numbers,
}

/// Why a turn could not be read or played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// The text is not a turn at all.
    Malformed {
        /// The turn as given.
        turn: String,
        /// What is wrong.
        reason: String,
    },
    /// No legal turn has this path (and these capture kinds).
    Illegal {
        /// The turn as given.
        turn: String,
        /// The position (FEN) it was played in.
        fen: String,
        /// Why, as far as can be told.
        reason: String,
    },
    /// More than one legal turn fits the text.
    Ambiguous {
        /// The turn as given.
        turn: String,
        /// The position (FEN).
        fen: String,
        /// The legal turns that fit.
        candidates: Vec<String>,
    },
    /// A capture count that was given does not match.
    WrongCount {
        /// The turn as given.
        turn: String,
        /// The position (FEN).
        fen: String,
        /// The turn with the right counts.
        expected: String,
    },
}

impl NotationError {
    /// The turn text the error is about.
    pub fn turn(&self) -> &str {
        match self {
            NotationError::Malformed { turn, .. }
            | NotationError::Illegal { turn, .. }
            | NotationError::Ambiguous { turn, .. }
            | NotationError::WrongCount { turn, .. } => turn,
        }
    }
}

impl NotationError {
    /// What is wrong, without the turn and the position (for a message that names them
    /// itself).
    pub fn problem(&self) -> String {
        match self {
            NotationError::Malformed { reason, .. } => format!("malformed: {reason}"),
            NotationError::Illegal { reason, .. } => format!("illegal: {reason}"),
            NotationError::Ambiguous { candidates, .. } => {
                format!("ambiguous: it could be {}", candidates.join(" or "))
            }
            NotationError::WrongCount { expected, .. } => {
                format!("wrong capture count: the turn is {expected}")
            }
        }
    }
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let turn = crate::quote(self.turn());
        match self {
            NotationError::Malformed { reason, .. } => {
                write!(f, "malformed turn {turn}: {reason}")
            }
            NotationError::Illegal { fen, reason, .. } => {
                write!(
                    f,
                    "illegal turn {turn} in position {}: {reason}",
                    crate::quote(fen)
                )
            }
            NotationError::Ambiguous {
                fen, candidates, ..
            } => write!(
                f,
                "ambiguous turn {turn} in position {}: it could be {}",
                crate::quote(fen),
                candidates.join(" or ")
            ),
            NotationError::WrongCount { fen, expected, .. } => write!(
                f,
                "wrong capture count in turn {turn} in position {}: the turn is {expected}",
                crate::quote(fen)
            ),
        }
    }
}
impl std::error::Error for NotationError {}

/// One step of a turn as written: its destination and, where given, kind and count.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct WrittenStep {
    to: Point,
    capture: Option<Capture>,
    count: Option<u32>,
}

/// The pieces captured by each step of `turn` played from `pos`.
pub fn step_counts(pos: &Position, turn: &Turn) -> [u8; MAX_CHAIN] {
    let mut counts = [0u8; MAX_CHAIN];
    let them = pos.side_to_move().other();
    let mut p = *pos;
    for (i, a) in pos.turn_actions(turn).into_iter().enumerate() {
        if let Action::Step(_) = a {
            let before = p.pieces(them).count();
            p.play_action_unchecked(a);
            counts[i] = (before - p.pieces(them).count()) as u8;
        }
    }
    counts
}

fn write_point(g: &Geometry, p: Point, style: PointStyle, s: &mut String) {
    match style {
        PointStyle::Algebraic => s.push_str(&g.name(p).to_string()),
        PointStyle::Numbers => s.push_str(&g.number(p).to_string()),
    }
}

/// Writes `turn` (legal in `pos`) in notation, with every count.
pub fn format_turn(pos: &Position, turn: &Turn, style: PointStyle) -> String {
    let g = pos.geometry();
    let counts = step_counts(pos, turn);
    let mut s = String::new();
    write_point(g, turn.from(), style, &mut s);
    for (i, (_, to, kind)) in turn.steps().enumerate() {
        if i > 0 || style == PointStyle::Numbers {
            s.push('-');
        }
        write_point(g, to, style, &mut s);
        if let StepKind::Capture(c) = kind {
            s.push('(');
            s.push(c.sign());
            s.push_str(&counts[i].to_string());
            s.push(')');
        }
    }
    s
}

/// Writes `turn` (legal in `pos`) in the engine protocol's form (`fanorona uci`, the
/// dialect of UCI that Fanorona engines speak): the points it visits, algebraic, each
/// capturing step followed by `A` (approach) or `W` (withdrawal): `d3e3W`, `c1d1Ad2A`,
/// a paika `e2e3`. [`parse_turn`] reads it back.
pub fn format_engine_turn(pos: &Position, turn: &Turn) -> String {
    let g = pos.geometry();
    let mut s = String::new();
    write_point(g, turn.from(), PointStyle::Algebraic, &mut s);
    for (_, to, kind) in turn.steps() {
        write_point(g, to, PointStyle::Algebraic, &mut s);
        match kind {
            StepKind::Capture(Capture::Approach) => s.push('A'),
            StepKind::Capture(Capture::Withdrawal) => s.push('W'),
            StepKind::Paika => {}
        }
    }
    s
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn number(&mut self) -> Option<u32> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) && self.i - start < 4 {
            self.i += 1;
        }
        std::str::from_utf8(&self.b[start..self.i])
            .ok()?
            .parse()
            .ok()
    }
}

fn parse_written(g: &Geometry, text: &str) -> Result<(Point, Vec<WrittenStep>), String> {
    let mut c = Cursor {
        b: text.as_bytes(),
        i: 0,
    };
    let numbers = c.peek().is_some_and(|b| b.is_ascii_digit());
    let point = |c: &mut Cursor| -> Result<Point, String> {
        let at = c.i;
        if numbers {
            let n = c
                .number()
                .ok_or_else(|| format!("expected a point number at character {}", at + 1))?;
            g.from_number(n)
                .ok_or_else(|| format!("point number {n} is not on the board"))
        } else {
            let file = c.peek().filter(u8::is_ascii_lowercase);
            let Some(file) = file else {
                return Err(format!(
                    "expected a point such as `e3` at character {}",
                    at + 1
                ));
            };
            c.i += 1;
            let rank = c.peek().filter(u8::is_ascii_digit);
            let Some(rank) = rank else {
                return Err(format!("expected a row digit at character {}", c.i + 1));
            };
            c.i += 1;
            g.point((file - b'a') as i32, rank as i32 - b'1' as i32)
                .ok_or_else(|| {
                    format!("point {}{} is not on the board", file as char, rank as char)
                })
        }
    };
    let from = point(&mut c)?;
    let mut steps = Vec::new();
    loop {
        if c.peek().is_none() {
            break;
        }
        // Numbers need the dash; algebraic points may follow each other (the engine
        // protocol's form).
        if !c.eat(b'-') && (numbers || c.peek().is_some_and(|b| !b.is_ascii_lowercase())) {
            return Err(format!("expected `-` or the end at character {}", c.i + 1));
        }
        let to = point(&mut c)?;
        let mut step = WrittenStep {
            to,
            capture: None,
            count: None,
        };
        if c.eat(b'A') {
            step.capture = Some(Capture::Approach);
        } else if c.eat(b'W') {
            step.capture = Some(Capture::Withdrawal);
        } else if c.eat(b'(') {
            step.capture = match c.peek() {
                Some(b'+') => Some(Capture::Approach),
                Some(b'-') => Some(Capture::Withdrawal),
                _ => {
                    return Err(format!(
                        "expected `+` or `-` after `(` at character {}",
                        c.i + 1
                    ));
                }
            };
            c.i += 1;
            if c.peek().is_some_and(|b| b.is_ascii_digit()) {
                step.count = c.number();
                if step.count.is_none() {
                    return Err(format!("bad capture count at character {}", c.i + 1));
                }
            }
            if !c.eat(b')') {
                return Err(format!("expected `)` at character {}", c.i + 1));
            }
        }
        steps.push(step);
        if steps.len() > MAX_CHAIN {
            return Err(format!("more than {MAX_CHAIN} steps"));
        }
    }
    if steps.is_empty() {
        return Err("a turn needs an origin and a destination".to_string());
    }
    Ok((from, steps))
}

/// Reads a turn in notation and finds the legal turn it names in `pos`.
///
/// # Errors
/// [`NotationError::Malformed`], [`NotationError::Illegal`], [`NotationError::Ambiguous`]
/// or [`NotationError::WrongCount`], each naming the turn and the position.
pub fn parse_turn(pos: &Position, text: &str) -> Result<Turn, NotationError> {
    let turn = text.trim();
    let g = pos.geometry();
    let (from, written) = parse_written(g, turn).map_err(|reason| NotationError::Malformed {
        turn: turn.to_string(),
        reason,
    })?;
    let fen = || pos.fen();
    if pos.chain().is_some() {
        return Err(NotationError::Illegal {
            turn: turn.to_string(),
            fen: fen(),
            reason: "the position is in the middle of a capture chain".to_string(),
        });
    }
    let legal = pos.turns(TurnMode::Paths);
    let same_path: Vec<&Turn> = legal
        .iter()
        .filter(|t| {
            t.from() == from
                && t.len() == written.len()
                && t.steps().zip(&written).all(|((_, to, _), w)| to == w.to)
        })
        .collect();
    if same_path.is_empty() {
        let reason = if legal.iter().any(|t| t.is_capture()) && !legal.is_empty() {
            let starts_capture = legal
                .iter()
                .any(|t| t.from() == from && t.steps().next().map(|s| s.1) == Some(written[0].to));
            if starts_capture {
                "no capture chain follows this path".to_string()
            } else {
                "not a legal turn (a capture is possible, so a turn must capture)".to_string()
            }
        } else if legal.is_empty() {
            "the side to move has no legal turn".to_string()
        } else {
            "not a legal turn".to_string()
        };
        return Err(NotationError::Illegal {
            turn: turn.to_string(),
            fen: fen(),
            reason,
        });
    }
    let fits: Vec<&Turn> = same_path
        .into_iter()
        .filter(|t| {
            t.steps()
                .zip(&written)
                .all(|((_, _, kind), w)| match (w.capture, kind) {
                    (None, _) => true,
                    (Some(c), StepKind::Capture(k)) => c == k,
                    (Some(_), StepKind::Paika) => false,
                })
        })
        .collect();
    match fits.as_slice() {
        [] => Err(NotationError::Illegal {
            turn: turn.to_string(),
            fen: fen(),
            reason: "no legal turn captures that way along this path".to_string(),
        }),
        [t] => {
            let counts = step_counts(pos, t);
            let ok = written
                .iter()
                .enumerate()
                .all(|(i, w)| w.count.is_none_or(|n| n == counts[i] as u32));
            if ok {
                Ok(**t)
            } else {
                Err(NotationError::WrongCount {
                    turn: turn.to_string(),
                    fen: fen(),
                    expected: format_turn(pos, t, PointStyle::Algebraic),
                })
            }
        }
        many => Err(NotationError::Ambiguous {
            turn: turn.to_string(),
            fen: fen(),
            candidates: many
                .iter()
                .map(|t| format_turn(pos, t, PointStyle::Algebraic))
                .collect(),
        }),
    }
}

/// Splits a game text into turn tokens: separated by spaces or `;`, move numbers (`1.`,
/// `12...`) dropped.
pub fn split_game(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || c == ';')
        .filter(|t| !t.is_empty())
        .filter(|t| {
            !(t.ends_with('.') && t.trim_end_matches('.').bytes().all(|b| b.is_ascii_digit()))
        })
        .collect()
}

/// An error in a game: which turn (1-based), and what went wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameError {
    /// The number of the failing turn, from 1.
    pub number: usize,
    /// The problem, naming the turn and position.
    pub error: NotationError,
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "turn {}: {}", self.number, self.error)
    }
}
impl std::error::Error for GameError {}

/// Plays a game text from `start`, returning every turn played.
///
/// # Errors
/// The first turn that cannot be read or is not legal, with its number.
pub fn parse_game(start: &Position, text: &str) -> Result<(Vec<Turn>, Position), GameError> {
    let mut pos = *start;
    let mut turns = Vec::new();
    for (i, tok) in split_game(text).into_iter().enumerate() {
        if pos.outcome().is_some() {
            return Err(GameError {
                number: i + 1,
                error: NotationError::Illegal {
                    turn: tok.to_string(),
                    fen: pos.fen(),
                    reason: "the game is already over".to_string(),
                },
            });
        }
        let t = parse_turn(&pos, tok).map_err(|error| GameError {
            number: i + 1,
            error,
        })?;
        pos.play_unchecked(&t);
        turns.push(t);
    }
    Ok((turns, pos))
}
