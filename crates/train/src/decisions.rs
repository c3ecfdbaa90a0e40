//! An engine's turns as the network's samples: each step of the turn a search chose is a
//! decision whose policy target is that step, and whose value target, once the game is
//! over, is the game's result mixed with the search's score. The warm start
//! ([`crate::bootstrap`]) and the zero-knowledge run's games ([`crate::tree`]) both learn
//! the network this way.

use crate::records::{Sample, ownership_targets};
use fanorona_rules::game::action_index;
use fanorona_rules::{Color, Outcome, Position, Turn};
use fanorona_search::{BlendConfig, score_wdl, wdl_index};
use fanorona_sim::{Encode, frame_action, num_planes};

/// A decision waiting for its game's result.
#[derive(Clone, Debug)]
pub(crate) struct Decision {
    planes: Vec<f32>,
    /// The policy target, in the mover's frame.
    policy: Vec<(u16, f32)>,
    mover: Color,
    /// The search's score for the mover.
    score: i32,
}

/// The decisions of `turn` played at `pos`, one a step, each with the search's `score`
/// of `pos` (the mover does not change inside a turn), appended to `out`.
pub(crate) fn turn_decisions(pos: &Position, turn: &Turn, score: i32, out: &mut Vec<Decision>) {
    let variant = pos.variant();
    let per = num_planes(variant) * variant.points();
    let mut step = *pos;
    for a in pos.turn_actions(turn) {
        let mover = step.side_to_move();
        let mut planes = vec![0.0; per];
        step.encode(&mut planes);
        let policy = vec![(
            frame_action(variant, mover, action_index(variant.points(), a)) as u16,
            1.0,
        )];
        out.push(Decision {
            planes,
            policy,
            mover,
            score,
        });
        step.play_action_unchecked(a);
    }
}

/// The samples of a game's `decisions` once it ended in `outcome` at `last`: the value
/// target is `(1 - score_weight)` x the result for the mover plus `score_weight` x the
/// search's score as win/draw/loss (the blend's scale: 150 hundredths of a piece a 73 %
/// win); the ownership target is `last`.
pub(crate) fn samples(
    decisions: Vec<Decision>,
    outcome: Outcome,
    last: &Position,
    score_weight: f32,
) -> Vec<Sample> {
    let scale = BlendConfig::default().scale;
    let ownership = ownership_targets(last);
    decisions
        .into_iter()
        .map(|d| {
            let mut wdl = [0.0; 3];
            wdl[wdl_index(outcome, d.mover)] = 1.0;
            if score_weight > 0.0 {
                let engine = score_wdl(d.score, scale);
                for (x, y) in wdl.iter_mut().zip(engine) {
                    *x = (1.0 - score_weight) * *x + score_weight * y;
                }
            }
            Sample {
                planes: d.planes,
                policy: d.policy,
                wdl,
                ownership: ownership(d.mover),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_rules::{Game, RuleOptions, TurnMode, Variant};

    #[test]
    fn a_chain_is_a_decision_a_step_valued_by_result_and_score() {
        // Play until some side has a turn of two steps or more (a chain).
        let mut pos = Position::start(Variant::Dimy, RuleOptions::default());
        let mut found = None;
        for _ in 0..200 {
            let turns = pos.turns(TurnMode::Distinct);
            assert!(!turns.is_empty(), "the game ended before a chain");
            if let Some(t) = turns.iter().find(|t| pos.turn_actions(t).len() > 1) {
                found = Some((pos, *t));
                break;
            }
            pos.play_unchecked(&turns[0]);
        }
        let (chain_pos, chain) = found.expect("a chain within 200 turns");
        let mut d = Vec::new();
        turn_decisions(&chain_pos, &chain, 150, &mut d);
        let steps = chain_pos.turn_actions(&chain);
        assert_eq!(d.len(), steps.len());
        // The first decision's target is the turn's first step, in the mover's frame.
        let mover = chain_pos.side_to_move();
        let (v, points) = (Variant::Dimy, Variant::Dimy.points());
        let first = frame_action(v, mover, action_index(points, steps[0]));
        assert_eq!(d[0].policy, vec![(first as u16, 1.0)]);
        let mut legal = Vec::new();
        chain_pos.legal_actions(&mut legal);
        assert!(legal.contains(&action_index(points, steps[0])));
        assert!(d.iter().all(|x| x.mover == mover && x.score == 150));
        // Won by the mover: all result at weight 0; half the score's 73 % at weight 0.5.
        let won = samples(d.clone(), Outcome::Win(mover), &chain_pos, 0.0);
        assert!(won.iter().all(|s| s.wdl == [1.0, 0.0, 0.0]));
        let mixed = samples(d, Outcome::Win(mover.other()), &chain_pos, 0.5);
        let w = score_wdl(150, BlendConfig::default().scale);
        for s in &mixed {
            assert!((s.wdl[0] - 0.5 * w[0]).abs() < 1e-6, "{:?}", s.wdl);
            assert!((s.wdl[2] - (0.5 + 0.5 * w[2])).abs() < 1e-6, "{:?}", s.wdl);
            assert!((s.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            assert_eq!(s.ownership.len(), Variant::Dimy.points());
        }
    }
}
