//! One position analysed by a player: the fields of `fanorona analyze --json`, of the
//! web server's `/api/analyze` and of the Python package's `Engine.analyze`.

use crate::player::Player;
use fanorona_eval::{MATE, MATE_BOUND};
use fanorona_rules::History;
use fanorona_rules::PointStyle;
use fanorona_rules::notation::format_turn;
use fanorona_rules::telo::{TeloPosition, TeloSolution, TeloValue};
use web_time::Instant;

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

/// Telo is small enough to know exactly: the solver's value and a value-keeping line.
pub fn analyse_telo(pos: &TeloPosition, solution: &TeloSolution) -> Analysis {
    let start = Instant::now();
    let value = solution.value(pos);
    let score = match value {
        TeloValue::Win(n) => MATE - n as i32,
        TeloValue::Loss(n) => -(MATE - n as i32),
        TeloValue::Draw => 0,
    };
    let mut pv = Vec::new();
    let mut p = *pos;
    let plies = match value {
        TeloValue::Win(n) | TeloValue::Loss(n) => n as usize,
        TeloValue::Draw => 8,
    };
    while pv.len() < plies && p.outcome().is_none() {
        // The fastest win, or the longest defence, or any drawing move.
        let moves = solution.value_preserving_moves(&p);
        let Some(&m) = moves.iter().min_by_key(|&&m| {
            let mut c = p;
            c.play_unchecked(m);
            match solution.value(&c) {
                TeloValue::Loss(n) => n as i32,
                TeloValue::Win(n) => -(n as i32),
                TeloValue::Draw => 0,
            }
        }) else {
            break;
        };
        pv.push(p.format_move(m));
        p.play_unchecked(m);
    }
    Analysis {
        fen: pos.fen(),
        best: pv.first().cloned(),
        score: Some(score),
        pv,
        depth: plies as u32,
        nodes: 0,
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// telo's exact solution, solved once per process (a fraction of a second) and kept.
pub fn telo_solution() -> &'static TeloSolution {
    static SOLUTION: std::sync::OnceLock<TeloSolution> = std::sync::OnceLock::new();
    SOLUTION.get_or_init(TeloSolution::solve)
}
