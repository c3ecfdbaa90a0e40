//! `fanorona uci`: the engine protocol ([`fanorona_engine::protocol`], where its dialect
//! is described) over stdin and stdout, so that a GUI or match runner written for a
//! Fanorona engine of that dialect drives this one unchanged.

use anyhow::Result;
use fanorona_engine::protocol::{Out, run};
use std::sync::{Arc, Mutex};

/// `fanorona uci`'s options.
#[derive(clap::Args, Debug)]
pub struct UciArgs {}

/// `fanorona uci`.
pub fn uci(_args: UciArgs) -> Result<()> {
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    run(std::io::stdin().lock(), out);
    Ok(())
}
