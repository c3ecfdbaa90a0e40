//! Engine specs, parsed and turned into players by `fanorona_nn::spec`; here only the
//! binary's glue: errors become input errors (exit status 2) and the device is the
//! binary's.

use crate::input_err;
use anyhow::Result;
use fanorona_nn::NetEvaluator;
pub use fanorona_nn::spec::{EngineSpec, Nets};
use fanorona_rules::Variant;
use fanorona_search::Player;

/// Parses the spec of an engine that searches one position at a time (`play`,
/// `analyze`, `serve`): `ab` takes every core unless it says `threads=N`, and the
/// endgame tables found in the default folder unless it names some (or `tb=none`).
///
/// # Errors
/// A bad spec, as an input error.
pub fn parse_interactive(spec: &str) -> Result<EngineSpec> {
    EngineSpec::parse_interactive(spec).map_err(input_err)
}

/// The machine's cores, the threads an interactive search may take.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The player of a spec for `variant`, on the binary's device.
///
/// # Errors
/// A checkpoint that cannot be used, as an input error.
pub fn player(spec: &EngineSpec, name: &str, variant: Variant) -> Result<Box<dyn Player>> {
    spec.player(name, variant, &Nets::on(&crate::backend::device()))
        .map_err(input_err)
}

/// The network evaluator of an `mcts` spec.
///
/// # Errors
/// Not an mcts spec, or a checkpoint that cannot be used.
pub fn evaluator(spec: &EngineSpec, variant: Variant) -> Result<NetEvaluator> {
    fanorona_nn::spec::evaluator(spec, variant, &crate::backend::device()).map_err(input_err)
}
