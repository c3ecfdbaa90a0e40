//! One optimisation step of the network: policy cross-entropy + WDL cross-entropy (+ the
//! ownership cross-entropy, weighted, for a network with an ownership head), with AdamW's
//! decoupled weight decay.

use crate::net::{Net, NetConfig, OWNERSHIP_CLASSES};
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::prelude::*;
use burn::tensor::activation::log_softmax;

/// A batch of training samples, flattened row-major.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Observations `[n, planes, height, width]`.
    pub planes: Vec<f32>,
    /// Search policies `[n, actions]` (rows sum to 1, zero on illegal actions).
    pub policy: Vec<f32>,
    /// Results `[n, 3]`: win, draw, loss for the player to move.
    pub wdl: Vec<f32>,
    /// Ownership targets `[n, OWNERSHIP_CLASSES, points]`, one-hot over the classes at
    /// every point, all zero for a sample without a target; empty when no sample has one.
    pub ownership: Vec<f32>,
    /// Samples with an ownership target.
    pub ownership_samples: usize,
    /// Number of samples.
    pub n: usize,
}

/// Losses of one step, and what the network predicted on its batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Losses {
    /// Policy cross-entropy.
    pub policy: f32,
    /// WDL cross-entropy.
    pub value: f32,
    /// Mean entropy of the network's policy (over all actions).
    pub entropy: f32,
    /// Share of samples whose most likely predicted result (win, draw, loss) is the
    /// target's most likely one.
    pub value_accuracy: f32,
    /// Ownership cross-entropy, a mean over points and over the samples with a target
    /// (before its weight); NaN when not trained (no head, no weight or no targets).
    pub ownership: f32,
}

/// The network under training, with its optimizer.
pub struct Trainer {
    net: Option<Net>,
    /// The optimizer (its state is checkpointed).
    pub optimizer: ModuleOptimizer,
    config: NetConfig,
    device: Device,
    /// Optimizer steps taken.
    pub step: u64,
    /// Weight of the ownership loss (0: not trained).
    pub ownership_weight: f32,
}

impl std::fmt::Debug for Trainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trainer")
            .field("config", &self.config)
            .field("step", &self.step)
            .finish_non_exhaustive()
    }
}

impl Trainer {
    /// A trainer for `net` (moved to the autodiff form of `device`), AdamW with
    /// `weight_decay`.
    pub fn new(net: Net, config: NetConfig, device: &Device, weight_decay: f32) -> Trainer {
        let device = device.clone().autodiff();
        let net = net.to_device(&device).train();
        let optimizer = AdamWConfig::new().with_weight_decay(weight_decay).init();
        Trainer {
            net: Some(net),
            optimizer,
            config,
            device,
            step: 0,
            ownership_weight: 0.0,
        }
    }

    /// The same trainer with the ownership loss weighted by `w` (KataGo: 1.5 times the
    /// mean over points); it trains only a network with an ownership head.
    pub fn with_ownership_weight(mut self, w: f32) -> Trainer {
        self.ownership_weight = w;
        self
    }

    /// The network under training.
    pub fn net(&self) -> &Net {
        self.net.as_ref().expect("always present between steps")
    }

    /// The network for inference (no autodiff, batch norm in evaluation mode).
    pub fn inference_net(&self) -> Net {
        self.net().valid()
    }

    /// One step at learning rate `lr`.
    pub fn step(&mut self, batch: &Batch, lr: f64) -> Losses {
        let c = &self.config;
        let n = batch.n;
        let x = Tensor::<4>::from_data(
            TensorData::new(batch.planes.clone(), [n, c.planes, c.height, c.width]),
            &self.device,
        );
        let pt = Tensor::<2>::from_data(
            TensorData::new(batch.policy.clone(), [n, c.actions]),
            &self.device,
        );
        let vt = Tensor::<2>::from_data(TensorData::new(batch.wdl.clone(), [n, 3]), &self.device);
        let (p, v, own) = self.net().forward_with_ownership(x);
        let logp = log_softmax(p, 1); // [n, actions]
        let entropy = (logp.clone().exp() * logp.clone())
            .sum_dim(1)
            .mean()
            .neg()
            .detach(); // [1]
        let policy_loss = (pt * logp).sum_dim(1).mean().neg(); // [1]
        let predicted = v.clone().detach().argmax(1); // [n, 1]
        let target = vt.clone().argmax(1); // [n, 1]
        let agree = predicted.equal(target).int().sum(); // [1]
        let value_loss = (vt * log_softmax(v, 1)).sum_dim(1).mean().neg(); // [1]
        let mut loss = policy_loss.clone() + value_loss.clone();
        let mut ownership_loss = None;
        if let Some(o) = own
            && self.ownership_weight > 0.0
            && batch.ownership_samples > 0
        {
            let points = c.height * c.width;
            let ot = Tensor::<3>::from_data(
                TensorData::new(batch.ownership.clone(), [n, OWNERSHIP_CLASSES, points]),
                &self.device,
            );
            // Rows without a target are all zero and add nothing.
            let l = (ot * log_softmax(o, 1))
                .sum()
                .neg()
                .div_scalar((batch.ownership_samples * points) as f32); // [1]
            loss = loss + l.clone().mul_scalar(self.ownership_weight);
            ownership_loss = Some(l);
        }
        let grads = loss.backward();
        let net = self.net.take().expect("always present between steps");
        let grads = GradientsParams::from_grads(grads, &net);
        self.net = Some(self.optimizer.step(lr, net, grads));
        self.step += 1;
        let scalar = |t: Tensor<1>| {
            t.into_data()
                .as_slice::<f32>()
                .map(|s| s[0])
                .unwrap_or(f32::NAN)
        };
        let agree = agree
            .into_data()
            .convert::<i64>()
            .as_slice::<i64>()
            .map(|s| s[0])
            .unwrap_or(0);
        Losses {
            policy: scalar(policy_loss),
            value: scalar(value_loss),
            entropy: scalar(entropy),
            value_accuracy: agree as f32 / n as f32,
            ownership: ownership_loss.map_or(f32::NAN, scalar),
        }
    }
}
