//! The batched Fanorona simulator: many games stepped together, seen as tensors.
//!
//! - [`BatchSim`]: N games of one variant; observation planes `[N, planes, height,
//!   width]` and legal-action masks `[N, actions]` as `ndarray` arrays, one step of every
//!   game per call, outcomes, optional auto-reset. Parallel over games with rayon;
//!   nothing is allocated per step.
//! - [`encode`]: the planes (documented one by one) and the mover's frame.
//! - [`symmetry`]: the board symmetries as permutations of points and actions.
//!
//! See [`BatchSim`] for a ten-line example of stepping a batch.
#![warn(missing_docs)]

mod batch;
pub mod encode;
pub mod symmetry;

pub use batch::{BatchSim, SimError, StepResult};
pub use encode::{
    Encode, FANORONA_PLANE_INFO, FANORONA_PLANES, TELO_PLANE_INFO, TELO_PLANES, frame_action,
    frame_point, num_planes, plane_info,
};
pub use symmetry::{Symmetry, symmetries};
