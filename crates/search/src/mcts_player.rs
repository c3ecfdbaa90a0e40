//! The MCTS player over any evaluator (the network in `fanorona-nn`, the uniform or
//! rollout evaluators in tests): whole turns chosen one step at a time, within a budget of
//! simulations or time ([`Mcts::run_budget`], the one timed loop).

use crate::{AbBlend, BlendConfig, Choice, GuardConfig, LearnedEval, Limits};
use crate::{Evaluator, GuardedTurn, Mcts, MctsConfig, Oracle, Player, SearchResult, TurnGuard};
use fanorona_rules::game::{action_from_index, action_index};
use fanorona_rules::telo::TeloPosition;
use fanorona_rules::{Game, History, Position};
use fanorona_tb::{Tablebase, Wdl};
use std::sync::Arc;
use web_time::Instant;

/// The most of a timed turn the guard may spend deepening its judgement (its 2-turn pass
/// always completes): the rest is the network's. At 50 ms a turn a fixed 8-turn tsivy
/// guard took 64 ms a turn on average (experiments/search9).
pub const GUARD_TIME_SHARE: f64 = 0.5;

/// Plays Fanorona turns with MCTS guided by an evaluator (a network): every step of a turn (and the
/// choice to end a chain) is a search; the tree is reused between the steps of one turn,
/// and with [`MctsPlayer::with_reuse`] from one turn to the next.
#[derive(Debug)]
pub struct MctsPlayer<E> {
    /// The evaluator, with its values mixed with alpha-beta's when [`MctsPlayer::with_blend`]
    /// asked for it (weight 0 otherwise: the network alone).
    eval: AbBlend<E>,
    cfg: MctsConfig,
    budget: Limits,
    name: String,
    seed: u64,
    /// Keep the tree from one turn to the next (the subtree of the opponent's reply).
    reuse: bool,
    /// The tree after this player's last turn, when `reuse`.
    tree: Option<Mcts<Position>>,
    /// With [`MctsPlayer::with_guard`]: the search chooses among the turns a shallow
    /// alpha-beta search finds sound.
    guard: Option<TurnGuard>,
    /// The learned evaluation of the guard's and the blend's alpha-beta searches
    /// ([`MctsPlayer::with_ab_eval`]).
    ab_eval: Option<Arc<LearnedEval>>,
    /// With [`MctsPlayer::with_tables`]: endgame tables.
    tables: Option<Arc<Tablebase>>,
    /// The side's clock for the next turn ([`Player::set_clock`]).
    clock: Option<crate::ClockState>,
}

impl<E: Evaluator<Position>> MctsPlayer<E> {
    /// A player that searches within `budget` (`Limits::sims(n)`: `n` simulations a
    /// decision).
    pub fn new(
        eval: E,
        cfg: MctsConfig,
        budget: Limits,
        name: impl Into<String>,
        seed: u64,
    ) -> MctsPlayer<E> {
        MctsPlayer {
            eval: AbBlend::new(
                eval,
                BlendConfig {
                    weight: 0.0,
                    ..BlendConfig::default()
                },
            ),
            cfg,
            budget,
            name: name.into(),
            seed,
            reuse: false,
            tree: None,
            guard: None,
            ab_eval: None,
            tables: None,
            clock: None,
        }
    }

    /// The same player choosing only among the turns that an alpha-beta search of
    /// `guard.depth` turns scores within `guard.margin` of the best (see [`TurnGuard`]):
    /// the network decides between sound turns, the search keeps it from tactical
    /// blunders (default off).
    pub fn with_guard(mut self, guard: Option<GuardConfig>) -> MctsPlayer<E> {
        let learned = self.ab_eval.clone();
        let tb = self.tables.clone();
        self.guard = guard.map(|g| {
            TurnGuard::new(g)
                .with_learned(learned.clone())
                .with_tables(tb.clone())
        });
        self
    }

    /// The same player whose alpha-beta searches (the guard's and the blend's) evaluate
    /// with a learned evaluation (see [`fanorona_eval::learned`]), whichever of
    /// [`MctsPlayer::with_guard`] and [`MctsPlayer::with_blend`] came first.
    pub fn with_ab_eval(mut self, learned: Option<Arc<LearnedEval>>) -> MctsPlayer<E> {
        self.ab_eval = learned.clone();
        self.guard = self.guard.take().map(|g| g.with_learned(learned.clone()));
        self.eval = self.eval.with_learned(learned);
        self
    }

    /// The same player with endgame tables: at a position they cover it plays their turn
    /// (the fastest safe win, the longest defence, a drawing turn) without a search; below
    /// the root its trees take their exact values instead of the network's (and with
    /// `MctsConfig::solver` prove the positions above), and the guard's and the blend's
    /// alpha-beta searches score covered positions exactly, whichever of them came first.
    pub fn with_tables(mut self, tb: Option<Arc<Tablebase>>) -> MctsPlayer<E> {
        self.guard = self.guard.take().map(|g| g.with_tables(tb.clone()));
        self.eval = self.eval.with_tables(tb.clone());
        self.tables = tb;
        self
    }

    /// A new tree at `pos` (with the tables' values, if any).
    fn new_tree(&mut self, pos: Position) -> Mcts<Position> {
        self.seed = self.seed.wrapping_add(1);
        let oracle = self.tables.clone().map(|t| t as Arc<dyn Oracle<Position>>);
        Mcts::new(pos, self.cfg, self.seed).with_oracle(oracle)
    }

    /// The same player keeping its tree from one turn to the next: the subtree of the
    /// opponent's reply becomes the next search's root, with its visits, as AlphaZero and
    /// KataGo reuse it; the simulations of a decision are added to those (default off).
    pub fn with_reuse(mut self, reuse: bool) -> MctsPlayer<E> {
        self.reuse = reuse;
        self
    }

    /// The same player with its leaf values mixed with a shallow alpha-beta search's
    /// (see [`AbBlend`]).
    pub fn with_blend(mut self, blend: BlendConfig) -> MctsPlayer<E> {
        self.eval = AbBlend::new(self.eval.inner, blend)
            .with_learned(self.ab_eval.clone())
            .with_tables(self.tables.clone());
        self
    }

    /// The actions of one turn chosen by search from `pos`, and the tree's root value for
    /// the first decision (WDL for the side to move).
    pub fn choose_actions(&mut self, pos: &Position) -> (Vec<usize>, [f32; 3]) {
        let start = Instant::now();
        let tree = self.new_tree(*pos);
        let sound = self.guard_turns(&History::new(*pos), start);
        let (a, v, _, _) = self.search_turn(tree, sound, start);
        (a, v)
    }

    /// The guard's sound turns of `game`'s position (`None`: no guard). On a clock the
    /// guard judges as deep as [`GUARD_TIME_SHARE`] of the turn's time allows, up to its
    /// depth; without one, at its depth.
    fn guard_turns(&mut self, game: &History, started: Instant) -> Option<Vec<Vec<usize>>> {
        let g = self.guard.as_mut()?;
        Some(match self.budget.time {
            Some(t) => g.sound_turns_until(game, started + t.mul_f64(GUARD_TIME_SHARE)),
            None => g.sound_turns(game),
        })
    }

    /// The tree to search `game`'s position with: the kept one, moved on through the
    /// opponent's last turn, when it leads there; else a new one.
    fn tree_for(&mut self, game: &History) -> Mcts<Position> {
        let pos = *game.position();
        if let (Some(mut tree), Some(turn)) = (self.tree.take(), game.turns().last()) {
            let before = game.position_at(game.turns().len() - 1);
            if tree.root_game() == before {
                let n = pos.variant().points();
                for a in before.turn_actions(turn) {
                    tree.advance(action_index(n, a));
                }
                if *tree.root_game() == pos {
                    return tree;
                }
            }
        }
        self.new_tree(pos)
    }

    /// Searches one decision: its simulations, or with a time budget until `deadline`
    /// ([`Mcts::run_budget`]).
    fn search_decision(&mut self, tree: &mut Mcts<Position>, deadline: Option<Instant>) {
        tree.run_budget(&mut self.eval, self.budget.simulations(), deadline);
    }

    /// Searches one turn from `tree`'s root, along one of `sound` (the guard's turns as
    /// action indices) when given, with a time budget counted from `started` (the guard's
    /// time included): its actions, the root value of the first decision, the simulations
    /// run, and the tree after the turn.
    fn search_turn(
        &mut self,
        mut tree: Mcts<Position>,
        sound: Option<Vec<Vec<usize>>>,
        started: Instant,
    ) -> (Vec<usize>, [f32; 3], u64, Mcts<Position>) {
        let pos = *tree.root_game();
        let mut sims = 0u64;
        let mut actions = Vec::new();
        let mut value = [0.0, 1.0, 0.0];
        let side = pos.to_move();
        let mut guarded = GuardedTurn::begin(sound);
        let turn_end = self.budget.time.map(|t| started + t);
        loop {
            // A turn without a capture is one decision and takes the whole budget; in a
            // chain each decision takes half of what is left (the tree's reuse carries
            // the first search into the later ones).
            let deadline = turn_end.map(|end| {
                let now = Instant::now();
                let left = end.saturating_duration_since(now);
                if pos.has_capture() {
                    now + left / 2
                } else {
                    end
                }
            });
            guarded.restrict(&mut tree);
            let before = tree.visits();
            self.search_decision(&mut tree, deadline);
            sims += (tree.visits() - before) as u64;
            if actions.is_empty() {
                value = tree.value();
            }
            let Some(a) = tree.choose(0.0) else { break };
            actions.push(a);
            guarded.play(a);
            tree.advance(a);
            let g = tree.root_game();
            if g.to_move() != side || g.chain().is_none() || g.outcome().is_some() {
                break;
            }
        }
        (actions, value, sims, tree)
    }
}

/// A telo position searched within `budget` (telo's turns are single decisions): the
/// action chosen, the root's win/draw/loss for the side to move, and the simulations run.
pub fn search_telo<E: Evaluator<TeloPosition>>(
    mut eval: E,
    cfg: MctsConfig,
    budget: Limits,
    seed: u64,
    pos: &TeloPosition,
) -> (Option<usize>, [f32; 3], u32) {
    let mut tree = Mcts::new(*pos, cfg, seed);
    tree.run_budget(
        &mut eval,
        budget.simulations(),
        budget.time.map(|t| Instant::now() + t),
    );
    (tree.choose(0.0), tree.value(), tree.visits())
}

impl<E: Evaluator<Position> + Send> Player for MctsPlayer<E> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn new_game(&mut self) {
        if let Some(g) = &mut self.guard {
            g.new_game();
        }
    }
    fn choose(&mut self, game: &History) -> Choice {
        // On a clock the turn's time is the time manager's share, within the player's own.
        let own = self.budget;
        if let Some(c) = self.clock {
            self.budget.time = Some(c.cap(own.time));
        }
        let choice = self.choose_within_budget(game);
        self.budget = own;
        choice
    }
    fn set_clock(&mut self, clock: Option<crate::ClockState>) {
        self.clock = clock;
    }
}

impl<E: Evaluator<Position> + Send> MctsPlayer<E> {
    /// [`Player::choose`] within `self.budget`.
    fn choose_within_budget(&mut self, game: &History) -> Choice {
        let pos = *game.position();
        let start = Instant::now();
        if let Some(p) = self.tables.as_ref().and_then(|t| t.probe(&pos))
            && let Some(best) = p.best
        {
            self.tree = None;
            let score = match p.wdl {
                Wdl::Win => 100,
                Wdl::Draw => 0,
                Wdl::Loss => -100,
            };
            return Choice {
                turn: Some(best),
                search: Some(SearchResult {
                    best: Some(best),
                    score,
                    pv: vec![best],
                    depth: 0,
                    nodes: 0,
                    seconds: start.elapsed().as_secs_f64(),
                }),
            };
        }
        let tree = if self.reuse {
            self.tree_for(game)
        } else {
            self.new_tree(pos)
        };
        let sound = self.guard_turns(game, start);
        let (actions, value, sims, tree) = self.search_turn(tree, sound, start);
        if self.reuse {
            self.tree = Some(tree);
        }
        // The turn these step actions play (an early end of a chain included).
        let n = pos.variant().points();
        let steps: Option<Vec<_>> = actions.iter().map(|&i| action_from_index(n, i)).collect();
        let turn = steps.and_then(|s| pos.turn_of_actions(&s));
        // The score on the engine's scale: 100 x (win - loss) expectation of the root.
        let score = ((value[0] - value[2]) * 100.0).round() as i32;
        let search = SearchResult {
            best: turn,
            score,
            pv: turn.into_iter().collect(),
            depth: 0,
            nodes: sims,
            seconds: start.elapsed().as_secs_f64(),
        };
        Choice {
            turn,
            search: Some(search),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::UniformEvaluator;
    use fanorona_rules::{RuleOptions, TurnMode, Variant};

    fn player(reuse: bool) -> MctsPlayer<UniformEvaluator> {
        MctsPlayer::new(
            UniformEvaluator::default(),
            MctsConfig::default(),
            Limits::sims(64),
            "mcts",
            1,
        )
        .with_reuse(reuse)
    }

    /// On a clock the search takes the time manager's share when it is shorter than the
    /// player's own time a turn, and a simulation cap still binds.
    #[test]
    fn on_a_clock_the_search_takes_the_time_managers_share() {
        use crate::ClockState;
        use std::time::{Duration, Instant};
        let mut p = MctsPlayer::new(
            UniformEvaluator::default(),
            MctsConfig::default(),
            Limits {
                time: Some(Duration::from_secs(30)),
                ..Limits::default()
            },
            "mcts",
            1,
        );
        let game = History::new(Position::start(Variant::Dimy, RuleOptions::default()));
        // 2 s left: a 40th, 50 ms, rather than its own 30 s (a capture's first step takes
        // half of it when the chain may go on).
        p.set_clock(Some(ClockState {
            left: Duration::from_secs(2),
            increment: Duration::ZERO,
            turns_played: 0,
            moves_to_go: None,
        }));
        let t = Instant::now();
        let c = p.choose(&game);
        let took = t.elapsed();
        assert!(c.turn.is_some());
        assert!(
            took >= Duration::from_millis(20) && took < Duration::from_millis(500),
            "{took:?}"
        );
        // Its own limit is back for a turn off the clock.
        assert_eq!(p.budget.time, Some(Duration::from_secs(30)));
        // A simulation cap still binds on a clock.
        let mut p = player(false);
        p.set_clock(Some(ClockState {
            left: Duration::from_secs(600),
            increment: Duration::ZERO,
            turns_played: 0,
            moves_to_go: None,
        }));
        let t = Instant::now();
        let c = p.choose(&game);
        assert!(c.search.unwrap().nodes <= 64 * 2);
        assert!(t.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_guarded_player_plays_only_sound_turns() {
        // A sharp position: some of White's captures lose material by force.
        let pos = Position::from_fen("BBBB1/B1B2/BW1B1/WBW2/WWWW1 w 0 4", RuleOptions::default())
            .unwrap();
        let game = History::new(pos);
        let guard = GuardConfig {
            depth: 4,
            margin: 0,
        };
        let scored = TurnGuard::new(guard).score_turns(&game);
        let best = scored.iter().map(|s| s.1).max().unwrap();
        assert!(
            scored.iter().any(|s| s.1 < best),
            "the position has unsound turns"
        );
        let n = pos.variant().points();
        for seed in 0..4 {
            let mut p = player(false).with_guard(Some(guard));
            p.seed = seed;
            let turn = p.choose(&game).turn.expect("a legal turn");
            let actions: Vec<usize> = pos
                .turn_actions(&turn)
                .into_iter()
                .map(|a| action_index(n, a))
                .collect();
            let s = scored.iter().find(|(a, _)| *a == actions).unwrap().1;
            assert_eq!(s, best, "seed {seed}: {turn:?} scores {s}, the best {best}");
            let (a, _) = p.choose_actions(&pos);
            assert!(scored.iter().any(|(t, s)| *t == a && *s == best));
        }
    }

    #[test]
    fn with_tables_a_covered_position_gets_the_tables_turn() {
        let tb = Arc::new(Tablebase::build(Variant::Dimy, 100, 3, None, &mut |_| {}).unwrap());
        let mut p = player(false).with_tables(Some(tb.clone()));
        // White's two pieces against one, and one against two: the tables' own turn.
        for fen in ["5/1W3/5/2B2/W4 w 0 30", "5/1W3/5/2B2/B4 w 0 30"] {
            let pos = Position::from_fen(fen, RuleOptions::default()).unwrap();
            let probe = tb.probe(&pos).unwrap();
            let choice = p.choose(&History::new(pos));
            assert_eq!(choice.turn, probe.best, "{fen}");
            assert_eq!(choice.search.unwrap().nodes, 0, "{fen}: no search");
        }
        // Above the tables the player searches, as without them.
        let start = Position::start(Variant::Dimy, RuleOptions::default());
        let choice = p.choose(&History::new(start));
        assert!(choice.search.unwrap().nodes > 0);
    }

    #[test]
    fn reuse_keeps_the_subtree_of_the_opponents_reply() {
        let mut p = player(true);
        let mut game = History::new(Position::start(Variant::Dimy, RuleOptions::default()));
        for _ in 0..6 {
            let turn = p.choose(&game).turn.expect("a legal turn");
            assert!(game.position().turns(TurnMode::Paths).contains(&turn));
            game.play_unchecked(&turn);
            let kept = p.tree.as_ref().expect("the tree is kept");
            assert_eq!(
                kept.root_game(),
                game.position(),
                "kept at the position after the turn"
            );
            if game.outcome().is_some() {
                return;
            }
            // The opponent's reply: the most likely one is in the kept tree with visits.
            let reply = game.position().turns(TurnMode::Distinct)[0];
            game.play_unchecked(&reply);
            let tree = p.tree_for(&game);
            assert_eq!(tree.root_game(), game.position());
            p.tree = Some(tree);
        }
        // A position the kept tree does not lead to gets a fresh tree.
        let other = History::new(Position::start(Variant::Dimy, RuleOptions::default()));
        assert_eq!(p.tree_for(&other).visits(), 0);
        // Without reuse nothing is kept.
        let mut q = player(false);
        q.choose(&other);
        assert!(q.tree.is_none());
    }

    #[test]
    fn a_reused_search_starts_with_the_replys_visits() {
        let mut p = player(true);
        let mut game = History::new(Position::start(Variant::Dimy, RuleOptions::default()));
        let turn = p.choose(&game).turn.unwrap();
        game.play_unchecked(&turn);
        // Reply with the kept tree's own favourite: its subtree has visits.
        let kept = p.tree.as_ref().unwrap();
        let pos = *game.position();
        let mut best = None;
        for t in pos.turns(TurnMode::Distinct) {
            let mut after = game.clone();
            after.play_unchecked(&t);
            let mut probe = kept.clone();
            for a in pos.turn_actions(&t) {
                probe.advance(action_index(pos.variant().points(), a));
            }
            if best.is_none_or(|(v, _)| probe.visits() > v) {
                best = Some((probe.visits(), t));
            }
        }
        let (visits, reply) = best.unwrap();
        assert!(visits > 0);
        game.play_unchecked(&reply);
        assert_eq!(p.tree_for(&game).visits(), visits);
    }
}
