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
            let scored = score_turns(&mut engine, &pos, &turns, &limits);
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

/// Each of `turns` of `pos` in notation, scored for the side to move by a `limits`
/// search after it (a decided game: [`DECIDED`]).
fn score_turns(
    engine: &mut AlphaBeta,
    pos: &Position,
    turns: &[Turn],
    limits: &Limits,
) -> Vec<(String, i32)> {
    turns
        .iter()
        .map(|t| {
            let mut child = *pos;
            child.play_unchecked(t);
            let score = match child.outcome() {
                Some(Outcome::Win(c)) if c == pos.side_to_move() => DECIDED,
                Some(Outcome::Win(_)) => -DECIDED,
                Some(Outcome::Draw) => 0,
                None => -engine.search_position(&child, limits).score,
            };
            (format_turn(pos, t, PointStyle::Algebraic), score)
        })
        .collect()
}

/// How a book turn did in games: its side's points (1 a win, ½ a draw), games, losses.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TurnRecord {
    /// Points of the side that played it.
    pub points: f64,
    /// Games it was played in.
    pub games: u32,
    /// Of them lost.
    pub losses: u32,
}

/// A book position searched again because one of its turns did badly in games
/// ([`learn_opening_book`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Relearned {
    /// The position (board and side, the book's key).
    pub position: String,
    /// The turn that did badly, and how.
    pub turn: String,
    /// Its record in the games.
    pub record: TurnRecord,
    /// The points its book score promised ([`expected_points`]).
    pub expected: f64,
    /// The position's best turn and score before, and after the deeper search.
    pub before: (String, i32),
    /// See `before`.
    pub after: (String, i32),
}

/// The points a book score promises its side (hundredths of a piece for the side to
/// move): the logistic that counts 150 as a 73 % score, as the blended searches do.
pub fn expected_points(score: i32) -> f64 {
    let k = (0.73f64 / 0.27).ln() / 150.0;
    1.0 / (1.0 + (-k * f64::from(score)).exp())
}

/// Book learning, in the spirit of Logistello's: every position of `book` where a game
/// of `games` (its start, its turns, its outcome) played one of the book's turns, and
/// that turn's side lost a game with it or scored below what its book score promised
/// ([`expected_points`]), is searched again, each of its turns by a `depth` search
/// after it, and its scores replaced, so that its choice changes where the deeper
/// search says so. Each position is searched once, whatever number of its turns did
/// badly; the positions are returned in the order the games reached them.
pub fn learn_opening_book(
    book: &mut OpeningBook,
    games: &[(Position, Vec<Turn>, Outcome)],
    engine: AbConfig,
    depth: u32,
) -> Vec<Relearned> {
    let mut records: HashMap<(String, String), TurnRecord> = HashMap::new();
    let mut reached: Vec<(String, String, Position)> = Vec::new();
    for (start, turns, outcome) in games {
        let mut pos = *start;
        for t in turns {
            if let Some(listed) = book.turns(&pos) {
                let text = format_turn(&pos, t, PointStyle::Algebraic);
                if listed.iter().any(|(l, _)| *l == text) {
                    let side = pos.side_to_move();
                    let key = (pos.board_fen(), text);
                    let r = records.entry(key.clone()).or_default();
                    if r.games == 0 {
                        reached.push((key.0, key.1, pos));
                    }
                    r.games += 1;
                    match outcome {
                        Outcome::Win(c) if *c == side => r.points += 1.0,
                        Outcome::Win(_) => r.losses += 1,
                        Outcome::Draw => r.points += 0.5,
                    }
                }
            }
            pos.play_unchecked(t);
        }
    }
    let mut engine = AlphaBeta::new(engine);
    let limits = Limits {
        depth: Some(depth.saturating_sub(1).max(1)),
        ..Limits::default()
    };
    let mut searched = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut legal = Vec::new();
    for (position, turn, pos) in reached {
        let record = records[&(position.clone(), turn.clone())];
        let listed = book.turns(&pos).expect("reached in the book").to_vec();
        let score = listed.iter().find(|(l, _)| *l == turn).map_or(0, |l| l.1);
        let expected = expected_points(score);
        let bad = record.losses > 0 || record.points / f64::from(record.games) < expected;
        if !bad || !searched.insert(position.clone()) {
            continue;
        }
        pos.turns_into(&mut legal, TurnMode::Distinct);
        let scored = score_turns(&mut engine, &pos, &legal, &limits);
        book.insert(&pos, scored);
        let after = book.turns(&pos).expect("just inserted")[0].clone();
        out.push(Relearned {
            position,
            turn,
            record,
            expected,
            before: listed[0].clone(),
            after,
        });
    }
    out
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
    use fanorona_rules::Color;

    #[test]
    fn a_book_turn_that_lost_has_its_position_searched_deeper() {
        let spec = OpeningSpec {
            variant: Variant::Dimy,
            plies: 2,
            depth: 2,
            margin: 30,
            engine: AbConfig::default(),
        };
        let mut book = OpeningBook::default();
        make_opening_book(&spec, &mut book, |_, _| {}, |_, _| {});
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let listed = book.turns(&start).unwrap().to_vec();
        let turn = |pos: &Position, text: &str| parse_turn(pos, text).unwrap();
        let best = turn(&start, &listed[0].0);
        let mut after = start;
        after.play_unchecked(&best);
        let reply = after.turns(TurnMode::Distinct)[0];
        let (white, black) = (Outcome::Win(Color::White), Outcome::Win(Color::Black));
        // White played the book's best turn and won: nothing to learn.
        let won = (start, vec![best], white);
        let mut learned = book.clone();
        let r = learn_opening_book(
            &mut learned,
            std::slice::from_ref(&won),
            AbConfig::default(),
            4,
        );
        assert!(r.is_empty(), "{r:?}");
        assert_eq!(learned, book);
        // It lost a game with it: the start is searched again (once, though its reply
        // position is in the book too and Black won there), at depth 4.
        let lost = (start, vec![best, reply], black);
        let r = learn_opening_book(&mut learned, &[won, lost], AbConfig::default(), 4);
        let at_start: Vec<_> = r
            .iter()
            .filter(|l| l.position == start.board_fen())
            .collect();
        assert_eq!(at_start.len(), 1, "{r:?}");
        let l = at_start[0];
        assert_eq!(l.turn, listed[0].0);
        assert_eq!(
            l.record,
            TurnRecord {
                points: 1.0,
                games: 2,
                losses: 1
            }
        );
        assert!(l.expected > 0.0 && l.expected < 1.0);
        assert_eq!(l.before, listed[0]);
        // The deeper scores are depth 4's: what a depth-4 book would hold.
        let deep = OpeningSpec {
            depth: 4,
            plies: 1,
            ..spec
        };
        let mut fresh = OpeningBook::default();
        make_opening_book(&deep, &mut fresh, |_, _| {}, |_, _| {});
        assert_eq!(learned.turns(&start), fresh.turns(&start));
        assert_eq!(&l.after, &fresh.turns(&start).unwrap()[0]);
        // The promise of a score: level is half a point, 150 about 73 %.
        assert_eq!(expected_points(0), 0.5);
        assert!((expected_points(150) - 0.73).abs() < 1e-9);
        assert!((expected_points(-150) - 0.27).abs() < 1e-9);
    }

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
