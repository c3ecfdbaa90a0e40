//! A telo network and search judged against the exact solution: on every position
//! reachable from the start that is not lost for the side to move, does the search
//! choose a move that keeps the position's value? (`fanorona oracle`.)

use crate::{Evaluator, Mcts, MctsConfig};
use fanorona_rules::RuleOptions;
use fanorona_rules::telo::{TeloPosition, TeloSolution, TeloValue};

/// What [`judge_telo`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TeloJudgement {
    /// Positions judged: reachable from the start, not over, not lost for the side to move.
    pub positions: usize,
    /// Of those, the positions where the search chose a value-preserving move.
    pub value_preserving: usize,
    /// Up to five of the others, as `FEN plays MOVE (value)`.
    pub mistakes: Vec<String>,
}

impl TeloJudgement {
    /// The share of judged positions played well, in [0, 1].
    pub fn share(&self) -> f64 {
        self.value_preserving as f64 / self.positions.max(1) as f64
    }
}

/// Every telo position reachable from the start under the default rules and not over,
/// with its draw clock at zero (the solver ignores the clock, and a position's clock
/// depends only on the path that reached it).
pub fn reachable_telo() -> Vec<TeloPosition> {
    let start = TeloPosition::start(RuleOptions::default());
    let mut seen = std::collections::HashSet::new();
    let mut queue = vec![start];
    let mut positions = Vec::new();
    seen.insert(start.hash());
    while let Some(p) = queue.pop() {
        if p.outcome().is_some() {
            continue;
        }
        positions.push(p);
        for m in p.moves() {
            let mut c = p;
            c.play_unchecked(m);
            if seen.insert(c.hash()) {
                queue.push(c);
            }
        }
    }
    positions
        .iter()
        .map(|p| {
            let board = p.fen();
            let mut f = board.split(' ');
            let fen = format!(
                "{} {} 0 {}",
                f.next().unwrap_or(""),
                f.next().unwrap_or("w"),
                p.ply()
            );
            TeloPosition::from_fen(&fen, RuleOptions::default()).expect("a FEN written here")
        })
        .collect()
}

/// MCTS with `eval` and `sims` simulations (default settings, no noise) on every
/// reachable telo position that is not lost, judged by `solution`.
pub fn judge_telo<E: Evaluator<TeloPosition>>(
    eval: &mut E,
    sims: u32,
    solution: &TeloSolution,
) -> TeloJudgement {
    let mut j = TeloJudgement::default();
    for p in reachable_telo() {
        if matches!(solution.value(&p), TeloValue::Loss(_)) {
            continue;
        }
        j.positions += 1;
        let mut tree = Mcts::new(p, MctsConfig::default(), 0);
        tree.run(eval, sims);
        let Some(action) = tree.choose(0.0) else {
            continue;
        };
        let m = fanorona_rules::game::telo_action_from_index(action).expect("a legal telo action");
        if solution.value_preserving_moves(&p).contains(&m) {
            j.value_preserving += 1;
        } else if j.mistakes.len() < 5 {
            j.mistakes.push(format!(
                "{} plays {} ({})",
                p.fen(),
                p.format_move(m),
                solution.value(&p)
            ));
        }
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::UniformEvaluator;

    #[test]
    fn a_search_with_enough_simulations_keeps_the_value_of_most_positions() {
        let solution = TeloSolution::solve();
        let all = reachable_telo();
        assert!(all.iter().all(|p| p.outcome().is_none()));
        assert!(all.iter().all(|p| p.fen().split(' ').nth(2) == Some("0")));
        let weak = judge_telo(&mut UniformEvaluator::default(), 1, &solution);
        let strong = judge_telo(&mut UniformEvaluator::default(), 400, &solution);
        assert_eq!(weak.positions, strong.positions);
        assert!(weak.positions > 0 && weak.positions <= all.len());
        assert!(
            strong.value_preserving > weak.value_preserving,
            "{strong:?} against {weak:?}"
        );
        assert!(weak.mistakes.len() <= 5);
    }
}
