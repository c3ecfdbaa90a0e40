//! The residual policy/value network.

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::activation::relu;
use fanorona_rules::{Variant, num_actions};
use fanorona_sim::num_planes;

/// The network's shape. The board and action sizes follow from the variant; the tower's
/// size has defaults small enough to train on a 2-core CPU.
#[derive(Config, Debug, PartialEq)]
pub struct NetConfig {
    /// Input planes (11 for tsivy and dimy, 7 for telo).
    pub planes: usize,
    /// Board rows.
    pub height: usize,
    /// Board columns.
    pub width: usize,
    /// Policy outputs: the variant's action space (1081 tsivy, 601 dimy, 81 telo).
    pub actions: usize,
    /// Residual blocks (default 4).
    #[config(default = 4)]
    pub blocks: usize,
    /// Channels of the tower (default 32).
    #[config(default = 32)]
    pub channels: usize,
    /// Channels of the policy head's 1x1 convolution (default 4).
    #[config(default = 4)]
    pub policy_channels: usize,
    /// Channels of the value head's 1x1 convolution (default 2).
    #[config(default = 2)]
    pub value_channels: usize,
    /// Hidden units of the value head (default 64).
    #[config(default = 64)]
    pub value_hidden: usize,
}

impl NetConfig {
    /// The default network for a variant.
    pub fn for_variant(v: Variant) -> NetConfig {
        NetConfig::new(num_planes(v), v.height(), v.width(), num_actions(v))
    }

    /// The variant this configuration's board belongs to.
    pub fn variant(&self) -> Option<Variant> {
        Variant::from_size(self.width, self.height)
    }

    /// A freshly initialised network on `device`.
    pub fn init(&self, device: &Device) -> Net {
        let c = self.channels;
        let points = self.height * self.width;
        Net {
            stem: ConvBn::new(self.planes, c, 3, device),
            blocks: (0..self.blocks)
                .map(|_| ResBlock {
                    a: ConvBn::new(c, c, 3, device),
                    b: ConvBn::new(c, c, 3, device),
                })
                .collect(),
            policy_conv: ConvBn::new(c, self.policy_channels, 1, device),
            policy_fc: LinearConfig::new(self.policy_channels * points, self.actions).init(device),
            value_conv: ConvBn::new(c, self.value_channels, 1, device),
            value_fc1: LinearConfig::new(self.value_channels * points, self.value_hidden)
                .init(device),
            value_fc2: LinearConfig::new(self.value_hidden, 3).init(device),
        }
    }
}

/// A convolution followed by batch normalisation.
#[derive(Module, Debug)]
pub struct ConvBn {
    conv: Conv2d,
    bn: BatchNorm,
}

impl ConvBn {
    fn new(cin: usize, cout: usize, k: usize, device: &Device) -> ConvBn {
        ConvBn {
            conv: Conv2dConfig::new([cin, cout], [k, k])
                .with_padding(PaddingConfig2d::Same)
                .with_bias(false)
                .init(device),
            bn: BatchNormConfig::new(cout).init(device),
        }
    }
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        self.bn.forward(self.conv.forward(x))
    }
}

/// Two 3x3 convolutions with a skip connection.
#[derive(Module, Debug)]
pub struct ResBlock {
    a: ConvBn,
    b: ConvBn,
}

/// The policy/value network: a residual tower, a policy head over the variant's actions
/// and a WDL value head, both as logits.
#[derive(Module, Debug)]
pub struct Net {
    stem: ConvBn,
    blocks: Vec<ResBlock>,
    policy_conv: ConvBn,
    policy_fc: Linear,
    value_conv: ConvBn,
    value_fc1: Linear,
    value_fc2: Linear,
}

impl Net {
    /// `planes` `[batch, planes, height, width]` to `(policy_logits [batch, actions],
    /// wdl_logits [batch, 3])`, both in the mover's frame, WDL as (win, draw, loss) for
    /// the player to move.
    pub fn forward(&self, planes: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let mut x = relu(self.stem.forward(planes)); // [batch, channels, h, w]
        for b in &self.blocks {
            let y = relu(b.a.forward(x.clone()));
            x = relu(x + b.b.forward(y));
        }
        let p = relu(self.policy_conv.forward(x.clone())); // [batch, pc, h, w]
        let policy = self.policy_fc.forward(p.flatten::<2>(1, 3)); // [batch, actions]
        let v = relu(self.value_conv.forward(x)); // [batch, vc, h, w]
        let v = relu(self.value_fc1.forward(v.flatten::<2>(1, 3)));
        let wdl = self.value_fc2.forward(v); // [batch, 3]
        (policy, wdl)
    }
}
