//! Property tests: round trips, parsers that never panic, hashes, and the step level
//! agreeing with the turn level.

use fanorona_rules::notation::{format_turn, parse_game, parse_turn, split_game};
use fanorona_rules::telo::TeloPosition;
use fanorona_rules::{
    Action, Bitboard, ByColor, Color, History, Outcome, PlayoutBuffer, PointStyle, Position,
    RuleOptions, Setup, TurnMode, Variant,
};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::collections::{BTreeSet, HashSet};

fn variant_and_rules(i: u8) -> (Variant, RuleOptions) {
    let v = if i & 1 == 0 {
        Variant::Tsivy
    } else {
        Variant::Dimy
    };
    let mut r = RuleOptions::default();
    match i >> 1 {
        1 => r.reply_chains = false,
        2 => r.vela = Some(Color::Black),
        3 => r.vela = Some(Color::White),
        _ => {}
    }
    (v, r)
}

/// A random game's positions (at most `max` turns), played at the turn level.
fn random_game(variant: Variant, rules: RuleOptions, seed: u64, max: usize) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pos = Position::start(variant, rules);
    let mut out = vec![pos];
    let mut turns = Vec::new();
    for _ in 0..max {
        if pos.outcome().is_some() {
            break;
        }
        pos.turns_into(&mut turns, TurnMode::Paths);
        let t = turns[rng.random_range(0..turns.len())];
        pos.play_unchecked(&t);
        assert_eq!(
            pos.hash(),
            pos.hash_from_scratch(),
            "turn-level hash after {}",
            pos.fen()
        );
        out.push(pos);
    }
    out
}

/// Every position reachable by step-level actions until the turn ends, with the number of
/// step paths leading there.
fn step_level_results(
    pos: &Position,
    out: &mut Vec<(Position, Vec<Action>)>,
    path: &mut Vec<Action>,
) {
    for a in pos.actions() {
        let mut p = *pos;
        p.play_action_unchecked(a);
        assert_eq!(p.hash(), p.hash_from_scratch(), "step-level hash");
        path.push(a);
        if p.chain().is_some() {
            assert_eq!(
                p.side_to_move(),
                pos.side_to_move(),
                "the same side moves again in a chain"
            );
            step_level_results(&p, out, path);
        } else {
            out.push((p, path.clone()));
        }
        path.pop();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn fen_round_trips(seed in any::<u64>(), vr in 0u8..8) {
        let (v, r) = variant_and_rules(vr);
        for pos in random_game(v, r, seed, 200) {
            let back = Position::from_fen(&pos.fen(), r).unwrap();
            prop_assert_eq!(back, pos);
            prop_assert_eq!(back.fen(), pos.fen());
        }
    }

    #[test]
    fn arbitrary_boards_round_trip(white in any::<u64>(), black in any::<u64>(), dimy in any::<bool>(), side in any::<bool>(), quiet in any::<u16>(), ply in any::<u16>()) {
        let v = if dimy { Variant::Dimy } else { Variant::Tsivy };
        let all = v.geometry().all.0;
        // Thin the pieces out so that the counts are legal.
        let w = Bitboard(white & all & (white >> 7) & (white >> 13));
        let b = Bitboard(black & all & !w.0 & (black >> 5) & (black >> 11));
        let setup = Setup { width: v.width(), height: v.height(), pieces: ByColor { white: w, black: b },
            side: if side { Color::White } else { Color::Black }, quiet, ply };
        let fen = setup.to_fen();
        prop_assert_eq!(Setup::from_fen(&fen).unwrap(), setup);
        if let Ok(pos) = Position::from_fen(&fen, RuleOptions::default()) {
            prop_assert_eq!(pos.fen(), fen);
        }
    }

    #[test]
    fn every_turn_parses_back_to_itself(seed in any::<u64>(), vr in 0u8..8) {
        let (v, r) = variant_and_rules(vr);
        for pos in random_game(v, r, seed, 120) {
            for t in pos.turns(TurnMode::Paths) {
                for style in [PointStyle::Algebraic, PointStyle::Numbers] {
                    let text = format_turn(&pos, &t, style);
                    let back = parse_turn(&pos, &text);
                    prop_assert_eq!(back, Ok(t), "{} in {}", text, pos.fen());
                }
            }
        }
    }

    #[test]
    fn games_replay_from_their_notation(seed in any::<u64>(), vr in 0u8..8) {
        let (v, r) = variant_and_rules(vr);
        let positions = random_game(v, r, seed, 300);
        let mut text = String::new();
        let mut hist = History::new(positions[0]);
        for w in positions.windows(2) {
            let t = w[0].turns(TurnMode::Paths).into_iter().find(|t| { let mut p = w[0]; p.play_unchecked(t); p == w[1] }).unwrap();
            text.push_str(&format_turn(&w[0], &t, PointStyle::Algebraic));
            text.push(' ');
            hist.play_unchecked(&t);
        }
        let (turns, end) = parse_game(&positions[0], &text).unwrap();
        prop_assert_eq!(turns.len(), positions.len() - 1);
        prop_assert_eq!(&end, positions.last().unwrap());
        prop_assert_eq!(hist.position(), &end);
    }

    #[test]
    fn step_level_reaches_exactly_the_turns(seed in any::<u64>(), vr in 0u8..8) {
        let (v, r) = variant_and_rules(vr);
        for pos in random_game(v, r, seed, 150) {
            if pos.outcome().is_some() { continue; }
            let mut results = Vec::new();
            step_level_results(&pos, &mut results, &mut Vec::new());
            let by_steps: BTreeSet<String> = results.iter().map(|(p, _)| format!("{} {}", p.fen(), p.hash())).collect();
            let by_turns: BTreeSet<String> = pos.turns(TurnMode::Distinct).iter().map(|t| { let mut p = pos; p.play_unchecked(t); format!("{} {}", p.fen(), p.hash()) }).collect();
            prop_assert_eq!(&by_steps, &by_turns, "{}", pos.fen());
            // And the actions of each turn replay to the turn's position.
            for t in pos.turns(TurnMode::Paths) {
                let mut a = pos;
                for act in pos.turn_actions(&t) { prop_assert!(a.is_legal_action(act)); a.play_action_unchecked(act); }
                let mut b = pos;
                b.play_unchecked(&t);
                prop_assert_eq!(a, b);
                prop_assert_eq!(pos.turn_of_actions(&pos.turn_actions(&t)), Some(t));
            }
        }
    }

    /// Random play at the step level, ending chains early at random: the actions of
    /// every turn map back to a legal turn that reaches the same position (the network
    /// player's turns are built this way).
    /// A random playout's turn picks among exactly the distinct turns: each index plays
    /// a different one of them, and the game ends when and as `outcome` says.
    #[test]
    fn random_turns_are_the_distinct_turns(seed in any::<u64>(), vr in 0u8..8) {
        let (v, r) = variant_and_rules(vr);
        let mut buf = PlayoutBuffer::default();
        for pos in random_game(v, r, seed, 80) {
            let expected: HashSet<Position> = pos
                .turns(TurnMode::Distinct)
                .iter()
                .map(|t| {
                    let mut c = pos;
                    c.play_unchecked(t);
                    c
                })
                .collect();
            let mut asked = None;
            let mut probe = pos;
            let outcome = probe.play_random_turn(|n| { asked = Some(n); 0 }, &mut buf);
            prop_assert_eq!(outcome, pos.outcome(), "{}", pos.fen());
            if outcome.is_some() {
                prop_assert_eq!(asked, None);
                continue;
            }
            let n = asked.expect("a pick when the game goes on");
            prop_assert_eq!(n, expected.len(), "{}", pos.fen());
            let got: HashSet<Position> = (0..n)
                .map(|k| {
                    let mut c = pos;
                    c.play_random_turn(|_| k, &mut buf);
                    c
                })
                .collect();
            prop_assert_eq!(got, expected, "{}", pos.fen());
        }
    }

    /// The cheap questions the alpha-beta engine asks instead of building the list
    /// agree with the list (whether a turn exists, whether the turns are captures), and
    /// the evaluation's fused step features with the separate calls.
    #[test]
    fn cheap_questions_agree_with_the_turn_list_and_each_other(seed in any::<u64>(), vr in 0u8..8) {
        let (v, r) = variant_and_rules(vr);
        let mut turns = Vec::new();
        for pos in random_game(v, r, seed, 80) {
            pos.turns_into(&mut turns, TurnMode::Distinct);
            prop_assert_eq!(pos.has_turn(), !turns.is_empty(), "{}", pos.fen());
            prop_assert_eq!(
                pos.must_capture(),
                turns.first().is_some_and(|t| t.is_capture()),
                "{}",
                pos.fen()
            );
            prop_assert!(turns.iter().all(|t| t.is_capture() == pos.must_capture()), "{}", pos.fen());
            let (me, them) = (pos.side_to_move(), pos.side_to_move().other());
            let f = pos.step_features();
            prop_assert_eq!(f.mobility, [pos.mobility(me), pos.mobility(them)], "{}", pos.fen());
            prop_assert_eq!(f.hanging, pos.attacked_by(me, true), "{}", pos.fen());
            prop_assert_eq!(f.attacked, pos.attacked_by(them, false), "{}", pos.fen());
        }
    }

    #[test]
    fn step_actions_map_back_to_turns(seed in any::<u64>(), vr in 0u8..8) {
        let (v, r) = variant_and_rules(vr);
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut pos = Position::start(v, r);
        while pos.outcome().is_none() && pos.ply() < 200 {
            let side = pos.side_to_move();
            let before = pos;
            let mut turn = Vec::new();
            loop {
                let acts = pos.actions();
                // Prefer ending a chain now and then, so early ends are common.
                let a = if acts.contains(&Action::EndTurn) && rng.random_bool(0.4) {
                    Action::EndTurn
                } else {
                    acts[rng.random_range(0..acts.len())]
                };
                pos.play_action_unchecked(a);
                turn.push(a);
                if pos.side_to_move() != side || pos.chain().is_none() {
                    break;
                }
            }
            let t = before.turn_of_actions(&turn);
            prop_assert!(t.is_some(), "{} {:?}", before.fen(), turn);
            let mut p = before;
            p.play_unchecked(&t.unwrap());
            prop_assert_eq!(p, pos);
            // A turn cut short (its end missing) is no turn.
            if turn.len() > 1 {
                prop_assert_eq!(before.turn_of_actions(&turn[..turn.len() - 1]), None);
            }
        }
    }

    #[test]
    fn action_indices_round_trip(seed in any::<u64>(), vr in 0u8..8) {
        use fanorona_rules::game::{action_from_index, action_index};
        use fanorona_rules::Game;
        let (v, r) = variant_and_rules(vr);
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut pos = Position::start(v, r);
        let mut idx = Vec::new();
        while pos.outcome().is_none() && pos.ply() < 300 {
            pos.legal_actions(&mut idx);
            let acts = pos.actions();
            prop_assert_eq!(idx.len(), acts.len());
            for (&i, &a) in idx.iter().zip(&acts) {
                prop_assert!(i < pos.num_actions());
                prop_assert_eq!(action_from_index(v.points(), i), Some(a));
                prop_assert_eq!(action_index(v.points(), a), i);
            }
            let i = idx[rng.random_range(0..idx.len())];
            pos.apply(i);
            prop_assert_eq!(pos.hash(), pos.hash_from_scratch());
        }
    }

    #[test]
    fn parsers_never_panic(s in ".{0,40}") {
        let _ = Setup::from_fen(&s);
        let _ = Position::from_fen(&s, RuleOptions::default());
        let _ = TeloPosition::from_fen(&s, RuleOptions::default());
        let _ = RuleOptions::default().set_pair(&s);
        let _ = s.parse::<Variant>();
        let start = Position::start(Variant::Tsivy, RuleOptions::default());
        let _ = parse_turn(&start, &s);
        let _ = parse_game(&start, &s);
        let _ = split_game(&s);
        let _ = TeloPosition::start(RuleOptions::default()).parse_move(&s);
    }

    #[test]
    fn parsers_never_panic_on_near_misses(s in "[WB1-9/ wb0-9]{0,60}", t in "[a-i1-9()+\\-; .]{0,30}") {
        let _ = Position::from_fen(&s, RuleOptions::default());
        let _ = TeloPosition::from_fen(&s, RuleOptions::default());
        for v in [Variant::Tsivy, Variant::Dimy] {
            let start = Position::start(v, RuleOptions::default());
            let _ = parse_turn(&start, &t);
            let _ = parse_game(&start, &t);
        }
    }

    #[test]
    fn telo_hash_and_fen(seed in any::<u64>()) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut p = TeloPosition::start(RuleOptions::default());
        while p.outcome().is_none() {
            let m = p.moves();
            let mv = m[rng.random_range(0..m.len())];
            prop_assert_eq!(p.parse_move(&p.format_move(mv)), Ok(mv));
            p.play_unchecked(mv);
            prop_assert_eq!(p.hash(), p.hash_from_scratch());
            prop_assert_eq!(TeloPosition::from_fen(&p.fen(), RuleOptions::default()).unwrap(), p);
        }
    }
}

#[test]
fn repetition_draw_needs_the_option() {
    // Two lone pieces shuffle back and forth: the fourth turn repeats the start.
    let fen = "9/9/B8/9/8W w";
    for (opt, draw) in [(false, false), (true, true)] {
        let rules = RuleOptions {
            repetition_draw: opt,
            ..RuleOptions::default()
        };
        let mut h = History::new(Position::from_fen(fen, rules).unwrap());
        for t in [
            "i1h1", "a3a4", "h1i1", "a4a3", "i1h1", "a3a4", "h1i1", "a4a3",
        ] {
            assert_eq!(h.outcome(), None);
            let turn = parse_turn(h.position(), t).unwrap();
            h.play_unchecked(&turn);
        }
        assert_eq!(h.repetitions(), 3);
        assert_eq!(h.outcome(), if draw { Some(Outcome::Draw) } else { None });
        assert!(h.undo());
        assert_eq!(h.repetitions(), 2);
    }
}

#[test]
fn quiet_limit_draws() {
    let rules = RuleOptions {
        quiet_limit: Some(4),
        ..RuleOptions::default()
    };
    let mut p = Position::from_fen("9/9/B8/9/8W w", rules).unwrap();
    for t in ["i1h1", "a3a4", "h1i1"] {
        p.play_unchecked(&parse_turn(&p, t).unwrap());
        assert_eq!(p.outcome(), None);
    }
    p.play_unchecked(&parse_turn(&p, "a4a3").unwrap());
    assert_eq!(p.quiet(), 4);
    assert_eq!(p.outcome(), Some(Outcome::Draw));
}

#[test]
fn capture_all_and_immobilised_lose() {
    // White captures Black's last pieces: Black to move with none loses.
    let mut p = Position::from_fen("9/9/9/9/BB1W5 w", RuleOptions::default()).unwrap();
    // d1d2 is a paika, not allowed while a capture exists.
    assert!(parse_turn(&p, "d1d2").is_err());
    let t = parse_turn(&p, "d1c1(+2)").unwrap();
    p.play_unchecked(&t);
    assert_eq!(p.outcome(), Some(Outcome::Win(Color::White)));
    // Black to move, its only piece blocked in the corner by pieces it cannot capture.
    let p = Position::from_fen("BW7/WW7/W8/9/9 b", RuleOptions::default()).unwrap();
    assert!(p.turns(TurnMode::Distinct).is_empty());
    assert_eq!(p.outcome(), Some(Outcome::Win(Color::White)));
}

#[test]
fn vela_player_without_capture_wins() {
    // Vela Black to move, White (9 pieces > 5) offers no capture: Black wins.
    let rules = RuleOptions {
        vela: Some(Color::Black),
        ..RuleOptions::default()
    };
    let p = Position::from_fen("B8/9/9/WWWWWWWWW/9 b", rules).unwrap();
    assert_eq!(p.vela_phase(), Some(Color::Black));
    assert_eq!(p.outcome(), Some(Outcome::Win(Color::Black)));
    // Without the option the same position is an ordinary game.
    let q = Position::from_fen("B8/9/9/WWWWWWWWW/9 b", RuleOptions::default()).unwrap();
    assert_eq!(q.outcome(), None);
}

#[test]
fn vela_takes_one_piece_and_the_other_side_may_not_capture() {
    let rules = RuleOptions {
        vela: Some(Color::Black),
        ..RuleOptions::default()
    };
    let start = Position::start(Variant::Tsivy, rules);
    assert_eq!(start.side_to_move(), Color::Black);
    for t in start.turns(TurnMode::Paths) {
        assert_eq!(t.len(), 1);
        assert_eq!(
            t.captured().count(),
            1,
            "the vela player removes only the first piece"
        );
    }
    let mut p = start;
    p.play_unchecked(&start.turns(TurnMode::Paths)[0]);
    // White to move, more than 5 pieces: paika only, even where a capture exists.
    assert!(p.has_capture());
    assert!(p.turns(TurnMode::Paths).iter().all(|t| !t.is_capture()));
}

#[test]
fn attacked_pieces_match_the_captures() {
    // For the side to move, the pieces it attacks are exactly the pieces its one-step
    // captures take (when no restriction applies).
    let mut rng = SmallRng::seed_from_u64(99);
    for _ in 0..200 {
        for pos in random_game(Variant::Tsivy, RuleOptions::default(), rng.random(), 60) {
            if pos.ply() < 2 {
                continue;
            }
            let me = pos.side_to_move();
            let turns = pos.turns(TurnMode::Paths);
            if !turns.iter().any(|t| t.is_capture()) {
                assert!(pos.attacked_by(me, false).is_empty(), "{}", pos.fen());
                continue;
            }
            let mut whole = Bitboard::EMPTY;
            let mut first = Bitboard::EMPTY;
            for t in turns.iter().filter(|t| t.len() == 1) {
                whole |= t.captured();
                let (from, to, kind) = t.steps().next().unwrap();
                let g = pos.geometry();
                let d = g.direction(from, to).unwrap();
                let p = match kind {
                    fanorona_rules::StepKind::Capture(fanorona_rules::Capture::Approach) => {
                        g.neighbour(to, d)
                    }
                    _ => g.neighbour(from, d.opposite()),
                };
                first = first.with(p.unwrap());
            }
            assert_eq!(pos.attacked_by(me, true), whole, "{}", pos.fen());
            assert_eq!(pos.attacked_by(me, false), first, "{}", pos.fen());
        }
    }
}

/// A null turn (a search's device) gives the move away and counts a quiet turn, its hash
/// kept up to date: positions of random games of both boards.
#[test]
fn a_null_turn_passes_the_move() {
    for (variant, seed) in [(Variant::Tsivy, 3), (Variant::Dimy, 4)] {
        for pos in random_game(variant, RuleOptions::default(), seed, 60) {
            if pos.outcome().is_some() {
                continue;
            }
            let mut p = pos;
            p.null_turn();
            assert_eq!(p.side_to_move(), pos.side_to_move().other());
            assert_eq!(p.pieces(Color::White), pos.pieces(Color::White));
            assert_eq!(p.pieces(Color::Black), pos.pieces(Color::Black));
            assert_eq!(p.ply(), pos.ply() + 1);
            assert_eq!(p.quiet(), pos.quiet() + 1);
            assert_eq!(p.hash(), p.hash_from_scratch(), "{}", pos.fen());
            assert_ne!(p.hash(), pos.hash());
        }
    }
}
