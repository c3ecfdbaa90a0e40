//! `fanorona bench`: throughput figures that check what they count.

use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use fanorona_rules::{Position, RuleOptions, TurnMode, Variant, perft, playout};
use fanorona_sim::BatchSim;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// What to benchmark.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Target {
    /// perft(6) of the tsivy start and random playouts.
    Rules,
    /// The batched simulator: encoded random steps per second.
    Sim,
    /// The alpha-beta engine: nodes/s at fixed depth over fixed positions (count checked).
    Ab,
}

/// `fanorona bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The benchmark.
    pub target: Target,
    /// One line of JSON.
    #[arg(long)]
    pub json: bool,
    /// Games in the batch (bench sim).
    #[arg(long, default_value_t = 1024)]
    pub batch: usize,
    /// Seconds to run each timed part.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
}

/// perft(6) of the tsivy start, as published (NOTES.md).
const PERFT6: u64 = 9_204_447;

pub fn run(a: BenchArgs) -> Result<()> {
    match a.target {
        Target::Rules => rules(&a),
        Target::Sim => sim(&a),
        Target::Ab => ab(&a),
    }
}

/// Random playouts from the tsivy start on this thread for about `secs`: (games, turns).
fn playouts_for(secs: f64, seed: u64) -> (u64, u64) {
    let start = Position::start(Variant::Tsivy, RuleOptions::default());
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut buf = Vec::with_capacity(256);
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    let (mut games, mut turns) = (0u64, 0u64);
    while Instant::now() < deadline {
        for _ in 0..64 {
            let (_, n) = playout(&start, |k| rng.random_range(0..k), &mut buf);
            games += 1;
            turns += n as u64;
        }
    }
    (games, turns)
}

fn rules(a: &BenchArgs) -> Result<()> {
    let start = Position::start(Variant::Tsivy, RuleOptions::default());
    let t = Instant::now();
    let nodes = perft(&start, 6, TurnMode::Distinct);
    let perft_secs = t.elapsed().as_secs_f64();
    if nodes != PERFT6 {
        bail!("perft(6) counted {nodes}, expected {PERFT6}: the generator is wrong");
    }
    if !a.json {
        println!(
            "perft(6) tsivy start: {nodes} nodes in {perft_secs:.3} s ({:.1} M/s, one thread)",
            nodes as f64 / perft_secs / 1e6
        );
    }
    let t = Instant::now();
    let (games1, turns1) = playouts_for(a.seconds, 1);
    let pps1 = games1 as f64 / t.elapsed().as_secs_f64();
    if !a.json {
        println!(
            "random playouts, 1 thread: {pps1:.0} games/s ({:.1} turns a game)",
            turns1 as f64 / games1 as f64
        );
    }
    let threads = rayon::current_num_threads();
    let t = Instant::now();
    let games: u64 = (0..threads as u64)
        .into_par_iter()
        .map(|i| playouts_for(a.seconds, 100 + i).0)
        .sum();
    let pps = games as f64 / t.elapsed().as_secs_f64();
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "perft6_nodes": nodes, "perft6_seconds": perft_secs,
                "playouts_per_second_1thread": pps1.round(), "playouts_per_second": pps.round(),
            })
        );
    } else {
        println!("random playouts, {threads} threads: {pps:.0} games/s");
    }
    Ok(())
}

/// Random play through the batch simulator for about `secs`: every step writes the
/// observations and masks, samples from the masks and steps all games.
/// Returns (steps, finished games, seconds).
fn sim_run(variant: Variant, batch: usize, secs: f64) -> (u64, u64, f64) {
    let start = Position::start(variant, RuleOptions::default());
    let mut sim = BatchSim::new(start, batch, 1);
    sim.set_auto_reset(true);
    let (mut obs, mut mask) = sim.buffers();
    let mut actions = vec![0; batch];
    // Warm up: fill the per-game buffers.
    for _ in 0..20 {
        sim.observe(&mut obs, &mut mask);
        sim.sample_random(&mut actions);
        sim.step_unchecked(&actions);
    }
    let (mut steps, mut games) = (0u64, 0u64);
    let t = Instant::now();
    let deadline = t + Duration::from_secs_f64(secs);
    while Instant::now() < deadline {
        sim.observe(&mut obs, &mut mask);
        sim.sample_random(&mut actions);
        let r = sim.step_unchecked(&actions);
        games += r.iter().filter(|r| r.outcome.is_some()).count() as u64;
        steps += batch as u64;
    }
    (steps, games, t.elapsed().as_secs_f64())
}

fn sim(a: &BenchArgs) -> Result<()> {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut thread_counts = vec![1];
    if all > 1 {
        thread_counts.push(all);
    }
    for variant in [Variant::Tsivy, Variant::Dimy] {
        for &threads in &thread_counts {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()?;
            let (steps, games, secs) = pool.install(|| sim_run(variant, a.batch, a.seconds));
            let sps = steps as f64 / secs;
            let gps = games as f64 / secs;
            if a.json {
                println!(
                    "{}",
                    serde_json::json!({
                        "variant": variant.name(), "batch": a.batch, "threads": threads,
                        "steps_per_second": sps.round(), "games_per_second": gps.round(),
                    })
                );
            } else {
                println!(
                    "sim {variant}, batch {}, {threads} thread(s): {:.2} M encoded steps/s, {gps:.0} games/s",
                    a.batch,
                    sps / 1e6
                );
            }
        }
    }
    Ok(())
}

fn ab(a: &BenchArgs) -> Result<()> {
    use fanorona_search::bench;
    let r = bench::run();
    if r.nodes != bench::EXPECTED_NODES {
        bail!(
            "the alpha-beta bench visited {} nodes, expected {}: the search changed (update EXPECTED_NODES) or is broken",
            r.nodes,
            bench::EXPECTED_NODES
        );
    }
    let nps = r.nodes as f64 / r.seconds;
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "positions": r.positions, "depth": r.depth, "nodes": r.nodes,
                "seconds": r.seconds, "nodes_per_second": nps.round(),
            })
        );
    } else {
        println!(
            "alpha-beta, {} positions at depth {}: {} nodes in {:.3} s, {:.2} M nodes/s (one thread)",
            r.positions,
            r.depth,
            r.nodes,
            r.seconds,
            nps / 1e6
        );
    }
    Ok(())
}
