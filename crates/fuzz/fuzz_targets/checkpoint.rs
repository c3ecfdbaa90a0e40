//! Checkpoint folders' own files: `meta.json` (any bytes) and `checksums.txt` (the same
//! bytes as a list checked against a file). Never a panic; metadata that reads writes
//! back as the same.
#![no_main]
use fanorona_formats::checkpoint::{Listed, check_listed, parse_meta};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(meta) = parse_meta(data) {
        let text = serde_json::to_vec(&meta).expect("metadata serialises");
        assert_eq!(parse_meta(&text).as_ref(), Ok(&meta));
    }
    for name in ["model.bpk", "optimizer.bpk", "state.json"] {
        match check_listed(data, name, || Ok::<_, ()>(name.as_bytes().to_vec())) {
            Ok(()) | Err(Listed::Differs(_)) => {}
            Err(Listed::Read(())) => unreachable!("the read succeeds"),
        }
    }
});
