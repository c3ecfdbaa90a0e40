//! One optimisation step of the network: policy cross-entropy + WDL cross-entropy, with
//! AdamW's decoupled weight decay.

use crate::net::{Net, NetConfig};
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
        }
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
        let (p, v) = self.net().forward(x);
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
        let loss = policy_loss.clone() + value_loss.clone();
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
        }
    }
}
