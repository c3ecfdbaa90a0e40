//! The Fanorona policy/value network on burn 0.22: a residual tower with a policy head
//! over the variant's actions and a WDL value head; a batched evaluator for MCTS;
//! checkpoints; the player specs (`mcts:...`, `ab:...`)
//! that name every player; export to ONNX and safetensors.
//!
//! The backend is not chosen here: every function takes a `burn::Device`, and the binary
//! picks it (`Device::flex()` on CPU by default, CUDA or wgpu by cargo feature).
#![warn(missing_docs)]

pub mod checkpoint;
mod cpu;
mod evaluator;
pub mod export;
mod net;
pub mod spec;
mod train;

pub use checkpoint::{CheckpointError, CheckpointMeta, NetShape};
pub use cpu::CpuNet;
pub use evaluator::NetEvaluator;
pub use net::{Net, NetConfig, OWNERSHIP_CLASSES};
/// The MCTS player over the network's evaluator.
pub type MctsPlayer = fanorona_search::MctsPlayer<NetEvaluator>;
pub use fanorona_search::search_telo;
pub use train::{Batch, Losses, Trainer};

/// Re-exported so that callers name the same burn types.
pub use burn;
