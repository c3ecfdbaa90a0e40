//! Gumbel root search ("Policy improvement by planning with Gumbel", Danihelka et al.
//! 2022): Gumbel samples over the root's priors pick the actions considered, and
//! sequential halving on completed Q values spends the simulations among them.

use super::*;

#[derive(Clone, Debug)]
pub(super) struct GumbelState {
    /// Gumbel sample + log prior, per root child (index within the children).
    pub(super) score: Vec<f32>,
    pub(super) remaining: Vec<u32>,
    pub(super) queue: std::collections::VecDeque<u32>,
    pub(super) per_phase: u32,
}

impl<G: Game> Mcts<G> {
    /// Prepares sequential halving over the root's children for `sims` simulations.
    pub(super) fn start_gumbel(&mut self, gcfg: GumbelConfig, sims: u32) {
        let kids: Vec<u32> = self.children(self.root).collect();
        let score: Vec<f32> = kids
            .iter()
            .map(|&c| {
                let u: f32 = self.rng.random_range(1e-12f32..1.0);
                -(-u.ln()).ln() + self.nodes[c as usize].prior.max(1e-12).ln()
            })
            .collect();
        let mut order: Vec<u32> = (0..kids.len() as u32)
            .filter(|&i| self.allowed(self.root, kids[i as usize]))
            .collect();
        order.sort_by(|&a, &b| score[b as usize].total_cmp(&score[a as usize]));
        let m = gcfg.max_actions.min(kids.len()).max(1);
        order.truncate(m);
        let phases = (m as f32).log2().ceil().max(1.0) as u32;
        let per_phase = (sims / phases).max(1);
        let mut st = GumbelState {
            score,
            remaining: order,
            queue: Default::default(),
            per_phase,
        };
        fill_phase(&mut st, self.nodes[self.root as usize].first_child);
        self.gumbel = Some(st);
    }

    pub(super) fn sigma(&self, gcfg: &GumbelConfig, q01: f32) -> f32 {
        let max_n = self
            .children(self.root)
            .map(|c| self.nodes[c as usize].visits)
            .max()
            .unwrap_or(0);
        (gcfg.c_visit + max_n as f32) * gcfg.c_scale * q01
    }

    /// Completed Q in [0, 1] of a root child for the root player: its value if visited,
    /// else the root's value.
    pub(super) fn completed_q(&self, c: u32) -> f32 {
        let root = &self.nodes[self.root as usize];
        let player = self.root_game().to_move();
        let child = &self.nodes[c as usize];
        let q = if child.visits > 0 {
            child.q(player)
        } else if let Kind::Terminal(v) = child.kind {
            score(v, player)
        } else if root.visits > 0 {
            root.q(player)
        } else {
            0.0
        };
        (q + 1.0) / 2.0
    }

    pub(super) fn end_gumbel_phase(&mut self) {
        let Some(gcfg) = self.cfg.gumbel else { return };
        let first = self.nodes[self.root as usize].first_child;
        let Some(mut st) = self.gumbel.take() else {
            return;
        };
        if st.remaining.len() > 1 {
            let mut ranked: Vec<(f32, u32)> = st
                .remaining
                .iter()
                .map(|&i| {
                    (
                        st.score[i as usize] + self.sigma(&gcfg, self.completed_q(first + i)),
                        i,
                    )
                })
                .collect();
            ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
            ranked.truncate(ranked.len().div_ceil(2));
            st.remaining = ranked.into_iter().map(|(_, i)| i).collect();
        }
        fill_phase(&mut st, first);
        self.gumbel = Some(st);
    }
}

fn fill_phase(st: &mut GumbelState, first: u32) {
    let n = st.remaining.len().max(1) as u32;
    let each = (st.per_phase / n).max(1);
    for _ in 0..each {
        for &i in &st.remaining {
            st.queue.push_back(first + i);
        }
    }
}
