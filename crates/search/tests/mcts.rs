//! MCTS without a network: uniform, rollout and hand-written evaluators.

use fanorona_rules::game::action_index;
use fanorona_rules::{Action, Color, Game, Position, RuleOptions};
use fanorona_search::{
    Evaluator, GumbelConfig, Mcts, MctsConfig, Outputs, RolloutEvaluator, UniformEvaluator,
};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen, RuleOptions::default()).unwrap()
}

fn name(p: &Position, a: usize) -> String {
    p.action_name(a)
}

/// White a1 -> b2 takes c3, then b2 -> c2 takes a2: everything, in one turn of two steps.
const CHAIN_WIN: &str = "9/9/2B6/B8/W8 w";

#[test]
fn finds_a_one_turn_win_through_a_chain() {
    let mut root = pos(CHAIN_WIN);
    let mut acts = Vec::new();
    root.legal_actions(&mut acts);
    root.apply(acts[0]); // a1b2(+): the only capture
    assert!(root.chain().is_some());
    assert_eq!(root.to_move(), Color::White, "the capturer moves again");
    // Continue (and win) or end the turn: the search must continue.
    let mut t = Mcts::new(root, MctsConfig::default(), 1);
    t.run(&mut UniformEvaluator::default(), 200);
    let best = t.choose(0.0).unwrap();
    assert_eq!(name(&root, best), "b2c2(-)");
    let v = t.value();
    assert!(v[0] > 0.9, "White's value is a win: {v:?}");
}

#[test]
fn terminal_values_are_exact() {
    let mut root = pos(CHAIN_WIN);
    let mut acts = Vec::new();
    root.legal_actions(&mut acts);
    root.apply(acts[0]);
    let mut t = Mcts::new(root, MctsConfig::default(), 1);
    t.run(&mut UniformEvaluator::default(), 100);
    let win = action_index(45, root.actions()[0]);
    for (a, visits, _, q) in t.root_children() {
        if a == win {
            assert!(visits > 0);
            assert_eq!(q, 1.0, "a won game is worth exactly 1 to the winner");
        }
    }
}

/// Values positions by material for the player to move: a hand-made evaluator.
struct Material;

impl Evaluator<Position> for Material {
    fn evaluate(&mut self, games: &[&Position], legal: &[&[usize]], out: Outputs<'_>) {
        let Outputs { priors, wdl } = out;
        for i in 0..games.len() {
            let g = games[i];
            let me = g.to_move();
            let diff = g.pieces(me).count() as f32 - g.pieces(me.other()).count() as f32;
            let w = 1.0 / (1.0 + (-diff / 2.0).exp());
            wdl[i] = [w, 0.0, 1.0 - w];
            priors[i].extend(std::iter::repeat_n(
                1.0 / legal[i].len() as f32,
                legal[i].len(),
            ));
        }
    }
}

#[test]
fn prefers_capturing_three_over_one() {
    // White e1: e1e2 approaches e3-e4-e5 (three); a1a2 approaches a3 (one). Black has
    // spare pieces far away so that neither wins at once.
    let root = pos("B3B3B/4B4/B3B4/9/W3W4 w");
    let mut t = Mcts::new(root, MctsConfig::default(), 3);
    t.run(&mut Material, 400);
    let best = t.choose(0.0).unwrap();
    assert_eq!(name(&root, best), "e1e2(+)", "{:?}", t.root_children());
}

/// Fixed, unequal priors and an even value.
struct Skewed;

impl Evaluator<Position> for Skewed {
    fn evaluate(&mut self, _games: &[&Position], legal: &[&[usize]], out: Outputs<'_>) {
        let Outputs { priors, wdl } = out;
        for i in 0..legal.len() {
            let n = legal[i].len();
            // Weights n, n-1, ..., 1 in the order of the legal list.
            let total = (n * (n + 1) / 2) as f32;
            priors[i].extend((0..n).map(|k| (n - k) as f32 / total));
            wdl[i] = [0.0, 1.0, 0.0];
        }
    }
}

#[test]
fn visits_follow_the_prior_under_an_even_value() {
    let root = Position::start(fanorona_rules::Variant::Tsivy, RuleOptions::default());
    let mut t = Mcts::new(
        root,
        MctsConfig {
            fpu_reduction: 0.0,
            ..MctsConfig::default()
        },
        5,
    );
    t.run(&mut Skewed, 3000);
    let kids = t.root_children();
    assert_eq!(kids.len(), 5);
    let total: u32 = kids.iter().map(|k| k.1).sum();
    for (_, visits, prior, _) in &kids {
        let share = *visits as f32 / total as f32;
        assert!(
            (share - prior).abs() < 0.03,
            "share {share} vs prior {prior}: {kids:?}"
        );
    }
    // More prior, more visits.
    for w in kids.windows(2) {
        assert!(w[0].1 >= w[1].1, "{kids:?}");
    }
}

#[test]
fn chains_keep_the_sign_right() {
    // Before the chain: White's first capture leads to a position where White moves
    // again and wins; a search that flipped the sign at every level would see a loss.
    let root = pos(CHAIN_WIN);
    let mut t = Mcts::new(root, MctsConfig::default(), 7);
    t.run(&mut UniformEvaluator::default(), 300);
    assert!(t.value()[0] > 0.9, "{:?}", t.value());
    let kids = t.root_children();
    assert_eq!(kids.len(), 1);
    assert!(
        kids[0].3 > 0.9,
        "the chain's first step is good for White: {kids:?}"
    );
}

#[test]
fn rollouts_see_a_lost_position() {
    // Black to move, one piece against many: random play loses far more than it wins.
    let root = pos("9/9/4B4/WWWWWWWWW/WWWWWWWWW b");
    let mut t = Mcts::new(root, MctsConfig::default(), 1);
    t.run(&mut RolloutEvaluator::new(1, 4), 64);
    let v = t.value();
    assert!(v[2] > 0.6, "{v:?}");
}

#[test]
fn gumbel_finds_the_win_with_few_simulations() {
    let mut root = pos(CHAIN_WIN);
    let mut acts = Vec::new();
    root.legal_actions(&mut acts);
    root.apply(acts[0]);
    let cfg = MctsConfig {
        gumbel: Some(GumbelConfig::default()),
        ..MctsConfig::default()
    };
    for seed in 0..10 {
        let mut t = Mcts::new(root, cfg, seed);
        t.run(&mut UniformEvaluator::default(), 8);
        assert_eq!(
            name(&root, t.choose(0.0).unwrap()),
            "b2c2(-)",
            "seed {seed}"
        );
        let policy = t.policy();
        let win = policy
            .iter()
            .find(|(a, _)| name(&root, *a) == "b2c2(-)")
            .unwrap()
            .1;
        assert!(win > 0.5, "the improved policy favours the win: {policy:?}");
    }
}

/// Counts evaluator calls.
struct Counting(u32, u32);

impl Evaluator<Position> for Counting {
    fn evaluate(&mut self, g: &[&Position], l: &[&[usize]], out: Outputs<'_>) {
        let Outputs { priors: p, wdl: w } = out;
        self.0 += 1;
        self.1 += g.len() as u32;
        UniformEvaluator::default().evaluate(g, l, Outputs::new(p, w));
    }
}

#[test]
fn leaves_are_batched_and_trees_reused() {
    let root = Position::start(fanorona_rules::Variant::Tsivy, RuleOptions::default());
    let mut t = Mcts::new(
        root,
        MctsConfig {
            batch: 16,
            ..MctsConfig::default()
        },
        1,
    );
    let mut e = Counting(0, 0);
    t.run(&mut e, 800);
    assert!(t.visits() >= 800);
    assert!(e.0 * 4 < e.1, "{} calls for {} positions", e.0, e.1);
    // Reuse: the chosen child's subtree survives.
    let a = t.choose(0.0).unwrap();
    let child_visits = t.root_children().iter().find(|k| k.0 == a).unwrap().1;
    t.advance(a);
    assert_eq!(t.visits(), child_visits);
    let mut expected = root;
    expected.apply(a);
    assert_eq!(t.root_game(), &expected);
    t.run(&mut e, 100);
    assert!(t.visits() >= child_visits + 100);
    // Dirichlet noise at the root keeps every action explored.
    let mut noisy = Mcts::new(
        root,
        MctsConfig {
            dirichlet_epsilon: 0.25,
            ..MctsConfig::default()
        },
        9,
    );
    noisy.run(&mut UniformEvaluator::default(), 200);
    let priors: Vec<f32> = noisy.root_children().iter().map(|k| k.2).collect();
    assert!((priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    assert!(
        priors.iter().any(|&p| (p - 0.2).abs() > 1e-3),
        "noise moved the priors: {priors:?}"
    );
}

#[test]
fn end_turn_is_an_action_inside_chains() {
    let mut root = pos(CHAIN_WIN);
    let mut acts = Vec::new();
    root.legal_actions(&mut acts);
    root.apply(acts[0]);
    root.legal_actions(&mut acts);
    assert!(acts.contains(&action_index(45, Action::EndTurn)));
}

/// Priors that favour the last legal action (0.9), an even value.
struct LastFavoured;

impl Evaluator<Position> for LastFavoured {
    fn evaluate(&mut self, _games: &[&Position], legal: &[&[usize]], out: Outputs<'_>) {
        let Outputs { priors, wdl } = out;
        for i in 0..legal.len() {
            let n = legal[i].len();
            let rest = if n > 1 { 0.1 / (n - 1) as f32 } else { 0.0 };
            priors[i].extend((0..n).map(|k| if k + 1 == n { 0.9 } else { rest }));
            wdl[i] = [0.0, 1.0, 0.0];
        }
    }
}

#[test]
fn without_visits_the_choice_is_the_priors() {
    // One simulation evaluates the root and visits no child: the choice must be the
    // prior's favourite, not the first legal action.
    let root = Position::start(fanorona_rules::Variant::Tsivy, RuleOptions::default());
    let mut legal = Vec::new();
    root.legal_actions(&mut legal);
    assert!(legal.len() > 1);
    for temperature in [0.0, 1.0] {
        let mut t = Mcts::new(root, MctsConfig::default(), 3);
        t.run(&mut LastFavoured, 1);
        assert!(t.root_children().iter().all(|k| k.1 == 0));
        assert_eq!(t.choose(temperature), Some(*legal.last().unwrap()));
    }
}

/// Material values with `Skewed`'s unequal priors: the prior's favourites are not the
/// best turns, so that PUCT alone leaves some children almost unvisited.
struct SkewedMaterial;

impl Evaluator<Position> for SkewedMaterial {
    fn evaluate(&mut self, games: &[&Position], legal: &[&[usize]], out: Outputs<'_>) {
        let Outputs { priors, wdl } = out;
        Material.evaluate(games, legal, Outputs::new(priors, wdl));
        for p in priors.iter_mut() {
            p.clear();
        }
        Skewed.evaluate(
            games,
            legal,
            Outputs::new(priors, &mut vec![[0.0; 3]; games.len()]),
        );
    }
}

/// A tsivy book position with twelve turns, some of them much worse than others.
const BOOK: &str = "BBBBBBBB1/BBBBB3B/BWBW2WBW/WWW1W2WW/5B1WW w 0 4";

fn forced_tree(k: f32) -> Mcts<Position> {
    let cfg = MctsConfig {
        forced_playouts: k,
        batch: 1,
        // Self-play's setting, where forced playouts belong: the priors as given.
        policy_temperature: 1.0,
        ..MctsConfig::default()
    };
    let mut t = Mcts::new(pos(BOOK), cfg, 7);
    t.run(&mut SkewedMaterial, 800);
    t
}

#[test]
fn forced_playouts_give_every_root_child_its_share() {
    let below = |t: &Mcts<Position>, k: f32| {
        let kids = t.root_children();
        let total: u32 = kids.iter().map(|c| c.1).sum();
        kids.iter()
            .filter(|&&(_, n, p, _)| (n + 1) as f32 <= (k * p * total as f32).sqrt())
            .count()
    };
    // Without them, PUCT leaves children below the bound: the test is not vacuous.
    let mut control = forced_tree(0.0);
    assert!(below(&control, 2.0) > 0);
    let mut t = forced_tree(2.0);
    assert_eq!(below(&t, 2.0), 0, "{:?}", t.root_children());
    // The search's choice stays the control's.
    assert_eq!(t.choose(0.0), control.choose(0.0));
}

#[test]
fn policy_targets_are_pruned_of_forced_playouts() {
    let k = 2.0;
    let c_puct = MctsConfig::default().c_puct;
    let t = forced_tree(k);
    let kids = t.root_children();
    let policy = t.policy();
    assert_eq!(policy.len(), kids.len());
    let sum: f32 = policy.iter().map(|p| p.1).sum();
    assert!((sum - 1.0).abs() < 1e-4, "{policy:?}");
    let total: u32 = kids.iter().map(|c| c.1).sum();
    let best = (0..kids.len()).max_by_key(|&i| kids[i].1).unwrap();
    let (_, nb, pb, qb) = kids[best];
    // The pruned visits: the best child keeps all of its own.
    let pruned_total = nb as f32 / policy[best].1;
    let sqrt_n = (t.visits() as f32).sqrt();
    let best_puct = qb + c_puct * pb * sqrt_n / (1.0 + nb as f32);
    let mut dropped = 0;
    for (i, &(a, n, p, q)) in kids.iter().enumerate() {
        assert_eq!(policy[i].0, a);
        let kept = policy[i].1 * pruned_total;
        assert!(kept <= n as f32 + 1e-2, "{a}: {kept} of {n}");
        if i == best || n == 0 {
            continue;
        }
        if kept < 0.5 {
            dropped += 1;
            continue;
        }
        assert!(
            kept >= 1.0 - 1e-3,
            "{a}: less than one visit is none: {kept}"
        );
        // Given back no more than its forced visits ...
        assert!(
            kept + 1e-2 >= n as f32 - (k * p * total as f32).sqrt(),
            "{a}"
        );
        // ... and, where it gave any back, not so many that PUCT would pick it over the best.
        if kept < n as f32 - 1e-2 {
            let puct = q + c_puct * p * sqrt_n / (1.0 + kept);
            assert!(puct <= best_puct + 1e-3, "{a}: {puct} > {best_puct}");
        }
    }
    assert!(
        dropped > 0,
        "some children were searched only by force: {kids:?} {policy:?}"
    );
    // Sampling follows the pruned visits: a dropped child is never chosen.
    let mut t = t;
    for _ in 0..200 {
        let a = t.choose(1.0).unwrap();
        let share = policy.iter().find(|p| p.0 == a).unwrap().1;
        assert!(share > 0.0, "chose {a}, pruned away");
    }
}
