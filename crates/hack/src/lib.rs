//! No code: this crate's dependencies turn on, for the `fanorona` binary, the features
//! that the workspace's test build gives them anyway (see its `Cargo.toml`), so that the
//! README's two commands share one build.
