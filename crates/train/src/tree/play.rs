//! Tree learning's games: alpha-beta (TreeStrap) or Descent playing itself with the
//! evaluation being learned, each search's nodes its labels, the deeper teacher's
//! and the games' own results beside them.

use crate::config::TrainConfig;
use crate::decisions::{Decision, samples, turn_decisions};
use crate::records::Sample;
use fanorona_rules::{History, Outcome, Position, Turn, TurnMode};
use fanorona_search::{AbConfig, AlphaBeta, Bound, Descent, LearnedEval, Limits, NodeLabel};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::sync::Arc;

/// A game longer than this many turns is stopped (the quiet limit ends games long
/// before).
pub(super) const MAX_TURNS: u32 = 1000;

/// A position of a game where the engine chose the turn, and what its search found.
#[derive(Clone, Copy)]
struct Searched {
    /// The game's turn number.
    turn: u32,
    pos: Position,
    /// The search's turn and score.
    best: Option<(Turn, i32)>,
}

/// One self-play game's yield.
#[derive(Debug, Default)]
pub(super) struct GameOut {
    /// The labels of the searches that played.
    pub(super) labels: Vec<NodeLabel>,
    /// The deeper teacher's labels (`tree.deep_gap`).
    pub(super) teacher: Vec<NodeLabel>,
    pub(super) turns: u64,
    pub(super) nodes: u64,
    /// Nodes of the deeper teacher's searches (not in `nodes`).
    pub(super) deep_nodes: u64,
    /// The network's samples (`net.positions`).
    pub(super) samples: Vec<Sample>,
    pub(super) outcome: Option<Outcome>,
}

/// The searcher that plays a game: alpha-beta (TreeStrap) or Descent; and the deeper
/// teacher of TreeStrap (`tree.deep_gap`), when on.
pub(super) enum Searcher {
    AlphaBeta(Box<AlphaBeta>, Option<Box<AlphaBeta>>),
    Descent(Box<Descent>),
}

/// Nodes a Descent tree may hold before a game's next turn starts it afresh.
pub(super) const DESCENT_NODES: usize = 500_000;

impl Searcher {
    fn new(cfg: &TrainConfig, eval: &Arc<LearnedEval>) -> Searcher {
        let t = &cfg.tree;
        if t.method == "descent" {
            Searcher::Descent(Box::new(Descent::new(eval.clone(), None, t.graded_draws)))
        } else {
            let engine = |min_depth: u32| {
                let mut e = AlphaBeta::new(AbConfig {
                    hash_mb: 16,
                    learned: Some(eval.clone()),
                    graded_draws: t.graded_draws,
                    ..AbConfig::default()
                });
                e.record_labels(min_depth, t.max_quiet);
                Box::new(e)
            };
            let deep = (t.deep_gap > 0 && t.deep_positions > 0).then(|| engine(t.depth + 1));
            Searcher::AlphaBeta(engine(t.label_depth), deep)
        }
    }

    fn new_game(&mut self) {
        match self {
            Searcher::AlphaBeta(e, deep) => {
                e.new_game();
                if let Some(d) = deep {
                    d.new_game();
                }
            }
            Searcher::Descent(d) => d.clear(),
        }
    }

    /// The deeper teacher's labels of `pos` (`tree.depth + tree.deep_gap` turns; its
    /// nodes searched deeper than the players' searches, the root first), its nodes, and
    /// its turn with its score when it searched deeper than the players; none when it is
    /// off.
    fn deep_labels(
        &mut self,
        cfg: &TrainConfig,
        pos: &Position,
    ) -> (Vec<NodeLabel>, u64, Option<(Turn, i32)>) {
        let Searcher::AlphaBeta(_, Some(deep)) = self else {
            return (Vec::new(), 0, None);
        };
        let depth = cfg.tree.depth + cfg.tree.deep_gap;
        let r = deep.search(
            &History::new(*pos),
            &Limits {
                depth: Some(depth),
                ..Limits::default()
            },
        );
        // The search's own nodes label themselves; its root, searched at the root,
        // does not: its value is the search's score (a position with one legal turn
        // ends its search early, and gives no label deeper than the players').
        let mut labels = Vec::new();
        let deeper = r.best.filter(|_| r.depth > cfg.tree.depth);
        if deeper.is_some() {
            labels.push(NodeLabel {
                position: *pos,
                score: r.score,
                bound: Bound::Exact,
                depth: r.depth.min(255) as u8,
            });
        }
        labels.extend(deep.take_labels());
        (labels, r.nodes, deeper.map(|t| (t, r.score)))
    }

    /// The best turn of `game`'s position (`None`: none) with its score, the search's
    /// labels and nodes.
    fn search(
        &mut self,
        cfg: &TrainConfig,
        game: &History,
    ) -> (Option<(Turn, i32)>, Vec<NodeLabel>, u64) {
        let t = &cfg.tree;
        let pos = game.position();
        match self {
            Searcher::AlphaBeta(e, _) => {
                let r = e.search(
                    game,
                    &Limits {
                        depth: Some(t.depth),
                        ..Limits::default()
                    },
                );
                (r.best.map(|b| (b, r.score)), e.take_labels(), r.nodes)
            }
            Searcher::Descent(d) => {
                if d.len() > DESCENT_NODES {
                    d.clear();
                }
                let before = d.expanded;
                let r = d.search(pos, t.iterations);
                let labels = d.labels(pos, t.label_depth, t.max_quiet);
                (r.turns.first().copied(), labels, d.expanded - before)
            }
        }
    }
}

/// Game `seed`'s play: random opening turns, then the method's search with its labels
/// kept (Descent's one a position, the last search's: its trees overlap from turn to
/// turn).
pub(super) fn play_game(cfg: &TrainConfig, searcher: &mut Searcher, seed: u64) -> GameOut {
    let t = &cfg.tree;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = History::new(Position::start(cfg.variant(), cfg.rule_options()));
    searcher.new_game();
    let opening = rng.random_range(0..=t.opening_turns);
    let mut out = GameOut::default();
    let mut labels: Vec<NodeLabel> = Vec::new();
    let mut index: std::collections::HashMap<(u64, u16), usize> = Default::default();
    // Positions the engine chose in, with their turn: the deeper teacher's candidates,
    // the outcome labels' and the network's.
    let mut searched: Vec<Searched> = Vec::new();
    for turn in 0..MAX_TURNS {
        let pos = *game.position();
        let turns = pos.turns(TurnMode::Distinct);
        if turns.is_empty() || game.outcome().is_some() {
            break;
        }
        let candidate = turn >= opening && pos.quiet() <= t.max_quiet;
        let chosen = if turn < opening {
            turns[rng.random_range(0..turns.len())]
        } else {
            let (best, found, nodes) = searcher.search(cfg, &game);
            out.nodes += nodes;
            if t.method == "descent" {
                for l in found {
                    let key = (l.position.hash(), l.position.quiet());
                    match index.get(&key) {
                        Some(&i) => labels[i] = l,
                        None => {
                            index.insert(key, labels.len());
                            labels.push(l);
                        }
                    }
                }
            } else {
                // Alpha-beta's searches overlap little: each keeps its own.
                labels.extend(found);
            }
            if candidate {
                searched.push(Searched { turn, pos, best });
            }
            best.map_or(turns[0], |(b, _)| b)
        };
        game.play_unchecked(&chosen);
        out.turns += 1;
    }
    // The game's result, for positions of it at random (both sides): what the game
    // ended in, from each one's side to move, so many turns before the end.
    if let Some(o) = game.outcome().filter(|_| t.outcome_positions > 0) {
        let last = *game.position();
        let mut pool = searched.clone();
        for _ in 0..t.outcome_positions.min(pool.len()) {
            let Searched { turn: at, pos, .. } = pool.swap_remove(rng.random_range(0..pool.len()));
            let turns = u32::try_from(out.turns)
                .unwrap_or(u32::MAX)
                .saturating_sub(at);
            labels.push(NodeLabel {
                position: pos,
                score: fanorona_search::result_score(
                    o,
                    pos.side_to_move(),
                    &last,
                    turns,
                    t.graded_draws,
                ),
                bound: Bound::Exact,
                depth: 0,
            });
        }
    }
    // The deeper teacher: positions of this game at random (both sides, as the game
    // reached them), each searched deeper than the game's own searches. The network
    // learns its turn there first, then the players' turn at other positions.
    let mut for_net = cfg.net.positions;
    let mut decisions: Vec<Decision> = Vec::new();
    if t.deep_gap > 0 {
        for _ in 0..t.deep_positions.min(searched.len()) {
            let s = searched.swap_remove(rng.random_range(0..searched.len()));
            let (found, nodes, deeper) = searcher.deep_labels(cfg, &s.pos);
            out.deep_nodes += nodes;
            out.teacher.extend(found);
            if for_net > 0 {
                if let Some((turn, score)) = deeper.or(s.best) {
                    turn_decisions(&s.pos, &turn, score, &mut decisions);
                }
                for_net -= 1;
            }
        }
    }
    while for_net > 0 && !searched.is_empty() {
        let s = searched.swap_remove(rng.random_range(0..searched.len()));
        if let Some((turn, score)) = s.best {
            turn_decisions(&s.pos, &turn, score, &mut decisions);
        }
        for_net -= 1;
    }
    if !decisions.is_empty() {
        // A game stopped at MAX_TURNS counts as drawn.
        let result = game.outcome().unwrap_or(Outcome::Draw);
        out.samples = samples(decisions, result, game.position(), cfg.net.score_weight);
    }
    out.labels = labels;
    out.outcome = game.outcome();
    out
}

/// `games` games with `eval` on `threads` threads (game `i` from seed `seed ^ i`), in
/// game order whatever the threads; `on_game` hears each finished game's count (from
/// the calling thread).
pub(super) fn play_games(
    cfg: &TrainConfig,
    eval: &Arc<LearnedEval>,
    games: usize,
    seed: u64,
    on_game: &mut dyn FnMut(usize),
) -> Vec<GameOut> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = cfg.tree.threads().min(games).max(1);
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, GameOut)>();
    let mut out: Vec<Option<GameOut>> = (0..games).map(|_| None).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (tx, next) = (tx.clone(), &next);
            scope.spawn(move || {
                let mut searcher = Searcher::new(cfg, eval);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= games {
                        break;
                    }
                    let game_seed = seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    if tx
                        .send((i, play_game(cfg, &mut searcher, game_seed)))
                        .is_err()
                    {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (done, (i, g)) in rx.into_iter().enumerate() {
            out[i] = Some(g);
            on_game(done + 1);
        }
    });
    out.into_iter().flatten().collect()
}
