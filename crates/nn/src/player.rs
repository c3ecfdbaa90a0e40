//! The network + MCTS player: whole turns chosen one step at a time.

use crate::evaluator::NetEvaluator;
use fanorona_rules::{Game, History, Position, TurnMode};
use fanorona_search::{Choice, Mcts, MctsConfig, Player, SearchResult};

/// Plays Fanorona turns with MCTS guided by the network: every step of a turn (and the
/// choice to end a chain) is a search of `sims` simulations; the tree is reused between
/// the steps of one turn.
#[derive(Debug)]
pub struct MctsPlayer {
    eval: NetEvaluator,
    cfg: MctsConfig,
    sims: u32,
    name: String,
    seed: u64,
}

impl MctsPlayer {
    /// A player with `sims` simulations per step.
    pub fn new(
        eval: NetEvaluator,
        cfg: MctsConfig,
        sims: u32,
        name: impl Into<String>,
        seed: u64,
    ) -> MctsPlayer {
        MctsPlayer {
            eval,
            cfg,
            sims,
            name: name.into(),
            seed,
        }
    }

    /// The actions of one turn chosen by search from `pos`, and the tree's root value for
    /// the first decision (WDL for the side to move).
    pub fn choose_actions(&mut self, pos: &Position) -> (Vec<usize>, [f32; 3]) {
        let (a, v, _) = self.search_turn(pos);
        (a, v)
    }

    /// As [`MctsPlayer::choose_actions`], with the number of simulations run.
    fn search_turn(&mut self, pos: &Position) -> (Vec<usize>, [f32; 3], u64) {
        let mut sims = 0u64;
        self.seed = self.seed.wrapping_add(1);
        let mut tree = Mcts::new(*pos, self.cfg, self.seed);
        let mut actions = Vec::new();
        let mut value = [0.0, 1.0, 0.0];
        let side = pos.to_move();
        loop {
            let before = tree.visits();
            tree.run(&mut self.eval, self.sims);
            sims += (tree.visits() - before) as u64;
            if actions.is_empty() {
                value = tree.value();
            }
            let Some(a) = tree.choose(0.0) else { break };
            actions.push(a);
            tree.advance(a);
            let g = tree.root_game();
            if g.to_move() != side || g.chain().is_none() || g.outcome().is_some() {
                break;
            }
        }
        (actions, value, sims)
    }
}

impl Player for MctsPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, game: &History) -> Choice {
        let pos = *game.position();
        let start = std::time::Instant::now();
        let (actions, value, sims) = self.search_turn(&pos);
        // The turn whose step actions are these.
        let turn = pos.turns(TurnMode::Paths).into_iter().find(|t| {
            let mut steps = pos.turn_actions(t);
            if steps.last() == Some(&fanorona_rules::Action::EndTurn) && steps.len() > actions.len()
            {
                steps.pop();
            }
            let n = pos.variant().points();
            let idx: Vec<usize> = steps
                .iter()
                .map(|&a| fanorona_rules::game::action_index(n, a))
                .collect();
            let mut want = actions.clone();
            if want.last() == Some(&(n * 24)) {
                want.pop();
            }
            idx == want
        });
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
