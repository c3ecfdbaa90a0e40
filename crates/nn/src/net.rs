//! The residual policy/value network.

use burn::module::{ModuleVisitor, Param};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::activation::relu;
use fanorona_rules::{Variant, num_actions};
use fanorona_sim::num_planes;
use std::sync::{Mutex, PoisonError};

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
    /// An ownership head (KataGo's auxiliary target): for every point, whether the game
    /// ends with the mover's piece there, the opponent's or none. It trains the tower
    /// and is not used in play; off by default, and networks saved before it have none.
    #[config(default = false)]
    pub ownership: bool,
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

    /// A freshly initialised network on `device`, its weights drawn from `seed`: the same
    /// seed gives the same weights on the same backend.
    pub fn init_seeded(&self, device: &Device, seed: u64) -> Net {
        self.draw(device, Some(seed))
    }

    /// A freshly initialised network on `device`, its weights drawn from burn's generator
    /// as it stands (see [`NetConfig::init_seeded`] for reproducible weights; loading a
    /// checkpoint into it replaces them).
    pub fn init(&self, device: &Device) -> Net {
        self.draw(device, None)
    }

    /// burn draws random tensors from one generator per backend (for the CPU, one for the
    /// process) and creates parameters lazily, on first use. So every parameter is drawn
    /// here, in the module's order, under a lock that keeps the initialisations of this
    /// process from interleaving, after seeding the generator if asked.
    fn draw(&self, device: &Device, seed: Option<u64>) -> Net {
        static DRAWING: Mutex<()> = Mutex::new(());
        let _one_at_a_time = DRAWING.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(seed) = seed {
            device.seed(seed);
        }
        let net = self.build(device);
        net.visit(&mut Materialise);
        net
    }

    fn build(&self, device: &Device) -> Net {
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
            ownership_conv: self
                .ownership
                .then(|| Conv2dConfig::new([c, OWNERSHIP_CLASSES], [1, 1]).init(device)),
        }
    }
}

/// Touches every float parameter, which draws a lazily initialised one.
struct Materialise;

impl ModuleVisitor for Materialise {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let _ = param.val();
    }
}

/// A convolution followed by batch normalisation.
#[derive(Module, Debug)]
pub struct ConvBn {
    pub(crate) conv: Conv2d,
    pub(crate) bn: BatchNorm,
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
    pub(crate) a: ConvBn,
    pub(crate) b: ConvBn,
}

/// Classes of the ownership head, in order: the opponent's piece, empty, the mover's
/// piece (a target value `o` of -1, 0 or 1 is class `o + 1`).
pub const OWNERSHIP_CLASSES: usize = 3;

/// The policy/value network: a residual tower, a policy head over the variant's actions
/// and a WDL value head, both as logits; optionally an ownership head for training.
#[derive(Module, Debug)]
pub struct Net {
    pub(crate) stem: ConvBn,
    pub(crate) blocks: Vec<ResBlock>,
    pub(crate) policy_conv: ConvBn,
    pub(crate) policy_fc: Linear,
    pub(crate) value_conv: ConvBn,
    pub(crate) value_fc1: Linear,
    pub(crate) value_fc2: Linear,
    ownership_conv: Option<Conv2d>,
}

impl Net {
    /// `planes` `[batch, planes, height, width]` to `(policy_logits [batch, actions],
    /// wdl_logits [batch, 3])`, both in the mover's frame, WDL as (win, draw, loss) for
    /// the player to move.
    pub fn forward(&self, planes: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        self.heads(self.tower(planes))
    }

    /// [`Net::forward`] with the ownership head's logits
    /// `[batch, OWNERSHIP_CLASSES, height * width]` (classes as in [`OWNERSHIP_CLASSES`],
    /// points in the mover's frame), `None` for a network without one.
    pub fn forward_with_ownership(
        &self,
        planes: Tensor<4>,
    ) -> (Tensor<2>, Tensor<2>, Option<Tensor<3>>) {
        let x = self.tower(planes);
        let ownership = self
            .ownership_conv
            .as_ref()
            .map(|conv| conv.forward(x.clone()).flatten::<3>(2, 3)); // [batch, 3, h*w]
        let (policy, wdl) = self.heads(x);
        (policy, wdl, ownership)
    }

    /// Whether the network has an ownership head.
    pub fn has_ownership(&self) -> bool {
        self.ownership_conv.is_some()
    }

    /// The network without its ownership head, which only training uses (the export
    /// leaves it out).
    pub fn without_ownership(mut self) -> Net {
        self.ownership_conv = None;
        self
    }

    fn tower(&self, planes: Tensor<4>) -> Tensor<4> {
        let mut x = relu(self.stem.forward(planes)); // [batch, channels, h, w]
        for b in &self.blocks {
            let y = relu(b.a.forward(x.clone()));
            x = relu(x + b.b.forward(y));
        }
        x
    }

    fn heads(&self, x: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let p = relu(self.policy_conv.forward(x.clone())); // [batch, pc, h, w]
        let policy = self.policy_fc.forward(p.flatten::<2>(1, 3)); // [batch, actions]
        let v = relu(self.value_conv.forward(x)); // [batch, vc, h, w]
        let v = relu(self.value_fc1.forward(v.flatten::<2>(1, 3)));
        let wdl = self.value_fc2.forward(v); // [batch, 3]
        (policy, wdl)
    }
}
