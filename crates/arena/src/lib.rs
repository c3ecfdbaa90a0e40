//! The arena: players named by spec strings ([`fanorona_nn::spec`]) play traditional matches (10 games, each of
//! the 5 openings once by each side as White) in round robins or gauntlets, in parallel,
//! with results recorded as they finish; Elo by maximum likelihood with 95 % intervals,
//! SPRT, and reports (Markdown, CSV, JSON, an Elo-against-generation plot). The match
//! as played in Madagascar (riatras, velas after lost ones, tournament points) is
//! [`Format::Malagasy`].
#![warn(missing_docs)]

pub mod arena;
pub mod elo;
pub mod match_report;
pub mod report;

pub use arena::{
    ArenaConfig, ArenaError, Format, GameRecord, MatchPoints, Openings, match_points,
    parse_records, play_pairings, play_pairings_with, rate, tally,
};
pub use elo::{PairResult, PairedDiff, Pentanomial, Rating, Sprt, SprtDecision, Trend, ratings};
