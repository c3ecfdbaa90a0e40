//! One position analysed by a player: the fields of `fanorona analyze --json`, of the
//! web server's `/api/analyze` and of the Python package's `Engine.analyze`.

use crate::ab::{MATE, MATE_BOUND};
use crate::player::Player;
use fanorona_rules::History;
use fanorona_rules::PointStyle;
use fanorona_rules::notation::format_turn;
use std::time::Instant;

/// What an analysis found.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The position.
    pub fen: String,
    /// The best turn in notation (`None`: the game is over).
    pub best: Option<String>,
    /// The score for the side to move, in centipieces (mates near [`MATE`]).
    pub score: Option<i32>,
    /// The principal variation in notation.
    pub pv: Vec<String>,
    /// The depth reached.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds taken.
    pub seconds: f64,
}

impl Analysis {
    /// Turns to a forced win (positive) or loss (negative), when the score is a mate.
    pub fn mate(&self) -> Option<i32> {
        let s = self.score?;
        if s > MATE_BOUND {
            Some(MATE - s)
        } else if s < -MATE_BOUND {
            Some(-(MATE + s))
        } else {
            None
        }
    }
    /// Nodes a second (0 when no time was measured).
    pub fn nodes_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.nodes as f64 / self.seconds
        } else {
            0.0
        }
    }
    /// The JSON object: fen, best, score, pv, depth, nodes, mate, seconds,
    /// nodes_per_second.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "fen": self.fen, "best": self.best, "score": self.score, "pv": self.pv,
            "depth": self.depth, "nodes": self.nodes, "mate": self.mate(),
            "seconds": self.seconds, "nodes_per_second": self.nodes_per_second().round(),
        })
    }
}

/// The analysis of the current position of `game` by `player`.
pub fn analyse(player: &mut dyn Player, game: &History) -> Analysis {
    let start = Instant::now();
    let pos = game.position();
    let choice = player.choose(game);
    let mut pv = Vec::new();
    let mut p = *pos;
    let (score, depth, nodes, turns) = match &choice.search {
        Some(r) => (Some(r.score), r.depth, r.nodes, r.pv.clone()),
        None => (None, 0, 0, choice.turn.into_iter().collect()),
    };
    for t in &turns {
        pv.push(format_turn(&p, t, PointStyle::Algebraic));
        p.play_unchecked(t);
    }
    Analysis {
        fen: pos.fen(),
        best: choice
            .turn
            .map(|t| format_turn(pos, &t, PointStyle::Algebraic)),
        score,
        pv,
        depth,
        nodes,
        seconds: start.elapsed().as_secs_f64(),
    }
}
