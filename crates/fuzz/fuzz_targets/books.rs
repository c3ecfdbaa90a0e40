//! Opening books (`book=FILE`) and position books (`--book`, the arena's FEN lines):
//! never a panic; a book that reads answers at the start.
#![no_main]
use fanorona_rules::{Position, RuleOptions, Variant};
use fanorona_search::book::parse_book;
use fanorona_search::opening::OpeningBook;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(b) = OpeningBook::parse("fuzz", text) {
        for v in [Variant::Tsivy, Variant::Dimy] {
            let _ = b.turns(&Position::start(v, RuleOptions::default()));
        }
    }
    let _ = parse_book("fuzz", text, RuleOptions::default());
});
