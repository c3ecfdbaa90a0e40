//! The arena's record of a match (`--out DIR/games.jsonl`): one finished game a line,
//! appended as games finish; a match run again with the same `--out` reads it and plays
//! only the games it lacks.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// One finished game, as recorded in `games.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Spec of White.
    pub white: String,
    /// Spec of Black.
    pub black: String,
    /// Which of the start position's turns opened the game (0..5), in the traditional
    /// match; the index of the book position otherwise.
    pub opening: usize,
    /// `white`, `black` or `draw`.
    pub result: String,
    /// The game in notation, from `fen` or the start position (in the traditional match
    /// the opening turn is the first).
    pub turns: Vec<String>,
    /// The key that identifies the game within its pairing.
    pub key: String,
    /// The position the game started from, when not the start position (a book
    /// position or `--fen`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    /// The key of the pair of games this one belongs to (the same start, each player
    /// once on each side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<String>,
    /// Seconds White and Black spent choosing their turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<[f64; 2]>,
    /// Turns White and Black chose (the traditional opening turn excluded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<[u32; 2]>,
    /// A vela of the Malagasy match format: the vela player's colour and the form, e.g.
    /// `black kely`. Velas count for tournament points, not for Elo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vela: Option<String>,
    /// Whether the game was ended by the endgame tables (`ArenaConfig::adjudicate` of `fanorona_arena`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub adjudicated: bool,
    /// The longest a turn of White's and of Black's took, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longest: Option<[f64; 2]>,
    /// The time control the game was played on (`60+0.6`), when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tc: Option<String>,
    /// On a clock: the side (`white` or `black`) whose clock ran out; it lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flagged: Option<String>,
}

/// Reads the games already recorded in `out/games.jsonl` (damaged lines are reported in
/// the second vector and ignored; no file is no games).
pub fn read_records(out: &Path) -> (Vec<GameRecord>, Vec<String>) {
    let path = out.join("games.jsonl");
    match std::fs::read(&path) {
        Ok(bytes) => parse_records(&bytes, &path.display().to_string()),
        Err(_) => (Vec::new(), Vec::new()),
    }
}

/// The records of a `games.jsonl`'s bytes, and a message for each line that is not one
/// (`name:line: why`; blank lines are skipped). A line cut by a crash is one such line.
pub fn parse_records(bytes: &[u8], name: &str) -> (Vec<GameRecord>, Vec<String>) {
    crate::jsonl::parse(bytes, name, |_| Ok(()))
}
