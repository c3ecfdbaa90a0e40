//! Every line of `tests/data/notation.txt`, and the errors it lists.

use fanorona_rules::notation::{format_engine_turn, format_turn, parse_game, parse_turn};
use fanorona_rules::{NotationError, PointStyle, Position, RuleOptions, TurnMode, Variant};

fn start() -> Position {
    Position::start(Variant::Tsivy, RuleOptions::default())
}

#[test]
fn notation_fixtures() {
    let text = include_str!("data/notation.txt");
    let mut checked = 0;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (game, expected) = line.split_once('|').unwrap();
        let (_, pos) = parse_game(&start(), game).unwrap_or_else(|e| panic!("{game}: {e}"));
        assert_eq!(pos.board_fen(), expected.trim(), "{game}");
        checked += 1;
    }
    assert_eq!(checked, 6);
}

#[test]
fn notation_errors() {
    let s = start();
    let err = |game: &str| parse_game(&s, game).unwrap_err();
    let e = err("d3e3");
    assert!(matches!(e.error, NotationError::Ambiguous { .. }), "{e}");
    assert_eq!(e.number, 1);
    assert!(
        e.to_string().contains("d3e3(+1)") && e.to_string().contains("d3e3(-1)"),
        "{e}"
    );
    let e = err("d3e3(-) d4d3-c3");
    assert_eq!(e.number, 2);
    assert!(matches!(e.error, NotationError::Ambiguous { .. }), "{e}");
    let e = err("d3e3(+2)");
    assert!(matches!(e.error, NotationError::WrongCount { .. }), "{e}");
    assert!(e.to_string().contains("d3e3(+1)"), "{e}");
    let e = err("e2e4");
    assert!(matches!(e.error, NotationError::Illegal { .. }), "{e}");
    let e = err("c4c3");
    assert!(matches!(e.error, NotationError::Illegal { .. }), "{e}");
    assert!(
        e.to_string().contains("c4c3") && e.to_string().contains(&s.fen()),
        "{e}"
    );
    for bad in [
        "", "e", "e2", "e2e", "e2e3(", "e2e3(*1)", "e2e3(+2", "z9e3", "e2e3x", "e2e3Q", "46-23",
    ] {
        let r = parse_turn(&s, bad);
        assert!(
            matches!(r, Err(NotationError::Malformed { .. })),
            "{bad:?}: {r:?}"
        );
    }
}

#[test]
fn traditional_numbers() {
    let s = start();
    // d3 is 22, e3 is 23, c3 is 21; e2 is 32.
    let t = parse_turn(&s, "22-23(-1)").unwrap();
    assert_eq!(format_turn(&s, &t, PointStyle::Algebraic), "d3e3(-1)");
    assert_eq!(format_turn(&s, &t, PointStyle::Numbers), "22-23(-1)");
    let t = parse_turn(&s, "32-23").unwrap();
    assert_eq!(format_turn(&s, &t, PointStyle::Algebraic), "e2e3(+2)");
    // The chain from notation.txt, in numbers.
    let mut p = s;
    p.play_unchecked(&parse_turn(&p, "22-23(-)").unwrap());
    let t = parse_turn(&p, "13-22(+2)-21(-1)-31(+1)-23(-1)").unwrap();
    assert_eq!(
        format_turn(&p, &t, PointStyle::Algebraic),
        "d4d3(+2)-c3(-1)-d2(+1)-e3(-1)"
    );
}

#[test]
fn start_turns_have_their_names() {
    let s = start();
    let mut names: Vec<String> = s
        .turns(TurnMode::Distinct)
        .iter()
        .map(|t| format_turn(&s, t, PointStyle::Algebraic))
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["d2e3(+2)", "d3e3(+1)", "d3e3(-1)", "e2e3(+2)", "f2e3(+2)"]
    );
}

#[test]
fn the_engine_protocols_form_names_every_turn_of_random_games() {
    let s = start();
    // The forms of the protocol's documentation.
    let t = parse_turn(&s, "d3e3W").unwrap();
    assert_eq!(format_turn(&s, &t, PointStyle::Algebraic), "d3e3(-1)");
    assert_eq!(format_engine_turn(&s, &t), "d3e3W");
    assert!(matches!(
        parse_turn(&s, "d3e3"),
        Err(NotationError::Ambiguous { .. })
    ));
    assert!(matches!(
        parse_turn(&s, "e2e3(+2)c3"),
        Err(NotationError::Illegal { .. })
    ));
    let mut p = s;
    p.play_unchecked(&t);
    let chain = parse_turn(&p, "d4d3Ac3Wd2Ae3W").unwrap();
    assert_eq!(
        format_turn(&p, &chain, PointStyle::Algebraic),
        "d4d3(+2)-c3(-1)-d2(+1)-e3(-1)"
    );
    // Every turn of random games, both boards, written and read back.
    let mut seed = 7u64;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let mut checked = 0;
    for variant in [Variant::Tsivy, Variant::Dimy] {
        for _ in 0..20 {
            let mut pos = Position::start(variant, RuleOptions::default());
            for _ in 0..200 {
                let turns = pos.turns(TurnMode::Paths);
                if turns.is_empty() || pos.outcome().is_some() {
                    break;
                }
                for t in &turns {
                    let text = format_engine_turn(&pos, t);
                    assert_eq!(
                        parse_turn(&pos, &text).as_ref(),
                        Ok(t),
                        "{text} in {}",
                        pos.fen()
                    );
                    checked += 1;
                }
                pos.play_unchecked(&turns[next(turns.len())]);
            }
        }
    }
    assert!(checked > 10_000, "{checked} turns");
}
