//! The guard's two ways of judging turns, timed on the same positions: scoring every
//! turn exactly (`TurnGuard::score_turns`) and the null-window passes
//! (`TurnGuard::sound_turns`), and how often they keep the same turns.
//!
//! ```sh
//! cargo run --release -p fanorona-search --example guard_speed -- configs/books/tsivy.fen 8 20
//! ```
//! (BOOK DEPTH OPENINGS [MARGIN]: each opening, and the positions 10 and 20 turns after it
//! along a 3-turn alpha-beta game, judged at DEPTH turns with MARGIN hundredths of a piece,
//! the default margin when not given.)

use fanorona_rules::{History, RuleOptions};
use fanorona_search::book::read_book;
use fanorona_search::{AbConfig, AlphaBeta, GuardConfig, Limits, TurnGuard};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: guard_speed BOOK DEPTH OPENINGS [MARGIN]";
    let [_, book, depth, npos, ..] = &args[..] else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let margin = match &args[4..] {
        [] => Ok(GuardConfig::default().margin),
        [m] => m.parse::<i32>(),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let (Ok(depth), Ok(npos), Ok(margin)) = (depth.parse::<u32>(), npos.parse::<usize>(), margin)
    else {
        eprintln!("{usage} (DEPTH, OPENINGS and MARGIN are numbers)");
        std::process::exit(2);
    };
    let positions = match read_book(std::path::Path::new(book), RuleOptions::default(), None) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("guard_speed: {e}");
            std::process::exit(1);
        }
    };
    let mut games = Vec::new();
    let mut ab = AlphaBeta::new(AbConfig::default());
    for p in positions.iter().take(npos) {
        let mut g = History::new(*p);
        for k in 0..30 {
            if g.outcome().is_some() {
                break;
            }
            if k % 10 == 0 {
                games.push(g.clone());
            }
            let r = ab.search(
                &g,
                &Limits {
                    depth: Some(3),
                    ..Limits::default()
                },
            );
            match r.best {
                Some(t) => g.play_unchecked(&t),
                None => break,
            }
        }
    }
    let cfg = GuardConfig { depth, margin };
    let (mut told, mut tnew, mut same) = (0.0, 0.0, 0);
    for g in &games {
        let t = Instant::now();
        let scored = TurnGuard::new(cfg).score_turns(g);
        told += t.elapsed().as_secs_f64();
        let best = scored.iter().map(|s| s.1).max().unwrap();
        let mut exact: Vec<_> = scored
            .into_iter()
            .filter(|s| s.1 >= best - cfg.margin)
            .map(|s| s.0)
            .collect();
        let t = Instant::now();
        let mut fast = TurnGuard::new(cfg).sound_turns(g);
        tnew += t.elapsed().as_secs_f64();
        exact.sort();
        fast.sort();
        if exact == fast {
            same += 1;
        }
    }
    println!(
        "{} positions depth {depth} margin {margin}: exact {:.1} ms each, null-window {:.1} ms each, same {same}",
        games.len(),
        1e3 * told / games.len() as f64,
        1e3 * tnew / games.len() as f64
    );
}
