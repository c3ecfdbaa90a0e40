//! A tactical guard for a search over steps: the turns a shallow alpha-beta search does
//! not see losing material, as the only ones the search may choose from.
//!
//! MCTS over single steps with a few hundred simulations reaches a turn or two deep, and a
//! network's value does not always see that a greedy chain leaves a reply that takes
//! more back. Before each turn, [`TurnGuard`] scores every legal turn with an alpha-beta
//! search of `depth - 1` turns below it (quiescence on top) and keeps those within
//! `margin` of the best; the step search then chooses among the kept turns only (see
//! [`crate::Mcts::restrict_root`]). The network still decides between the sound turns.
//!
//! The guard needs which turns are within the margin, not their scores: after the
//! likeliest best turn is scored exactly, each other turn asks null-window questions (does
//! it beat the best? does it reach the floor?), as a principal-variation search asks at
//! its root. On tsivy positions at 6 and 8 turns that is 2.5 times faster than scoring
//! every turn exactly ([`TurnGuard::score_turns`], kept as the reference the tests hold
//! the fast judgement to), about one turn deeper on a clock.

use crate::ab::{AbConfig, AlphaBeta, INF, Limits};
use fanorona_eval::{LearnedEval, MATE};
use fanorona_rules::game::action_index;
use fanorona_rules::{Color, History, Outcome, Position, Turn, TurnMode};
use fanorona_tb::Tablebase;
use std::collections::HashMap;
use std::sync::Arc;
use web_time::Instant;

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
    last_depth: u32,
}

/// A position after one of the guarded turns, and what the passes learned of its score.
#[derive(Debug)]
struct Child {
    key: u64,
    game: History,
    /// The turn's score when it ends the game.
    over: Option<i32>,
    /// Bounds of the turn's score (for the side that plays it) from the last pass.
    low: i32,
    high: i32,
}

impl TurnGuard {
    /// A guard with its own engine (a small transposition table).
    pub fn new(cfg: GuardConfig) -> TurnGuard {
        TurnGuard {
            cfg,
            ab: AlphaBeta::new(AbConfig {
                hash_mb: 8,
                // The full-width search: the guard's bounds are exact at its depth.
                selective: false,
                ..AbConfig::default()
            }),
            last_depth: 0,
        }
    }

    /// A guard whose engine has a transposition table of `hash_mb` megabytes (at least
    /// 1), for many guards at once or a table cleared often.
    pub fn with_table(cfg: GuardConfig, hash_mb: usize) -> TurnGuard {
        TurnGuard {
            cfg,
            ab: AlphaBeta::new(AbConfig {
                hash_mb: hash_mb.max(1),
                selective: false,
                ..AbConfig::default()
            }),
            last_depth: 0,
        }
    }

    /// The same guard judging with a learned evaluation (see [`fanorona_eval::learned`]; `None`:
    /// the hand-written one), its table's size kept.
    pub fn with_learned(mut self, learned: Option<Arc<LearnedEval>>) -> TurnGuard {
        let cfg = AbConfig {
            learned,
            ..self.ab.config().clone()
        };
        self.ab = AlphaBeta::new(cfg);
        self
    }

    /// The same guard judging positions the endgame tables cover exactly (`None`: none).
    pub fn with_tables(mut self, tb: Option<Arc<Tablebase>>) -> TurnGuard {
        let cfg = AbConfig {
            tb,
            ..self.ab.config().clone()
        };
        self.ab = AlphaBeta::new(cfg);
        self
    }

    /// The settings.
    pub fn config(&self) -> &GuardConfig {
        &self.cfg
    }

    /// Every legal turn of `game`'s position with its score for the side to move (in
    /// hundredths of a piece, or a mate score), as step-level action indices in the
    /// order [`fanorona_rules::Position::turn_actions`] plays them. Turns that reach the
    /// same position (different paths of one capture) share one search. Slower than
    /// [`TurnGuard::sound_turns`], which keeps the same turns without scoring each.
    pub fn score_turns(&mut self, game: &History) -> Vec<(Vec<usize>, i32)> {
        let depth = self.cfg.depth;
        let pos = *game.position();
        let mut scored: HashMap<u64, i32> = HashMap::new();
        let mut out = Vec::new();
        let limits = Limits {
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
                    let s = match final_score(&after, pos.side_to_move()) {
                        Some(s) => s,
                        None => -self.ab.search(&after, &limits).score,
                    };
                    scored.insert(key, s);
                    s
                }
            };
            after.undo();
            out.push((step_actions(&pos, &turn), score));
        }
        out
    }

    /// The turns of `game`'s position within the margin of the best (at least one, unless
    /// there is no legal turn), as step-level action indices: the same turns as those of
    /// [`TurnGuard::score_turns`] within the margin, found faster (see
    /// [`TurnGuard::sound_turns_until`]).
    pub fn sound_turns(&mut self, game: &History) -> Vec<Vec<usize>> {
        self.sound_turns_to(game, None)
    }

    /// [`TurnGuard::sound_turns`] judged as deep as `deadline` allows: passes of 2, 3, ...
    /// up to the configured depth turns, the deepest completed pass deciding (the first,
    /// at 2 turns, always completes, so a short budget still gets a judgement). For a
    /// player on a clock, whose guard must not take the turn's whole time.
    pub fn sound_turns_until(&mut self, game: &History, deadline: Instant) -> Vec<Vec<usize>> {
        self.sound_turns_to(game, Some(deadline))
    }

    /// The depth in turns of the judgement the last [`TurnGuard::sound_turns_until`] (or
    /// [`TurnGuard::sound_turns`]) decided by; 0 when every legal turn reached one position.
    pub fn last_depth(&self) -> u32 {
        self.last_depth
    }

    fn sound_turns_to(&mut self, game: &History, deadline: Option<Instant>) -> Vec<Vec<usize>> {
        let pos = *game.position();
        // The turns, those reaching one position (paths of one capture) judged once.
        let mut after = game.clone();
        let mut children: Vec<Child> = Vec::new();
        let mut turns: Vec<(Vec<usize>, usize)> = Vec::new();
        for turn in pos.turns(TurnMode::Paths) {
            after.play_unchecked(&turn);
            let key = after.position().hash();
            let child = match children.iter().position(|c| c.key == key) {
                Some(i) => i,
                None => {
                    let over = final_score(&after, pos.side_to_move());
                    children.push(Child {
                        key,
                        game: after.clone(),
                        over,
                        low: -INF,
                        high: INF,
                    });
                    children.len() - 1
                }
            };
            after.undo();
            turns.push((step_actions(&pos, &turn), child));
        }
        if children.len() <= 1 {
            // Every legal turn reaches one position (or there is none): nothing to judge.
            self.last_depth = 0;
            return turns.into_iter().map(|(a, _)| a).collect();
        }
        // Passes of 2, 3, ... turns; each orders its turns by the last pass's bounds.
        let mut kept: Option<Vec<bool>> = None;
        for depth in 2.min(self.cfg.depth)..=self.cfg.depth {
            let limit = if kept.is_none() { None } else { deadline };
            match self.judge(&mut children, depth, limit) {
                Some(k) => {
                    kept = Some(k);
                    self.last_depth = depth;
                }
                None => break,
            }
        }
        let kept = kept.unwrap_or_default();
        turns
            .into_iter()
            .filter(|&(_, c)| kept.get(c).copied().unwrap_or(false))
            .map(|(a, _)| a)
            .collect()
    }

    /// One pass at `depth` turns: which of `children` (the positions after each turn)
    /// score within the margin of the best. The likeliest best is searched exactly first;
    /// every other turn asks only whether it beats the best (re-searched exactly when it
    /// does), then whether it reaches the margin's floor: null-window searches, far
    /// cheaper than an exact score each. `None` when `deadline` passed first.
    fn judge(
        &mut self,
        children: &mut [Child],
        depth: u32,
        deadline: Option<Instant>,
    ) -> Option<Vec<bool>> {
        // Best first by the last pass (a turn's lower bound, then its upper bound).
        let mut order: Vec<usize> = (0..children.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse((children[i].low, children[i].high)));
        let below = depth.saturating_sub(1).max(1);
        let mut best = -INF;
        for &i in &order {
            let c = &mut children[i];
            if let Some(s) = c.over {
                (c.low, c.high) = (s, s);
                best = best.max(s);
                continue;
            }
            if best > -INF {
                // Does the turn beat the best? (Scores are the turn's: negated child's.)
                let v = self
                    .ab
                    .search_window(&c.game, below, -best - 1, -best, deadline)?;
                if v >= -best {
                    (c.low, c.high) = (-INF, -v);
                    continue;
                }
            }
            let v = self.ab.search_window(&c.game, below, -INF, INF, deadline)?;
            (c.low, c.high) = (-v, -v);
            best = -v;
        }
        let floor = best.saturating_sub(self.cfg.margin);
        let mut kept = vec![false; children.len()];
        for &i in &order {
            let c = &mut children[i];
            if c.low < floor && c.high >= floor {
                // Does the turn reach the floor?
                let v = self
                    .ab
                    .search_window(&c.game, below, -floor, -floor + 1, deadline)?;
                if v <= -floor {
                    c.low = c.low.max(-v);
                } else {
                    c.high = c.high.min(-v);
                }
            }
            kept[i] = c.low >= floor;
        }
        Some(kept)
    }

    /// Forgets what the engine learned (a new game).
    pub fn new_game(&mut self) {
        self.ab.new_game();
    }
}

/// The score of a turn for `mover` when it ends the game (`after`: the game after it).
fn final_score(after: &History, mover: Color) -> Option<i32> {
    match after.outcome()? {
        Outcome::Win(c) if c == mover => Some(MATE - 1),
        Outcome::Win(_) => Some(-(MATE - 1)),
        Outcome::Draw => Some(0),
    }
}

/// The step-level action indices that play `turn` from `pos`.
fn step_actions(pos: &Position, turn: &Turn) -> Vec<usize> {
    let n = pos.variant().points();
    pos.turn_actions(turn)
        .into_iter()
        .map(|a| action_index(n, a))
        .collect()
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

/// A turn played one decision at a time under a guard: the sound turns of the position
/// it began in, as step actions (`None`: not judged, or no guard), and the actions played
/// since. The MCTS player and self-play keep each decision's root to it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GuardedTurn {
    sound: Option<Vec<Vec<usize>>>,
    played: Vec<usize>,
}

impl GuardedTurn {
    /// A turn beginning now, with the guard's judgement of its position (`None`: none).
    pub fn begin(sound: Option<Vec<Vec<usize>>>) -> GuardedTurn {
        GuardedTurn {
            sound,
            played: Vec::new(),
        }
    }

    /// The actions the guard allows next (`None`: not judged).
    pub fn allowed(&self) -> Option<Vec<usize>> {
        self.sound.as_ref().map(|t| next_actions(t, &self.played))
    }

    /// Keeps `tree`'s root to the actions the guard allows next.
    pub fn restrict<G: fanorona_rules::Game>(&self, tree: &mut crate::Mcts<G>) {
        if let Some(allowed) = self.allowed() {
            tree.restrict_root(&allowed);
        }
    }

    /// An action of the turn was played.
    pub fn play(&mut self, action: usize) {
        self.played.push(action);
    }
}

/// Whether two learned evaluations are the same one (both hand-written, or one file
/// read once).
pub(crate) fn same_eval(a: &Option<Arc<LearnedEval>>, b: &Option<Arc<LearnedEval>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        _ => false,
    }
}

/// A thread's searcher kept between calls, with the learned evaluation it was made with.
pub(crate) type Kept<T> = std::cell::RefCell<Option<(T, Option<Arc<LearnedEval>>)>>;

/// Runs `f` with the searcher `kept` holds, made by `make` first when there is none, or
/// when the one there does not `fit` or was made with another evaluation than `learned`.
pub(crate) fn with_kept<T, R>(
    kept: &Kept<T>,
    learned: &Option<Arc<LearnedEval>>,
    fits: impl FnOnce(&T) -> bool,
    make: impl FnOnce() -> T,
    f: impl FnOnce(&mut T) -> R,
) -> R {
    let mut slot = kept.borrow_mut();
    let t = match &mut *slot {
        Some((t, l)) if fits(t) && same_eval(l, learned) => t,
        _ => &mut slot.insert((make(), learned.clone())).0,
    };
    f(t)
}

thread_local! {
    /// Each thread's guard ([`with_thread_guard`]).
    static GUARD: Kept<TurnGuard> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's guard for `cfg` and `learned`, made (with a 2 MiB table)
/// on first use and again when either changes: what searches spread over threads (self-
/// play's games) judge with, each thread keeping its own.
pub fn with_thread_guard<R>(
    cfg: GuardConfig,
    learned: &Option<Arc<LearnedEval>>,
    f: impl FnOnce(&mut TurnGuard) -> R,
) -> R {
    GUARD.with(|kept| {
        with_kept(
            kept,
            learned,
            |g| *g.config() == cfg,
            || TurnGuard::with_table(cfg, 2).with_learned(learned.clone()),
            f,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_rules::game::action_from_index;
    use fanorona_rules::{RuleOptions, Variant};

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

    /// The null-window passes keep exactly the turns whose exact scores are within the
    /// margin: random game positions of both boards, several depths and margins, each
    /// against a fresh guard scoring every turn exactly.
    #[test]
    fn the_fast_judgement_keeps_what_exact_scores_keep() {
        use rand::rngs::SmallRng;
        use rand::{RngExt, SeedableRng};
        let mut rng = SmallRng::seed_from_u64(7);
        let mut checked = 0;
        for variant in [Variant::Dimy, Variant::Tsivy] {
            for _ in 0..25 {
                let mut game = History::new(Position::start(variant, RuleOptions::default()));
                let plies = rng.random_range(0..30);
                for _ in 0..plies {
                    let turns = game.position().turns(TurnMode::Distinct);
                    if turns.is_empty() || game.outcome().is_some() {
                        break;
                    }
                    let t = turns[rng.random_range(0..turns.len())];
                    game.play_unchecked(&t);
                }
                if game.outcome().is_some() {
                    continue;
                }
                for (depth, margin) in [(2, 0), (3, 50), (4, 0), (5, 100)] {
                    let cfg = GuardConfig { depth, margin };
                    let scored = TurnGuard::new(cfg).score_turns(&game);
                    let best = scored.iter().map(|s| s.1).max().unwrap();
                    let mut exact: Vec<_> = scored
                        .into_iter()
                        .filter(|s| s.1 >= best - margin)
                        .map(|s| s.0)
                        .collect();
                    let mut g = TurnGuard::new(cfg);
                    let mut fast = g.sound_turns(&game);
                    exact.sort();
                    fast.sort();
                    assert_eq!(
                        fast,
                        exact,
                        "{} depth {depth} margin {margin}",
                        game.position().fen()
                    );
                    let one = game.position().turns(TurnMode::Distinct).len() == 1;
                    assert_eq!(g.last_depth(), if one { 0 } else { depth });
                    checked += 1;
                }
            }
        }
        assert!(checked >= 100, "{checked} judgements");
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

    /// A position whose legal turns all reach one position (paths of one capture, or a
    /// single turn) is not searched: every turn is kept, at depth 0.
    #[test]
    fn a_position_with_one_outcome_is_not_searched() {
        use rand::rngs::SmallRng;
        use rand::{RngExt, SeedableRng};
        let mut rng = SmallRng::seed_from_u64(11);
        let mut forced = 0;
        for _ in 0..400 {
            let mut game = History::new(Position::start(Variant::Dimy, RuleOptions::default()));
            for _ in 0..rng.random_range(0..30) {
                let turns = game.position().turns(TurnMode::Distinct);
                if turns.is_empty() || game.outcome().is_some() {
                    break;
                }
                let t = turns[rng.random_range(0..turns.len())];
                game.play_unchecked(&t);
            }
            let pos = *game.position();
            if game.outcome().is_some() || pos.turns(TurnMode::Distinct).len() != 1 {
                continue;
            }
            let all: Vec<Vec<usize>> = pos
                .turns(TurnMode::Paths)
                .iter()
                .map(|t| step_actions(&pos, t))
                .collect();
            let mut g = TurnGuard::new(GuardConfig {
                depth: 6,
                margin: 0,
            });
            assert_eq!(g.sound_turns(&game), all, "{}", pos.fen());
            assert_eq!(g.last_depth(), 0, "{}", pos.fen());
            forced += 1;
        }
        assert!(forced >= 3, "{forced} positions with one outcome");
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
