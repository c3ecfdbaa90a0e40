//! Alpha-beta with endgame tables: a covered root plays the tables' turn with their exact
//! score; a full-width search whose leaves reach the tables proves only true wins.

use fanorona_rules::{Color, History, Position, TurnMode, Variant};
use fanorona_search::{
    AbConfig, AlphaBeta, Evaluator, Limits, Mcts, MctsConfig, Oracle, Outputs, TB_WIN,
    UniformEvaluator,
};
use fanorona_tb::{Binomial, Class, Tablebase, Wdl};
use fanorona_testkit::{class_position, random_class_position};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::sync::Arc;

fn engine(tb: &Arc<Tablebase>) -> AlphaBeta {
    AlphaBeta::new(AbConfig {
        tb: Some(tb.clone()),
        selective: false,
        ..AbConfig::default()
    })
}

#[test]
fn the_tables_answer_covered_positions_and_prove_wins_above_them() {
    let three = Arc::new(Tablebase::build(Variant::Dimy, 100, 3, None, &mut |_| {}).unwrap());
    let four = Tablebase::build(Variant::Dimy, 100, 4, None, &mut |_| {}).unwrap();
    let mut rng = SmallRng::seed_from_u64(7);
    let mut ab = engine(&three);
    let (mut covered, mut proved) = (0, 0);
    for i in 0..300 {
        let class = if i % 3 == 0 {
            Class { white: 2, black: 1 }
        } else {
            Class { white: 2, black: 2 }
        };
        let pos = random_class_position(Variant::Dimy, class, &mut rng);
        if pos.turns(TurnMode::Distinct).is_empty() {
            continue;
        }
        let r = ab.search(
            &History::new(pos),
            &Limits {
                depth: Some(3),
                ..Limits::default()
            },
        );
        let truth = four.probe(&pos).unwrap();
        if class.white + class.black == 3 {
            // Covered: the tables' own turn and score.
            let p = three.probe(&pos).unwrap();
            assert_eq!(r.best, p.best, "{}", pos.fen());
            assert_eq!(r.nodes, 1);
            covered += 1;
        } else if r.score >= TB_WIN - 100 {
            // Above the tables: a proof through exact leaves is a real win.
            assert_eq!(truth.wdl, Wdl::Win, "{}: score {}", pos.fen(), r.score);
            proved += 1;
        } else if r.score <= -(TB_WIN - 100) {
            assert_eq!(truth.wdl, Wdl::Loss, "{}: score {}", pos.fen(), r.score);
            proved += 1;
        }
    }
    assert!(
        covered > 50 && proved > 20,
        "{covered} covered, {proved} proved"
    );
}

/// Uniform priors and draws, counting the positions it is asked to evaluate that the
/// tables cover.
struct Counting<'a> {
    tb: &'a Tablebase,
    covered: usize,
}

impl Evaluator<Position> for Counting<'_> {
    fn evaluate(&mut self, games: &[&Position], legal: &[&[usize]], out: Outputs<'_>) {
        let Outputs { priors, wdl } = out;
        self.covered += games.iter().filter(|g| self.tb.covers(g)).count();
        UniformEvaluator::default().evaluate(games, legal, Outputs::new(priors, wdl));
    }
}

#[test]
fn mcts_takes_the_tables_values_below_its_root_and_proves_with_them() {
    // 2v2 dimy positions searched by MCTS with the solver and the 3-piece tables as its
    // oracle: a covered position below the root is never evaluated, and every root the
    // solver proves has the value the 4-piece tables give it.
    let three = Arc::new(Tablebase::build(Variant::Dimy, 100, 3, None, &mut |_| {}).unwrap());
    let four = Tablebase::build(Variant::Dimy, 100, 4, None, &mut |_| {}).unwrap();
    let b = Binomial::new();
    let class = Class { white: 2, black: 2 };
    let mut rng = SmallRng::seed_from_u64(11);
    let cfg = MctsConfig {
        solver: true,
        ..MctsConfig::default()
    };
    let (mut proved, mut searched) = (0, 0);
    for seed in 0..120 {
        let idx = rng.random_range(0..class.size(&b, 25));
        let pos = class_position(Variant::Dimy, class, idx, Color::White);
        if pos.turns(TurnMode::Distinct).is_empty() {
            continue;
        }
        searched += 1;
        let oracle: Arc<dyn Oracle<Position>> = three.clone();
        let mut tree = Mcts::new(pos, cfg, seed).with_oracle(Some(oracle));
        let mut eval = Counting {
            tb: &three,
            covered: 0,
        };
        tree.run(&mut eval, 3000);
        assert_eq!(
            eval.covered,
            0,
            "{}: a covered position was evaluated",
            pos.fen()
        );
        if let Some(v) = tree.proven() {
            let truth = four.wdl(&pos).unwrap().0;
            let said = match v {
                [1.0, _, _] => Wdl::Win,
                [_, 1.0, _] => Wdl::Draw,
                _ => Wdl::Loss,
            };
            assert_eq!(said, truth, "{}", pos.fen());
            proved += 1;
        }
    }
    assert!(proved > 10, "{proved} of {searched} roots proved");
}

#[test]
fn a_covered_win_is_played_out_to_the_end() {
    // With the tables, a won 2-against-1 tsivy ending is won in play against the
    // engine without them, within the quiet limit.
    let tb = Arc::new(Tablebase::build(Variant::Tsivy, 100, 3, None, &mut |_| {}).unwrap());
    let b = Binomial::new();
    let mut rng = SmallRng::seed_from_u64(3);
    let mut with = engine(&tb);
    let mut without = AlphaBeta::new(AbConfig::default());
    let mut played = 0;
    while played < 5 {
        let class = Class { white: 2, black: 1 };
        let idx = rng.random_range(0..class.size(&b, 45));
        let pos = class_position(Variant::Tsivy, class, idx, Color::White);
        match tb.probe(&pos) {
            Some(p) if p.wdl == Wdl::Win && p.dtc >= 5 => {}
            _ => continue,
        }
        let mut game = History::new(pos);
        let limits = Limits {
            depth: Some(4),
            ..Limits::default()
        };
        while game.outcome().is_none() {
            let engine = if game.position().side_to_move() == Color::White {
                &mut with
            } else {
                &mut without
            };
            let t = engine.search(&game, &limits).best.unwrap();
            game.play_unchecked(&t);
        }
        assert_eq!(
            game.outcome(),
            Some(fanorona_rules::Outcome::Win(Color::White)),
            "from {}",
            pos.fen()
        );
        played += 1;
    }
}
