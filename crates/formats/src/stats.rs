//! What self-play measured, as a chunk's header and a run's counters hold it.

/// What self-play measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct SelfPlayStats {
    /// Games finished.
    pub games: u64,
    /// Decisions (actions) played.
    pub decisions: u64,
    /// Samples recorded (full searches).
    pub samples: u64,
    /// Simulations run.
    pub sims: u64,
    /// Positions evaluated by the network.
    pub evals: u64,
    /// Network calls.
    pub calls: u64,
    /// Games won by White, by Black, drawn.
    pub white: u64,
    /// Games won by Black.
    pub black: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games ended by resignation.
    pub resigned: u64,
    /// Check games (played out) in which a side would have resigned.
    pub resign_checks: u64,
    /// ... and did not lose: resignation false positives.
    pub resign_false: u64,
    /// Games scored a draw by adjudication (`selfplay.draw_value`).
    pub adjudicated: u64,
    /// Games ended by the endgame tables' result (`selfplay.tablebases`).
    pub tablebase: u64,
    /// Check games (played out) that would have been adjudicated a draw.
    pub draw_checks: u64,
    /// ... and were not drawn: adjudication false positives.
    pub draw_false: u64,
    /// Seconds spent.
    pub seconds: f64,
    /// Distinct openings (first 20 decisions,
    /// `OPENING_DECISIONS` in `fanorona_train::selfplay`) among the games of each
    /// batch (a generation, or a worker's chunk), summed over batches: games that share
    /// an opening count once. A fall is self-play collapsing onto a few lines, which the
    /// value loss hides (it falls too: `experiments/dimy7`).
    pub distinct_openings: u64,
    /// Tree learning's deeper teacher (`tree.deep_gap`): its nodes (counted in `evals`
    /// too) and its labels (counted in `samples` too).
    pub teacher_nodes: u64,
    /// See `teacher_nodes`.
    pub teacher_samples: u64,
}

impl SelfPlayStats {
    /// Adds another batch's counts (seconds add too).
    pub fn add(&mut self, o: &SelfPlayStats) {
        self.games += o.games;
        self.decisions += o.decisions;
        self.samples += o.samples;
        self.sims += o.sims;
        self.evals += o.evals;
        self.calls += o.calls;
        self.white += o.white;
        self.black += o.black;
        self.draws += o.draws;
        self.resigned += o.resigned;
        self.resign_checks += o.resign_checks;
        self.resign_false += o.resign_false;
        self.adjudicated += o.adjudicated;
        self.tablebase += o.tablebase;
        self.draw_checks += o.draw_checks;
        self.draw_false += o.draw_false;
        self.seconds += o.seconds;
        self.distinct_openings += o.distinct_openings;
        self.teacher_nodes += o.teacher_nodes;
        self.teacher_samples += o.teacher_samples;
    }
}
