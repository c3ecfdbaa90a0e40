//! Evaluations for Fanorona's searches. This crate knows the rules but nothing of
//! search or networks.
//!
//! - [`score`]: the scale every search and evaluation shares (hundredths of a piece,
//!   [`MATE`], [`TB_WIN`], graded draws) and [`Bound`].
//! - [`evaluate`] with [`EvalWeights`]: the hand-written evaluation.
//! - [`LearnedEval`]: the learned one, a network of one hidden layer that alpha-beta
//!   evaluates at every leaf in 16-bit integers (its SIMD kernels in `simd`), read
//!   from and written to plain text.
//! - [`fit`]: fitting it to labelled positions and bounds with Adam.
#![warn(missing_docs)]

pub mod fit;
mod handwritten;
pub mod learned;
pub mod score;
mod simd;

pub use fit::FitConfig;
pub use handwritten::{EvalWeights, evaluate};
pub use learned::{LearnedEval, LearnedEvalError};
pub use score::{
    Bound, DRAW_BAND, DRAW_PER_PIECE, MATE, MATE_BOUND, TB_WIN, outcome_score, result_score,
};
