//! Inference throughput of one network in two CPU runtimes: burn's `flex` backend (what
//! self-play uses) and tract running the exported ONNX graph (`into_optimized`, which
//! folds batch norm into the convolutions). Same inputs, same thread pool size.
//!
//! ```sh
//! cargo run --release -p fanorona-nn --example inference_speed -- CHECKPOINT [BATCH ...]
//! ```
//!
//! `CHECKPOINT` is a checkpoint folder (or a run folder: its latest checkpoint); batches
//! default to 1, 64 and 256. Inputs are observations of positions from random games.

use burn::prelude::*;
use fanorona_nn::checkpoint;
use fanorona_nn::export::{self, Formats, Targets};
use fanorona_nn::{NetConfig, NetEvaluator};
use fanorona_rules::{Game, Position, RuleOptions, Variant};
use fanorona_sim::{Encode, num_planes};
use std::path::PathBuf;
use std::time::Instant;
use tract_onnx::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let ckpt = PathBuf::from(
        args.next()
            .ok_or("usage: inference_speed CHECKPOINT [BATCH ...]")?,
    );
    let mut batches: Vec<usize> = args.map(|a| a.parse()).collect::<Result<_, _>>()?;
    if batches.is_empty() {
        batches = vec![1, 64, 256];
    }
    let device = Device::flex();
    let (net, meta, _) = checkpoint::load(&ckpt, &device, None, None)?;
    let variant: Variant = meta.variant.parse()?;
    let cfg: NetConfig = meta.net.config();
    let dir = std::env::temp_dir().join(format!("fanorona-inference-speed-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    export::export(&ckpt, &Targets::folder(&dir, Formats::ALL), &device)?;
    let tract_model = tract_onnx::onnx()
        .model_for_path(dir.join("model.onnx"))?
        .into_optimized()?
        .into_runnable()?;
    let burn = NetEvaluator::new(net, device, variant, false, 0);
    println!(
        "{} network {} blocks x {} channels, {} hardware threads",
        variant.name(),
        cfg.blocks,
        cfg.channels,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    let size = num_planes(variant) * variant.points();
    for &n in &batches {
        let planes = random_planes(variant, n, size);
        let input = tract_onnx::prelude::Tensor::from_shape(
            &[n, cfg.planes, cfg.height, cfg.width],
            &planes,
        )?;
        let tract_run = || tract_model.run(tvec!(input.clone().into())).map(|_| ());
        let burn_run = || {
            burn.forward_raw(planes.clone(), n);
            Ok::<(), TractError>(())
        };
        // The two outputs agree (the export test checks it precisely); warm both up.
        let (bp, _) = burn.forward_raw(planes.clone(), n);
        let out = tract_model.run(tvec!(input.clone().into()))?;
        let tp: Vec<f32> = out[0]
            .to_plain_array_view::<f32>()?
            .iter()
            .copied()
            .collect();
        let diff = bp
            .iter()
            .zip(&tp)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        let b = time(burn_run)?;
        let t = time(tract_run)?;
        println!(
            "batch {n:>4}: burn flex {:>8.0} positions/s, tract {:>8.0} positions/s ({:.2}x), max |diff| {diff:.1e}",
            n as f64 / b,
            n as f64 / t,
            b / t
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Seconds per call: the best of 5 rounds of about 0.4 s each.
fn time(mut f: impl FnMut() -> TractResult<()>) -> TractResult<f64> {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        let mut calls = 0u32;
        while start.elapsed().as_secs_f64() < 0.4 {
            f()?;
            calls += 1;
        }
        best = best.min(start.elapsed().as_secs_f64() / calls as f64);
    }
    Ok(best)
}

/// Observations of `n` positions met in random games of `variant` (tsivy or dimy).
fn random_planes(variant: Variant, n: usize, size: usize) -> Vec<f32> {
    let start = Position::start(variant, RuleOptions::default());
    let mut g = start;
    let mut out = vec![0.0; n * size];
    let mut legal = Vec::new();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for chunk in out.chunks_exact_mut(size) {
        g.legal_actions(&mut legal);
        if legal.is_empty() {
            g = start;
            g.legal_actions(&mut legal);
        }
        g.encode(chunk);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        g.apply(legal[(x % legal.len() as u64) as usize]);
    }
    out
}
