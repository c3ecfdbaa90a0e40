//! Opening books: sets of balanced positions that matches start from, each played twice
//! with the colours swapped (the paired-openings practice of engine testing), so that
//! deterministic players meet many different games and the colour advantage cancels.
//!
//! A book file is text: one FEN a line; blank lines and lines starting with `#` are
//! comments (a header says how the book was made).

use crate::ab::{AbConfig, AlphaBeta, Limits};
use fanorona_rules::{Position, RuleOptions, TurnMode, Variant};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::collections::HashSet;
use std::path::Path;

/// A book that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BookError {
    /// A line that is not a usable position.
    #[error("{}:{line}: {}: {reason}", fanorona_rules::cut(.source_name), fanorona_rules::quote(.text))]
    Line {
        /// The book's name (its path).
        source_name: String,
        /// Line number, from 1.
        line: usize,
        /// The line.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// No positions at all.
    #[error("{0}: the book holds no positions")]
    Empty(String),
    /// A file that cannot be read.
    #[error("`{path}`{whence}: {message}", whence = relative_hint(path))]
    Read {
        /// The path as given.
        path: String,
        /// The system's reason.
        message: String,
    },
    /// A book of another variant than the one asked for.
    #[error("`{path}` holds {found} positions, not {wanted}")]
    Variant {
        /// The path as given.
        path: String,
        /// The book's variant.
        found: Variant,
        /// The variant asked for.
        wanted: Variant,
    },
}

/// For a relative path, the working folder it was read from: a command started from
/// another folder is the usual reason a book is not found.
fn relative_hint(path: &str) -> String {
    match std::env::current_dir() {
        Ok(dir) if Path::new(path).is_relative() => {
            format!(" (relative to the working folder {})", dir.display())
        }
        _ => String::new(),
    }
}

/// Reads the book file at `path`: [`parse_book`] of its text, and, given `variant`, a
/// check that the book holds that variant's positions. The one way the binary and the
/// training loop read books.
///
/// # Errors
/// A file that cannot be read, any error of [`parse_book`], a book of another variant.
pub fn read_book(
    path: &Path,
    rules: RuleOptions,
    variant: Option<Variant>,
) -> Result<Vec<Position>, BookError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| BookError::Read {
        path: name.clone(),
        message: e.to_string(),
    })?;
    let book = parse_book(&name, &text, rules)?;
    match variant {
        Some(wanted) if book[0].variant() != wanted => Err(BookError::Variant {
            path: name,
            found: book[0].variant(),
            wanted,
        }),
        _ => Ok(book),
    }
}

/// Reads a book's text: every FEN line, in order. `name` names the book in errors.
///
/// # Errors
/// A line that is not a legal FEN, a position that is already over, positions of two
/// variants in one book, or no position at all.
pub fn parse_book(name: &str, text: &str, rules: RuleOptions) -> Result<Vec<Position>, BookError> {
    let mut out: Vec<Position> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |reason: String| BookError::Line {
            source_name: name.to_string(),
            line: i + 1,
            text: line.to_string(),
            reason,
        };
        let pos = Position::from_fen(line, rules).map_err(|e| err(e.kind.to_string()))?;
        if pos.outcome().is_some() {
            return Err(err("the game is already over here".into()));
        }
        if let Some(first) = out.first()
            && first.variant() != pos.variant()
        {
            return Err(err(format!(
                "a {} position in a book of {} positions",
                pos.variant(),
                first.variant()
            )));
        }
        out.push(pos);
    }
    if out.is_empty() {
        return Err(BookError::Empty(name.to_string()));
    }
    Ok(out)
}

/// How to make a book.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BookSpec {
    /// The board.
    pub variant: Variant,
    /// Rule options.
    pub rules: RuleOptions,
    /// Positions wanted.
    pub count: usize,
    /// Random turns played from the start to reach a position.
    pub turns: usize,
    /// Depth of the alpha-beta search that judges a position.
    pub depth: u32,
    /// A position is kept when that search scores it within +-`max_score` (hundredths of
    /// a piece, for the side to move) ...
    pub max_score: i32,
    /// ... and at least `min_score` away from level: above 0, an unbalanced book, whose
    /// positions favour one side (each played once from each side, its pairs tell two
    /// players apart in fewer games than a balanced book's draws do).
    pub min_score: i32,
    /// Seed of the random turns.
    pub seed: u64,
    /// Give up after this many tries per wanted position.
    pub tries_per_position: usize,
}

impl BookSpec {
    /// Defaults for `variant`: 4 random turns, depth 6, within half a piece.
    pub fn new(variant: Variant, count: usize) -> BookSpec {
        BookSpec {
            variant,
            rules: RuleOptions::default(),
            count,
            turns: 4,
            depth: 6,
            max_score: 50,
            min_score: 0,
            seed: 1,
            tries_per_position: 200,
        }
    }
}

/// A made book: its positions and the search score of each.
#[derive(Clone, Debug, PartialEq)]
pub struct Book {
    /// The positions, distinct.
    pub positions: Vec<Position>,
    /// Alpha-beta's score of each, for the side to move.
    pub scores: Vec<i32>,
    /// Positions tried (reached, judged or rejected as repeats).
    pub tried: usize,
}

/// Why a book could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MakeBookError {
    /// Too few positions pass the filter.
    #[error(
        "only {found} of {wanted} distinct positions within the scores after {tried} tries: {hint}widen --max-score (or lower --min-score), or change --turns",
        hint = fewer_hint(*found)
    )]
    TooFew {
        /// Found.
        found: usize,
        /// Wanted.
        wanted: usize,
        /// Tried.
        tried: usize,
    },
}

/// The first remedy for too few positions where some were found: fewer (each wanted
/// position also allows fewer tries, so a count near `found` may still fall short).
fn fewer_hint(found: usize) -> &'static str {
    if found == 0 {
        ""
    } else {
        "ask for fewer with --count, "
    }
}

/// Makes a book: distinct positions reached by `turns` uniformly random distinct turns
/// from the start, each kept only if alpha-beta at `depth` scores it within
/// +-`max_score`. Deterministic for a given spec. `progress(found, tried)` is called
/// after each try.
///
/// # Errors
/// Too few positions pass within the allowed tries.
pub fn make_book(
    spec: &BookSpec,
    progress: impl FnMut(usize, usize),
) -> Result<Book, MakeBookError> {
    make_book_excluding(spec, &[], progress)
}

/// [`make_book`], keeping none of `exclude` (the same pieces and side to move, whatever
/// the counters): a book to train on that shares no position with the book a match
/// measures on. Excluded positions count as tried.
///
/// # Errors
/// Too few positions pass within the allowed tries.
pub fn make_book_excluding(
    spec: &BookSpec,
    exclude: &[Position],
    mut progress: impl FnMut(usize, usize),
) -> Result<Book, MakeBookError> {
    let excluded: HashSet<String> = exclude.iter().map(|p| p.board_fen()).collect();
    let mut rng = SmallRng::seed_from_u64(spec.seed);
    let mut engine = AlphaBeta::new(AbConfig {
        hash_mb: 16,
        // Full width: a book's scores are exact to its depth, as its header says.
        selective: false,
        ..AbConfig::default()
    });
    let limits = Limits {
        depth: Some(spec.depth.max(1)),
        ..Limits::default()
    };
    let start = Position::start(spec.variant, spec.rules);
    let mut seen = HashSet::new();
    let mut book = Book {
        positions: Vec::new(),
        scores: Vec::new(),
        tried: 0,
    };
    let max_tries = spec.count.saturating_mul(spec.tries_per_position.max(1));
    let mut turns = Vec::new();
    while book.positions.len() < spec.count && book.tried < max_tries {
        book.tried += 1;
        let mut pos = start;
        for _ in 0..spec.turns {
            pos.turns_into(&mut turns, TurnMode::Distinct);
            if pos.outcome_given(!turns.is_empty()).is_some() {
                break;
            }
            let t = turns[rng.random_range(0..turns.len())];
            pos.play_unchecked(&t);
        }
        if pos.outcome().is_some() || excluded.contains(&pos.board_fen()) || !seen.insert(pos.fen())
        {
            progress(book.positions.len(), book.tried);
            continue;
        }
        engine.new_game();
        let r = engine.search_position(&pos, &limits);
        if r.best.is_some() && (spec.min_score..=spec.max_score).contains(&r.score.abs()) {
            book.positions.push(pos);
            book.scores.push(r.score);
        }
        progress(book.positions.len(), book.tried);
    }
    if book.positions.len() < spec.count {
        return Err(MakeBookError::TooFew {
            found: book.positions.len(),
            wanted: spec.count,
            tried: book.tried,
        });
    }
    Ok(book)
}

/// The text of a book file: a header saying how it was made, then one FEN a line.
pub fn format_book(spec: &BookSpec, book: &Book) -> String {
    let (min_flag, kept) = if spec.min_score > 0 {
        (
            format!(" --min-score {}", spec.min_score),
            format!(
                "scores {} to {} hundredths of a piece for one side",
                spec.min_score, spec.max_score
            ),
        )
    } else {
        (
            String::new(),
            format!(
                "scores it within +-{} hundredths of a piece",
                spec.max_score
            ),
        )
    };
    let mut s = format!(
        "# Fanorona opening book: {} {} positions.\n\
         # Made by `fanorona book --variant {} --count {} --turns {} --depth {} --max-score {}{min_flag} --seed {}`:\n\
         # distinct positions reached by {} uniformly random turns from the start, each kept\n\
         # only if alpha-beta at depth {} {kept}\n\
         # ({} positions tried). Rules: {}.\n\
         # Play each position twice, each player once on each side.\n",
        book.positions.len(),
        spec.variant,
        spec.variant,
        spec.count,
        spec.turns,
        spec.depth,
        spec.max_score,
        spec.seed,
        spec.turns,
        spec.depth,
        book.tried,
        if spec.rules == RuleOptions::default() {
            "default".to_string()
        } else {
            format!("{:?}", spec.rules)
        },
    );
    for p in &book.positions {
        s.push_str(&p.fen());
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_books_read_back_balanced_and_distinct() {
        let mut spec = BookSpec::new(Variant::Dimy, 12);
        spec.depth = 2;
        spec.max_score = 60;
        let book = make_book(&spec, |_, _| {}).unwrap();
        assert_eq!(book.positions.len(), 12);
        assert!(book.scores.iter().all(|s| s.abs() <= 60));
        let text = format_book(&spec, &book);
        let back = parse_book("b", &text, RuleOptions::default()).unwrap();
        assert_eq!(back, book.positions);
        let fens: HashSet<String> = back.iter().map(|p| p.fen()).collect();
        assert_eq!(fens.len(), 12);
        // Deterministic.
        assert_eq!(make_book(&spec, |_, _| {}).unwrap(), book);
        // Each is `turns` turns from the start (ply counts turns).
        assert!(back.iter().all(|p| p.ply() == 4));
    }

    #[test]
    fn an_unbalanced_book_keeps_positions_a_piece_or_so_up_for_one_side() {
        let mut spec = BookSpec::new(Variant::Dimy, 10);
        spec.depth = 3;
        spec.min_score = 70;
        spec.max_score = 130;
        let book = make_book(&spec, |_, _| {}).unwrap();
        assert_eq!(book.positions.len(), 10);
        assert!(
            book.scores.iter().all(|s| (70..=130).contains(&s.abs())),
            "{:?}",
            book.scores
        );
        let text = format_book(&spec, &book);
        assert!(text.contains("--min-score 70"), "{text}");
        assert!(
            text.contains("scores 70 to 130 hundredths of a piece for one side"),
            "{text}"
        );
        assert_eq!(
            parse_book("u", &text, RuleOptions::default()).unwrap(),
            book.positions
        );
    }

    #[test]
    fn read_book_names_the_file_and_checks_the_variant() {
        let dir = std::env::temp_dir().join(format!("fanorona-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("b.fen");
        let dimy = Position::start(Variant::Dimy, RuleOptions::default());
        std::fs::write(&path, format!("# a book\n{}\n", dimy.fen())).unwrap();
        let rules = RuleOptions::default();
        assert_eq!(read_book(&path, rules, None).unwrap(), vec![dimy]);
        assert_eq!(
            read_book(&path, rules, Some(Variant::Dimy)).unwrap(),
            vec![dimy]
        );
        let e = read_book(&path, rules, Some(Variant::Tsivy)).unwrap_err();
        assert!(matches!(e, BookError::Variant { .. }), "{e}");
        assert!(e.to_string().contains("b.fen"), "{e}");
        let missing = dir.join("missing.fen");
        let e = read_book(&missing, rules, None).unwrap_err();
        assert!(matches!(e, BookError::Read { .. }), "{e}");
        assert!(e.to_string().contains("missing.fen"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn excluded_positions_stay_out() {
        let mut spec = BookSpec::new(Variant::Dimy, 30);
        spec.depth = 2;
        spec.max_score = 60;
        let first = make_book(&spec, |_, _| {}).unwrap();
        let held_out = &first.positions[..10];
        let other = make_book_excluding(&spec, held_out, |_, _| {}).unwrap();
        assert_eq!(other.positions.len(), 30);
        let out: HashSet<String> = held_out.iter().map(|p| p.board_fen()).collect();
        assert!(
            other
                .positions
                .iter()
                .all(|p| !out.contains(&p.board_fen()))
        );
        // The same seed: the rest of the first book is found again.
        let kept: HashSet<String> = other.positions.iter().map(|p| p.fen()).collect();
        assert!(
            first.positions[10..]
                .iter()
                .all(|p| kept.contains(&p.fen()))
        );
    }

    #[test]
    fn impossible_books_and_bad_lines_are_errors() {
        let mut spec = BookSpec::new(Variant::Dimy, 5);
        spec.turns = 0; // only the start position exists
        spec.max_score = 100_000;
        spec.tries_per_position = 3;
        let e = make_book(&spec, |_, _| {}).unwrap_err();
        assert!(matches!(e, MakeBookError::TooFew { found: 1, .. }), "{e}");
        assert!(e.to_string().contains("ask for fewer with --count"), "{e}");
        let r = RuleOptions::default();
        let e = parse_book(
            "x.fen",
            "# c\n\nBBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 0\nnot a fen\n",
            r,
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("x.fen:4: `not a fen`"), "{e}");
        let e = parse_book(
            "x.fen",
            "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 0\nBBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 0\n",
            r,
        )
        .unwrap_err();
        assert!(e.to_string().contains("x.fen:2"), "{e}");
        assert_eq!(
            parse_book("e.fen", "# nothing\n", r).unwrap_err(),
            BookError::Empty("e.fen".into())
        );
        let e = parse_book("x.fen", "5/5/5/5/WWWWW b 0 9\n", r).unwrap_err();
        assert!(e.to_string().contains("over"), "{e}");
    }
}
