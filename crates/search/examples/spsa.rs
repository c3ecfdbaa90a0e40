//! SPSA tuning of alpha-beta's selective-search constants ([`SearchParams`]), as
//! fishtest tunes Stockfish's: each step perturbs every constant at once by `±c` (a
//! random sign each), plays a game pair (one book position, each side once) between the
//! two perturbed engines at a short time control, and moves every constant along its
//! sign by the pair's result. The tuned values are printed; they become the code's
//! defaults only if an equal-time arena match of 400 book games says so
//! (experiments/ab68).
//!
//! ```sh
//! cargo run --release --example spsa -- BOOK.fen PAIRS MS [THREADS]
//! ```

use fanorona_rules::RuleOptions;
use fanorona_search::book::read_book;
use fanorona_search::{AbConfig, AbPlayer, Limits, SearchParams, play_game};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::sync::Mutex;
use std::time::Duration;

/// The constants tuned: name, start (the default), perturbation `c`, lower and upper
/// bound.
fn spec() -> Vec<(&'static str, f64, f64, f64, f64)> {
    let d = SearchParams::default();
    vec![
        ("rfp_margin", d.rfp_margin as f64, 15.0, 10.0, 200.0),
        ("nmp_base", d.nmp_base as f64, 1.0, 0.0, 5.0),
        ("nmp_div", d.nmp_div as f64, 1.0, 1.0, 10.0),
        ("lmp_base", d.lmp_base as f64, 2.0, 0.0, 20.0),
        ("lmr_percent", d.lmr_percent as f64, 12.0, 10.0, 150.0),
        ("asp_window", d.asp_window as f64, 8.0, 5.0, 150.0),
    ]
}

fn params(theta: &[f64]) -> SearchParams {
    let r = |x: f64| x.round() as i32;
    SearchParams {
        rfp_margin: r(theta[0]),
        nmp_base: r(theta[1]),
        nmp_div: r(theta[2]).max(1),
        lmp_base: r(theta[3]),
        lmr_percent: r(theta[4]),
        asp_window: r(theta[5]).max(1),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: spsa BOOK.fen PAIRS MS [THREADS]");
        std::process::exit(2);
    }
    let book = read_book(args[0].as_ref(), RuleOptions::default(), None).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let pairs: usize = args[1].parse().expect("PAIRS: a number");
    let ms: u64 = args[2].parse().expect("MS: a number");
    let threads: usize = args
        .get(3)
        .map_or(2, |t| t.parse().expect("THREADS: a number"));
    let spec = spec();
    let theta = Mutex::new((
        spec.iter().map(|s| s.1).collect::<Vec<f64>>(),
        0usize,
        0.0f64,
    ));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let limits = Limits {
        time: Some(Duration::from_millis(ms)),
        ..Limits::default()
    };
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (theta, next, spec, book) = (&theta, &next, &spec, &book);
            scope.spawn(move || {
                let mut rng = SmallRng::seed_from_u64(1000 + t as u64);
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if k >= pairs {
                        return;
                    }
                    // fishtest's schedules: c_k = c / (k+1)^0.101, a_k = a / (A+k+1)^0.602.
                    let ck = 1.0 / (k as f64 + 1.0).powf(0.101);
                    let ak = 0.1 * (1.0 + 0.1 * pairs as f64).powf(0.602)
                        / (0.1 * pairs as f64 + k as f64 + 1.0).powf(0.602);
                    let now = theta.lock().expect("not poisoned").0.clone();
                    let delta: Vec<f64> = spec
                        .iter()
                        .map(|_| if rng.random_bool(0.5) { 1.0 } else { -1.0 })
                        .collect();
                    let side = |sign: f64| -> Vec<f64> {
                        now.iter()
                            .zip(spec)
                            .zip(&delta)
                            .map(|((x, s), d)| (x + sign * ck * s.2 * d).clamp(s.3, s.4))
                            .collect()
                    };
                    let (plus, minus) = (side(1.0), side(-1.0));
                    let engine = |th: &[f64], name: &str| {
                        AbPlayer::new(
                            AbConfig {
                                params: params(th),
                                ..AbConfig::default()
                            },
                            limits,
                            name,
                        )
                    };
                    let start = book[rng.random_range(0..book.len())];
                    let mut score = 0.0;
                    for plus_white in [true, false] {
                        let (mut p, mut m) = (engine(&plus, "plus"), engine(&minus, "minus"));
                        let (w, b): (&mut AbPlayer, &mut AbPlayer) = if plus_white {
                            (&mut p, &mut m)
                        } else {
                            (&mut m, &mut p)
                        };
                        let g = play_game(w, b, start, None, 400).expect("legal games");
                        let plus_colour = if plus_white {
                            fanorona_rules::Color::White
                        } else {
                            fanorona_rules::Color::Black
                        };
                        score += match g.outcome {
                            fanorona_rules::Outcome::Draw => 0.5,
                            fanorona_rules::Outcome::Win(c) if c == plus_colour => 1.0,
                            _ => 0.0,
                        };
                    }
                    // The pair's result for plus, in [-1, 1].
                    let r = score - 1.0;
                    let mut st = theta.lock().expect("not poisoned");
                    for (i, s) in spec.iter().enumerate() {
                        st.0[i] = (st.0[i] + ak * s.2 * r * delta[i]).clamp(s.3, s.4);
                    }
                    st.1 += 1;
                    st.2 += score;
                    if st.1 % 50 == 0 {
                        let line: Vec<String> = spec
                            .iter()
                            .zip(&st.0)
                            .map(|(s, x)| format!("{}={x:.1}", s.0))
                            .collect();
                        eprintln!(
                            "{} pairs (plus scored {:.3}): {}",
                            st.1,
                            st.2 / (2.0 * st.1 as f64),
                            line.join(" ")
                        );
                    }
                }
            });
        }
    });
    let st = theta.into_inner().expect("not poisoned");
    let p = params(&st.0);
    println!("{p:?}");
}
