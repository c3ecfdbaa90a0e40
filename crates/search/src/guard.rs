//! A tactical guard for a search over steps: the turns a shallow alpha-beta search does
//! not see losing material, as the only ones the search may choose from.
//!
//! MCTS over single steps with a few hundred simulations reaches a turn or two deep, and a
//! network's value does not always see that a greedy chain leaves a reply that takes
//! more back. Before each turn, [`TurnGuard`] scores every legal turn with an alpha-beta
//! search of `depth - 1` turns below it (quiescence on top) and keeps those within
//! `margin` of the best; the step search then chooses among the kept turns only (see
//! [`crate::Mcts::restrict_root`]). The network still decides between the sound turns.

use crate::ab::{AbConfig, AlphaBeta, Limits, MATE};
use fanorona_rules::game::action_index;
use fanorona_rules::{History, Outcome, TurnMode};
use std::collections::HashMap;
use std::time::Instant;

/// Settings of [`TurnGuard`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuardConfig {
    /// Depth in turns of the judgement, the guarded turn included (4 judges as
    /// `ab:depth=4` does; the least is 2: the turn and one reply, quiescence on top).
    pub depth: u32,
    /// Hundredths of a piece a kept turn may score below the best turn.
    pub margin: i32,
}

impl Default for GuardConfig {
    fn default() -> Self {
        GuardConfig {
            depth: 4,
            margin: 50,
        }
    }
}

/// Judges the turns of a position with alpha-beta and keeps the sound ones.
#[derive(Debug)]
pub struct TurnGuard {
    cfg: GuardConfig,
    ab: AlphaBeta,
}

impl TurnGuard {
    /// A guard with its own engine (a small transposition table).
    pub fn new(cfg: GuardConfig) -> TurnGuard {
        TurnGuard {
            cfg,
            ab: AlphaBeta::new(AbConfig {
                hash_mb: 8,
                ..AbConfig::default()
            }),
        }
    }

    /// A guard whose engine has a transposition table of `hash_mb` megabytes (at least
    /// 1), for many guards at once or a table cleared often.
    pub fn with_table(cfg: GuardConfig, hash_mb: usize) -> TurnGuard {
        TurnGuard {
            cfg,
            ab: AlphaBeta::new(AbConfig {
                hash_mb: hash_mb.max(1),
                ..AbConfig::default()
            }),
        }
    }

    /// The settings.
    pub fn config(&self) -> &GuardConfig {
        &self.cfg
    }

    /// Every legal turn of `game`'s position with its score for the side to move (in
    /// hundredths of a piece, or a mate score), as step-level action indices in the
    /// order [`fanorona_rules::Position::turn_actions`] plays them. Turns that reach the
    /// same position (different paths of one capture) share one search.
    pub fn score_turns(&mut self, game: &History) -> Vec<(Vec<usize>, i32)> {
        let depth = self.cfg.depth;
        self.score_turns_to(game, depth, None)
            .expect("a pass without a deadline always completes")
    }

    /// [`TurnGuard::score_turns`] at `depth` turns; `None` when `deadline` passed before
    /// every turn was scored (a pass cut short judges some turns less deeply than others).
    fn score_turns_to(
        &mut self,
        game: &History,
        depth: u32,
        deadline: Option<Instant>,
    ) -> Option<Vec<(Vec<usize>, i32)>> {
        let pos = *game.position();
        let n = pos.variant().points();
        let mut scored: HashMap<u64, i32> = HashMap::new();
        let mut out = Vec::new();
        let mut limits = Limits {
            depth: Some(depth.saturating_sub(1).max(1)),
            ..Limits::default()
        };
        // One copy of the game, each turn played and taken back on it.
        let mut after = game.clone();
        for turn in pos.turns(TurnMode::Paths) {
            after.play_unchecked(&turn);
            let key = after.position().hash();
            let score = match scored.get(&key) {
                Some(&s) => s,
                None => {
                    let s = match after.outcome() {
                        Some(Outcome::Win(c)) if c == pos.side_to_move() => MATE - 1,
                        Some(Outcome::Win(_)) => -(MATE - 1),
                        Some(Outcome::Draw) => 0,
                        None => {
                            if let Some(d) = deadline {
                                let left = d.saturating_duration_since(Instant::now());
                                if left.is_zero() {
                                    return None;
                                }
                                limits.time = Some(left);
                            }
                            let s = -self.ab.search(&after, &limits).score;
                            if deadline.is_some_and(|d| Instant::now() >= d) {
                                return None;
                            }
                            s
                        }
                    };
                    scored.insert(key, s);
                    s
                }
            };
            after.undo();
            let actions = pos
                .turn_actions(&turn)
                .into_iter()
                .map(|a| action_index(n, a))
                .collect();
            out.push((actions, score));
        }
        Some(out)
    }

    /// The turns of `game`'s position within the margin of the best (at least one, unless
    /// there is no legal turn), as step-level action indices.
    pub fn sound_turns(&mut self, game: &History) -> Vec<Vec<usize>> {
        let scored = self.score_turns(game);
        self.within_margin(scored)
    }

    /// [`TurnGuard::sound_turns`] judged as deep as `deadline` allows: passes of 2, 3, ...
    /// up to the configured depth turns, the deepest completed pass deciding (the first,
    /// at 2 turns, always completes, so a short budget still gets a judgement; the
    /// transposition table carries each pass into the next). For a player on a clock,
    /// whose guard must not take the turn's whole time.
    pub fn sound_turns_until(&mut self, game: &History, deadline: Instant) -> Vec<Vec<usize>> {
        let mut scored = self
            .score_turns_to(game, 2.min(self.cfg.depth), None)
            .expect("a pass without a deadline always completes");
        for depth in 3..=self.cfg.depth {
            match self.score_turns_to(game, depth, Some(deadline)) {
                Some(s) => scored = s,
                None => break,
            }
        }
        self.within_margin(scored)
    }

    /// The turns of `scored` within the margin of the best.
    fn within_margin(&self, scored: Vec<(Vec<usize>, i32)>) -> Vec<Vec<usize>> {
        let Some(best) = scored.iter().map(|&(_, s)| s).max() else {
            return Vec::new();
        };
        let floor = best.saturating_sub(self.cfg.margin);
        scored
            .into_iter()
            .filter(|&(_, s)| s >= floor)
            .map(|(a, _)| a)
            .collect()
    }

    /// Forgets what the engine learned (a new game).
    pub fn new_game(&mut self) {
        self.ab.new_game();
    }
}

/// The actions that go on from `played` (the actions of the turn so far) along one of
/// `turns`, deduplicated, in first-seen order. Empty when no turn extends `played`.
pub fn next_actions(turns: &[Vec<usize>], played: &[usize]) -> Vec<usize> {
    let mut out = Vec::new();
    for t in turns {
        if t.len() > played.len() && t.starts_with(played) && !out.contains(&t[played.len()]) {
            out.push(t[played.len()]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_rules::game::action_from_index;
    use fanorona_rules::{Position, RuleOptions, Variant};

    #[test]
    fn every_turn_is_scored_and_the_best_is_kept() {
        let pos = Position::start(Variant::Dimy, RuleOptions::default());
        let game = History::new(pos);
        let mut g = TurnGuard::new(GuardConfig {
            depth: 2,
            margin: 0,
        });
        let scored = g.score_turns(&game);
        assert_eq!(scored.len(), pos.turns(TurnMode::Paths).len());
        // Each action sequence is a whole legal turn.
        for (actions, _) in &scored {
            let steps: Vec<_> = actions
                .iter()
                .map(|&i| action_from_index(pos.variant().points(), i).unwrap())
                .collect();
            assert!(pos.turn_of_actions(&steps).is_some());
        }
        let best = scored.iter().map(|s| s.1).max().unwrap();
        let kept = g.sound_turns(&game);
        assert!(!kept.is_empty());
        for k in &kept {
            let s = scored.iter().find(|(a, _)| a == k).unwrap().1;
            assert_eq!(s, best);
        }
        // A wide margin keeps them all.
        let mut wide = TurnGuard::new(GuardConfig {
            depth: 2,
            margin: 100_000,
        });
        assert_eq!(wide.sound_turns(&game).len(), scored.len());
    }

    #[test]
    fn a_guard_on_a_clock_judges_as_deep_as_its_time_allows() {
        let fen = "BBBB1/B1B2/BW1B1/WBW2/WWWW1 w 0 4";
        let pos = Position::from_fen(fen, RuleOptions::default()).unwrap();
        let game = History::new(pos);
        let cfg = |depth| GuardConfig { depth, margin: 0 };
        let sorted = |mut v: Vec<Vec<usize>>| {
            v.sort();
            v
        };
        let at2 = sorted(TurnGuard::new(cfg(2)).sound_turns(&game));
        let at4 = sorted(TurnGuard::new(cfg(4)).sound_turns(&game));
        // No time: the 2-turn pass alone, which always completes.
        let past = Instant::now();
        let hurried = sorted(TurnGuard::new(cfg(4)).sound_turns_until(&game, past));
        assert_eq!(hurried, at2);
        assert_ne!(at2, at4, "the position should tell the depths apart");
        // Time to spare: the full depth.
        let later = Instant::now() + std::time::Duration::from_secs(600);
        let patient = sorted(TurnGuard::new(cfg(4)).sound_turns_until(&game, later));
        assert_eq!(patient, at4);
    }

    #[test]
    fn scores_agree_with_the_engine_one_turn_deeper() {
        // The guard's best score at depth d is the engine's root score at depth d.
        let fen = "BBBB1/B1B2/BW1B1/WBW2/WWWW1 w 0 4";
        let pos = Position::from_fen(fen, RuleOptions::default()).unwrap();
        let game = History::new(pos);
        for depth in 2..=4 {
            let mut g = TurnGuard::new(GuardConfig { depth, margin: 0 });
            let best = g.score_turns(&game).iter().map(|s| s.1).max().unwrap();
            let mut ab = AlphaBeta::new(AbConfig::default());
            let r = ab.search(
                &game,
                &Limits {
                    depth: Some(depth),
                    ..Limits::default()
                },
            );
            assert_eq!(best, r.score, "depth {depth}");
        }
    }

    #[test]
    fn next_actions_follow_the_prefix() {
        let turns = vec![vec![1, 2, 3], vec![1, 4], vec![5], vec![1, 2, 6]];
        assert_eq!(next_actions(&turns, &[]), vec![1, 5]);
        assert_eq!(next_actions(&turns, &[1]), vec![2, 4]);
        assert_eq!(next_actions(&turns, &[1, 2]), vec![3, 6]);
        assert!(next_actions(&turns, &[1, 4]).is_empty());
        assert!(next_actions(&turns, &[7]).is_empty());
    }
}
