//! Reviewing a game: every turn scored by a player's search against the turn it would
//! have played ([`review_game`]), its loss in hundredths of a piece and its mark (`??`
//! from two pieces, `?` from one, `?!` from half), and each side's figures over a game or
//! many ([`SideSummary`]). `fanorona analyze --game/--record/--judge` prints them; the
//! server and other front ends can too.

use crate::analysis::analyse;
use crate::player::Player;
use fanorona_eval::{MATE, MATE_BOUND};
use fanorona_rules::notation::{GameError, format_turn, parse_game};
use fanorona_rules::{Color, History, Outcome, PointStyle, Position};

/// Scores at or beyond this many hundredths of a piece count as this much in a turn's
/// loss: a won position stays won whether the engine sees a mate or ten pieces.
pub const LOSS_CAP: i32 = 1000;
/// The marks of a turn's loss, in hundredths of a piece: `??` from two pieces, `?` from
/// one, `?!` from half a piece.
pub const MARKS: [(i32, &str); 3] = [(200, "??"), (100, "?"), (50, "?!")];

/// One turn of a reviewed game: what was played, what the engine preferred, and what
/// the difference costs the side that played it.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnReview {
    /// The turn's number, from 1.
    pub number: usize,
    /// The side that played it.
    pub side: Color,
    /// The position the turn was played in.
    pub fen: String,
    /// The turn, in notation.
    pub played: String,
    /// The engine's best turn there.
    pub best: Option<String>,
    /// The engine's score of the position, for the side to move (hundredths of a piece).
    pub score: Option<i32>,
    /// The engine's score after the played turn, for the same side.
    pub played_score: Option<i32>,
    /// `score - played_score` with both capped at [`LOSS_CAP`]; 0 where the engine's best
    /// was played.
    pub loss: Option<i32>,
}

impl TurnReview {
    /// `??`, `?` or `?!` by the turn's loss ([`MARKS`]); `None` below half a piece.
    pub fn mark(&self) -> Option<&'static str> {
        let l = self.loss?;
        MARKS.iter().find(|(t, _)| l >= *t).map(|(_, m)| *m)
    }

    /// The line of `--json`: turn, side, fen, played, best, score, played_score, loss,
    /// mark.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "turn": self.number, "side": self.side.name(), "fen": self.fen,
            "played": self.played, "best": self.best, "score": self.score,
            "played_score": self.played_score, "loss": self.loss, "mark": self.mark(),
        })
    }
}

/// A score in words: `won`, `lost`, `win in N`, `loss in N`, pieces (`+0.50`), or `-`.
pub fn score_words(s: Option<i32>) -> String {
    match s {
        Some(MATE) => "won".to_string(),
        Some(s) if s == -MATE => "lost".to_string(),
        Some(s) if s > MATE_BOUND => format!("win in {}", MATE - s),
        Some(s) if s < -MATE_BOUND => format!("loss in {}", MATE + s),
        Some(s) => format!("{:+.2}", s as f64 / 100.0),
        None => "-".to_string(),
    }
}

/// A reviewed game: every turn, and how it ended.
#[derive(Clone, Debug, PartialEq)]
pub struct GameReview {
    /// The turns, in order.
    pub turns: Vec<TurnReview>,
    /// How the game ended (`None`: it goes on).
    pub result: Option<Outcome>,
}

impl GameReview {
    /// The figures of `side`'s turns.
    pub fn summary(&self, side: Color) -> SideSummary {
        let mut s = SideSummary::default();
        for t in self.turns.iter().filter(|t| t.side == side) {
            let Some(l) = t.loss else { continue };
            s.turns += 1;
            s.loss += i64::from(l.max(0));
            if let Some(i) = MARKS.iter().position(|(_, m)| Some(*m) == t.mark()) {
                s.marks[i] += 1;
                if i == 0 && s.first_blunder.is_none() {
                    s.first_blunder = Some(t.number);
                }
            }
        }
        s
    }
}

/// One side's figures over the turns of a review (or, summed, of many).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SideSummary {
    /// Turns scored.
    pub turns: usize,
    /// Their losses summed, negative ones (the engine's noise) as 0, hundredths of a piece.
    pub loss: i64,
    /// Turns marked `??`, `?` and `?!`.
    pub marks: [usize; 3],
    /// The number of the first turn marked `??` (of a single game).
    pub first_blunder: Option<usize>,
    /// Games with a turn marked `??` (of a total).
    pub games_with_blunder: usize,
}

impl SideSummary {
    /// The mean loss a turn, hundredths of a piece.
    pub fn mean_loss(&self) -> f64 {
        if self.turns == 0 {
            0.0
        } else {
            self.loss as f64 / self.turns as f64
        }
    }

    /// Adds one game's figures to a total.
    pub fn add(&mut self, o: &SideSummary) {
        self.turns += o.turns;
        self.loss += o.loss;
        for (m, n) in self.marks.iter_mut().zip(o.marks) {
            *m += n;
        }
        self.games_with_blunder += usize::from(o.marks[0] > 0);
    }

    /// turns, mean_loss (a tenth of a hundredth), blunders, mistakes, inaccuracies,
    /// first_blunder.
    pub fn to_json(self) -> serde_json::Value {
        serde_json::json!({
            "turns": self.turns, "mean_loss": (self.mean_loss() * 10.0).round() / 10.0,
            "blunders": self.marks[0], "mistakes": self.marks[1],
            "inaccuracies": self.marks[2], "first_blunder": self.first_blunder,
        })
    }

    /// In words: the mean loss in pieces, the marks, the first `??`.
    pub fn words(&self) -> String {
        format!(
            "mean loss {:.2} pieces; {} ??, {} ?, {} ?!{}",
            self.mean_loss() / 100.0,
            self.marks[0],
            self.marks[1],
            self.marks[2],
            self.first_blunder
                .map(|t| format!("; first ?? at turn {t}"))
                .unwrap_or_default()
        )
    }
}

/// Why a game cannot be reviewed.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// A turn that cannot be read or is not legal, by its number.
    #[error(transparent)]
    Turn(#[from] GameError),
    /// A turn after the game ended by a rule the position alone does not know (a
    /// repetition).
    #[error("turn {number}: the game is already over in position `{fen}`")]
    Over {
        /// The turn's number, from 1.
        number: usize,
        /// The position the game ended in.
        fen: String,
    },
}

/// Scores every turn of the game `text` (notation) from `start` with `player`: the
/// engine's score before the turn against its score after it, from the same side. Each
/// turn is reported to `each` as soon as it is scored (one search a position).
///
/// # Errors
/// A turn that cannot be read or is not legal, or one after the game's end, named by its
/// number.
pub fn review_game(
    player: &mut dyn Player,
    start: Position,
    text: &str,
    mut each: impl FnMut(&TurnReview),
) -> Result<GameReview, ReviewError> {
    let (all, _) = parse_game(&start, text)?;
    let mut game = History::new(start);
    let mut turns = Vec::new();
    let mut before = analyse(player, &game);
    for (i, t) in all.iter().enumerate() {
        let pos = *game.position();
        if game.outcome().is_some() {
            return Err(ReviewError::Over {
                number: i + 1,
                fen: pos.fen(),
            });
        }
        let played = format_turn(&pos, t, PointStyle::Algebraic);
        game.play_unchecked(t);
        let side = pos.side_to_move();
        let (after, played_score) = match game.outcome() {
            Some(o) => {
                let s = match o {
                    Outcome::Win(c) if c == side => MATE,
                    Outcome::Win(_) => -MATE,
                    Outcome::Draw => 0,
                };
                (None, Some(s))
            }
            None => {
                let a = analyse(player, &game);
                let s = a.score.map(|s| -s);
                (Some(a), s)
            }
        };
        let loss = match (before.score, played_score) {
            _ if before.best.as_deref() == Some(played.as_str()) => Some(0),
            (Some(b), Some(p)) => Some(b.clamp(-LOSS_CAP, LOSS_CAP) - p.clamp(-LOSS_CAP, LOSS_CAP)),
            _ => None,
        };
        let review = TurnReview {
            number: i + 1,
            side,
            fen: pos.fen(),
            played,
            best: before.best.take(),
            score: before.score,
            played_score,
            loss,
        };
        each(&review);
        turns.push(review);
        // After the last turn the next one, if any, is refused at the loop's head.
        if let Some(a) = after {
            before = a;
        }
    }
    Ok(GameReview {
        turns,
        result: game.outcome(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AbConfig, AbPlayer, Limits};
    use fanorona_rules::{RuleOptions, TurnMode, Variant};

    /// Alpha-beta of `depth` turns with the hand-written evaluation (`ab:depth=N`).
    fn ab(depth: u32) -> Box<dyn Player> {
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        Box::new(AbPlayer::new(AbConfig::default(), limits, "test"))
    }

    /// The first turn of dimy played as badly as a 3-turn search can tell, then the
    /// engine's own reply: the first is scored as a loss, the second as none, and each
    /// turn's score after is the next position's score, turned round.
    #[test]
    fn the_worst_turn_loses_and_the_best_does_not() {
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let mut judge = ab(3);
        let mut worst = None;
        for t in start.turns(TurnMode::Distinct) {
            let mut g = History::new(start);
            g.play_unchecked(&t);
            let s = -analyse(judge.as_mut(), &g).score.unwrap();
            if worst.is_none_or(|(w, _)| s < w) {
                worst = Some((s, t));
            }
        }
        let (worst_score, worst_turn) = worst.unwrap();
        let best_score = analyse(judge.as_mut(), &History::new(start)).score.unwrap();
        assert!(
            worst_score < best_score,
            "dimy's start has a worse turn than the best"
        );
        let mut after = start;
        after.play_unchecked(&worst_turn);
        let reply = analyse(judge.as_mut(), &History::new(after)).best.unwrap();
        let text = format!(
            "{} {reply}",
            format_turn(&start, &worst_turn, PointStyle::Algebraic)
        );
        let mut seen = 0;
        let review = review_game(ab(3).as_mut(), start, &text, |_| seen += 1).unwrap();
        assert_eq!(seen, 2);
        let [first, second] = &review.turns[..] else {
            panic!("two turns reviewed, not {}", review.turns.len());
        };
        assert_eq!((first.side, second.side), (Color::White, Color::Black));
        assert_eq!(first.played_score, second.score.map(|s| -s));
        let loss = first.loss.unwrap();
        assert_eq!(loss, first.score.unwrap() - first.played_score.unwrap());
        assert!(loss > 0, "the worst turn loses something: {loss}");
        assert_eq!(second.best.as_deref(), Some(second.played.as_str()));
        assert_eq!(second.loss, Some(0));
        assert_eq!(second.mark(), None);
        let white = review.summary(Color::White);
        assert_eq!((white.turns, white.mean_loss()), (1, f64::from(loss)));
        let marked = usize::from(first.mark().is_some());
        assert_eq!(white.marks.iter().sum::<usize>(), marked);
        assert_eq!(white.first_blunder.is_some(), first.mark() == Some("??"));
        let mut total = SideSummary::default();
        total.add(&white);
        total.add(&white);
        assert_eq!((total.turns, total.loss), (2, 2 * i64::from(loss)));
        assert_eq!(
            total.games_with_blunder,
            2 * usize::from(white.marks[0] > 0)
        );
    }

    /// A win ends the review: the winning turn is scored as a win for its side, and a
    /// turn after the end is refused by its number.
    #[test]
    fn a_finished_game_scores_its_last_turn_and_refuses_more() {
        // White's one piece captures Black's last by approach.
        let start = Position::from_fen("5/5/1W3/5/1B3 w", RuleOptions::default()).unwrap();
        let turns = start.turns(TurnMode::Distinct);
        let win = turns
            .iter()
            .find(|t| {
                let mut p = start;
                p.play_unchecked(t);
                p.outcome().is_some()
            })
            .expect("a winning capture");
        let text = format_turn(&start, win, PointStyle::Algebraic);
        let review = review_game(ab(2).as_mut(), start, &text, |_| {}).unwrap();
        assert_eq!(review.result, Some(Outcome::Win(Color::White)));
        assert_eq!(review.turns[0].played_score, Some(MATE));
        let err = review_game(ab(2).as_mut(), start, &format!("{text} a1a2"), |_| {})
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("turn 2") && err.contains("already over"),
            "{err}"
        );
        let err = review_game(ab(2).as_mut(), start, "e5e4", |_| {})
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("turn 1: ") && err.contains("`e5e4`"), "{err}");
    }
}
