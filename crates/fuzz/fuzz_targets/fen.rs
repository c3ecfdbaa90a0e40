//! FEN of every board: never a panic; what is read writes back as a FEN that reads as
//! the same position, and its turns can be listed.
#![no_main]
use fanorona_rules::{AnyPosition, RuleOptions, TurnMode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(p) = AnyPosition::from_fen(text, RuleOptions::default()) {
        let fen = p.fen();
        let q = AnyPosition::from_fen(&fen, RuleOptions::default()).expect("a written FEN reads");
        assert_eq!(q.fen(), fen);
        if let AnyPosition::Fanorona(p) = p {
            let _ = p.turns(TurnMode::Distinct);
        }
    }
});
