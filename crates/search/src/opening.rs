//! The opening book a player plays from (not the match books of [`crate::book`]): for
//! the positions of a game's first turns, every legal turn with the score of a deep
//! search after it. A player with a book ([`BookPlayer`]) plays a position it holds
//! without searching, choosing among the turns within a margin of the best, the better
//! ones more often, so that games from the start differ and cost no thinking time.
//!
//! A book file is text: a header of `#` lines saying how it was made, then a line a
//! position: its board and side (the FEN without counters), a tab, and its turns with
//! their scores (hundredths of a piece for the side to move), best first, each after a
//! tab: `BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w`, tab, `f2e3(+2) 39`, tab,
//! `d3e3(+1) 36`, ...

use crate::ab::{AbConfig, AlphaBeta, Limits, SearchResult};
use crate::player::{Choice, Player};
use fanorona_rules::notation::{PointStyle, format_turn, parse_turn};
use fanorona_rules::{History, Outcome, Position, RuleOptions, Turn, TurnMode, Variant};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// A score for a decided game, above every evaluation.
const DECIDED: i32 = 100_000;

/// An opening book: positions (by board and side) and their scored turns, best first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpeningBook {
    entries: HashMap<String, Vec<(String, i32)>>,
}

/// A book file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{name}:{line}: {reason}")]
pub struct OpeningBookError {
    /// The book's name (its path).
    pub name: String,
    /// Line number, from 1.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// A book's last line, written by `fanorona book --opening`: the checksum of the lines
/// before it (`fanorona_rules::checksum`). A comment to the parser; a book without it
/// (edited by hand) still reads.
pub const CHECKSUM_LINE: &str = "# checksum ";

impl OpeningBook {
    /// Reads a book's text; `name` names it in errors. Every turn is checked against its
    /// position.
    ///
    /// # Errors
    /// A line that is not a position with legal turns and scores, naming the line.
    pub fn parse(name: &str, text: &str) -> Result<OpeningBook, OpeningBookError> {
        if let Err(e) = fanorona_rules::checksum::unseal(text, CHECKSUM_LINE) {
            return Err(OpeningBookError {
                name: name.to_string(),
                line: text.lines().count(),
                reason: e.to_string(),
            });
        }
        let mut book = OpeningBook::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |reason: String| OpeningBookError {
                name: name.to_string(),
                line: i + 1,
                reason,
            };
            let mut fields = line.split('\t');
            let key = fields.next().unwrap_or("").trim();
            let pos = Position::from_fen(&format!("{key} 0 1"), RuleOptions::default())
                .map_err(|e| err(format!("{}: {}", fanorona_rules::quote(key), e.kind)))?;
            let mut turns = Vec::new();
            for f in fields {
                let (turn, score) = f.trim().rsplit_once(' ').ok_or_else(|| {
                    err(format!(
                        "{}: a turn and its score",
                        fanorona_rules::quote(f)
                    ))
                })?;
                let score: i32 = score.parse().map_err(|_| {
                    err(format!(
                        "{}: the score is not a number",
                        fanorona_rules::quote(f)
                    ))
                })?;
                parse_turn(&pos, turn).map_err(|e| err(e.to_string()))?;
                turns.push((turn.to_string(), score));
            }
            if turns.is_empty() {
                return Err(err(format!("{} has no turns", fanorona_rules::quote(key))));
            }
            turns.sort_by_key(|t| std::cmp::Reverse(t.1));
            book.entries.insert(pos.board_fen(), turns);
        }
        Ok(book)
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when it holds no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The scored turns of a position, best first (a position under other rules than
    /// the defaults is never in a book).
    pub fn turns(&self, pos: &Position) -> Option<&[(String, i32)]> {
        if *pos.rules() != RuleOptions::default() {
            return None;
        }
        self.entries.get(&pos.board_fen()).map(Vec::as_slice)
    }

    /// A turn for `pos` among those within `margin` of the best, each weighted by how
    /// close it is (the best `margin + 1`, one at the margin), with its score, or `None`
    /// when the position is not in the book.
    pub fn choose(&self, pos: &Position, margin: i32, rng: &mut SmallRng) -> Option<(Turn, i32)> {
        let turns = self.turns(pos)?;
        let best = turns[0].1;
        let good: Vec<(&str, i64)> = turns
            .iter()
            .take_while(|t| best - t.1 <= margin)
            .map(|t| (t.0.as_str(), i64::from(margin - (best - t.1)) + 1))
            .collect();
        let total: i64 = good.iter().map(|g| g.1).sum();
        let mut pick = rng.random_range(0..total.max(1));
        let text = good
            .iter()
            .find(|g| {
                pick -= g.1;
                pick < 0
            })
            .map_or(good[0].0, |g| g.0);
        let score = turns.iter().find(|t| t.0 == text).map_or(best, |t| t.1);
        parse_turn(pos, text).ok().map(|t| (t, score))
    }

    /// Adds a position's scored turns (best first once added).
    pub fn insert(&mut self, pos: &Position, mut turns: Vec<(String, i32)>) {
        turns.sort_by_key(|t| std::cmp::Reverse(t.1));
        self.entries.insert(pos.board_fen(), turns);
    }

    /// The line of one position, as a book file holds it.
    pub fn line(&self, pos: &Position) -> Option<String> {
        let turns = self.entries.get(&pos.board_fen())?;
        let mut s = pos.board_fen();
        for (t, v) in turns {
            s.push_str(&format!("\t{t} {v}"));
        }
        Some(s)
    }
}

/// How to make a book.
#[derive(Clone, Debug)]
pub struct OpeningSpec {
    /// The board.
    pub variant: Variant,
    /// Turns from the start the book covers (positions at fewer turns get entries).
    pub plies: usize,
    /// The search after each turn: its depth, in turns.
    pub depth: u32,
    /// Turns within this margin of the best (hundredths of a piece) are followed.
    pub margin: i32,
    /// The engine that scores them (its evaluation).
    pub engine: AbConfig,
}

/// Makes or extends `book`: from the start, every position reached by turns within
/// `margin` of the best of their position, up to `plies` turns deep, gets every
/// distinct legal turn scored by a `depth`-1 search after it. Positions already in
/// `book` are not searched again (a stopped build resumes); `added(pos, book)` is
/// called after each new one (to write it out), `progress(done, queued)` after each.
pub fn make_opening_book(
    spec: &OpeningSpec,
    book: &mut OpeningBook,
    mut added: impl FnMut(&Position, &OpeningBook),
    mut progress: impl FnMut(usize, usize),
) {
    let mut engine = AlphaBeta::new(spec.engine.clone());
    let limits = Limits {
        depth: Some(spec.depth.saturating_sub(1).max(1)),
        ..Limits::default()
    };
    let start = Position::start(spec.variant, RuleOptions::default());
    let mut queue = VecDeque::from([(start, 0usize)]);
    let mut seen = std::collections::HashSet::new();
    let mut done = 0;
    let mut turns = Vec::new();
    while let Some((pos, ply)) = queue.pop_front() {
        if ply >= spec.plies || !seen.insert(pos.board_fen()) {
            continue;
        }
        pos.turns_into(&mut turns, TurnMode::Distinct);
        if pos.outcome_given(!turns.is_empty()).is_some() {
            continue;
        }
        if book.turns(&pos).is_none() {
            let scored: Vec<(String, i32)> = turns
                .iter()
                .map(|t| {
                    let mut child = pos;
                    child.play_unchecked(t);
                    let score = match child.outcome() {
                        Some(Outcome::Win(c)) if c == pos.side_to_move() => DECIDED,
                        Some(Outcome::Win(_)) => -DECIDED,
                        Some(Outcome::Draw) => 0,
                        None => -engine.search_position(&child, &limits).score,
                    };
                    (format_turn(&pos, t, PointStyle::Algebraic), score)
                })
                .collect();
            book.insert(&pos, scored);
            added(&pos, book);
        }
        let scored = book.turns(&pos).expect("just added").to_vec();
        let best = scored[0].1;
        for (text, score) in scored {
            if best - score > spec.margin {
                break;
            }
            if let Ok(t) = parse_turn(&pos, &text) {
                let mut child = pos;
                child.play_unchecked(&t);
                queue.push_back((child, ply + 1));
            }
        }
        done += 1;
        progress(done, queue.len());
    }
}

/// A player that plays from an opening book where it can and lets another player
/// choose elsewhere.
pub struct BookPlayer {
    inner: Box<dyn Player>,
    book: Arc<OpeningBook>,
    margin: i32,
    rng: SmallRng,
}

impl std::fmt::Debug for BookPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BookPlayer")
            .field("inner", &self.inner.name())
            .field("positions", &self.book.len())
            .field("margin", &self.margin)
            .finish()
    }
}

/// The margin a player chooses within unless told: a fifth of a piece.
pub const BOOK_MARGIN: i32 = 20;

impl BookPlayer {
    /// `inner` with `book`, choosing within `margin` of the best turn; `seed` seeds the
    /// choices.
    pub fn new(
        inner: Box<dyn Player>,
        book: Arc<OpeningBook>,
        margin: i32,
        seed: u64,
    ) -> BookPlayer {
        BookPlayer {
            inner,
            book,
            margin,
            rng: SmallRng::seed_from_u64(seed ^ 0x0b00_c0de),
        }
    }
}

impl Player for BookPlayer {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn new_game(&mut self) {
        self.inner.new_game();
    }
    fn choose(&mut self, game: &History) -> Choice {
        match self
            .book
            .choose(game.position(), self.margin, &mut self.rng)
        {
            // The book's score (its deep search's), and no search now.
            Some((t, score)) => Choice {
                turn: Some(t),
                search: Some(SearchResult {
                    best: Some(t),
                    score,
                    pv: vec![t],
                    depth: 0,
                    nodes: 0,
                    seconds: 0.0,
                }),
            },
            None => self.inner.choose(game),
        }
    }
    fn set_clock(&mut self, clock: Option<crate::ClockState>) {
        self.inner.set_clock(clock);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::RandomPlayer;

    #[test]
    fn a_book_is_made_read_back_and_played_from_with_variety() {
        let spec = OpeningSpec {
            variant: Variant::Dimy,
            plies: 2,
            depth: 3,
            margin: 30,
            engine: AbConfig::default(),
        };
        let mut book = OpeningBook::default();
        let mut lines = Vec::new();
        make_opening_book(
            &spec,
            &mut book,
            |p, b| lines.push(b.line(p).unwrap()),
            |_, _| {},
        );
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let first = book.turns(&start).expect("the start is in the book");
        assert_eq!(first.len(), start.turns(TurnMode::Distinct).len());
        assert!(first.windows(2).all(|w| w[0].1 >= w[1].1), "best first");
        assert!(book.len() > 1, "the replies are in it too");
        // Its text reads back to the same book; a resumed build searches nothing more.
        let text = format!("# a test book\n{}\n", lines.join("\n"));
        let again = OpeningBook::parse("test", &text).unwrap();
        assert_eq!(again, book);
        let mut more = again.clone();
        let mut searched = 0;
        make_opening_book(&spec, &mut more, |_, _| searched += 1, |_, _| {});
        assert_eq!((searched, more), (0, book.clone()));
        // Played from: only turns within the margin, several of them over many games.
        let book = Arc::new(book);
        let mut p = BookPlayer::new(Box::new(RandomPlayer::new(1)), book.clone(), 1000, 7);
        let mut chosen = std::collections::HashSet::new();
        for _ in 0..50 {
            let t = p.choose(&History::new(start)).turn.unwrap();
            chosen.insert(format_turn(&start, &t, PointStyle::Algebraic));
        }
        assert!(chosen.len() > 1, "{chosen:?}");
        let mut strict = BookPlayer::new(Box::new(RandomPlayer::new(1)), book.clone(), 0, 7);
        let best = &book.turns(&start).unwrap()[0];
        let c = strict.choose(&History::new(start));
        let t = c.turn.unwrap();
        assert_eq!(
            c.search.map(|s| (s.score, s.nodes)),
            Some((best.1, 0)),
            "the book's score, no search"
        );
        let ties: Vec<&str> = book
            .turns(&start)
            .unwrap()
            .iter()
            .filter(|t| t.1 == best.1)
            .map(|t| t.0.as_str())
            .collect();
        assert!(ties.contains(&format_turn(&start, &t, PointStyle::Algebraic).as_str()));
    }

    #[test]
    fn a_sealed_book_refuses_every_flipped_byte_and_reads_whole() {
        let text = include_str!("../../../checkpoints/release/dimy/book.txt");
        let body = crate::opening::OpeningBook::parse("dimy", text).unwrap();
        let mut sealed = text.to_string();
        fanorona_rules::checksum::seal(&mut sealed, CHECKSUM_LINE);
        assert_eq!(
            OpeningBook::parse("dimy", &sealed).unwrap().len(),
            body.len()
        );
        let bytes = sealed.as_bytes();
        for i in (0..bytes.len()).step_by(7) {
            let mut b = bytes.to_vec();
            b[i] ^= 0x04;
            let Ok(t) = std::str::from_utf8(&b) else {
                continue;
            };
            // A flip in the seal line's own `# checksum ` makes it a comment and the book
            // unsealed: then it must still be the same book.
            match OpeningBook::parse("damaged.txt", t) {
                Err(e) => assert!(e.to_string().contains("damaged.txt"), "{e}"),
                Ok(b) => assert!(
                    i >= text.len(),
                    "byte {i} flipped and read: {} positions",
                    b.len()
                ),
            }
        }
    }

    #[test]
    fn bad_lines_are_named() {
        for bad in [
            "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w",
            "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w\tc2c3(+2) x",
            "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w\ta1a2 5",
            "not a board\tc2c3 5",
        ] {
            let e = OpeningBook::parse("b.txt", &format!("# header\n{bad}\n")).unwrap_err();
            assert_eq!((e.name.as_str(), e.line), ("b.txt", 2), "{e}");
        }
    }
}
