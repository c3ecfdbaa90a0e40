//! Every line of `tests/data/notation.txt`, and the errors it lists.

use fanorona_rules::notation::{format_turn, parse_game, parse_turn};
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
        "",
        "e",
        "e2",
        "e2e",
        "e2e3(",
        "e2e3(*1)",
        "e2e3(+2",
        "z9e3",
        "e2e3x",
        "e2e3(+2)c3",
        "46-23",
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
