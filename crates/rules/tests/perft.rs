//! Every line of `tests/data/perft.txt` (the published and cross-checked perft figures, kept with the tests).

use fanorona_rules::{Color, Position, RuleOptions, TurnMode, Variant, VelaForm, perft};

/// Counts larger than this are skipped (the test profile is optimised; every current
/// fixture fits, the limit guards CI time against future large fixtures).
const NODE_LIMIT: u64 = 20_000_000;

struct Case {
    label: String,
    fen: String,
    rules: RuleOptions,
    mode: TurnMode,
    counts: Vec<u64>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("data/perft.txt");
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(fields.len(), 3, "line {}: {line}", n + 1);
        let mut rules = RuleOptions::default();
        let mut mode = TurnMode::Distinct;
        match fields[0] {
            "tsivy" | "dimy" => {}
            "tsivy-paths" => mode = TurnMode::Paths,
            "tsivy-reply-single" => rules.reply_chains = false,
            "tsivy-vela-black" | "dimy-vela-black" => rules.vela = Some(Color::Black),
            "tsivy-vela-white-kely" | "dimy-vela-white-kely" => {
                rules.vela = Some(Color::White);
                rules.vela_form = VelaForm::Kely;
            }
            "tsivy-vela-black-kely" | "dimy-vela-black-kely" => {
                rules.vela = Some(Color::Black);
                rules.vela_form = VelaForm::Kely;
            }
            other => panic!("line {}: unknown label {other}", n + 1),
        }
        let counts = fields[2]
            .split_whitespace()
            .map(|c| c.parse().unwrap())
            .collect();
        out.push(Case {
            label: fields[0].to_string(),
            fen: fields[1].to_string(),
            rules,
            mode,
            counts,
        });
    }
    out
}

#[test]
fn perft_fixtures() {
    let cases = cases();
    assert!(
        cases.len() >= 35,
        "the fixture file was read ({} cases)",
        cases.len()
    );
    for c in cases {
        let pos = Position::from_fen(&c.fen, c.rules).unwrap();
        if c.label.starts_with("dimy") {
            assert_eq!(pos.variant(), Variant::Dimy);
        }
        for (i, &expected) in c.counts.iter().enumerate() {
            if expected > NODE_LIMIT {
                continue;
            }
            let depth = i as u32 + 1;
            let got = perft(&pos, depth, c.mode);
            assert_eq!(got, expected, "{} {} depth {depth}", c.label, c.fen);
        }
    }
}

/// The start position's sixth level, as published by an independent engine.
#[test]
fn perft6_tsivy_start() {
    let pos = Position::start(Variant::Tsivy, RuleOptions::default());
    assert_eq!(perft(&pos, 6, TurnMode::Distinct), 9_204_447);
}
