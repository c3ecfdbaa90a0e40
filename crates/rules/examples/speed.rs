//! Rules speed on one thread without building the rest of the workspace: perft of the
//! tsivy start and random playouts (`fanorona bench rules` is the benchmark of record;
//! this is for profiling the rules crate alone, e.g. under `perf` or callgrind).
//!
//! `cargo run --release -p fanorona-rules --example speed -- [depth] [seconds]`
//! (defaults 6 and 1). A negative `seconds` plays exactly `-100 * seconds` games instead
//! of timing them, so that instruction counts compare between builds.
use fanorona_rules::{PlayoutBuffer, Position, RuleOptions, TurnMode, Variant, perft, playout};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let depth: u32 = args.next().map_or(6, |a| a.parse().expect("depth"));
    let secs: f64 = args.next().map_or(1.0, |a| a.parse().expect("seconds"));
    let start = Position::start(Variant::Tsivy, RuleOptions::default());
    let t = Instant::now();
    let n = perft(&start, depth, TurnMode::Distinct);
    println!("perft({depth}) = {n} in {:.3} s", t.elapsed().as_secs_f64());
    if secs != 0.0 {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut buf = PlayoutBuffer::default();
        let (mut games, mut turns) = (0u64, 0u64);
        let t = Instant::now();
        // A negative duration plays exactly that many hundred games (for callgrind).
        while if secs < 0.0 {
            games < (-secs * 100.0) as u64
        } else {
            t.elapsed().as_secs_f64() < secs
        } {
            for _ in 0..100 {
                let (_, k) = playout(
                    &start,
                    |m| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        (((x >> 32) * m as u64) >> 32) as usize
                    },
                    &mut buf,
                );
                games += 1;
                turns += k as u64;
            }
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "playouts: {:.0} games/s, {:.1} turns a game",
            games as f64 / s,
            turns as f64 / games as f64
        );
    }
}
