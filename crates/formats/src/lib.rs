//! Every file format of training and matches, below the network library: configs,
//! checkpoint folders (metadata, checksums, the atomic save), game and sample records,
//! the tree run's label window, distributed chunks and the arena's record of a match.
//! Each reader takes bytes a stranger may have written and answers with an error naming
//! the problem, never a panic; each has a fuzz target (`crates/fuzz`, docs/fuzzing.md),
//! which this crate's place below burn lets instrument. Burn-linked code
//! (`fanorona_nn::checkpoint`) keeps only the tensor side: turning bytes already read into
//! a network.
//!
//! - [`config`]: the training configuration (TOML and `--set` overrides) and its checks.
//! - [`checkpoint`]: checkpoint folders.
//! - [`records`]: versioned sample and game records, one module for both directions.
//! - [`labels`]: the tree run's label window on disk.
//! - [`chunk`]: a distributed worker's games as one object of the store.
//! - [`stats`]: what self-play measured, as chunks and run counters hold it.
//! - [`arena`]: the arena's `games.jsonl`.
//! - [`jsonl`]: the one reader of JSON-lines files (records a line, damaged lines named).
#![warn(missing_docs)]

pub mod arena;
pub mod checkpoint;
pub mod chunk;
pub mod config;
pub mod jsonl;
pub mod labels;
pub mod records;
pub mod stats;
