//! The one player factory, without burn: engine specs parsed and checked
//! ([`EngineSpec`]), the release folders found ([`release`]), and the learned
//! evaluations, opening books and endgame tables a spec names loaded. Every front end
//! builds its players here; the network crate adds the `mcts` players through
//! [`Networks`].

pub mod release;
pub mod spec;

pub use spec::{
    AbEvalSource, DEFAULT_ANALYSIS, DEFAULT_PLAYER, EngineSpec, NetSource, Networks, NoNetworks,
    SpecError, Tables, load_learned, load_opening_book, load_tables, parse_duration,
};
