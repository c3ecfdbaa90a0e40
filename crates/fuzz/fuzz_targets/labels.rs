//! The tree run's label window: the first byte picks the board and the label source,
//! the next eight the generation; the rest is tried as a window file (listed with its
//! own checksum, so that the fuzzer reaches past it), as an older whole-window file,
//! and as a checkpoint's `window.json`. Never a panic; labels that read write back as
//! the same.
#![no_main]
use fanorona_formats::labels::{LabelWindow, Manifest, decode_labels, encode_labels};
use fanorona_rules::checksum::fnv1a;
use fanorona_rules::{RuleOptions, Variant};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    if data.len() < 9 {
        return;
    }
    let variant = [Variant::Telo, Variant::Dimy, Variant::Tsivy][(data[0] & 3) as usize % 3];
    let source = if data[0] & 4 == 0 { "play" } else { "teacher" };
    let generation = u64::from_le_bytes(data[1..9].try_into().unwrap()) % 100_000;
    let body = &data[9..];
    let rules = RuleOptions::default();
    let labels = body.len().saturating_sub(variant.name().len() + 34) / 25;
    let manifest = format!(
        r#"{{"segments":[{{"generation":{generation},"source":"{source}","labels":{labels},"checksum":"{:016x}"}}]}}"#,
        fnv1a(body)
    );
    let manifest: Manifest = serde_json::from_str(&manifest).expect("a manifest");
    // No file is read or written: the window only names its folder.
    let window = LabelWindow::new(Path::new("/nonexistent"), variant, rules, 1 << 20);
    let _ = window.read_segment(&manifest.segments()[0], body);
    if let Ok(read) = decode_labels(body, variant, rules) {
        let again = encode_labels(variant, read.iter());
        assert_eq!(decode_labels(&again, variant, rules).as_ref(), Ok(&read));
    }
    let _ = serde_json::from_slice::<Manifest>(body);
});
