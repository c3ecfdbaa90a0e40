//! Ratings against hand-computed cases, and SPRT on simulated results.

use fanorona_arena::elo::{
    PairResult, PairedDiff, Pentanomial, Sprt, SprtDecision, Trend, VIRTUAL_DRAWS, elo_of_score,
    expected, ratings,
};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// `a`'s wins, draws and losses against `b`.
fn pair(a: usize, b: usize, [wins, draws, losses]: [u32; 3]) -> PairResult {
    PairResult {
        a,
        b,
        wins,
        draws,
        losses,
    }
}

#[test]
fn seventy_five_percent_is_about_191_elo() {
    let r = ratings(2, &[pair(1, 0, [15, 0, 5])], 0);
    assert_eq!(r[0].elo, 0.0);
    assert!((r[1].elo - 190.85).abs() < 0.1, "{r:?}");
    assert!((elo_of_score(0.75) - 190.85).abs() < 0.01);
    // Draws count half: 10 draws + 10 wins + 0 losses is 75 % too.
    let r = ratings(2, &[pair(1, 0, [10, 10, 0])], 0);
    assert!((r[1].elo - 190.85).abs() < 0.1, "{r:?}");
    // The interval contains the estimate and narrows with more games.
    let few = ratings(2, &[pair(1, 0, [3, 0, 1])], 0);
    let many = ratings(2, &[pair(1, 0, [300, 0, 100])], 0);
    assert!(few[1].low < few[1].elo && few[1].elo < few[1].high);
    assert!((many[1].high - many[1].low) < (few[1].high - few[1].low) / 5.0);
    // 95 % interval of 400 games at 75 %: about +-40 Elo (a binomial standard error).
    let half = (many[1].high - many[1].low) / 2.0;
    assert!((half - 39.6).abs() < 3.0, "{half}");
}

#[test]
fn a_chain_of_players_adds_up() {
    // A beats B 75 %, B beats C 75 %: C is 0, B about 191, A about 382.
    let r = ratings(3, &[pair(0, 1, [30, 0, 10]), pair(1, 2, [30, 0, 10])], 2);
    assert!((r[1].elo - 190.85).abs() < 0.5, "{r:?}");
    assert!((r[0].elo - 381.7).abs() < 1.0, "{r:?}");
    assert!((r[0].score - 0.75).abs() < 1e-9);
}

#[test]
fn a_perfect_score_gets_a_finite_rating_from_the_prior() {
    let r = ratings(
        3,
        &[
            pair(0, 1, [10, 0, 0]),
            pair(0, 2, [10, 0, 0]),
            pair(1, 2, [6, 2, 2]),
        ],
        2,
    );
    for x in &r {
        assert!(
            x.elo.is_finite() && x.low.is_finite() && x.high.is_finite(),
            "{r:?}"
        );
    }
    for x in &r[..2] {
        assert!(x.low < x.elo && x.elo < x.high, "{r:?}");
    }
    assert_eq!(
        (r[2].elo, r[2].low, r[2].high),
        (0.0, 0.0, 0.0),
        "the anchor"
    );
    assert!(r[0].prior && !r[1].prior && !r[2].prior);
    assert!(r[0].elo > r[1].elo && r[1].elo > r[2].elo, "{r:?}");
    assert_eq!(r[0].score, 1.0, "the score shown is the real one");
    // Two players: 10 wins and the prior's 2 draws are 11/12 = +416.5 Elo, by hand.
    let r = ratings(2, &[pair(1, 0, [10, 0, 0])], 0);
    assert_eq!(VIRTUAL_DRAWS, 2);
    assert!((r[1].elo - 400.0 * 11f64.log10()).abs() < 0.1, "{r:?}");
    // Without extreme scores nothing is added: exactly maximum likelihood (75 %).
    let r = ratings(2, &[pair(1, 0, [15, 0, 5])], 0);
    assert!((r[1].elo - 190.85).abs() < 0.1 && !r[1].prior, "{r:?}");
    // A player with no games breaks nothing and has no NaN.
    let r = ratings(2, &[], 0);
    assert!(r.iter().all(|x| x.elo.is_finite() && x.score == 0.0));
}

/// Simulated pairs: each game a win with probability `p - draw/2`, a draw with `draw`;
/// the second game of a pair correlates with the first (the same position).
fn simulated_pair(rng: &mut SmallRng, true_elo: f64) -> (f64, f64) {
    let p = expected(true_elo);
    let draw = 0.4;
    let game = |rng: &mut SmallRng| {
        let x: f64 = rng.random_range(0.0..1.0);
        let win = p - draw / 2.0;
        if x < win {
            1.0
        } else if x < win + draw {
            0.5
        } else {
            0.0
        }
    };
    (game(rng), game(rng))
}

#[test]
fn sprt_decides_on_simulated_pairs() {
    let sprt = Sprt {
        elo0: 0.0,
        elo1: 50.0,
        alpha: 0.05,
        beta: 0.05,
        min_pairs: 10,
    };
    let mut rng = SmallRng::seed_from_u64(1);
    let mut run = |true_elo: f64| {
        let mut p = Pentanomial::default();
        for _ in 0..20_000 {
            let (a, b) = simulated_pair(&mut rng, true_elo);
            p.add(a, b);
            match sprt.decide(&p) {
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
    assert_eq!(SprtDecision::AcceptH1.name(), "H1");
}

#[test]
fn pentanomial_bins_mean_and_elo() {
    let mut p = Pentanomial::default();
    p.add(1.0, 0.0); // WL: 1/2
    p.add(0.5, 0.5); // DD: 1/2
    p.add(1.0, 0.5); // WD: 3/4
    p.add(0.0, 0.0); // LL: 0
    p.add(1.0, 1.0); // WW: 1
    assert_eq!(p.0, [1, 0, 2, 1, 1]);
    assert_eq!(p.pairs(), 5);
    let (mean, var) = p.mean_var();
    // By hand with 1e-3 pairs in the empty bin (score 1/4): (2.75 + 0.00025) / 5.001.
    assert!((mean - 2.75025 / 5.001).abs() < 1e-9, "{mean}");
    assert!(var > 0.0);
    let (e, lo, hi) = p.elo();
    assert!(lo < e && e < hi);
    // All draws: mean exactly 1/2 (up to the regularisation), Elo 0, a narrow interval.
    let mut d = Pentanomial::default();
    for _ in 0..100 {
        d.add(0.5, 0.5);
    }
    let (e, lo, hi) = d.elo();
    assert!(e.abs() < 0.01 && hi - lo < 20.0, "{e} {lo} {hi}");
}

#[test]
fn an_anchor_that_lost_everything_still_anchors_finite_ratings() {
    let r = ratings(2, &[pair(0, 1, [0, 0, 10])], 0);
    assert_eq!(r[0].elo, 0.0);
    assert!(
        r[1].elo.is_finite() && r[1].elo > 300.0 && r[1].high.is_finite(),
        "{r:?}"
    );
    assert!(r[0].prior && r[1].prior);
}

#[test]
fn trend_fits_each_twin_and_averages() {
    let xs = [0.0, 1.0, 2.0];
    let twins = vec![
        vec![0.0, 0.5, 1.0],
        vec![0.0, 0.0, 1.0],
        vec![1.0, 0.5, 0.0],
    ];
    let t = Trend::fit(&xs, &twins).unwrap();
    assert_eq!(t.twins, 3);
    // Slopes 0.5, 0.5, -0.5: mean 1/6, sample variance 1/3.
    assert!((t.slope - 1.0 / 6.0).abs() < 1e-12, "{t:?}");
    assert!(
        (t.half - 1.96 * (1.0f64 / 9.0).sqrt()).abs() < 1e-12,
        "{t:?}"
    );
    assert!(!t.significant());
    // Two checkpoints one unit apart: the paired difference.
    let pairs = [(1.0, 0.5), (0.5, 0.5), (1.0, 0.0)];
    let rows: Vec<Vec<f64>> = pairs.iter().map(|&(a, b)| vec![b, a]).collect();
    let t = Trend::fit(&[0.0, 1.0], &rows).unwrap();
    let d = PairedDiff::from_pairs(&pairs);
    assert!((t.slope - d.diff()).abs() < 1e-12 && (t.half - d.half).abs() < 1e-12);
    // Nothing to fit.
    assert!(Trend::fit(&xs, &[]).is_none());
    assert!(Trend::fit(&[1.0, 1.0], &[vec![0.0, 1.0]]).is_none());
}
