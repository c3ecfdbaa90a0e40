//! Monte Carlo tree search guided by an [`Evaluator`]: PUCT with first-play urgency,
//! Dirichlet noise at the root, virtual loss for batched leaves, WDL backup, exact
//! terminal values, tree reuse, and Gumbel root search as an option.
//!
//! **Players need not alternate.** Inside a Fanorona capture chain the same player moves
//! again. Every node therefore keeps its statistics in absolute terms (White wins, draws,
//! Black wins) and each selection reads them from the point of view of the player to
//! move at that node; nothing assumes that a child belongs to the opponent.

mod config;
mod gumbel;
mod noise;
mod oracle;

pub use config::{GumbelConfig, MctsConfig};
use gumbel::GumbelState;
use noise::dirichlet;
pub use oracle::Oracle;
use oracle::SharedOracle;

use crate::evaluator::{Evaluator, Outputs};
use fanorona_rules::{Color, Game, Outcome};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::sync::Arc;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    /// Not evaluated yet.
    Leaf,
    /// Handed out for evaluation.
    Pending,
    /// Children created.
    Expanded,
    /// The game is over here: the exact absolute value.
    Terminal([f32; 3]),
}

/// Simulations run between two looks at the clock in a timed search
/// ([`Mcts::run_budget`]).
pub const TIMED_CHUNK: u32 = 16;

/// The least a timed search runs, even when its time is spent ([`Mcts::run_budget`]).
pub const MIN_TIMED_SIMS: u32 = 8;

/// Added to the selection value of a root child owed forced playouts: more than any
/// PUCT value (values lie in [-1, 1], exploration terms are bounded by `c_puct · sqrt(N)`).
const FORCED: f32 = 1.0e9;

/// Whether an exact absolute value is a win for `player`.
fn wins(v: [f32; 3], player: Color) -> bool {
    absolute(v, player)[0] >= 1.0
}

#[derive(Clone, Debug)]
struct Node<G> {
    game: Option<G>,
    action: u32,
    prior: f32,
    visits: u32,
    virtual_loss: u32,
    /// Sums of results in absolute terms: [White wins, draws, Black wins].
    wdl: [f32; 3],
    first_child: u32,
    num_children: u32,
    kind: Kind,
    /// With [`MctsConfig::solver`]: the exact absolute value of an expanded position,
    /// once its children settle it.
    proven: Option<[f32; 3]>,
    /// With [`MctsConfig::minimax_weight`]: the minimax value of the searched subtree,
    /// White's win minus loss in [-1, 1]; NaN until something below is evaluated.
    minimax: f32,
}

impl<G> Node<G> {
    fn new(action: u32, prior: f32) -> Node<G> {
        Node {
            game: None,
            action,
            prior,
            visits: 0,
            virtual_loss: 0,
            wdl: [0.0; 3],
            first_child: 0,
            num_children: 0,
            kind: Kind::Leaf,
            proven: None,
            minimax: f32::NAN,
        }
    }
    /// The exact absolute value, if known: the game is over here or proven.
    fn exact(&self) -> Option<[f32; 3]> {
        match self.kind {
            Kind::Terminal(v) => Some(v),
            _ => self.proven,
        }
    }
    /// Mean value in [-1, 1] for `player` (win minus loss); virtual losses count against
    /// `player`.
    fn q(&self, player: Color) -> f32 {
        let n = self.visits + self.virtual_loss;
        let (win, loss) = match player {
            Color::White => (self.wdl[0], self.wdl[2]),
            Color::Black => (self.wdl[2], self.wdl[0]),
        };
        (win - loss - self.virtual_loss as f32) / n as f32
    }
}

/// A position handed out for evaluation.
#[derive(Clone, Debug)]
pub struct Leaf<G> {
    node: u32,
    /// The position.
    pub game: G,
    /// Its legal actions: the evaluator writes one prior for each, in this order.
    pub legal: Vec<usize>,
    path: Vec<u32>,
}

/// Absolute WDL ([White, draw, Black]) from a WDL for `player`.
fn absolute(wdl: [f32; 3], player: Color) -> [f32; 3] {
    match player {
        Color::White => wdl,
        Color::Black => [wdl[2], wdl[1], wdl[0]],
    }
}

/// White's win minus loss as `player`'s (the same number read from the other side).
fn for_player(white: f32, player: Color) -> f32 {
    match player {
        Color::White => white,
        Color::Black => -white,
    }
}

/// An absolute WDL as one number for `player`: win minus loss, in [-1, 1].
fn score(wdl: [f32; 3], player: Color) -> f32 {
    let v = absolute(wdl, player);
    v[0] - v[2]
}

fn outcome_abs(o: Outcome) -> [f32; 3] {
    match o {
        Outcome::Win(Color::White) => [1.0, 0.0, 0.0],
        Outcome::Draw => [0.0, 1.0, 0.0],
        Outcome::Win(Color::Black) => [0.0, 0.0, 1.0],
    }
}

/// A search tree over a [`Game`].
#[derive(Clone, Debug)]
pub struct Mcts<G> {
    cfg: MctsConfig,
    nodes: Vec<Node<G>>,
    root: u32,
    rng: SmallRng,
    noised: bool,
    gumbel: Option<GumbelState>,
    path: Vec<u32>,
    /// With [`Mcts::restrict_root`]: the only root actions searched and chosen.
    root_allowed: Option<Vec<usize>>,
    /// With [`Mcts::with_oracle`]: exact values below the root.
    oracle: Option<SharedOracle<G>>,
}

impl<G: Game> Mcts<G> {
    /// A tree at `root`.
    pub fn new(root: G, cfg: MctsConfig, seed: u64) -> Mcts<G> {
        let mut node = Node::new(u32::MAX, 1.0);
        node.game = Some(root);
        Mcts {
            cfg,
            nodes: vec![node],
            root: 0,
            rng: SmallRng::seed_from_u64(seed),
            noised: false,
            gumbel: None,
            path: Vec::with_capacity(64),
            root_allowed: None,
            oracle: None,
        }
    }

    /// The same tree taking exact values from `oracle` (endgame tables) below the root:
    /// a position it knows is a leaf with that value, never evaluated nor expanded, as a
    /// finished game is, so that with [`MctsConfig::solver`] its value proves the
    /// positions above it. The root itself is always searched (a choice is wanted there).
    pub fn with_oracle(mut self, oracle: Option<Arc<dyn Oracle<G>>>) -> Mcts<G> {
        self.oracle = oracle.map(SharedOracle);
        self
    }

    /// The settings.
    pub fn config(&self) -> &MctsConfig {
        &self.cfg
    }
    /// The root position.
    pub fn root_game(&self) -> &G {
        self.nodes[self.root as usize]
            .game
            .as_ref()
            .expect("the root has its game")
    }
    /// Simulations backed up through the root so far.
    pub fn visits(&self) -> u32 {
        self.nodes[self.root as usize].visits
    }
    /// Nodes in the tree.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    /// Whether the tree is only its root.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// Searches and chooses only among `actions` at the current root (a guard's sound
    /// turns, say) until the root moves on with [`Mcts::advance`]; visits the other
    /// children already have stay, and count in the root's value. Actions that are not
    /// legal here are ignored; if none is, the restriction is dropped.
    pub fn restrict_root(&mut self, actions: &[usize]) {
        let mut legal = Vec::new();
        self.root_game().legal_actions(&mut legal);
        let allowed: Vec<usize> = actions
            .iter()
            .copied()
            .filter(|a| legal.contains(a))
            .collect();
        self.root_allowed = (!allowed.is_empty()).then_some(allowed);
    }

    /// Whether child `c` of node `n` may be searched and chosen.
    fn allowed(&self, n: u32, c: u32) -> bool {
        match &self.root_allowed {
            Some(a) if n == self.root => a.contains(&(self.nodes[c as usize].action as usize)),
            _ => true,
        }
    }

    fn children(&self, n: u32) -> std::ops::Range<u32> {
        let node = &self.nodes[n as usize];
        node.first_child..node.first_child + node.num_children
    }

    /// Picks the child of `n` to descend to.
    fn select(&self, n: u32) -> u32 {
        let node = &self.nodes[n as usize];
        let player = node
            .game
            .as_ref()
            .expect("expanded nodes have games")
            .to_move();
        let parent_n = (node.visits + node.virtual_loss).max(1) as f32;
        let parent_q = if node.visits > 0 { node.q(player) } else { 0.0 };
        let fpu = parent_q - self.cfg.fpu_reduction;
        let sqrt_n = parent_n.sqrt();
        // Forced playouts: the visits below which a root child is chosen whatever PUCT says.
        let forced = self.forced_scale(n);
        let alpha = self.cfg.minimax_weight;
        let mut best = (f32::NEG_INFINITY, node.first_child);
        for c in self.children(n) {
            if !self.allowed(n, c) {
                continue;
            }
            let child = &self.nodes[c as usize];
            let seen = child.visits + child.virtual_loss;
            let q = match (self.cfg.solver, child.exact()) {
                // A proven loss is never entered while the position is open (if every
                // child were lost, the position would be proven and not selected from).
                (true, Some(v)) if wins(v, player.other()) => continue,
                (true, Some(v)) => score(v, player),
                _ => match child.kind {
                    Kind::Terminal(v) if seen == 0 => score(v, player),
                    _ if seen == 0 => fpu,
                    _ if alpha > 0.0 && !child.minimax.is_nan() => {
                        (1.0 - alpha) * child.q(player) + alpha * for_player(child.minimax, player)
                    }
                    _ => child.q(player),
                },
            };
            let u = self.cfg.c_puct * child.prior * sqrt_n / (1.0 + seen as f32);
            let mut value = q + u;
            if forced.is_some_and(|f| (seen as f32) < (f * child.prior).sqrt()) {
                // Ahead of every child that is not forced; among the forced, PUCT decides.
                value += FORCED;
            }
            if value > best.0 {
                best = (value, c);
            }
        }
        best.1
    }

    /// With [`MctsConfig::forced_playouts`] at node `n` if it is the root (and the root
    /// search is PUCT's): `k · N`, `N` the visits of the root's children, so that a child
    /// with prior `P` is forced below `sqrt(k · N · P)` visits.
    fn forced_scale(&self, n: u32) -> Option<f32> {
        let k = self.cfg.forced_playouts;
        if k <= 0.0 || n != self.root || self.cfg.gumbel.is_some() {
            return None;
        }
        let total: u32 = self
            .children(n)
            .map(|c| self.nodes[c as usize].visits)
            .sum();
        Some(k * total as f32)
    }

    /// The root children's visits for the policy target and the choice: as they are,
    /// or with [`MctsConfig::forced_playouts`] pruned (KataGo's policy target pruning):
    /// every child but the most visited gives back up to `sqrt(k · N · P)` visits while
    /// its PUCT value stays at most the best child's, and a child left with less than
    /// one visit gets none. One entry per root child, in the children's order.
    fn target_visits(&self) -> Vec<f32> {
        let kids: Vec<u32> = self.children(self.root).collect();
        let mut visits: Vec<f32> = kids
            .iter()
            .map(|&c| self.nodes[c as usize].visits as f32)
            .collect();
        let Some(scale) = self.forced_scale(self.root) else {
            return visits;
        };
        let Some(best) = (0..kids.len()).max_by(|&a, &b| self.visit_order(kids[a], kids[b])) else {
            return visits;
        };
        let player = self.root_game().to_move();
        let sqrt_n = (self.nodes[self.root as usize].visits.max(1) as f32).sqrt();
        let explore = |prior: f32, n: f32| self.cfg.c_puct * prior * sqrt_n / (1.0 + n);
        let b = &self.nodes[kids[best] as usize];
        if b.visits == 0 {
            return visits;
        }
        let best_puct = b.q(player) + explore(b.prior, visits[best]);
        for (i, &c) in kids.iter().enumerate() {
            let child = &self.nodes[c as usize];
            if i == best || child.visits == 0 {
                continue;
            }
            let n = visits[i];
            let floor = (n - (scale * child.prior).sqrt()).max(0.0);
            // The fewest visits at which the child's PUCT value is still at most the
            // best's: c · P · sqrt_n / (1 + n') <= best_puct - Q.
            let gap = best_puct - child.q(player);
            let least = if gap > 0.0 {
                (self.cfg.c_puct * child.prior * sqrt_n / gap - 1.0).max(0.0)
            } else {
                n
            };
            let kept = least.max(floor).min(n);
            visits[i] = if kept < 1.0 { 0.0 } else { kept };
        }
        visits
    }

    /// Orders sibling nodes for the choice: more visits first, then the higher prior,
    /// then the earlier child.
    fn visit_order(&self, a: u32, b: u32) -> std::cmp::Ordering {
        let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        na.visits
            .cmp(&nb.visits)
            .then(na.prior.total_cmp(&nb.prior))
            .then(b.cmp(&a))
    }

    /// Makes sure node `c` (a child) knows its game and whether it is terminal.
    fn materialise(&mut self, parent: u32, c: u32) {
        if self.nodes[c as usize].game.is_some() {
            return;
        }
        let mut g = self.nodes[parent as usize]
            .game
            .clone()
            .expect("parent has its game");
        g.apply(self.nodes[c as usize].action as usize);
        if let Some(o) = g.outcome() {
            self.nodes[c as usize].kind = Kind::Terminal(outcome_abs(o));
        } else if let Some(v) = self.oracle.as_ref().and_then(|o| o.0.exact(&g)) {
            self.nodes[c as usize].kind = Kind::Terminal(absolute(v, g.to_move()));
        }
        self.nodes[c as usize].game = Some(g);
    }

    fn backup(&mut self, path: &[u32], value: [f32; 3], had_virtual: bool) {
        if self.cfg.minimax_weight > 0.0 {
            self.minimax_up(path, score(value, Color::White));
        }
        for (i, &n) in path.iter().enumerate() {
            let node = &mut self.nodes[n as usize];
            node.visits += 1;
            for (sum, v) in node.wdl.iter_mut().zip(value) {
                *sum += v;
            }
            if had_virtual && i > 0 {
                node.virtual_loss -= 1;
            }
        }
    }

    /// Implicit minimax backups: the end of `path` was just valued at `value` (White's
    /// win minus loss: an evaluation, or an exact value); each position above takes the
    /// best of its children's minimax values for its player to move, up to the first that
    /// does not change.
    fn minimax_up(&mut self, path: &[u32], value: f32) {
        let Some((&leaf, above)) = path.split_last() else {
            return;
        };
        self.nodes[leaf as usize].minimax = value;
        for &n in above.iter().rev() {
            let player = self.nodes[n as usize]
                .game
                .as_ref()
                .expect("expanded nodes have games")
                .to_move();
            let best = self
                .children(n)
                .map(|c| self.nodes[c as usize].minimax)
                .filter(|m| !m.is_nan())
                .map(|m| for_player(m, player))
                .fold(f32::NEG_INFINITY, f32::max);
            let new = for_player(best, player);
            let node = &mut self.nodes[n as usize];
            if node.minimax == new {
                return;
            }
            node.minimax = new;
        }
    }

    /// MCTS-solver: after a simulation ended in a finished game at the end of `path`,
    /// settles the positions above it that the exact values of their children now decide,
    /// from the bottom up, and stops at the first that stays open.
    fn solve_up(&mut self, path: &[u32]) {
        for &n in path.iter().rev().skip(1) {
            let node = &self.nodes[n as usize];
            if node.kind != Kind::Expanded || node.proven.is_some() {
                return;
            }
            let player = node
                .game
                .as_ref()
                .expect("expanded nodes have games")
                .to_move();
            let mut best: Option<(f32, [f32; 3])> = None;
            let mut open = false;
            for c in self.children(n) {
                match self.nodes[c as usize].exact() {
                    Some(v) if wins(v, player) => {
                        best = Some((1.0, v));
                        open = false;
                        break;
                    }
                    Some(v) => {
                        let s = score(v, player);
                        if best.is_none_or(|(b, _)| s > b) {
                            best = Some((s, v));
                        }
                    }
                    None => open = true,
                }
            }
            match best {
                Some((_, v)) if !open => self.nodes[n as usize].proven = Some(v),
                _ => return,
            }
        }
    }

    fn next_root_child(&mut self) -> Option<u32> {
        let g = self.gumbel.as_mut()?;
        if g.queue.is_empty() {
            self.end_gumbel_phase();
        }
        self.gumbel.as_mut()?.queue.pop_front()
    }

    /// Gathers up to `max` leaves that need an evaluation, applying virtual loss along
    /// their paths. Terminal positions met on the way are backed up at once (exact
    /// values) and counted in the returned number of simulations done.
    pub fn gather(&mut self, max: usize, leaves: &mut Vec<Leaf<G>>) -> u32 {
        let mut done = 0;
        let mut attempts = 0;
        while leaves.len() < max && attempts < max * 2 {
            attempts += 1;
            let mut path = std::mem::take(&mut self.path);
            path.clear();
            let mut n = self.root;
            path.push(n);
            let mut collided = false;
            loop {
                if let Some(v) = self.nodes[n as usize].proven {
                    // Settled by the solver: its exact value, no evaluation.
                    self.backup(&path, v, false);
                    done += 1;
                    break;
                }
                match self.nodes[n as usize].kind {
                    Kind::Terminal(v) => {
                        // No virtual loss was applied on the way down.
                        self.backup(&path, v, false);
                        if self.cfg.solver {
                            self.solve_up(&path);
                        }
                        done += 1;
                        break;
                    }
                    Kind::Pending => {
                        collided = true;
                        break;
                    }
                    Kind::Leaf => {
                        let game = self.nodes[n as usize].game.clone().expect("materialised");
                        let mut legal = Vec::new();
                        game.legal_actions(&mut legal);
                        for &p in &path[1..] {
                            self.nodes[p as usize].virtual_loss += 1;
                        }
                        self.nodes[n as usize].kind = Kind::Pending;
                        leaves.push(Leaf {
                            node: n,
                            game,
                            legal,
                            path: path.clone(),
                        });
                        break;
                    }
                    Kind::Expanded => {
                        let c = if n == self.root && self.gumbel.is_some() {
                            match self.next_root_child() {
                                Some(c) => c,
                                None => self.select(n),
                            }
                        } else {
                            self.select(n)
                        };
                        self.materialise(n, c);
                        path.push(c);
                        n = c;
                    }
                }
            }
            self.path = path;
            if collided {
                break;
            }
            // The root itself is the only leaf until it is expanded.
            if self.nodes[self.root as usize].kind != Kind::Expanded {
                break;
            }
        }
        done
    }

    /// Expands the gathered leaves with their evaluations and backs the values up.
    /// `priors[i]` holds one probability per action of `leaves[i].legal`; `wdl[i]` is
    /// the value for the player to move at that leaf.
    pub fn deliver(&mut self, leaves: &[Leaf<G>], priors: &[Vec<f32>], wdl: &[[f32; 3]]) {
        for (i, leaf) in leaves.iter().enumerate() {
            let n = leaf.node;
            let first = self.nodes.len() as u32;
            let t = self.cfg.policy_temperature;
            // Each prior shaped once: pushed unnormalised, then divided by their sum.
            let mut sum = 0.0f32;
            for (k, &a) in leaf.legal.iter().enumerate() {
                let p = priors[i][k];
                let p = if t == 1.0 {
                    p
                } else {
                    p.max(0.0).powf(1.0 / t)
                };
                sum += p;
                self.nodes.push(Node::new(a as u32, p));
            }
            let sum = sum.max(1e-12);
            for node in &mut self.nodes[first as usize..] {
                node.prior /= sum;
            }
            let node = &mut self.nodes[n as usize];
            node.first_child = first;
            node.num_children = leaf.legal.len() as u32;
            node.kind = Kind::Expanded;
            let v = absolute(wdl[i], leaf.game.to_move());
            self.backup(&leaf.path, v, true);
        }
        if !self.noised && self.nodes[self.root as usize].kind == Kind::Expanded {
            self.start_root();
        }
    }

    /// Once the root is expanded: Dirichlet noise, and the Gumbel schedule.
    fn start_root(&mut self) {
        self.noised = true;
        let kids = self.children(self.root);
        let k = kids.len();
        if k == 0 {
            return;
        }
        let eps = self.cfg.dirichlet_epsilon;
        if eps > 0.0 && self.cfg.gumbel.is_none() {
            let noise = dirichlet(&mut self.rng, self.cfg.dirichlet_alpha, k);
            for (c, x) in kids.clone().zip(noise) {
                let p = &mut self.nodes[c as usize].prior;
                *p = (1.0 - eps) * *p + eps * x;
            }
        }
        if self.cfg.gumbel.is_some() {
            self.gumbel = None;
        }
    }

    /// Runs simulations within a budget: `sims` more, or with a `deadline` until it has
    /// passed (at least [`MIN_TIMED_SIMS`], at most `sims`), looking at the clock every
    /// [`TIMED_CHUNK`] simulations; a solved root stops it early. The one timed loop of
    /// every player (the network's on every board, telo's included).
    pub fn run_budget<E: Evaluator<G>>(
        &mut self,
        eval: &mut E,
        sims: u32,
        deadline: Option<web_time::Instant>,
    ) {
        let Some(deadline) = deadline else {
            return self.run(eval, sims);
        };
        let start = self.visits();
        let cap = start.saturating_add(sims);
        loop {
            let done = self.visits() - start;
            if self.visits() >= cap
                || (done >= MIN_TIMED_SIMS && web_time::Instant::now() >= deadline)
            {
                break;
            }
            let before = self.visits();
            self.run(eval, TIMED_CHUNK.min(cap - self.visits()));
            if self.visits() == before {
                break; // a solved root: nothing more to search
            }
        }
    }

    /// Runs `sims` more simulations with `eval`.
    pub fn run<E: Evaluator<G>>(&mut self, eval: &mut E, sims: u32) {
        let target = self.visits() + sims;
        let mut leaves = Vec::with_capacity(self.cfg.batch);
        let mut priors: Vec<Vec<f32>> = Vec::new();
        let mut wdl: Vec<[f32; 3]> = Vec::new();
        let mut gumbel_started = false;
        while self.visits() < target {
            if let Some(o) = self.root_game().outcome()
                && let Kind::Leaf = self.nodes[self.root as usize].kind
            {
                self.nodes[self.root as usize].kind = Kind::Terminal(outcome_abs(o));
            }
            if let (Some(g), false, Kind::Expanded) = (
                self.cfg.gumbel,
                gumbel_started,
                self.nodes[self.root as usize].kind,
            ) {
                self.start_gumbel(g, target - self.visits());
                gumbel_started = true;
            }
            leaves.clear();
            let want = (self.cfg.batch as u32).min(target - self.visits()).max(1) as usize;
            self.gather(want, &mut leaves);
            if leaves.is_empty() {
                continue;
            }
            priors.resize_with(leaves.len(), Vec::new);
            wdl.resize(leaves.len(), [0.0; 3]);
            for p in priors.iter_mut() {
                p.clear();
            }
            let games: Vec<&G> = leaves.iter().map(|l| &l.game).collect();
            let legal: Vec<&[usize]> = leaves.iter().map(|l| l.legal.as_slice()).collect();
            eval.evaluate(
                &games,
                &legal,
                Outputs::new(&mut priors[..leaves.len()], &mut wdl[..leaves.len()]),
            );
            self.deliver(&leaves, &priors[..leaves.len()], &wdl[..leaves.len()]);
        }
    }

    /// The root's children: `(action, visits, prior, q for the root player)`.
    pub fn root_children(&self) -> Vec<(usize, u32, f32, f32)> {
        let player = self.root_game().to_move();
        self.children(self.root)
            .map(|c| {
                let n = &self.nodes[c as usize];
                let q = if n.visits > 0 { n.q(player) } else { f32::NAN };
                (n.action as usize, n.visits, n.prior, q)
            })
            .collect()
    }

    /// The search policy over the root's actions: visit shares (pruned with
    /// [`MctsConfig::forced_playouts`]), or with Gumbel the improved policy
    /// `softmax(logits + sigma(completed Q))`.
    pub fn policy(&self) -> Vec<(usize, f32)> {
        let kids: Vec<u32> = self.children(self.root).collect();
        if let Some(gcfg) = self.cfg.gumbel {
            let logits: Vec<f32> = kids
                .iter()
                .map(|&c| {
                    self.nodes[c as usize].prior.max(1e-12).ln()
                        + self.sigma(&gcfg, self.completed_q(c))
                })
                .collect();
            let m = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let e: Vec<f32> = logits.iter().map(|l| (l - m).exp()).collect();
            let s: f32 = e.iter().sum();
            return kids
                .iter()
                .zip(e)
                .map(|(&c, x)| (self.nodes[c as usize].action as usize, x / s))
                .collect();
        }
        let visits = self.target_visits();
        let total: f32 = visits.iter().sum();
        kids.iter()
            .zip(visits)
            .map(|(&c, v)| {
                let n = &self.nodes[c as usize];
                (
                    n.action as usize,
                    if total > 0.0 { v / total } else { n.prior },
                )
            })
            .collect()
    }

    /// The action to play: with Gumbel the sequential-halving winner; otherwise the most
    /// visited (temperature 0) or one drawn with probability ∝ visits^(1/temperature).
    pub fn choose(&mut self, temperature: f32) -> Option<usize> {
        let mut kids: Vec<u32> = self
            .children(self.root)
            .filter(|&c| self.allowed(self.root, c))
            .collect();
        if kids.is_empty() {
            return None;
        }
        if self.cfg.solver {
            // A proven win is played at once; a proven loss only when all are.
            let player = self.root_game().to_move();
            let exact = |c: &u32| self.nodes[*c as usize].exact();
            if let Some(&c) = kids
                .iter()
                .find(|c| exact(c).is_some_and(|v| wins(v, player)))
            {
                return Some(self.nodes[c as usize].action as usize);
            }
            let open: Vec<u32> = kids
                .iter()
                .copied()
                .filter(|c| !exact(c).is_some_and(|v| wins(v, player.other())))
                .collect();
            if !open.is_empty() {
                kids = open;
            }
        }
        if let (Some(gcfg), Some(st)) = (self.cfg.gumbel, &self.gumbel) {
            let first = self.nodes[self.root as usize].first_child;
            let best = st
                .remaining
                .iter()
                .max_by(|&&a, &&b| {
                    let sa = st.score[a as usize] + self.sigma(&gcfg, self.completed_q(first + a));
                    let sb = st.score[b as usize] + self.sigma(&gcfg, self.completed_q(first + b));
                    sa.total_cmp(&sb)
                })
                .copied()?;
            return Some(self.nodes[(first + best) as usize].action as usize);
        }
        // The most visited child; among equals the one the prior likes best (with a
        // single simulation no child has a visit, and the choice is the prior's).
        let most_visited = || kids.iter().copied().max_by(|&a, &b| self.visit_order(a, b));
        if temperature <= 1e-3 {
            return Some(self.nodes[most_visited()? as usize].action as usize);
        }
        let first = self.nodes[self.root as usize].first_child;
        let target = self.target_visits();
        let w: Vec<f64> = kids
            .iter()
            .map(|&c| (target[(c - first) as usize] as f64).powf(1.0 / temperature as f64))
            .collect();
        let total: f64 = w.iter().sum();
        if total <= 0.0 {
            return Some(self.nodes[most_visited()? as usize].action as usize);
        }
        let mut x = self.rng.random_range(0.0..total);
        for (i, &wi) in w.iter().enumerate() {
            if x < wi {
                return Some(self.nodes[kids[i] as usize].action as usize);
            }
            x -= wi;
        }
        Some(self.nodes[*kids.last()? as usize].action as usize)
    }

    /// The root's exact WDL for the root player, once [`MctsConfig::solver`] has proved
    /// it (`None`: not proved).
    pub fn proven(&self) -> Option<[f32; 3]> {
        let v = self.nodes[self.root as usize].proven?;
        Some(absolute(v, self.root_game().to_move()))
    }

    /// WDL for the root player (from the simulations so far).
    pub fn value(&self) -> [f32; 3] {
        let root = &self.nodes[self.root as usize];
        if let Some(v) = root.proven {
            return absolute(v, self.root_game().to_move());
        }
        let n = root.visits.max(1) as f32;
        let abs = root.wdl.map(|x| x / n);
        absolute(abs, self.root_game().to_move())
    }

    /// Moves the root to the child reached by `action`, keeping its subtree (tree reuse).
    /// An action that is not a child of the root starts a fresh tree.
    pub fn advance(&mut self, action: usize) {
        let child = self
            .children(self.root)
            .find(|&c| self.nodes[c as usize].action as usize == action);
        let new_root_game = match child {
            Some(c) => {
                self.materialise(self.root, c);
                self.nodes[c as usize].game.clone().expect("materialised")
            }
            None => {
                let mut g = self.root_game().clone();
                g.apply(action);
                g
            }
        };
        let mut nodes: Vec<Node<G>> = Vec::new();
        if let Some(c) = child {
            // Copy the subtree breadth first so that children stay contiguous.
            let mut root = self.nodes[c as usize].clone();
            root.action = u32::MAX;
            nodes.push(root);
            let mut i = 0;
            while i < nodes.len() {
                let (first, count) = (nodes[i].first_child, nodes[i].num_children);
                if nodes[i].kind == Kind::Expanded {
                    let new_first = nodes.len() as u32;
                    for k in 0..count {
                        nodes.push(self.nodes[(first + k) as usize].clone());
                    }
                    nodes[i].first_child = new_first;
                } else if nodes[i].kind == Kind::Pending {
                    nodes[i].kind = Kind::Leaf;
                }
                if i == 0
                    && let Kind::Terminal(_) = nodes[0].kind
                    && new_root_game.outcome().is_none()
                {
                    // Exact by the oracle, but a root is searched for its choice.
                    nodes[0].kind = Kind::Leaf;
                }
                nodes[i].virtual_loss = 0;
                i += 1;
            }
        } else {
            let mut root = Node::new(u32::MAX, 1.0);
            root.game = Some(new_root_game);
            nodes.push(root);
        }
        self.nodes = nodes;
        self.root = 0;
        self.noised = false;
        self.gumbel = None;
        self.root_allowed = None;
        if self.nodes[0].kind == Kind::Expanded {
            self.start_root();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::UniformEvaluator;
    use fanorona_rules::{Position, RuleOptions, Variant};

    /// The exact value of `g` if a full-width step-level search of `depth` steps settles
    /// it: a deliberately naive check of the solver's proofs.
    fn solve(g: &Position, depth: u32) -> Option<[f32; 3]> {
        if let Some(o) = g.outcome() {
            return Some(outcome_abs(o));
        }
        if depth == 0 {
            return None;
        }
        let player = g.to_move();
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let mut best: Option<(f32, [f32; 3])> = None;
        let mut open = false;
        for a in legal {
            let mut c = *g;
            c.apply(a);
            match solve(&c, depth - 1) {
                Some(v) if wins(v, player) => return Some(v),
                Some(v) => {
                    let s = score(v, player);
                    if best.is_none_or(|(b, _)| s > b) {
                        best = Some((s, v));
                    }
                }
                None => open = true,
            }
        }
        if open { None } else { best.map(|(_, v)| v) }
    }

    /// How many steps below `n` its proof reaches.
    fn proof_height(t: &Mcts<Position>, n: u32) -> u32 {
        let node = &t.nodes[n as usize];
        if let Kind::Terminal(_) = node.kind {
            return 0;
        }
        let player = node.game.as_ref().unwrap().to_move();
        let v = node.proven.unwrap();
        let kids = t.children(n);
        if wins(v, player) {
            1 + kids
                .filter(|&c| t.nodes[c as usize].exact().is_some_and(|w| wins(w, player)))
                .map(|c| proof_height(t, c))
                .min()
                .unwrap()
        } else {
            1 + kids.map(|c| proof_height(t, c)).max().unwrap()
        }
    }

    /// Dimy positions a few random turns from the end of the game.
    fn endgames(count: usize) -> Vec<Position> {
        let mut rng = SmallRng::seed_from_u64(7);
        let mut out = Vec::new();
        let mut legal = Vec::new();
        while out.len() < count {
            let mut p = Position::start(Variant::Dimy, RuleOptions::default());
            while p.outcome().is_none() {
                p.legal_actions(&mut legal);
                p.apply(legal[rng.random_range(0..legal.len())]);
                let pieces = p.pieces(Color::White).count() + p.pieces(Color::Black).count();
                if pieces <= 7 && p.outcome().is_none() && p.chain().is_none() {
                    out.push(p);
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn a_restricted_root_searches_and_chooses_only_the_allowed_actions() {
        let pos = Position::start(Variant::Tsivy, RuleOptions::default());
        let mut legal = Vec::new();
        pos.legal_actions(&mut legal);
        assert!(legal.len() > 2);
        let cfgs = [
            MctsConfig::default(),
            MctsConfig {
                gumbel: Some(GumbelConfig::default()),
                ..MctsConfig::default()
            },
        ];
        for cfg in cfgs {
            let allowed = [legal[legal.len() - 1], legal[1]];
            let mut t = Mcts::new(pos, cfg, 7);
            // Not legal here: ignored.
            t.restrict_root(&[allowed[0], allowed[1], 100_000]);
            t.run(&mut UniformEvaluator::default(), 200);
            for (a, visits, _, _) in t.root_children() {
                assert!(
                    allowed.contains(&a) || visits == 0,
                    "{a} has {visits} visits"
                );
            }
            let c = t.choose(0.0).unwrap();
            assert!(allowed.contains(&c));
            // After the root moves on, the restriction is gone.
            t.advance(c);
            t.run(&mut UniformEvaluator::default(), 200);
            let visited = t.root_children().iter().filter(|c| c.1 > 0).count();
            assert!(visited > 2 || t.root_children().len() <= 2);
        }
        // Nothing legal in the list: no restriction.
        let mut t = Mcts::new(pos, MctsConfig::default(), 7);
        t.restrict_root(&[100_000]);
        t.run(&mut UniformEvaluator::default(), 200);
        assert_eq!(
            t.root_children().iter().filter(|c| c.1 > 0).count(),
            legal.len()
        );
    }

    #[test]
    fn the_policy_temperature_flattens_the_priors() {
        /// The first action gets prior 0.64, the rest share 0.36.
        struct Skewed;
        impl Evaluator<Position> for Skewed {
            fn evaluate(&mut self, _: &[&Position], legal: &[&[usize]], out: Outputs<'_>) {
                let Outputs { priors, wdl } = out;
                for (i, l) in legal.iter().enumerate() {
                    let rest = 0.36 / (l.len() - 1).max(1) as f32;
                    priors[i] = (0..l.len())
                        .map(|k| if k == 0 { 0.64 } else { rest })
                        .collect();
                    wdl[i] = [0.3, 0.4, 0.3];
                }
            }
        }
        let pos = Position::start(Variant::Tsivy, RuleOptions::default());
        let first_prior = |t: f32| {
            let cfg = MctsConfig {
                policy_temperature: t,
                ..MctsConfig::default()
            };
            let mut tree = Mcts::new(pos, cfg, 1);
            tree.run(&mut Skewed, 1);
            let kids = tree.root_children();
            let sum: f32 = kids.iter().map(|c| c.2).sum();
            assert!((sum - 1.0).abs() < 1e-5, "priors sum to {sum}");
            (kids[0].2, kids.len())
        };
        let (p1, n) = first_prior(1.0);
        assert!((p1 - 0.64).abs() < 1e-6);
        // T = 2: square roots, normalised.
        let rest = (0.36 / (n - 1) as f32).sqrt();
        let expected = 0.8 / (0.8 + (n - 1) as f32 * rest);
        let (p2, _) = first_prior(2.0);
        assert!((p2 - expected).abs() < 1e-5, "{p2} against {expected}");
        assert!(p2 < p1);
    }

    #[test]
    fn every_proof_of_the_solver_is_exact() {
        let cfg = MctsConfig {
            solver: true,
            ..MctsConfig::default()
        };
        let (mut checked, mut wins_found, mut settled_roots) = (0, 0, 0);
        for (i, p) in endgames(40).into_iter().enumerate() {
            let mut t = Mcts::new(p, cfg, i as u64);
            t.run(&mut UniformEvaluator::default(), 3000);
            settled_roots += usize::from(t.nodes[0].proven.is_some());
            for n in 0..t.nodes.len() as u32 {
                let node = &t.nodes[n as usize];
                let Some(v) = node.proven else { continue };
                let h = proof_height(&t, n);
                if h > 6 {
                    continue;
                }
                let g = node.game.as_ref().unwrap();
                assert_eq!(solve(g, h), Some(v), "proof of {} (height {h})", g.fen());
                checked += 1;
                wins_found += usize::from(v[1] == 0.0);
            }
        }
        assert!(checked > 100, "{checked} proofs checked");
        assert!(
            wins_found > 0 && settled_roots > 0,
            "{wins_found} {settled_roots}"
        );
    }

    #[test]
    fn a_proven_position_is_chosen_by_its_proof_and_not_evaluated_again() {
        /// Counts the positions it is asked to evaluate.
        struct Counting(usize);
        impl Evaluator<Position> for Counting {
            fn evaluate(&mut self, games: &[&Position], legal: &[&[usize]], out: Outputs<'_>) {
                let Outputs { priors, wdl } = out;
                self.0 += games.len();
                UniformEvaluator::default().evaluate(games, legal, Outputs::new(priors, wdl));
            }
        }
        let run = |root: Position, solver: bool| {
            let cfg = MctsConfig {
                solver,
                ..MctsConfig::default()
            };
            let mut t = Mcts::new(root, cfg, 1);
            let mut e = Counting(0);
            t.run(&mut e, 2000);
            let proven = t.nodes[t.root as usize].proven;
            let first = e.0;
            t.run(&mut e, 1000);
            (e.0 - first, t.visits(), t.value(), t.choose(0.0), proven, t)
        };
        let (mut proven_roots, mut plain_goes_on) = (0, 0);
        for p in endgames(40) {
            let (more, visits, value, best, proven, t) = run(p, true);
            let Some(v) = proven else {
                continue;
            };
            proven_roots += 1;
            assert!(visits >= 3000);
            assert_eq!(value, absolute(v, p.to_move()), "the value is the proof's");
            assert_eq!(more, 0, "a proven root needs no evaluation: {}", p.fen());
            let best = best.unwrap();
            let chosen = t
                .children(t.root)
                .find(|&c| t.nodes[c as usize].action as usize == best);
            let w = t.nodes[chosen.unwrap() as usize].exact();
            if wins(v, p.to_move()) {
                assert_eq!(w, Some(v), "a proven win plays a winning step: {}", p.fen());
            }
            let (plain_more, ..) = run(p, false);
            plain_goes_on += usize::from(plain_more > 0);
        }
        assert!(proven_roots >= 3, "{proven_roots} roots proven");
        assert!(
            plain_goes_on > 0,
            "without the solver some of them are evaluated on"
        );
    }

    /// Uniform priors and a value from the material alone (a function of the position,
    /// so that a test can recompute any leaf's evaluation).
    struct Material;
    impl Material {
        fn value(g: &Position) -> f32 {
            let me = g.pieces(g.to_move()).count() as f32;
            let them = g.pieces(g.to_move().other()).count() as f32;
            ((me - them) / 3.0).tanh()
        }
    }
    impl Evaluator<Position> for Material {
        fn evaluate(&mut self, games: &[&Position], legal: &[&[usize]], out: Outputs<'_>) {
            let Outputs { priors, wdl } = out;
            for (i, g) in games.iter().enumerate() {
                priors[i] = vec![1.0 / legal[i].len() as f32; legal[i].len()];
                let v = Material::value(g);
                wdl[i] = [v.max(0.0), 1.0 - v.abs(), (-v).max(0.0)];
            }
        }
    }

    /// The minimax value of the searched tree below `n`, recomputed from scratch: a
    /// finished game's result, the evaluation of a position none of whose children was
    /// visited, else the best visited child for the player to move (White's scale).
    fn naive_minimax(t: &Mcts<Position>, n: u32) -> f32 {
        let node = &t.nodes[n as usize];
        let g = node.game.as_ref().unwrap();
        if let Kind::Terminal(v) = node.kind {
            return score(v, Color::White);
        }
        let player = g.to_move();
        let best = t
            .children(n)
            .filter(|&c| t.nodes[c as usize].visits > 0)
            .map(|c| for_player(naive_minimax(t, c), player))
            .fold(f32::NEG_INFINITY, f32::max);
        if best == f32::NEG_INFINITY {
            for_player(Material::value(g), player)
        } else {
            for_player(best, player)
        }
    }

    #[test]
    fn implicit_minimax_backups_keep_the_searched_trees_minimax_value() {
        let mut legal = Vec::new();
        let mut rng = SmallRng::seed_from_u64(3);
        let mut changed_choice = 0;
        for (i, variant) in [Variant::Dimy, Variant::Tsivy, Variant::Dimy, Variant::Tsivy]
            .into_iter()
            .enumerate()
        {
            // A position some random turns into the game, mid-chain ones included.
            let mut p = Position::start(variant, RuleOptions::default());
            for _ in 0..(4 + 3 * i) {
                p.legal_actions(&mut legal);
                if p.outcome().is_some() {
                    break;
                }
                p.apply(legal[rng.random_range(0..legal.len())]);
            }
            for (alpha, sims) in [(0.5, 800), (1.0, 300)] {
                let cfg = MctsConfig {
                    minimax_weight: alpha,
                    ..MctsConfig::default()
                };
                let mut t = Mcts::new(p, cfg, i as u64);
                t.run(&mut Material, sims);
                let mut checked = 0;
                for n in 0..t.nodes.len() as u32 {
                    let node = &t.nodes[n as usize];
                    if node.visits == 0 {
                        assert!(
                            node.minimax.is_nan(),
                            "an unvisited node has no minimax value"
                        );
                        continue;
                    }
                    let want = naive_minimax(&t, n);
                    assert!(
                        (node.minimax - want).abs() < 1e-6,
                        "node {n} of {}: {} against {want}",
                        p.fen(),
                        node.minimax
                    );
                    checked += 1;
                }
                assert!(checked > 50, "{checked} nodes checked");
                let off = MctsConfig {
                    minimax_weight: 0.0,
                    ..MctsConfig::default()
                };
                let mut plain = Mcts::new(p, off, i as u64);
                plain.run(&mut Material, sims);
                assert!(
                    plain.nodes.iter().all(|n| n.minimax.is_nan()),
                    "a weight of 0 keeps no minimax values"
                );
                changed_choice += usize::from(plain.choose(0.0) != t.choose(0.0));
            }
        }
        // Not a strength claim: only that the weight reaches the selection.
        assert!(
            changed_choice > 0,
            "the minimax values never changed a choice"
        );
    }
}
