//! The GPU path (burn's wgpu backend) against the CPU path (flex): the same network's
//! forward pass on real positions of every board, and one training step from the same
//! weights on the same batch. Built with `--features wgpu`; it needs an adapter, which
//! CI gets from Mesa's lavapipe (a Vulkan 1.3 device on the CPU, `.ci/run`). Without
//! `FANORONA_GPU_TEST=1` the tests return at once (a machine without Vulkan).
#![cfg(feature = "wgpu")]

use burn::prelude::*;
use burn::tensor::DeviceKind;
use fanorona_nn::checkpoint::{self, CheckpointMeta};
use fanorona_nn::{Batch, Net, NetConfig, NetEvaluator, Trainer};
use fanorona_rules::telo::TeloPosition;
use fanorona_rules::{Position, RuleOptions, Variant};
use fanorona_testkit::{max_diff, random_planes};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::path::PathBuf;

/// Largest difference allowed between the two backends' logits: float32 kernels that
/// sum in another order (measured on lavapipe: see the test's output).
const TOLERANCE: f32 = 1e-3;

fn gpu() -> Option<Device> {
    if std::env::var("FANORONA_GPU_TEST").is_err() {
        eprintln!("FANORONA_GPU_TEST unset: the GPU comparison is skipped");
        return None;
    }
    Some(Device::wgpu(DeviceKind::DefaultDevice))
}

fn planes(v: Variant, n: usize) -> Vec<f32> {
    match v {
        Variant::Telo => random_planes(TeloPosition::start(RuleOptions::default()), n, 3),
        _ => random_planes(Position::start(v, RuleOptions::default()), n, 3),
    }
}

/// A small trained network of `v`, saved and read back on `device`.
fn network(v: Variant, device: &Device) -> (Net, NetConfig) {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("fanorona-gpu-{}-{}", v.name(), std::process::id()));
    let cfg = NetConfig::for_variant(v).with_blocks(2).with_channels(16);
    if !dir.join("meta.json").exists() {
        let cpu = Device::flex();
        let mut t = Trainer::new(cfg.init(&cpu), cfg.clone(), &cpu, 1e-4);
        t.step(&batch(v, &cfg), 1e-2);
        let meta = CheckpointMeta::new(v, &cfg, 1, 1, None);
        checkpoint::save(&dir, &t.inference_net(), None, &meta).unwrap();
    }
    let (net, _, _) = checkpoint::load(&dir, device, Some(v), Some(&cfg)).unwrap();
    (net, cfg)
}

/// 32 real positions with a one-hot policy and a spread of results.
fn batch(v: Variant, cfg: &NetConfig) -> Batch {
    let n = 32;
    let mut rng = SmallRng::seed_from_u64(9);
    let mut policy = vec![0.0; n * cfg.actions];
    for row in policy.chunks_exact_mut(cfg.actions) {
        row[rng.random_range(0..cfg.actions)] = 1.0;
    }
    let wdl = (0..n).flat_map(|i| [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]][i % 3]);
    Batch {
        planes: planes(v, n),
        policy,
        wdl: wdl.collect(),
        n,
        ..Batch::default()
    }
}

#[test]
fn the_forward_pass_on_the_gpu_is_the_cpus_on_every_board() {
    let Some(gpu) = gpu() else { return };
    let cpu = Device::flex();
    for v in [Variant::Tsivy, Variant::Dimy, Variant::Telo] {
        let n = 64;
        let x = planes(v, n);
        let on = |device: &Device| {
            let (net, _) = network(v, device);
            NetEvaluator::new(net, device.clone(), v, false, 0).forward_burn(x.clone(), n)
        };
        let (cp, cw) = on(&cpu);
        let (gp, gw) = on(&gpu);
        let (dp, dw) = (max_diff(&cp, &gp), max_diff(&cw, &gw));
        eprintln!("{v}: {n} positions, max |cpu - gpu|: policy {dp:e}, wdl {dw:e}");
        assert!(
            dp < TOLERANCE && dw < TOLERANCE,
            "{v}: policy {dp}, wdl {dw}"
        );
    }
}

#[test]
fn a_training_step_on_the_gpu_moves_the_weights_as_on_the_cpu() {
    let Some(gpu) = gpu() else { return };
    let cpu = Device::flex();
    let v = Variant::Dimy;
    let x = planes(v, 64);
    let mut outputs = Vec::new();
    let mut before = Vec::new();
    for device in [&cpu, &gpu] {
        let (net, cfg) = network(v, device);
        let b = batch(v, &cfg);
        before.push(
            NetEvaluator::new(net.clone(), device.clone(), v, false, 0).forward_burn(x.clone(), 64),
        );
        let mut t = Trainer::new(net, cfg.clone(), device, 1e-4);
        let losses = t.step(&b, 1e-2);
        assert!(losses.policy.is_finite() && losses.value.is_finite());
        let after = t.inference_net();
        outputs.push(
            NetEvaluator::new(after, device.clone(), v, false, 0).forward_burn(x.clone(), 64),
        );
    }
    // The step moved the outputs, by the same amount on both devices.
    let moved = max_diff(&before[0].0, &outputs[0].0);
    let (dp, dw) = (
        max_diff(&outputs[0].0, &outputs[1].0),
        max_diff(&outputs[0].1, &outputs[1].1),
    );
    eprintln!(
        "dimy: one step moved the policy logits by up to {moved:e}; max |cpu - gpu| after it: policy {dp:e}, wdl {dw:e}"
    );
    assert!(
        moved > 100.0 * TOLERANCE,
        "the step moved the network ({moved})"
    );
    assert!(
        dp < 10.0 * TOLERANCE && dw < 10.0 * TOLERANCE,
        "policy {dp}, wdl {dw}"
    );
}
