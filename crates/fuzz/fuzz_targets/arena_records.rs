//! The arena's record of a match (`--out DIR/games.jsonl`, read back to resume): any
//! bytes as lines. Never a panic; a record that reads writes back as the same.
#![no_main]
use fanorona_formats::arena::parse_records;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (good, bad) = parse_records(data, "games.jsonl");
    for g in good {
        let line = serde_json::to_string(&g).expect("records serialise");
        let (again, none) = parse_records(line.as_bytes(), "again");
        assert!(none.is_empty(), "{none:?}");
        assert_eq!(again, vec![g]);
    }
    for b in bad {
        assert!(b.len() <= 400, "{b}");
    }
});
