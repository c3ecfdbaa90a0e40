//! `fanorona bench`: throughput figures that check what they count.

use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use fanorona_nn::NetConfig;
use fanorona_rules::{PlayoutBuffer, Position, RuleOptions, TurnMode, Variant, perft, playout};
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
    /// The default network: inference positions/s (batch 1, 64, 256; the CPU path and burn),
    /// training samples/s.
    Nn,
    /// MCTS simulations/s: with the uniform evaluator (the tree's cost) and the network.
    Mcts,
    /// Endgame tables (`--tb DIR`, of `--variant`): probes/s alone, and alpha-beta's node
    /// rate with and without them on positions of one piece more than they hold.
    Tb,
}

/// `fanorona bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The benchmark.
    pub target: Target,
    /// One line of JSON.
    #[arg(long)]
    pub json: bool,
    /// The network's variant (bench nn): the default network of tsivy, dimy or telo.
    #[arg(long, default_value = "tsivy")]
    pub variant: Variant,
    /// Residual blocks of the network (bench nn; default: the variant's default network).
    #[arg(long)]
    pub blocks: Option<usize>,
    /// Channels of the network's tower (bench nn; default: the variant's default network).
    #[arg(long)]
    pub channels: Option<usize>,
    /// Implicit minimax backups' weight of the searches (bench mcts; 0 = off), as
    /// `mcts:minimax=`; the default is the players' (0.5).
    #[arg(long, default_value_t = fanorona_search::MctsConfig::default().minimax_weight)]
    pub minimax: f32,
    /// Games in the batch (bench sim).
    #[arg(long, default_value_t = 1024)]
    pub batch: usize,
    /// A learned evaluation for alpha-beta (bench ab: `FILE` or `release`, the release
    /// folder's of `--variant`; only that board's positions are searched, and the node
    /// count is not checked).
    #[arg(long, value_name = "FILE")]
    pub eval: Option<std::path::PathBuf>,
    /// Seconds to run each timed part.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// The endgame tables' folder (bench tb; default: $FANORONA_TB, else
    /// checkpoints/tablebases).
    #[arg(long, value_name = "DIR")]
    pub tb: Option<std::path::PathBuf>,
    /// The depth of the alpha-beta searches (bench tb).
    #[arg(long, default_value_t = 16)]
    pub depth: u32,
}

/// perft(6) of the tsivy start, as published by an independent engine (and checked by
/// the rules crate's perft tests).
const PERFT6: u64 = 9_204_447;

pub fn run(a: BenchArgs) -> Result<()> {
    match a.target {
        Target::Rules => rules(&a),
        Target::Sim => sim(&a),
        Target::Ab => ab(&a),
        Target::Nn => nn(&a),
        Target::Mcts => mcts(&a),
        Target::Tb => tb(&a),
    }
}

/// `count` random positions of `classes` (a class drawn uniformly, then its position),
/// either side to move, quiet counter 0, each with a turn to play.
fn random_positions(
    variant: Variant,
    classes: &[fanorona_tb::Class],
    count: usize,
    seed: u64,
) -> Vec<Position> {
    let b = fanorona_tb::Binomial::new();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut scratch = Vec::new();
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let class = classes[rng.random_range(0..classes.len())];
        let idx = rng.random_range(0..class.size(&b, variant.points()));
        let pieces = fanorona_tb::pieces_at(&b, variant.points(), class, idx, &mut scratch);
        let side = if rng.random_bool(0.5) {
            fanorona_rules::Color::White
        } else {
            fanorona_rules::Color::Black
        };
        let Ok(pos) = Position::new(variant, RuleOptions::default(), pieces, side, 0, 2) else {
            continue;
        };
        if pos.outcome().is_none() {
            out.push(pos);
        }
    }
    out
}

fn tb(a: &BenchArgs) -> Result<()> {
    use fanorona_search::{AbConfig, AlphaBeta, Limits};
    let dir = a.tb.clone().unwrap_or_else(crate::tb_cmd::default_dir);
    let tables = fanorona_nn::spec::load_tables(&dir, a.variant).map_err(crate::input_err)?;
    let n = tables.max_pieces();
    let held: Vec<fanorona_tb::Class> = tables.tables().map(|t| t.class).collect();
    // Probes alone: a million random positions of the classes held (a class drawn
    // uniformly), over and over: mostly misses of the processor's caches, as in search.
    let positions = random_positions(a.variant, &held, 1 << 20, 1);
    let time = |f: &mut dyn FnMut(&Position) -> bool| {
        let (mut done, mut answered) = (0u64, 0u64);
        let t = Instant::now();
        let deadline = t + Duration::from_secs_f64(a.seconds);
        while Instant::now() < deadline {
            for p in &positions {
                answered += u64::from(f(p));
            }
            done += positions.len() as u64;
        }
        (done, answered, t.elapsed().as_secs_f64())
    };
    let (probes, answered, secs) = time(&mut |p| tables.wdl(p).is_some());
    if answered != probes {
        bail!("the tables answered {answered} of {probes} positions they hold");
    }
    let wdl_rate = probes as f64 / secs;
    let (best, _, secs) = time(&mut |p| tables.probe(p).is_some());
    let best_rate = best as f64 / secs;
    // Inside alpha-beta: positions of one piece more, so that captures reach the tables.
    let above: Vec<fanorona_tb::Class> = (1..=n)
        .map(|w| fanorona_tb::Class {
            white: w,
            black: n + 1 - w,
        })
        .collect();
    let roots = random_positions(a.variant, &above, 50, 2);
    let search = |tb: Option<std::sync::Arc<fanorona_tb::Tablebase>>| {
        let mut ab = AlphaBeta::new(AbConfig {
            tb,
            ..AbConfig::default()
        });
        let (mut nodes, mut hits, mut secs) = (0u64, 0u64, 0.0);
        for p in &roots {
            ab.new_game();
            let r = ab.search_position(
                p,
                &Limits {
                    depth: Some(a.depth),
                    ..Limits::default()
                },
            );
            nodes += r.nodes;
            secs += r.seconds;
            hits += ab.tb_hits();
        }
        (nodes, hits, secs)
    };
    let (plain_nodes, _, plain_secs) = search(None);
    let (tb_nodes, hits, tb_secs) = search(Some(tables.clone()));
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "variant": a.variant.name(), "pieces": n, "positions": tables.positions(),
                "probes_per_second": wdl_rate.round(), "probes_with_best_turn_per_second": best_rate.round(),
                "ab_positions": roots.len(), "ab_depth": a.depth,
                "ab_nodes_without": plain_nodes, "ab_seconds_without": plain_secs,
                "ab_nodes_per_second_without": (plain_nodes as f64 / plain_secs).round(),
                "ab_nodes_with": tb_nodes, "ab_seconds_with": tb_secs,
                "ab_nodes_per_second_with": (tb_nodes as f64 / tb_secs).round(),
                "ab_tb_hits": hits, "ab_tb_hits_per_second": (hits as f64 / tb_secs).round(),
            })
        );
    } else {
        println!(
            "{} tables of up to {n} pieces ({} positions) in {}",
            a.variant,
            tables.positions(),
            dir.display()
        );
        println!(
            "probes of random held positions, one thread: {:.2} M/s (result and distance), {:.3} M/s (with the best turn)",
            wdl_rate / 1e6,
            best_rate / 1e6
        );
        println!(
            "alpha-beta, {} positions of {} pieces at depth {}: without tables {plain_nodes} nodes in {plain_secs:.2} s ({:.2} M nodes/s); with them {tb_nodes} nodes in {tb_secs:.2} s ({:.2} M nodes/s), {hits} answered by the tables ({:.2} M/s)",
            roots.len(),
            n + 1,
            a.depth,
            plain_nodes as f64 / plain_secs / 1e6,
            tb_nodes as f64 / tb_secs / 1e6,
            hits as f64 / tb_secs / 1e6
        );
    }
    Ok(())
}

/// Random playouts from the tsivy start on this thread for about `secs`: (games, turns).
fn playouts_for(secs: f64, seed: u64) -> (u64, u64) {
    let start = Position::start(Variant::Tsivy, RuleOptions::default());
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut buf = PlayoutBuffer::default();
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
    let learned = match &a.eval {
        Some(p) => Some(fanorona_nn::spec::load_learned(p, a.variant).map_err(crate::input_err)?),
        None => None,
    };
    let checked = learned.is_none();
    let level = learned.as_ref().map(|e| (e.hidden(), e.simd_level()));
    // The whole set again until `--seconds` have passed (three times at least): the
    // median run's rate, which one slow run does not move.
    let budget = std::time::Duration::from_secs_f64(a.seconds.max(0.0));
    let started = std::time::Instant::now();
    let mut runs = Vec::new();
    while runs.len() < 3 || started.elapsed() < budget {
        let r = bench::run_with(learned.clone());
        if checked && r.nodes != bench::EXPECTED_NODES {
            bail!(
                "the alpha-beta bench visited {} nodes, expected {}: the search changed (update EXPECTED_NODES) or is broken",
                r.nodes,
                bench::EXPECTED_NODES
            );
        }
        runs.push(r);
    }
    let rate = |r: &bench::BenchResult| r.nodes as f64 / r.seconds;
    runs.sort_by(|x, y| rate(x).total_cmp(&rate(y)));
    let r = runs[runs.len() / 2];
    let (low, high) = (rate(&runs[0]), rate(&runs[runs.len() - 1]));
    let nps = rate(&r);
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "positions": r.positions, "depth": r.depth, "nodes": r.nodes,
                "seconds": r.seconds, "nodes_per_second": nps.round(),
                "runs": runs.len(), "nodes_per_second_min": low.round(),
                "nodes_per_second_max": high.round(),
                "eval": a.eval.as_ref().map(|p| p.display().to_string()),
                "eval_hidden": level.map(|l| l.0), "simd": level.map(|l| l.1),
            })
        );
    } else {
        println!(
            "alpha-beta, {} positions at depth {}: {} nodes in {:.3} s, {:.2} M nodes/s (one thread; median of {} runs, {:.2} to {:.2}){}",
            r.positions,
            r.depth,
            r.nodes,
            r.seconds,
            nps / 1e6,
            runs.len(),
            low / 1e6,
            high / 1e6,
            match (&a.eval, level) {
                (Some(p), Some((hidden, simd))) => format!(
                    ", learned evaluation {} ({hidden} units, {simd} kernels)",
                    p.display()
                ),
                _ => String::new(),
            }
        );
    }
    Ok(())
}

/// Encoded planes of `n` positions from random tsivy games.
/// Encoded planes of `n` positions from random games of `variant`.
fn sample_planes_of(variant: Variant, n: usize, seed: u64) -> Vec<f32> {
    if variant == Variant::Telo {
        use fanorona_rules::Game;
        use fanorona_sim::Encode;
        let mut rng = SmallRng::seed_from_u64(seed);
        let per = fanorona_sim::num_planes(variant) * 9;
        let mut out = vec![0.0; n * per];
        let mut acts = Vec::new();
        for i in 0..n {
            let mut p = fanorona_rules::telo::TeloPosition::start(RuleOptions::default());
            for _ in 0..rng.random_range(0..8) {
                p.legal_actions(&mut acts);
                if acts.is_empty() {
                    break;
                }
                p.apply(acts[rng.random_range(0..acts.len())]);
            }
            p.encode(&mut out[i * per..(i + 1) * per]);
        }
        return out;
    }
    sample_fanorona(variant, n, seed)
}

fn sample_fanorona(variant: Variant, n: usize, seed: u64) -> Vec<f32> {
    use fanorona_rules::Game;
    use fanorona_sim::Encode;
    let mut rng = SmallRng::seed_from_u64(seed);
    let per = fanorona_sim::num_planes(variant) * variant.points();
    let mut out = vec![0.0; n * per];
    let mut acts = Vec::new();
    for i in 0..n {
        let mut p = Position::start(variant, RuleOptions::default());
        for _ in 0..rng.random_range(0..60) {
            p.legal_actions(&mut acts);
            if acts.is_empty() {
                break;
            }
            p.apply(acts[rng.random_range(0..acts.len())]);
        }
        p.encode(&mut out[i * per..(i + 1) * per]);
    }
    out
}

/// A `bench nn` figure; the JSON line names the network's shape.
fn print_figure(
    json: bool,
    net: &NetConfig,
    what: &str,
    batch: usize,
    per_second: f64,
    unit: &str,
) {
    if json {
        println!(
            "{}",
            serde_json::json!({"what": what, "batch": batch, "per_second": per_second.round(),
                "blocks": net.blocks, "channels": net.channels})
        );
    } else {
        println!("{what}, batch {batch}: {per_second:.0} {unit}/s");
    }
}

/// Raw inference positions/s of the default tsivy network at `batch`.
fn inference_rate(eval: &fanorona_nn::NetEvaluator, batch: usize, secs: f64) -> f64 {
    inference_rate_of(eval, Variant::Tsivy, batch, secs, false)
}

/// Positions a second through the evaluator's network (`burn`: through burn even on the
/// CPU, where the evaluator takes the CPU path).
fn inference_rate_of(
    eval: &fanorona_nn::NetEvaluator,
    variant: Variant,
    batch: usize,
    secs: f64,
    burn: bool,
) -> f64 {
    let planes = sample_planes_of(variant, batch, 1);
    let run = |planes: Vec<f32>| {
        if burn {
            eval.forward_burn(planes, batch)
        } else {
            eval.forward_raw(planes, batch)
        }
    };
    let _ = run(planes.clone()); // warm up
    let t = Instant::now();
    let mut n = 0usize;
    while t.elapsed().as_secs_f64() < secs {
        let _ = run(planes.clone());
        n += batch;
    }
    n as f64 / t.elapsed().as_secs_f64()
}

fn nn(a: &BenchArgs) -> Result<()> {
    use fanorona_nn::burn::module::Module;
    use fanorona_nn::{Batch, NetEvaluator, Trainer};
    let device = crate::backend::device();
    let mut cfg = NetConfig::for_variant(a.variant);
    if let Some(b) = a.blocks {
        cfg.blocks = b;
    }
    if let Some(c) = a.channels {
        anyhow::ensure!(c > 0, "--channels must be at least 1");
        cfg.channels = c;
    }
    if !a.json {
        println!(
            "{} network: {} blocks x {} channels, backend {}",
            a.variant,
            cfg.blocks,
            cfg.channels,
            crate::backend::name()
        );
    }
    let net = cfg.init(&device);
    let eval = NetEvaluator::new(net.valid(), device.clone(), a.variant, false, 0);
    let threads = rayon::current_num_threads();
    for batch in [1, 64, 256] {
        // What the evaluator runs (the CPU path on the CPU), then burn itself.
        let engines: &[(&str, bool)] = if eval.on_cpu() {
            &[("cpu", false), ("burn", true)]
        } else {
            &[("burn", false)]
        };
        for &(engine, burn) in engines {
            let rate = inference_rate_of(&eval, a.variant, batch, a.seconds, burn);
            if a.json {
                println!(
                    "{}",
                    serde_json::json!({"what": "inference", "engine": engine, "threads": threads,
                        "batch": batch, "per_second": rate.round(),
                        "blocks": cfg.blocks, "channels": cfg.channels})
                );
            } else {
                println!(
                    "inference ({engine}, {threads} threads), batch {batch}: {rate:.0} positions/s"
                );
            }
        }
    }
    let batch = 256;
    let mut trainer = Trainer::new(net, cfg.clone(), &device, 1e-4);
    let planes = sample_planes_of(a.variant, batch, 2);
    let mut policy = vec![0.0; batch * cfg.actions];
    for i in 0..batch {
        policy[i * cfg.actions + (i * 7) % cfg.actions] = 1.0;
    }
    let b = Batch {
        planes,
        policy,
        wdl: [0.3, 0.4, 0.3].repeat(batch),
        n: batch,
        ..Batch::default()
    };
    trainer.step(&b, 1e-3); // warm up
    let t = Instant::now();
    let mut n = 0;
    while t.elapsed().as_secs_f64() < a.seconds {
        trainer.step(&b, 1e-3);
        n += batch;
    }
    print_figure(
        a.json,
        &cfg,
        "training",
        batch,
        n as f64 / t.elapsed().as_secs_f64(),
        "samples",
    );
    Ok(())
}

fn mcts_figure(a: &BenchArgs, evaluator: &str, threads: usize, sps: f64, note: &str) {
    if a.json {
        println!(
            "{}",
            serde_json::json!({"evaluator": evaluator, "threads": threads, "minimax_weight": a.minimax, "simulations_per_second": sps.round()})
        );
    } else {
        let with = if a.minimax > 0.0 {
            format!(", minimax {}", a.minimax)
        } else {
            String::new()
        };
        println!(
            "mcts, {evaluator} evaluator{with}, {threads} thread(s): {sps:.0} simulations/s{note}"
        );
    }
}

/// Simulations/s of one tree per thread from the tsivy start with the uniform evaluator.
fn uniform_sims(secs: f64, seed: u64, cfg: fanorona_search::MctsConfig) -> u64 {
    use fanorona_search::{Mcts, UniformEvaluator};
    let start = Position::start(Variant::Tsivy, RuleOptions::default());
    let t = Instant::now();
    let mut sims = 0u64;
    let mut s = seed;
    while t.elapsed().as_secs_f64() < secs {
        s += 1;
        let mut tree = Mcts::new(start, cfg, s);
        tree.run(&mut UniformEvaluator::default(), 20_000);
        sims += tree.visits() as u64;
    }
    sims
}

fn mcts(a: &BenchArgs) -> Result<()> {
    use fanorona_nn::NetEvaluator;
    use fanorona_nn::burn::module::Module;
    use fanorona_search::Mcts;
    if !(0.0..=1.0).contains(&a.minimax) {
        return Err(crate::input_err(format!(
            "--minimax {}: a weight from 0 to 1 is needed",
            a.minimax
        )));
    }
    let mcfg = fanorona_search::MctsConfig {
        minimax_weight: a.minimax,
        ..Default::default()
    };
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    for threads in if all > 1 { vec![1, all] } else { vec![1] } {
        let t = Instant::now();
        let sims: u64 = (0..threads as u64)
            .into_par_iter()
            .map(|i| uniform_sims(a.seconds, i * 1000, mcfg))
            .sum();
        mcts_figure(
            a,
            "uniform",
            threads,
            sims as f64 / t.elapsed().as_secs_f64(),
            "",
        );
    }
    let device = crate::backend::device();
    let cfg = NetConfig::for_variant(Variant::Tsivy);
    let mut eval = NetEvaluator::new(cfg.init(&device).valid(), device, Variant::Tsivy, false, 0);
    let raw = inference_rate(&eval, mcfg.batch, a.seconds);
    let start = Position::start(Variant::Tsivy, RuleOptions::default());
    let t = Instant::now();
    let mut sims = 0u64;
    let mut seed = 0;
    while t.elapsed().as_secs_f64() < a.seconds {
        seed += 1;
        let mut tree = Mcts::new(start, mcfg, seed);
        tree.run(&mut eval, 800);
        sims += tree.visits() as u64;
    }
    let sps = sims as f64 / t.elapsed().as_secs_f64();
    let note = format!(
        " ({:.0} % of raw inference at batch {}: {raw:.0} positions/s)",
        100.0 * sps / raw,
        mcfg.batch
    );
    mcts_figure(a, "network", 1, sps, &note);
    Ok(())
}
