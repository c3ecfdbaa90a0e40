//! The network as a batched MCTS evaluator.

use crate::cpu::CpuNet;
use crate::net::Net;
use burn::prelude::*;
use fanorona_rules::Variant;
use fanorona_search::{Evaluator, Outputs};
use fanorona_sim::{Encode, Symmetry, frame_action, num_planes, symmetries};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::sync::Arc;

/// Runs many positions through the network in one call: legal-masked priors and WDL.
#[derive(Debug)]
pub struct NetEvaluator {
    net: Net,
    /// The network read for the CPU path, when it lives on the CPU.
    cpu: Option<Arc<CpuNet>>,
    device: Device,
    variant: Variant,
    symmetries: Vec<Symmetry>,
    random_symmetry: bool,
    rng: SmallRng,
    planes: Vec<f32>,
    scratch: Vec<f32>,
    chosen: Vec<usize>,
    /// Positions evaluated so far.
    pub positions: u64,
    /// Network calls so far.
    pub calls: u64,
}

impl NetEvaluator {
    /// An evaluator for `variant` (the network is used as given: call `valid()` first).
    pub fn new(
        net: Net,
        device: Device,
        variant: Variant,
        random_symmetry: bool,
        seed: u64,
    ) -> NetEvaluator {
        let cpu = cpu_net(&net, &device, variant);
        NetEvaluator::assemble(net, cpu, device, variant, random_symmetry, seed)
    }

    fn assemble(
        net: Net,
        cpu: Option<Arc<CpuNet>>,
        device: Device,
        variant: Variant,
        random_symmetry: bool,
        seed: u64,
    ) -> NetEvaluator {
        NetEvaluator {
            net,
            cpu,
            device,
            variant,
            symmetries: symmetries(variant),
            random_symmetry,
            rng: SmallRng::seed_from_u64(seed),
            planes: Vec::new(),
            scratch: Vec::new(),
            chosen: Vec::new(),
            positions: 0,
            calls: 0,
        }
    }

    /// Another evaluator of the same network, for another thread: the same device,
    /// variant and symmetry setting, its own symmetry draws from `seed`, counters at 0.
    pub fn fork(&self, seed: u64) -> NetEvaluator {
        NetEvaluator::assemble(
            self.net.clone(),
            self.cpu.clone(),
            self.device.clone(),
            self.variant,
            self.random_symmetry,
            seed,
        )
    }

    /// Whether the network runs on the CPU (burn's flex device; inference then takes
    /// [`CpuNet`]).
    pub fn on_cpu(&self) -> bool {
        self.device == Device::flex()
    }

    /// The network.
    pub fn net(&self) -> &Net {
        &self.net
    }

    /// Replaces the network (after training).
    pub fn set_net(&mut self, net: Net) {
        self.cpu = cpu_net(&net, &self.device, self.variant);
        self.net = net;
    }

    /// Raw forward pass on encoded planes (`[n, planes, h, w]` flattened): policy logits
    /// `[n, actions]` and WDL logits `[n, 3]`, flattened. On the CPU through [`CpuNet`]
    /// (burn's outputs to rounding, several times faster; chunks of the batch on rayon's
    /// threads), elsewhere through burn.
    pub fn forward_raw(&self, planes: Vec<f32>, n: usize) -> (Vec<f32>, Vec<f32>) {
        if let Some(cpu) = &self.cpu {
            return cpu.forward(&planes, n, rayon::current_num_threads());
        }
        self.forward_burn(planes, n)
    }

    /// [`NetEvaluator::forward_raw`] through burn, whatever the device (the CPU path's
    /// reference).
    pub fn forward_burn(&self, planes: Vec<f32>, n: usize) -> (Vec<f32>, Vec<f32>) {
        let v = self.variant;
        let x = Tensor::<4>::from_data(
            TensorData::new(planes, [n, num_planes(v), v.height(), v.width()]),
            &self.device,
        );
        let (p, w) = self.net.forward(x);
        let p = p.into_data();
        let w = w.into_data();
        (
            p.as_slice::<f32>().expect("f32 logits").to_vec(),
            w.as_slice::<f32>().expect("f32 logits").to_vec(),
        )
    }
}

/// The CPU path of `net` when it lives on the CPU.
fn cpu_net(net: &Net, device: &Device, variant: Variant) -> Option<Arc<CpuNet>> {
    (*device == Device::flex())
        .then(|| Arc::new(CpuNet::new(net, variant.height(), variant.width())))
}

fn softmax_in_place(x: &mut [f32]) {
    let m = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut s = 0.0;
    for v in x.iter_mut() {
        *v = (*v - m).exp();
        s += *v;
    }
    for v in x.iter_mut() {
        *v /= s;
    }
}

impl<G: Encode> Evaluator<G> for NetEvaluator {
    fn evaluate(&mut self, games: &[&G], legal: &[&[usize]], out: Outputs<'_>) {
        let Outputs { priors, wdl } = out;
        let n = games.len();
        if n == 0 {
            return;
        }
        let v = self.variant;
        let per = num_planes(v) * v.points();
        self.planes.clear();
        self.planes.resize(n * per, 0.0);
        self.chosen.clear();
        for (i, g) in games.iter().enumerate() {
            let out = &mut self.planes[i * per..(i + 1) * per];
            g.encode(out);
            let s = if self.random_symmetry {
                self.rng.random_range(0..self.symmetries.len())
            } else {
                0
            };
            if s != 0 {
                self.scratch.clear();
                self.scratch.extend_from_slice(out);
                self.symmetries[s].apply_planes(&self.scratch, out);
            }
            self.chosen.push(s);
        }
        let planes = std::mem::take(&mut self.planes);
        let (logits, wdl_logits) = self.forward_raw(planes.clone(), n);
        self.planes = planes;
        let actions = fanorona_rules::num_actions(v);
        for i in 0..n {
            let mover = games[i].to_move();
            let sym = &self.symmetries[self.chosen[i]];
            let row = &logits[i * actions..(i + 1) * actions];
            let p = &mut priors[i];
            p.clear();
            p.extend(
                legal[i]
                    .iter()
                    .map(|&a| row[sym.action(frame_action(v, mover, a))]),
            );
            softmax_in_place(p);
            let mut w = [
                wdl_logits[i * 3],
                wdl_logits[i * 3 + 1],
                wdl_logits[i * 3 + 2],
            ];
            softmax_in_place(&mut w);
            wdl[i] = w;
        }
        self.positions += n as u64;
        self.calls += 1;
    }
}
