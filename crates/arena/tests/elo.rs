//! Ratings against hand-computed cases, and SPRT on simulated results.

use fanorona_arena::elo::{PairResult, Sprt, SprtDecision, elo_of_score, expected, ratings};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

#[test]
fn seventy_five_percent_is_about_191_elo() {
    let r = ratings(
        2,
        &[PairResult {
            a: 1,
            b: 0,
            wins: 15,
            draws: 0,
            losses: 5,
        }],
        0,
    );
    assert_eq!(r[0].elo, 0.0);
    assert!((r[1].elo - 190.85).abs() < 0.1, "{r:?}");
    assert!((elo_of_score(0.75) - 190.85).abs() < 0.01);
    // Draws count half: 10 draws + 10 wins + 0 losses is 75 % too.
    let r = ratings(
        2,
        &[PairResult {
            a: 1,
            b: 0,
            wins: 10,
            draws: 10,
            losses: 0,
        }],
        0,
    );
    assert!((r[1].elo - 190.85).abs() < 0.1, "{r:?}");
    // The interval contains the estimate and narrows with more games.
    let few = ratings(
        2,
        &[PairResult {
            a: 1,
            b: 0,
            wins: 3,
            draws: 0,
            losses: 1,
        }],
        0,
    );
    let many = ratings(
        2,
        &[PairResult {
            a: 1,
            b: 0,
            wins: 300,
            draws: 0,
            losses: 100,
        }],
        0,
    );
    assert!(few[1].low < few[1].elo && few[1].elo < few[1].high);
    assert!((many[1].high - many[1].low) < (few[1].high - few[1].low) / 5.0);
    // 95 % interval of 400 games at 75 %: about +-40 Elo (a binomial standard error).
    let half = (many[1].high - many[1].low) / 2.0;
    assert!((half - 39.6).abs() < 3.0, "{half}");
}

#[test]
fn a_chain_of_players_adds_up() {
    // A beats B 75 %, B beats C 75 %: C is 0, B about 191, A about 382.
    let r = ratings(
        3,
        &[
            PairResult {
                a: 0,
                b: 1,
                wins: 30,
                draws: 0,
                losses: 10,
            },
            PairResult {
                a: 1,
                b: 2,
                wins: 30,
                draws: 0,
                losses: 10,
            },
        ],
        2,
    );
    assert!((r[1].elo - 190.85).abs() < 0.5, "{r:?}");
    assert!((r[0].elo - 381.7).abs() < 1.0, "{r:?}");
    assert!((r[0].score - 0.75).abs() < 1e-9);
}

#[test]
fn a_perfect_score_is_open_ended_not_a_crash() {
    let r = ratings(
        3,
        &[
            PairResult {
                a: 0,
                b: 1,
                wins: 10,
                draws: 0,
                losses: 0,
            },
            PairResult {
                a: 0,
                b: 2,
                wins: 10,
                draws: 0,
                losses: 0,
            },
            PairResult {
                a: 1,
                b: 2,
                wins: 6,
                draws: 2,
                losses: 2,
            },
        ],
        2,
    );
    assert!(r[0].elo.is_infinite() && r[0].high.is_infinite());
    assert!(
        r[0].low.is_finite(),
        "the lower end is what its results show: {r:?}"
    );
    assert!(r[1].elo.is_finite());
    // A player with no games has no rating but does not break the others.
    let r = ratings(2, &[], 0);
    assert!(r[1].score.is_nan());
}

#[test]
fn sprt_decides_on_simulated_results() {
    let sprt = Sprt {
        elo0: 0.0,
        elo1: 50.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let mut rng = SmallRng::seed_from_u64(1);
    let mut run = |true_elo: f64| {
        let p = expected(true_elo);
        let (mut w, mut d, mut l) = (0, 0, 0);
        for _ in 0..20_000 {
            // A third of games drawn; the rest split to give the expected score.
            let x: f64 = rng.random_range(0.0..1.0);
            let draw = 1.0 / 3.0;
            let win = p - draw / 2.0;
            if x < win {
                w += 1;
            } else if x < win + draw {
                d += 1;
            } else {
                l += 1;
            }
            match sprt.decide(w, d, l) {
                SprtDecision::Continue => {}
                dec => return dec,
            }
        }
        SprtDecision::Continue
    };
    let mut h1 = 0;
    let mut h0 = 0;
    for _ in 0..20 {
        if run(70.0) == SprtDecision::AcceptH1 {
            h1 += 1;
        }
        if run(-20.0) == SprtDecision::AcceptH0 {
            h0 += 1;
        }
    }
    assert!(h1 >= 19, "a +70 player passes: {h1}/20");
    assert!(h0 >= 19, "a -20 player fails: {h0}/20");
    let (lo, hi) = sprt.bounds();
    assert!((hi - 2.944).abs() < 0.01 && (lo + 2.944).abs() < 0.01);
}

#[test]
fn an_anchor_that_lost_everything_leaves_the_others_open() {
    let r = ratings(
        2,
        &[PairResult {
            a: 0,
            b: 1,
            wins: 0,
            draws: 0,
            losses: 10,
        }],
        0,
    );
    assert_eq!(r[0].elo, 0.0);
    assert!(r[1].elo.is_infinite() && r[1].elo > 0.0);
}
