//! Self-play training for Fanorona: the product's main job.
//!
//! - [`config`]: the TOML configuration, overrides, validation (`fanorona_formats`).
//! - [`selfplay`]: many games in flight, one network batch per search round.
//! - [`records`]: versioned sample and game records (`fanorona_formats`).
//! - [`state`]: a run's counters, errors and progress reports.
//! - [`learner`]: the network, its optimizer and replay window, and the one learner loop.
//! - [`run`]: `fanorona train`: the warm start, then self-play in the learner loop.
//! - [`metrics`]: the metrics sink trait with TensorBoard and JSON-lines sinks.
//! - [`store`]: object storage (S3, folders) through `object_store`, with retries.
//! - [`distributed`]: self-play workers and a learner joined by a store.
//! - [`tree`]: tree learning, a learned evaluation for alpha-beta trained from every node
//!   of its self-play searches, in the same learner loop.
#![warn(missing_docs)]

pub mod bootstrap;
pub use fanorona_formats::config;
mod decisions;
pub mod distributed;
mod inputs;
pub mod learner;
pub mod metrics;
pub use fanorona_formats::records;
mod report;
pub mod run;
pub mod selfplay;
pub mod state;
pub mod store;
pub mod tree;
mod warm;

pub use config::{ConfigError, TrainConfig};

/// Runs `f` on a rayon pool of its own, `threads` threads named `name-i`, so that its
/// parallel loops (the network's among them) stay there and never queue behind another
/// pool's work; on this thread's current pool when no thread can be had.
pub(crate) fn on_own_pool<R: Send>(
    threads: usize,
    name: &'static str,
    f: impl FnOnce() -> R + Send,
) -> R {
    match rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("{name}-{i}"))
        .build()
    {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}
pub use learner::Learner;
pub use run::{RunOptions, train};
pub use state::{Progress, Quiet, RunState, Summary, TrainError};
pub use warm::WARM_DIR;
