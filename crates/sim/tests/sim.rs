//! Golden planes, symmetries on random positions, and the batch agreeing with single games.

use fanorona_rules::notation::parse_turn;
use fanorona_rules::telo::TeloPosition;
use fanorona_rules::{Color, Game, Position, RuleOptions, Variant};
use fanorona_sim::{BatchSim, Encode, FANORONA_PLANES, TELO_PLANES, frame_action, symmetries};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Plane `k` of an observation as rows of 0/1 characters, top row (highest y) first.
fn plane(obs: &[f32], k: usize, w: usize, h: usize) -> Vec<String> {
    let p = &obs[k * w * h..(k + 1) * w * h];
    (0..h)
        .rev()
        .map(|y| {
            (0..w)
                .map(|x| {
                    if p[y * w + x] == 1.0 {
                        '1'
                    } else if p[y * w + x] == 0.0 {
                        '0'
                    } else {
                        '?'
                    }
                })
                .collect()
        })
        .collect()
}

fn constant(obs: &[f32], k: usize, n: usize) -> f32 {
    let p = &obs[k * n..(k + 1) * n];
    assert!(p.iter().all(|&v| v == p[0]), "plane {k} is constant");
    p[0]
}

fn encode<G: Encode>(g: &G, planes: usize) -> Vec<f32> {
    let mut v = vec![f32::NAN; planes * g.variant().points()];
    g.encode(&mut v);
    v
}

#[test]
fn golden_tsivy_start() {
    let p = Position::start(Variant::Tsivy, RuleOptions::default());
    let o = encode(&p, FANORONA_PLANES);
    assert_eq!(
        plane(&o, 0, 9, 5),
        [
            "000000000",
            "000000000",
            "010100101",
            "111111111",
            "111111111"
        ]
    );
    assert_eq!(
        plane(&o, 1, 9, 5),
        [
            "111111111",
            "111111111",
            "101001010",
            "000000000",
            "000000000"
        ]
    );
    for k in 2..=4 {
        assert_eq!(plane(&o, k, 9, 5), ["000000000"; 5], "plane {k}");
    }
    let c: Vec<f32> = (5..=10).map(|k| constant(&o, k, 45)).collect();
    assert_eq!(c, [0.0, 0.0, 0.0, 0.0, 1.0, 1.0]);
}

#[test]
fn golden_black_frame_and_chain() {
    // After d3e3(-1) Black moves: its frame is the board turned 180 degrees.
    let mut p = Position::start(Variant::Tsivy, RuleOptions::default());
    p.play_unchecked(&parse_turn(&p, "d3e3(-1)").unwrap());
    let o = encode(&p, FANORONA_PLANES);
    // Black's pieces, turned: its home rows at the bottom. Real row 3 is B W . . W B W B W
    // (c3 captured, d3 moved to e3); Black's a3 f3 h3 turn to x = 8, 3, 1, White's b3 e3 g3
    // i3 to x = 7, 4, 2, 0.
    assert_eq!(
        plane(&o, 0, 9, 5),
        [
            "000000000",
            "000000000",
            "010100001",
            "111111111",
            "111111111"
        ]
    );
    assert_eq!(
        plane(&o, 1, 9, 5),
        [
            "111111111",
            "111111111",
            "101010010",
            "000000000",
            "000000000"
        ]
    );
    assert_eq!(constant(&o, 9, 45), 0.0, "Black to move");
    assert_eq!(constant(&o, 5, 45), 0.0, "a capture resets the clock");
    // Black d4d3 approach captures e3 f3? Step into the chain of notation.txt.
    let first = p.turn_actions(&parse_turn(&p, "d4d3(+2)-c3(-1)-d2(+1)-e3(-1)").unwrap())[0];
    p.play_action_unchecked(first);
    assert!(p.chain().is_some());
    let o = encode(&p, FANORONA_PLANES);
    // Chain piece on d3, turned: (8-3, 4-2) = (5, 2). It came from d4 -> (5, 1) in frame.
    assert_eq!(
        plane(&o, 2, 9, 5),
        [
            "000000000",
            "000000000",
            "000001000",
            "000000000",
            "000000000"
        ]
    );
    assert_eq!(
        plane(&o, 3, 9, 5),
        [
            "000000000",
            "000000000",
            "000001000",
            "000001000",
            "000000000"
        ]
    );
    assert_eq!(
        plane(&o, 4, 9, 5),
        [
            "000000000",
            "000000000",
            "000000000",
            "000001000",
            "000000000"
        ]
    );
}

#[test]
fn golden_rule_planes() {
    let vela = RuleOptions {
        vela: Some(Color::Black),
        ..RuleOptions::default()
    };
    let p = Position::start(Variant::Tsivy, vela);
    let o = encode(&p, FANORONA_PLANES);
    assert_eq!(
        (constant(&o, 6, 45), constant(&o, 7, 45)),
        (1.0, 0.0),
        "Black is the vela player"
    );
    let mut q = p;
    q.apply({
        let mut v = Vec::new();
        q.legal_actions(&mut v);
        v[0]
    });
    let o = encode(&q, FANORONA_PLANES);
    assert_eq!(
        (constant(&o, 6, 45), constant(&o, 7, 45)),
        (0.0, 1.0),
        "White may only paika"
    );
    let single = RuleOptions {
        reply_chains: false,
        ..RuleOptions::default()
    };
    let mut r = Position::start(Variant::Tsivy, single);
    r.play_unchecked(&parse_turn(&r, "e2e3").unwrap());
    assert_eq!(constant(&encode(&r, FANORONA_PLANES), 8, 45), 1.0);
    let quiet = Position::from_fen("9/9/B8/9/8W w 50 20", RuleOptions::default()).unwrap();
    assert_eq!(constant(&encode(&quiet, FANORONA_PLANES), 5, 45), 0.5);
}

#[test]
fn golden_telo() {
    let t = TeloPosition::from_fen("B2/1W1/W2 b 0 3", RuleOptions::default()).unwrap();
    let o = encode(&t, TELO_PLANES);
    // Black to move: turned 180 degrees, its a3 piece is at c1 of the frame.
    assert_eq!(plane(&o, 0, 3, 3), ["000", "000", "001"]);
    assert_eq!(plane(&o, 1, 3, 3), ["001", "010", "000"]);
    let c: Vec<f32> = (2..7).map(|k| constant(&o, k, 9)).collect();
    assert_eq!(c, [1.0, 1.0, 0.0, 0.0, 1.0]);
}

/// Positions of every kind (turn boundaries and inside chains) from random step-level play.
fn random_states(v: Variant, rules: RuleOptions, n: usize, seed: u64) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut acts = Vec::new();
    while out.len() < n {
        let mut p = Position::start(v, rules);
        while p.outcome().is_none() && out.len() < n {
            out.push(p);
            p.legal_actions(&mut acts);
            p.apply(acts[rng.random_range(0..acts.len())]);
        }
    }
    out
}

fn sorted_legal<G: Game>(g: &G) -> Vec<usize> {
    let mut v = Vec::new();
    g.legal_actions(&mut v);
    v.sort();
    v
}

#[test]
fn symmetric_positions_have_symmetric_actions_and_planes() {
    for (v, rules) in [
        (Variant::Tsivy, RuleOptions::default()),
        (Variant::Dimy, RuleOptions::default()),
        (
            Variant::Tsivy,
            RuleOptions {
                vela: Some(Color::White),
                ..RuleOptions::default()
            },
        ),
    ] {
        let syms = symmetries(v);
        let states = random_states(v, rules, 3000, 11);
        assert!(
            states.iter().filter(|p| p.chain().is_some()).count() > 50,
            "chains covered"
        );
        let planes = FANORONA_PLANES;
        for p in &states {
            let legal = sorted_legal(p);
            let obs = encode(p, planes);
            for s in &syms {
                let q = s.position(p);
                assert_eq!(q.hash(), q.hash_from_scratch());
                let mut mapped: Vec<usize> = legal.iter().map(|&a| s.action(a)).collect();
                mapped.sort();
                assert_eq!(sorted_legal(&q), mapped, "{} of {}", s.name(), p.fen());
                let mut transformed = vec![0.0; obs.len()];
                s.apply_planes(&obs, &mut transformed);
                assert_eq!(
                    encode(&q, planes),
                    transformed,
                    "planes, {} of {}",
                    s.name(),
                    p.fen()
                );
                // The inverse brings the position back.
                assert_eq!(syms[s.inverse()].position(&q), *p);
            }
        }
    }
}

#[test]
fn telo_symmetries() {
    let syms = symmetries(Variant::Telo);
    let mut rng = SmallRng::seed_from_u64(3);
    let mut acts = Vec::new();
    for _ in 0..300 {
        let mut t = TeloPosition::start(RuleOptions::default());
        while t.outcome().is_none() {
            let legal = sorted_legal(&t);
            for s in &syms {
                let q = s.telo(&t);
                let mut mapped: Vec<usize> = legal.iter().map(|&a| s.action(a)).collect();
                mapped.sort();
                assert_eq!(sorted_legal(&q), mapped);
                let o = encode(&t, TELO_PLANES);
                let mut m = vec![0.0; o.len()];
                s.apply_planes(&o, &mut m);
                assert_eq!(encode(&q, TELO_PLANES), m);
            }
            t.legal_actions(&mut acts);
            t.apply(acts[rng.random_range(0..acts.len())]);
        }
    }
}

#[test]
fn masks_are_legal_actions_in_frame() {
    for p in random_states(Variant::Dimy, RuleOptions::default(), 2000, 5) {
        let mut framed = Vec::new();
        p.for_each_legal_in_frame(|a| framed.push(frame_action(Variant::Dimy, p.to_move(), a)));
        framed.sort();
        assert_eq!(framed, sorted_legal(&p));
    }
}

/// The batch, driven by random actions, agrees step for step with the same games played
/// one at a time through the rules crate.
fn batch_agrees<G: Encode + PartialEq>(start: G, n: usize, steps: usize, seed: u64) {
    let mut sim = BatchSim::new(start.clone(), n, seed);
    sim.set_auto_reset(true);
    let (mut obs, mut mask) = sim.buffers();
    let mut actions = vec![0; n];
    let mut singles: Vec<G> = vec![start.clone(); n];
    let mut finished = 0;
    let v = start.variant();
    for _ in 0..steps {
        sim.observe(&mut obs, &mut mask);
        sim.sample_random(&mut actions);
        for (i, g) in singles.iter().enumerate() {
            assert_eq!(sim.game(i), g);
            let mut expect = vec![f32::NAN; obs.shape()[1] * v.points()];
            g.encode(&mut expect);
            assert_eq!(
                obs.slice(ndarray::s![i, .., .., ..])
                    .iter()
                    .copied()
                    .collect::<Vec<_>>(),
                expect
            );
            assert!(mask[[i, actions[i]]], "sampled action is in the mask");
        }
        let results = sim.step(&actions).unwrap().to_vec();
        for (i, g) in singles.iter_mut().enumerate() {
            g.apply(frame_action(v, g.to_move(), actions[i]));
            assert_eq!(results[i].outcome, g.outcome());
            if g.outcome().is_some() {
                finished += 1;
                *g = start.clone();
            }
        }
    }
    assert!(finished > 0, "some games finished and restarted");
}

#[test]
fn batch_agrees_with_single_games() {
    batch_agrees(
        Position::start(Variant::Dimy, RuleOptions::default()),
        32,
        400,
        1,
    );
    batch_agrees(
        Position::start(Variant::Tsivy, RuleOptions::default()),
        16,
        300,
        2,
    );
    batch_agrees(TeloPosition::start(RuleOptions::default()), 16, 200, 3);
}

#[test]
fn bad_steps_are_refused() {
    let mut sim = BatchSim::new(
        Position::start(Variant::Tsivy, RuleOptions::default()),
        2,
        0,
    );
    assert!(matches!(
        sim.step(&[0]),
        Err(fanorona_sim::SimError::WrongCount { .. })
    ));
    assert!(matches!(
        sim.step(&[0, 0]),
        Err(fanorona_sim::SimError::Illegal { game: 0, .. })
    ));
    // Without auto-reset a finished game refuses further steps.
    let end = Position::from_fen("9/9/9/9/BB1W5 w", RuleOptions::default()).unwrap();
    let mut sim = BatchSim::new(end, 1, 0);
    let (mut o, mut m) = sim.buffers();
    sim.observe(&mut o, &mut m);
    let mut a = [0];
    sim.sample_random(&mut a);
    assert_eq!(
        sim.step(&a).unwrap()[0].outcome,
        Some(fanorona_rules::Outcome::Win(Color::White))
    );
    assert!(matches!(
        sim.step(&a),
        Err(fanorona_sim::SimError::Finished { game: 0 })
    ));
}
