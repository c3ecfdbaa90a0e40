//! Descent against the endgame tables: its proofs are the tables' results, and its
//! labels are the minimax values of the tree it grew.

use fanorona_rules::{Position, TurnMode, Variant};
use fanorona_search::{Bound, Descent, LearnedEval, MATE_BOUND, TB_WIN};
use fanorona_tb::{Class, Tablebase, Wdl};
use fanorona_testkit::random_class_position;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::sync::Arc;

fn wdl_of(score: i32) -> Option<Wdl> {
    if score > TB_WIN - 1000 {
        Some(Wdl::Win)
    } else if score < -(TB_WIN - 1000) {
        Some(Wdl::Loss)
    } else {
        None
    }
}

/// Random dimy positions of `class`, with a turn to play.
fn positions(class: Class, n: usize, seed: u64) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let pos = random_class_position(Variant::Dimy, class, &mut rng);
        if !pos.turns(TurnMode::Distinct).is_empty() {
            out.push(pos);
        }
    }
    out
}

#[test]
fn proofs_agree_with_the_tables() {
    let three = Arc::new(Tablebase::build(Variant::Dimy, 100, 3, None, &mut |_| {}).unwrap());
    let four = Tablebase::build(Variant::Dimy, 100, 4, None, &mut |_| {}).unwrap();
    let zero = Arc::new(LearnedEval::zero(Variant::Dimy, 8, 1));
    let (mut proved, mut searched) = (0, 0);
    // Without tables (the game's ends prove), and with the three-piece tables proving
    // the leaves they cover.
    for tb in [None, Some(three.clone())] {
        for class in [Class { white: 2, black: 1 }, Class { white: 2, black: 2 }] {
            for pos in positions(class, 30, 3) {
                let mut d = Descent::new(zero.clone(), tb.clone(), false);
                let r = d.search(&pos, 400);
                searched += 1;
                let truth = four.probe(&pos).unwrap().wdl;
                if let Some(w) = wdl_of(r.value).filter(|_| r.proven) {
                    assert_eq!(w, truth, "{}: value {}", pos.fen(), r.value);
                    proved += 1;
                }
                // The root's value is its best turn's (a root the tables cover has no
                // turns searched).
                if let Some(&(_, best)) = r.turns.first() {
                    assert_eq!(r.value, best);
                }
            }
        }
    }
    assert!(proved > searched / 3, "{proved} proved of {searched}");
}

#[test]
fn labels_are_the_minimax_values_of_the_tree() {
    // Every label's value is the best of its children's values (from the parent's
    // side), as far as the tree goes: recomputed here from the labels themselves.
    let mut rng = SmallRng::seed_from_u64(5);
    let mut eval = LearnedEval::zero(Variant::Dimy, 8, 2);
    // Some random weights, so that values differ.
    let text = eval.to_text();
    // The lines without their checksum: edited here, as by hand.
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with("checksum "))
        .map(String::from)
        .collect();
    let n = lines.len();
    lines[n - 2] = lines[n - 2]
        .split(' ')
        .map(|_| format!("{}", rng.random_range(-1.0f32..1.0)))
        .collect::<Vec<_>>()
        .join(" ");
    eval = LearnedEval::from_text(&lines.join("\n")).unwrap();
    let eval = Arc::new(eval);
    for pos in positions(Class { white: 4, black: 4 }, 6, 9) {
        let mut d = Descent::new(eval.clone(), None, true);
        let r = d.search(&pos, 60);
        let labels = d.labels(&pos, 1, u16::MAX);
        assert!(!labels.is_empty());
        assert_eq!(labels[0].position, pos);
        assert_eq!(labels[0].score, r.value);
        let by_key: std::collections::HashMap<_, _> = labels
            .iter()
            .map(|l| ((l.position.hash(), l.position.quiet()), l.score))
            .collect();
        for l in &labels {
            assert_eq!(l.bound, Bound::Exact);
            let mut best = i32::MIN;
            for t in l.position.turns(TurnMode::Distinct) {
                let mut c = l.position;
                c.play_unchecked(&t);
                let child = match by_key.get(&(c.hash(), c.quiet())) {
                    Some(&v) => v,
                    // A leaf: its evaluation, or its end.
                    None => {
                        let mut leaf = Descent::new(eval.clone(), None, true);
                        leaf.search(&c, 0).value
                    }
                };
                let v = -child;
                let v = if v > MATE_BOUND {
                    v - 1
                } else if v < -MATE_BOUND {
                    v + 1
                } else {
                    v
                };
                best = best.max(v);
            }
            assert_eq!(l.score, best, "{}", l.position.fen());
        }
    }
}
