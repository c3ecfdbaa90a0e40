//! Descent (Cohen-Solal 2020, "Learning to Play Two-Player Perfect-Information Games
//! without Knowledge", arXiv 2008.01188): an unbounded best-first minimax over a learned
//! evaluation, whose every iteration follows the best line from the root down to the end
//! of the game, expanding each node it passes (every child evaluated) and backing the
//! values up. Completed: a node whose value is proven (the game's end, the endgame
//! tables, a child that wins, or every child proven) is searched no more, and its value
//! is exact.
//!
//! The tree is a graph keyed by (position hash, quiet counter): the counter grows with
//! every turn without a capture and a capture takes a piece for good, so no line comes
//! back to a node and the graph has no cycle. Scores are the alpha-beta engine's: hundredths
//! of a piece for the side to move, mate scores counting turns from the node
//! ([`crate::MATE`]), the tables' wins [`crate::TB_WIN`] less their turns to the next
//! capture, draws at the quiet limit graded by material when asked
//! ([`crate::DRAW_PER_PIECE`]).
//!
//! After a search, every node with at least a given number of iterations through it is a
//! label of its minimax value ([`Descent::labels`]): tree learning's Descent arm.

use crate::ab::{NodeLabel, tb_score};
use fanorona_eval::{Bound, EvalWeights, LearnedEval, MATE_BOUND, TB_WIN, outcome_score};
use fanorona_rules::{Position, Turn, TurnMode};
use fanorona_tb::Tablebase;
use std::collections::HashMap;
use std::sync::Arc;

/// A node's key: its position's hash and quiet counter.
type Key = (u64, u16);

/// Largest score an evaluation may give (below every proven win).
const EVAL_BOUND: i32 = 100_000;

#[derive(Clone, Debug)]
struct Node {
    /// The side to move's value.
    value: i32,
    /// The value is exact: no search changes it.
    proven: bool,
    /// Iterations that passed through it.
    visits: u32,
    /// Its turns and their children's keys, once expanded.
    children: Option<Box<[(Turn, Key)]>>,
}

/// The Descent search (see the module's documentation) with a learned evaluation.
#[derive(Debug)]
pub struct Descent {
    eval: Arc<LearnedEval>,
    weights: EvalWeights,
    tb: Option<Arc<Tablebase>>,
    graded_draws: bool,
    nodes: HashMap<Key, Node>,
    /// Nodes expanded (every child evaluated), over the searcher's life.
    pub expanded: u64,
}

/// What a search found at its root.
#[derive(Clone, Debug, PartialEq)]
pub struct DescentResult {
    /// The root's turns with their values for the side to move, best first.
    pub turns: Vec<(Turn, i32)>,
    /// The root's value.
    pub value: i32,
    /// Whether the root's value is proven.
    pub proven: bool,
}

/// `x` from the parent's side: negated, a mate one turn further away.
fn back(x: i32) -> i32 {
    let v = -x;
    if v > MATE_BOUND {
        v - 1
    } else if v < -MATE_BOUND {
        v + 1
    } else {
        v
    }
}

impl Descent {
    /// A searcher with `eval`, the tables `tb` proving the positions they cover, and draws
    /// at the quiet limit graded by material when `graded_draws`.
    pub fn new(eval: Arc<LearnedEval>, tb: Option<Arc<Tablebase>>, graded_draws: bool) -> Descent {
        Descent {
            eval,
            weights: EvalWeights::default(),
            tb,
            graded_draws,
            nodes: HashMap::new(),
            expanded: 0,
        }
    }

    /// Forgets the tree.
    pub fn clear(&mut self) {
        self.nodes.clear();
    }

    /// Nodes in the tree.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree is empty.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// A new node for `pos`: its end, its tables' value, or its evaluation.
    fn leaf(&self, pos: &Position) -> Node {
        let has_turn = pos.has_turn();
        let (value, proven) = if let Some(o) = pos.outcome_given(has_turn) {
            (outcome_score(o, pos, 0, self.graded_draws), true)
        } else if let Some((w, d)) = self.tb.as_ref().and_then(|t| t.wdl(pos)) {
            (tb_score(w, d), true)
        } else {
            (
                self.eval
                    .evaluate(pos, &self.weights)
                    .clamp(-EVAL_BOUND, EVAL_BOUND),
                false,
            )
        };
        Node {
            value,
            proven,
            visits: 0,
            children: None,
        }
    }

    fn key(pos: &Position) -> Key {
        (pos.hash(), pos.quiet())
    }

    /// `iterations` iterations from `root` (the tree kept from earlier searches is used
    /// and grown); stops early once the root is proven. Every value under the root is
    /// brought up to date at the end.
    pub fn search(&mut self, root: &Position, iterations: u32) -> DescentResult {
        let key = Descent::key(root);
        if !self.nodes.contains_key(&key) {
            let n = self.leaf(root);
            self.nodes.insert(key, n);
        }
        for _ in 0..iterations {
            if self.nodes[&key].proven {
                break;
            }
            self.iterate(root);
        }
        self.refresh(root);
        let node = &self.nodes[&key];
        let mut turns: Vec<(Turn, i32)> = node
            .children
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .map(|(t, k)| (*t, back(self.nodes[k].value)))
            .collect();
        turns.sort_by_key(|(_, v)| std::cmp::Reverse(*v));
        DescentResult {
            turns,
            value: node.value,
            proven: node.proven,
        }
    }

    /// One iteration: down the best unproven line to the end (expanding every node on
    /// the way), then the values back up.
    fn iterate(&mut self, root: &Position) {
        let mut path: Vec<Key> = Vec::new();
        let mut pos = *root;
        loop {
            let key = Descent::key(&pos);
            path.push(key);
            let node = self
                .nodes
                .get_mut(&key)
                .expect("every node on the path is in the tree");
            node.visits += 1;
            if node.proven {
                break;
            }
            if node.children.is_none() {
                self.expand(&pos, key);
            }
            let node = &self.nodes[&key];
            if node.proven {
                break;
            }
            // The best child not yet proven (a proven best child proves the node, which
            // `expand` and `update` have seen to).
            let next = node
                .children
                .as_deref()
                .expect("expanded")
                .iter()
                .filter(|(_, k)| !self.nodes[k].proven)
                .max_by_key(|(_, k)| back(self.nodes[k].value));
            let Some(&(turn, _)) = next else { break };
            pos.play_unchecked(&turn);
        }
        for key in path.iter().rev() {
            self.update(*key);
        }
    }

    /// Evaluates every child of `pos` (node `key`) not yet in the tree.
    fn expand(&mut self, pos: &Position, key: Key) {
        self.expanded += 1;
        let turns = pos.turns(TurnMode::Distinct);
        let mut children = Vec::with_capacity(turns.len());
        for t in turns {
            let mut c = *pos;
            c.play_unchecked(&t);
            let k = Descent::key(&c);
            if !self.nodes.contains_key(&k) {
                let n = self.leaf(&c);
                self.nodes.insert(k, n);
            }
            children.push((t, k));
        }
        self.nodes.get_mut(&key).expect("in the tree").children = Some(children.into());
        self.update(key);
    }

    /// Node `key`'s value and proof from its children's.
    fn update(&mut self, key: Key) {
        let Some(children) = self.nodes[&key].children.as_deref() else {
            return;
        };
        if children.is_empty() {
            return;
        }
        let mut best = i32::MIN;
        let mut all_proven = true;
        let mut proven_win = false;
        for (_, k) in children {
            let c = &self.nodes[k];
            let v = back(c.value);
            best = best.max(v);
            all_proven &= c.proven;
            proven_win |= c.proven && v > TB_WIN - 1000;
        }
        let node = self.nodes.get_mut(&key).expect("in the tree");
        node.value = best;
        node.proven = all_proven || proven_win;
    }

    /// Brings every value under `root` up to date with its children's, deepest first. A
    /// node reached by two lines (a transposition) is updated by the iterations of one of
    /// them only; its other parents keep an older value until this pass.
    fn refresh(&mut self, root: &Position) {
        let mut done = std::collections::HashSet::new();
        // (key, its turns, the next child to visit)
        let mut stack: Vec<(Key, Position, usize)> = vec![(Descent::key(root), *root, 0)];
        while let Some((key, pos, i)) = stack.pop() {
            let child = self
                .nodes
                .get(&key)
                .and_then(|n| n.children.as_deref())
                .and_then(|c| c.get(i))
                .copied();
            match child {
                Some((t, k)) => {
                    stack.push((key, pos, i + 1));
                    if !done.contains(&k) && self.nodes[&k].children.is_some() {
                        let mut c = pos;
                        c.play_unchecked(&t);
                        stack.push((k, c, 0));
                    }
                }
                None => {
                    if done.insert(key) {
                        self.update(key);
                    }
                }
            }
        }
    }

    /// The labels of the tree under `root`: every expanded node that at least
    /// `min_visits` iterations passed through, with its value (exact: the minimax value
    /// over the tree as the last search left it), its visits (at most 255) as its depth.
    /// Nodes whose quiet counter is above `max_quiet` are left out.
    pub fn labels(&self, root: &Position, min_visits: u32, max_quiet: u16) -> Vec<NodeLabel> {
        // The tree keeps keys, not positions: walk it from the root.
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![*root];
        while let Some(pos) = stack.pop() {
            let key = Descent::key(&pos);
            if !seen.insert(key) {
                continue;
            }
            let Some(node) = self.nodes.get(&key) else {
                continue;
            };
            let Some(children) = node.children.as_deref() else {
                continue;
            };
            if node.visits < min_visits {
                continue;
            }
            if pos.quiet() <= max_quiet {
                out.push(NodeLabel {
                    position: pos,
                    score: node.value,
                    bound: Bound::Exact,
                    depth: node.visits.min(255) as u8,
                });
            }
            for (t, _) in children {
                let mut c = pos;
                c.play_unchecked(t);
                stack.push(c);
            }
        }
        out
    }
}
