//! The tables against an independent naive solver (plain recursion over whole turns with
//! a memo) on every position of up to 3 pieces of both boards; the retrograde
//! consistency of every value with its turns' values on positions of up to 4 pieces; the
//! colour symmetry; hand-checked endings; the files.

use fanorona_rules::{Bitboard, ByColor, Color, Point, Position, RuleOptions, TurnMode, Variant};
use fanorona_tb::{Class, Tablebase, Value, Wdl, classes, pieces_at};
use std::collections::HashMap;

type Memo = HashMap<(u64, u64, u8, u16), i8>;

/// +1 the side to move wins, 0 draw, -1 loses, with `r` quiet turns left and a fresh
/// budget of `limit` after each capture.
fn naive(pos: &Position, r: u16, limit: u16, memo: &mut Memo) -> i8 {
    let key = (
        pos.pieces(Color::White).0,
        pos.pieces(Color::Black).0,
        pos.side_to_move().index() as u8,
        r,
    );
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let turns = pos.turns(TurnMode::Distinct);
    let v = if turns.is_empty() {
        -1
    } else if r == 0 {
        0
    } else {
        let mut best = -1;
        for t in &turns {
            let mut c = *pos;
            c.play_unchecked(t);
            let captured = c.occupied().count() < pos.occupied().count();
            let v = -naive(&c, if captured { limit } else { r - 1 }, limit, memo);
            best = best.max(v);
            if best == 1 {
                break;
            }
        }
        best
    };
    memo.insert(key, v);
    v
}

fn wdl(v: i8) -> Wdl {
    match v {
        1 => Wdl::Win,
        0 => Wdl::Draw,
        _ => Wdl::Loss,
    }
}

fn rules(limit: u16) -> RuleOptions {
    RuleOptions {
        quiet_limit: Some(limit),
        ..RuleOptions::default()
    }
}

fn position(
    variant: Variant,
    limit: u16,
    pieces: ByColor<Bitboard>,
    side: Color,
    quiet: u16,
) -> Position {
    Position::new(variant, rules(limit), pieces, side, quiet, 2).unwrap()
}

fn every_position(tb: &Tablebase, mut f: impl FnMut(Position)) {
    let b = fanorona_tb::Binomial::new();
    let points = tb.variant().points();
    let mut scratch = Vec::new();
    for class in classes(tb.variant(), tb.max_pieces()) {
        for i in 0..class.size(&b, points) {
            let pieces = pieces_at(&b, points, class, i, &mut scratch);
            for side in [Color::White, Color::Black] {
                f(position(tb.variant(), tb.quiet_limit(), pieces, side, 0));
            }
        }
    }
}

#[test]
fn three_pieces_agree_with_a_naive_solver_on_both_boards() {
    for (variant, limit) in [(Variant::Dimy, 100), (Variant::Tsivy, 24)] {
        let tb = Tablebase::build(variant, limit, 3, None, &mut |_| {}).unwrap();
        let mut memo = Memo::new();
        let (mut n, mut decided) = (0, 0);
        every_position(&tb, |pos| {
            let stored = tb.value(&pos).unwrap();
            // At the full budget, and for every budget on a sample.
            let budgets: Vec<u16> = if n % 13 == 0 {
                (0..=limit).collect()
            } else {
                vec![limit]
            };
            for r in budgets {
                let want = wdl(naive(&pos, r, limit, &mut memo));
                let got = if r == 0 && !pos.turns(TurnMode::Distinct).is_empty() {
                    Wdl::Draw
                } else {
                    stored.at_budget(r)
                };
                assert_eq!(
                    got,
                    want,
                    "{variant} {} at {r} quiet turns left: stored {stored:?}",
                    pos.fen()
                );
                // The probe with the matching quiet counter says the same.
                let q = position(
                    variant,
                    limit,
                    ByColor {
                        white: pos.pieces(Color::White),
                        black: pos.pieces(Color::Black),
                    },
                    pos.side_to_move(),
                    limit - r,
                );
                assert_eq!(tb.probe(&q).unwrap().wdl, want, "{}", q.fen());
            }
            if stored != Value::Draw {
                decided += 1;
            }
            n += 1;
        });
        assert!(
            n > 1000 && decided > n / 10,
            "{variant}: {n} positions, {decided} decided"
        );
    }
}

/// Each stored value is what its turns' values make it.
fn expected(tb: &Tablebase, pos: &Position) -> Value {
    let limit = tb.quiet_limit();
    let turns = pos.turns(TurnMode::Distinct);
    if turns.is_empty() {
        return Value::Loss(0);
    }
    let (mut win, mut loss, mut all_lose) = (u16::MAX, 0u16, true);
    for t in &turns {
        let mut c = *pos;
        c.play_unchecked(t);
        let captured = c.occupied().count() < pos.occupied().count();
        let (w, l) = match tb.value(&c).unwrap() {
            Value::Loss(d) if u16::from(d) <= limit => {
                (Some(if captured { 1 } else { u16::from(d) + 1 }), None)
            }
            Value::Win(d) if u16::from(d) <= limit => {
                (None, Some(if captured { 1 } else { u16::from(d) + 1 }))
            }
            _ => (None, None),
        };
        if let Some(w) = w {
            win = win.min(w);
        }
        match l {
            Some(l) => loss = loss.max(l),
            None => all_lose = false,
        }
    }
    if win <= limit {
        Value::Win(win as u8)
    } else if all_lose && loss <= limit {
        Value::Loss(loss as u8)
    } else {
        Value::Draw
    }
}

#[test]
fn four_pieces_are_consistent_and_symmetric() {
    let tb = Tablebase::build(Variant::Dimy, 100, 4, None, &mut |_| {}).unwrap();
    let points = 25;
    let flip = |bb: Bitboard| -> Bitboard {
        bb.fold(Bitboard(0), |acc, p| {
            acc.with(Point((points - 1 - p.index()) as u8))
        })
    };
    let mut n = 0;
    let mut longest = 0;
    every_position(&tb, |pos| {
        n += 1;
        let v = tb.value(&pos).unwrap();
        // Every 7th position: its turns' values make it (every one would be slow).
        if n % 7 == 0 {
            assert_eq!(v, expected(&tb, &pos), "{}", pos.fen());
        }
        // The same position with the colours swapped and the board turned.
        let swapped = position(
            Variant::Dimy,
            100,
            ByColor {
                white: flip(pos.pieces(Color::Black)),
                black: flip(pos.pieces(Color::White)),
            },
            pos.side_to_move().other(),
            0,
        );
        assert_eq!(
            tb.value(&swapped).unwrap(),
            v,
            "{} and {}",
            pos.fen(),
            swapped.fen()
        );
        if let Value::Win(d) | Value::Loss(d) = v {
            longest = longest.max(d);
        }
    });
    assert!(longest > 3, "some ending takes manoeuvring: {longest}");
}

#[test]
fn hand_checked_endings() {
    let tb = Tablebase::build(Variant::Tsivy, 100, 3, None, &mut |_| {}).unwrap();
    let rules = tb.rules();
    let at = |fen: &str| Position::from_fen(fen, rules).unwrap();
    // Two white pieces against one: c3d3 takes e3 by approach at once.
    let p = at("9/9/2W1B4/9/W8 w 0 2");
    let pr = tb.probe(&p).unwrap();
    assert_eq!((pr.wdl, pr.dtc), (Wdl::Win, 1));
    let mut after = p;
    after.play_unchecked(&pr.best.unwrap());
    assert!(
        after.pieces(Color::Black).is_empty(),
        "the best turn takes the last piece"
    );
    // A lone piece against a lone piece far apart: nobody can force anything.
    let far = at("B8/9/9/9/8W w 0 2");
    assert_eq!(tb.probe(&far).unwrap().wdl, Wdl::Draw);
    // The quiet counter at the limit: a draw whatever the pieces say.
    let late = at("9/9/2W1B4/9/W8 w 100 2");
    assert_eq!(tb.probe(&late).unwrap().wdl, Wdl::Draw);
    // Not covered: too many pieces, another board.
    assert!(tb.probe(&Position::start(Variant::Tsivy, rules)).is_none());
}

#[test]
fn files_round_trip_and_damage_is_named() {
    let dir = std::env::temp_dir().join(format!("fanorona-tb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut lines = Vec::new();
    let built = Tablebase::build(Variant::Dimy, 100, 3, Some(&dir), &mut |l| {
        lines.push(l.to_string())
    })
    .unwrap();
    assert_eq!(
        lines.len(),
        fanorona_tb::stored_classes(Variant::Dimy, 3).len()
    );
    let read = Tablebase::open(&dir, Variant::Dimy).unwrap();
    assert_eq!(read.max_pieces(), 3);
    for (a, b) in built.tables().zip(read.tables()) {
        assert_eq!(a, b);
    }
    // Building again reads the files (a resumed build).
    let mut again = Vec::new();
    Tablebase::build(Variant::Dimy, 100, 3, Some(&dir), &mut |l| {
        again.push(l.to_string())
    })
    .unwrap();
    assert!(again.iter().all(|l| l.contains("read from")), "{again:?}");
    // A flipped byte is found.
    let f = dir.join(fanorona_tb::file_name(
        Variant::Dimy,
        Class { white: 2, black: 1 },
    ));
    let mut bytes = std::fs::read(&f).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&f, bytes).unwrap();
    let e = Tablebase::open(&dir, Variant::Dimy)
        .unwrap_err()
        .to_string();
    assert!(e.contains("2v1") && e.contains("damaged"), "{e}");
    // No tables at all: the error says how to make them.
    let e = Tablebase::open(&dir.join("none"), Variant::Tsivy)
        .unwrap_err()
        .to_string();
    assert!(e.contains("fanorona tb build"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
