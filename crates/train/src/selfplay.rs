//! Self-play: many games in flight, their leaves evaluated together in one network batch.

use crate::config::{SelfPlayConfig, TrainConfig};
use crate::records::{GAME_VERSION, GameRecord, Sample, ownership_targets};
use fanorona_nn::NetEvaluator;
use fanorona_rules::{Color, Game, History, Outcome};
use fanorona_search::{
    Evaluator, GuardedTurn, Leaf, LearnedEval, Mcts, Oracle, Outputs, wdl_index, with_thread_blend,
    with_thread_guard,
};
use fanorona_sim::{Encode, frame_action};
use fanorona_tb::Tablebase;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::sync::Arc;

/// The learned evaluation of self-play's alpha-beta searches (`selfplay.ab_eval`; `None`:
/// the hand-written one).
pub type AbLearned = Option<Arc<LearnedEval>>;

/// What self-play's searches use beside the network.
#[derive(Clone, Debug, Default)]
pub struct Aids {
    /// The learned evaluation of the alpha-beta searches (`selfplay.ab_eval`).
    pub learned: AbLearned,
    /// Endgame tables (`selfplay.tablebases`): the trees take their exact values, and a
    /// game that reaches a position they cover ends there with their result, which is
    /// then every earlier position's value target.
    pub tables: Option<Arc<Tablebase>>,
}

/// The tables as an [`Oracle`] of any board's games (they answer Fanorona positions).
struct Tables(Arc<Tablebase>);

impl<G: Encode> Oracle<G> for Tables {
    fn exact(&self, game: &G) -> Option<[f32; 3]> {
        self.0.exact(game.as_fanorona()?)
    }
}

/// The result the tables give `game`'s position (`None`: not covered).
fn table_result<G: Encode>(tables: &Option<Arc<Tablebase>>, game: &G) -> Option<Outcome> {
    tables.as_ref()?.outcome(game.as_fanorona()?)
}

pub use fanorona_formats::stats::SelfPlayStats;

/// Decisions that make a game's opening, for [`SelfPlayStats::distinct_openings`].
pub const OPENING_DECISIONS: usize = 20;

/// How many of `games` (each its start, `None` for the variant's start position, and its
/// actions) open with a start and a sequence of [`OPENING_DECISIONS`] decisions that no
/// other of them has: games that share an opening count once.
pub fn distinct_openings<'a>(games: impl Iterator<Item = (Option<&'a str>, &'a [u16])>) -> u64 {
    let openings: std::collections::HashSet<(Option<&str>, &[u16])> = games
        .map(|(start, a)| (start, &a[..a.len().min(OPENING_DECISIONS)]))
        .collect();
    openings.len() as u64
}

/// Where self-play games begin: a position and the FEN its records name (`None`: the
/// variant's start position, which records leave implicit).
pub type Start<G> = (G, Option<String>);

/// A finished game: its record and its samples (results filled in).
#[derive(Clone, Debug)]
pub struct FinishedGame {
    /// The record.
    pub record: GameRecord,
    /// Training samples.
    pub samples: Vec<Sample>,
}

struct Pending {
    planes: Vec<f32>,
    policy: Vec<(u16, f32)>,
    mover: Color,
    /// The search's win/draw/loss at the root, for the mover.
    root_wdl: [f32; 3],
}

struct Slot<G> {
    /// The game's number in its generation (its seed's and its record's order).
    number: usize,
    tree: Mcts<G>,
    /// The samples of its full searches, waiting for the game's result.
    pending: Vec<Pending>,
    actions: Vec<u16>,
    moves: Vec<String>,
    budget: Budget,
    adjudicator: Adjudicator,
    /// The tactical guard's judgement of the turn being played (`selfplay.guard`).
    guard: GuardedTurn,
    /// Whether the root must be judged before the next search.
    guard_due: bool,
    /// Ended by the endgame tables.
    tablebase: bool,
    rng: SmallRng,
    leaves: Vec<Leaf<G>>,
    /// Decisions of the random opening (recorded as moves, not as samples).
    opening: usize,
    /// The FEN of the position the game began from, if not the start position.
    start: Option<String>,
}

/// Playout-cap randomisation (`selfplay.fast_sims`, `selfplay.full_search_prob`): each
/// search's size, and whether it is a full one that records a sample.
#[derive(Debug, Default)]
struct Budget {
    target: u32,
    full: bool,
    sims_at_start: u32,
}

impl Budget {
    fn plan<G: Game>(&mut self, tree: &Mcts<G>, sp: &SelfPlayConfig, rng: &mut SmallRng) {
        self.full = sp.fast_sims == 0 || rng.random_range(0.0f32..1.0) < sp.full_search_prob;
        let sims = if self.full {
            sp.sims
        } else {
            sp.fast_sims.min(sp.sims)
        };
        self.sims_at_start = tree.visits();
        self.target = sims.max(tree.visits() + 1);
    }
}

/// Resignation (`selfplay.resign_threshold`) and draw adjudication
/// (`selfplay.draw_value`, `draw_decisions`); a share of the games
/// (`resign_check_share`) is played out instead, to count the false positives.
#[derive(Debug, Default)]
struct Adjudicator {
    /// A check game: played out whatever the searches say.
    check: bool,
    /// In a check game: the side that would have resigned.
    would_resign: Option<Color>,
    /// Decisions in a row whose search gave a draw at least `selfplay.draw_value`.
    drawish: u32,
    /// A check game that would have been adjudicated a draw.
    would_draw: bool,
    /// Scored a draw by adjudication.
    adjudicated: bool,
}

impl Adjudicator {
    fn new(sp: &SelfPlayConfig, rng: &mut SmallRng) -> Adjudicator {
        Adjudicator {
            check: rng.random_range(0.0f32..1.0) < sp.resign_check_share,
            ..Adjudicator::default()
        }
    }

    /// The game's end, and whether by resignation, when a search of `mover`'s valued
    /// the position `v` (win, draw, loss).
    fn judge(&mut self, v: [f32; 3], mover: Color, sp: &SelfPlayConfig) -> Option<(Outcome, bool)> {
        if sp.resign_threshold > -1.0 && v[0] - v[2] < sp.resign_threshold {
            if self.check {
                self.would_resign.get_or_insert(mover);
            } else {
                return Some((Outcome::Win(mover.other()), true));
            }
        }
        if sp.draw_value > 0.0 {
            if v[1] >= sp.draw_value {
                self.drawish += 1;
            } else {
                self.drawish = 0;
            }
            if self.drawish >= sp.draw_decisions {
                if self.check {
                    self.would_draw = true;
                } else {
                    self.adjudicated = true;
                    return Some((Outcome::Draw, false));
                }
            }
        }
        None
    }

    /// Counts a game that ended with `outcome` into `stats`.
    fn count(&self, outcome: Outcome, stats: &mut SelfPlayStats) {
        if let Some(c) = self.would_resign {
            stats.resign_checks += 1;
            if outcome != Outcome::Win(c.other()) {
                stats.resign_false += 1;
            }
        }
        if self.adjudicated {
            stats.adjudicated += 1;
        }
        if self.would_draw {
            stats.draw_checks += 1;
            if outcome != Outcome::Draw {
                stats.draw_false += 1;
            }
        }
    }
}

impl<G: Encode> Slot<G> {
    /// A game from one of `starts` (drawn at random when there are several).
    fn new(
        starts: &[Start<G>],
        cfg: &TrainConfig,
        aids: &Aids,
        seed: u64,
        number: usize,
    ) -> Slot<G> {
        let mut rng = SmallRng::seed_from_u64(seed);
        let adjudicator = Adjudicator::new(&cfg.selfplay, &mut rng);
        let (start, start_fen) = match starts {
            [one] => one,
            _ => &starts[rng.random_range(0..starts.len())],
        };
        let turns = rng.random_range(0..=cfg.selfplay.opening_turns);
        let (game, actions, moves) = random_opening(start, turns, &mut rng);
        let mut s = Slot {
            number,
            tree: Mcts::new(game, cfg.selfplay.search.mcts(), seed).with_oracle(
                aids.tables
                    .clone()
                    .map(|t| Arc::new(Tables(t)) as Arc<dyn Oracle<G>>),
            ),
            pending: Vec::new(),
            opening: actions.len(),
            actions,
            moves,
            budget: Budget::default(),
            adjudicator,
            guard: GuardedTurn::default(),
            guard_due: false,
            tablebase: false,
            rng,
            leaves: Vec::new(),
            start: start_fen.clone(),
        };
        s.plan(cfg);
        s
    }

    /// Before the next search: its size, and the guard's part.
    fn plan(&mut self, cfg: &TrainConfig) {
        self.budget.plan(&self.tree, &cfg.selfplay, &mut self.rng);
        if cfg.selfplay.search.guard > 0 {
            // A chain goes on along one of the sound turns; a new turn is to be judged.
            let in_chain = self
                .tree
                .root_game()
                .as_fanorona()
                .is_some_and(|p| p.chain().is_some());
            if in_chain {
                self.guard.restrict(&mut self.tree);
            } else {
                self.guard = GuardedTurn::default();
                self.guard_due = true;
            }
        }
    }

    /// The guard's judgement of the root, a turn's first decision (on this thread's
    /// guard, its table cleared so that the judgement does not depend on which games the
    /// thread judged before).
    fn judge(&mut self, sp: &SelfPlayConfig, learned: &AbLearned) {
        self.guard_due = false;
        let Some(pos) = self.tree.root_game().as_fanorona() else {
            return;
        };
        let Some(cfg) = sp.search.guard() else {
            return;
        };
        let sound = with_thread_guard(cfg, learned, |g| {
            g.new_game();
            g.sound_turns(&History::new(*pos))
        });
        self.guard = GuardedTurn::begin(Some(sound));
        self.guard.restrict(&mut self.tree);
    }

    fn searching(&self) -> bool {
        self.tree.visits() < self.budget.target
    }

    /// The sample of a full search at the root, waiting for the game's result: the
    /// visits as the policy target (only to the turns the guard allows, when it judged).
    fn record(&mut self, variant: fanorona_rules::Variant) {
        let root = self.tree.root_game();
        let mover = root.to_move();
        let mut planes = vec![0.0; fanorona_sim::num_planes(variant) * variant.points()];
        root.encode(&mut planes);
        let mut policy: Vec<(usize, f32)> = self
            .tree
            .policy()
            .into_iter()
            .filter(|&(_, p)| p > 0.0)
            .collect();
        if let Some(allowed) = self.guard.allowed() {
            // Visits a kept subtree brought from before the guard's judgement are not
            // targets either.
            let kept: Vec<(usize, f32)> = policy
                .iter()
                .copied()
                .filter(|(a, _)| allowed.contains(a))
                .collect();
            let sum: f32 = kept.iter().map(|&(_, p)| p).sum();
            if sum > 0.0 {
                policy = kept.into_iter().map(|(a, p)| (a, p / sum)).collect();
            }
        }
        let policy = policy
            .into_iter()
            .map(|(a, p)| (frame_action(variant, mover, a) as u16, p))
            .collect();
        self.pending.push(Pending {
            planes,
            policy,
            mover,
            root_wdl: self.tree.value(),
        });
    }
}

/// Plays `turns` uniformly random turns from `start` (every decision of a turn uniformly
/// random, a capture chain included), returning the position, the actions and their
/// names. An opening that would end the game is dropped: the game starts at `start`
/// instead.
fn random_opening<G: Game>(
    start: &G,
    turns: u32,
    rng: &mut SmallRng,
) -> (G, Vec<u16>, Vec<String>) {
    let mut game = start.clone();
    let mut actions = Vec::new();
    let mut names = Vec::new();
    let mut legal = Vec::new();
    for _ in 0..turns {
        let mover = game.to_move();
        while game.to_move() == mover {
            game.legal_actions(&mut legal);
            if legal.is_empty() {
                break;
            }
            let a = legal[rng.random_range(0..legal.len())];
            names.push(game.action_name(a));
            game.apply(a);
            actions.push(a as u16);
        }
        if game.outcome().is_some() {
            return (start.clone(), Vec::new(), Vec::new());
        }
    }
    (game, actions, names)
}

/// Mixes an alpha-beta search's value into each leaf's (`selfplay.blend`), the
/// searches spread over the threads.
fn blend_values<G: Encode>(
    games: &[&G],
    wdl: &mut [[f32; 3]],
    sp: &SelfPlayConfig,
    learned: &AbLearned,
) {
    let Some(cfg) = sp.search.blend() else {
        return;
    };
    games.par_iter().zip(wdl.par_iter_mut()).for_each(|(g, v)| {
        let Some(pos) = g.as_fanorona() else { return };
        with_thread_blend(cfg, learned, |b| b.mix(pos, v));
    });
}

/// Games in flight searched together: the leaves of all of them go to the network in one
/// call.
struct Group<G> {
    slots: Vec<Slot<G>>,
    priors: Vec<Vec<f32>>,
    wdl: Vec<[f32; 3]>,
    /// Leaves gathered and not yet delivered.
    total: usize,
}

impl<G: Encode> Group<G> {
    fn new() -> Self {
        Group {
            slots: Vec::new(),
            priors: Vec::new(),
            wdl: Vec::new(),
            total: 0,
        }
    }

    /// Gathers leaves from every game that is still searching (tree work in parallel).
    fn gather(&mut self, per: usize, sp: &SelfPlayConfig, learned: &AbLearned) {
        self.slots.par_iter_mut().for_each(|s| {
            s.leaves.clear();
            if s.guard_due {
                s.judge(sp, learned);
            }
            if s.searching() {
                let want = per.min((s.budget.target - s.tree.visits()) as usize).max(1);
                s.tree.gather(want, &mut s.leaves);
            }
        });
        self.total = self.slots.iter().map(|s| s.leaves.len()).sum();
    }

    /// Evaluates the gathered leaves in one network call.
    fn evaluate(&mut self, eval: &mut NetEvaluator, sp: &SelfPlayConfig, learned: &AbLearned) {
        let total = self.total;
        if total == 0 {
            return;
        }
        let games_ref: Vec<&G> = self
            .slots
            .iter()
            .flat_map(|s| s.leaves.iter().map(|l| &l.game))
            .collect();
        let legal: Vec<&[usize]> = self
            .slots
            .iter()
            .flat_map(|s| s.leaves.iter().map(|l| l.legal.as_slice()))
            .collect();
        self.priors.resize_with(total, Vec::new);
        self.wdl.resize(total, [0.0; 3]);
        for p in self.priors.iter_mut() {
            p.clear();
        }
        eval.evaluate(
            &games_ref,
            &legal,
            Outputs::new(&mut self.priors[..total], &mut self.wdl[..total]),
        );
        if sp.search.blend > 0 {
            blend_values(&games_ref, &mut self.wdl[..total], sp, learned);
        }
    }

    /// Backs the evaluated leaves up their trees (in parallel).
    fn deliver(&mut self) {
        if self.total == 0 {
            return;
        }
        let mut offset = 0;
        let mut ranges = Vec::with_capacity(self.slots.len());
        for s in &self.slots {
            ranges.push(offset);
            offset += s.leaves.len();
        }
        let (pr, wd) = (&self.priors, &self.wdl);
        self.slots
            .par_iter_mut()
            .zip(ranges.par_iter())
            .for_each(|(s, &o)| {
                let n = s.leaves.len();
                if n > 0 {
                    let leaves = std::mem::take(&mut s.leaves);
                    s.tree.deliver(&leaves, &pr[o..o + n], &wd[o..o + n]);
                    s.leaves = leaves;
                }
            });
        self.total = 0;
    }
}

/// Plays `games` self-play games, each from one of `starts` (at least one; drawn at random
/// per game), `games_in_flight` at a time, each network call serving the leaves of every
/// game in flight. `on_game` is called after every
/// finished game with the number finished so far.
///
/// With several `selfplay.workers`, game `n` is played by worker `n % workers`, each
/// worker on a thread of its own with its own share of the games in flight and its own
/// evaluator (forked from `eval`, whose counters take theirs in). The same games then
/// come back in the same order (by game number) whatever the timing.
///
/// # Panics
/// `starts` is empty.
#[allow(clippy::too_many_arguments)]
pub fn play<G: Encode + Send + Sync>(
    starts: &[Start<G>],
    cfg: &TrainConfig,
    eval: &mut NetEvaluator,
    aids: &Aids,
    games: usize,
    generation: u64,
    seed: u64,
    on_game: &mut dyn FnMut(usize),
) -> (Vec<FinishedGame>, SelfPlayStats) {
    let t0 = std::time::Instant::now();
    assert!(!starts.is_empty(), "self-play needs a start position");
    let workers = cfg.selfplay.worker_count(eval.on_cpu()).min(games).max(1);
    let in_flight = games.min(cfg.selfplay.games_in_flight);
    let (finished, mut stats) = if workers == 1 {
        let numbers: Vec<usize> = (0..games).collect();
        play_games(
            starts, cfg, eval, aids, &numbers, in_flight, generation, seed, on_game,
        )
    } else {
        play_workers(
            starts, cfg, eval, aids, workers, games, in_flight, generation, seed, on_game,
        )
    };
    let finished: Vec<FinishedGame> = finished.into_iter().map(|(_, f)| f).collect();
    stats.seconds = t0.elapsed().as_secs_f64();
    stats.distinct_openings = distinct_openings(
        finished
            .iter()
            .map(|f| (f.record.start.as_deref(), &f.record.actions[..])),
    );
    (finished, stats)
}

/// [`play`] on `workers` threads, each a rayon pool of one thread (so that the
/// network's and the trees' parallel loops stay on it): the games with their numbers, in
/// their numbers' order.
#[allow(clippy::too_many_arguments)]
fn play_workers<G: Encode + Send + Sync>(
    starts: &[Start<G>],
    cfg: &TrainConfig,
    eval: &mut NetEvaluator,
    aids: &Aids,
    workers: usize,
    games: usize,
    in_flight: usize,
    generation: u64,
    seed: u64,
    on_game: &mut dyn FnMut(usize),
) -> (Vec<(usize, FinishedGame)>, SelfPlayStats) {
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let numbers: Vec<usize> = (w..games).step_by(workers).collect();
                // The games in flight shared out as the games are.
                let flight = (w..in_flight).step_by(workers).count().max(1);
                let mut ev = eval.fork(seed ^ (w as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let tx = tx.clone();
                scope.spawn(move || {
                    crate::on_own_pool(1, "selfplay", move || {
                        let mut done = |_: usize| {
                            // The receiver lives until every worker has finished.
                            let _ = tx.send(());
                        };
                        let r = play_games(
                            starts, cfg, &mut ev, aids, &numbers, flight, generation, seed,
                            &mut done,
                        );
                        (r, ev.calls, ev.positions)
                    })
                })
            })
            .collect();
        drop(tx);
        let mut n = 0;
        for () in rx {
            n += 1;
            on_game(n);
        }
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect::<Vec<_>>()
    });
    let mut stats = SelfPlayStats::default();
    let mut finished = Vec::with_capacity(games);
    for ((f, s), calls, positions) in results {
        stats.add(&s);
        eval.calls += calls;
        eval.positions += positions;
        finished.extend(f);
    }
    finished.sort_by_key(|&(n, _)| n);
    (finished, stats)
}

/// Plays the games numbered `numbers` (the number seeds the game), `in_flight` at a time,
/// on this thread with `eval`: each finished game with its number, in the order they
/// finished, and the counts (seconds and distinct openings left to [`play`]).
#[allow(clippy::too_many_arguments)]
fn play_games<G: Encode + Sync>(
    starts: &[Start<G>],
    cfg: &TrainConfig,
    eval: &mut NetEvaluator,
    aids: &Aids,
    numbers: &[usize],
    in_flight: usize,
    generation: u64,
    seed: u64,
    on_game: &mut dyn FnMut(usize),
) -> (Vec<(usize, FinishedGame)>, SelfPlayStats) {
    let sp = &cfg.selfplay;
    let variant = starts[0].0.variant();
    let mut stats = SelfPlayStats::default();
    let games = numbers.len();
    let in_flight = games.min(in_flight);
    let mut group: Group<G> = Group::new();
    let new_slot = |i: usize| {
        let n = numbers[i];
        Slot::new(
            starts,
            cfg,
            aids,
            seed.wrapping_mul(1_000_003).wrapping_add(n as u64),
            n,
        )
    };
    let mut started = 0usize;
    while started < in_flight {
        group.slots.push(new_slot(started));
        started += 1;
    }
    let mut finished = Vec::new();
    let (calls0, evals0) = (eval.calls, eval.positions);
    // Decide where the search is done; a finished game's place goes to a new one.
    let mut settle = |g: &mut Group<G>| {
        let mut i = 0;
        while i < g.slots.len() {
            if g.slots[i].searching() {
                i += 1;
                continue;
            }
            let done = decide(&mut g.slots[i], cfg, aids, variant, &mut stats);
            if let Some((outcome, resigned)) = done {
                let s = g.slots.swap_remove(i);
                let n = s.number;
                finished.push((
                    n,
                    finish(
                        s,
                        outcome,
                        resigned,
                        generation,
                        variant,
                        sp.value_q_weight,
                        &mut stats,
                    ),
                ));
                on_game(finished.len());
                if started < games {
                    g.slots.push(new_slot(started));
                    started += 1;
                }
            } else {
                i += 1;
            }
        }
    };
    let per = sp.search.batch;
    let g = &mut group;
    while !g.slots.is_empty() {
        g.gather(per, sp, &aids.learned);
        g.evaluate(eval, sp, &aids.learned);
        g.deliver();
        settle(g);
    }
    stats.calls = eval.calls - calls0;
    stats.evals = eval.positions - evals0;
    (finished, stats)
}

/// After a search: record a sample, pick and play the action. Returns the outcome when
/// the game is over (and whether by resignation).
fn decide<G: Encode>(
    s: &mut Slot<G>,
    cfg: &TrainConfig,
    aids: &Aids,
    variant: fanorona_rules::Variant,
    stats: &mut SelfPlayStats,
) -> Option<(Outcome, bool)> {
    let sp = &cfg.selfplay;
    stats.sims += (s.tree.visits() - s.budget.sims_at_start) as u64;
    if s.budget.full {
        s.record(variant);
    }
    let mover = s.tree.root_game().to_move();
    if let Some(end) = s.adjudicator.judge(s.tree.value(), mover, sp) {
        return Some(end);
    }
    let temperature = if ((s.actions.len() - s.opening) as u32) < sp.temperature_moves {
        1.0
    } else {
        0.0
    };
    let a = s.tree.choose(temperature)?;
    s.actions.push(a as u16);
    s.guard.play(a);
    s.moves.push(s.tree.root_game().action_name(a));
    s.tree.advance(a);
    stats.decisions += 1;
    if let Some(o) = s.tree.root_game().outcome() {
        return Some((o, false));
    }
    if let Some(o) = table_result(&aids.tables, s.tree.root_game()) {
        // Exact from here: the tables' result is the game's, and every earlier
        // position's value target.
        s.tablebase = true;
        return Some((o, false));
    }
    if s.actions.len() as u32 >= sp.max_decisions {
        return Some((Outcome::Draw, false));
    }
    s.plan(cfg);
    None
}

fn finish<G: Encode>(
    s: Slot<G>,
    outcome: Outcome,
    resigned: bool,
    generation: u64,
    variant: fanorona_rules::Variant,
    q_weight: f32,
    stats: &mut SelfPlayStats,
) -> FinishedGame {
    stats.games += 1;
    match outcome {
        Outcome::Win(Color::White) => stats.white += 1,
        Outcome::Win(Color::Black) => stats.black += 1,
        Outcome::Draw => stats.draws += 1,
    }
    if resigned {
        stats.resigned += 1;
    }
    s.adjudicator.count(outcome, stats);
    if s.tablebase {
        stats.tablebase += 1;
    }
    let ownership = ownership_targets(s.tree.root_game());
    let samples: Vec<Sample> = s
        .pending
        .into_iter()
        .map(|p| {
            let w = q_weight;
            let mut wdl = p.root_wdl.map(|q| w * q);
            wdl[wdl_index(outcome, p.mover)] += 1.0 - w;
            Sample {
                planes: p.planes,
                policy: p.policy,
                wdl,
                ownership: ownership(p.mover),
            }
        })
        .collect();
    stats.samples += samples.len() as u64;
    FinishedGame {
        record: GameRecord {
            version: GAME_VERSION,
            variant: variant.name().into(),
            generation,
            result: outcome.name().into(),
            actions: s.actions,
            moves: s.moves,
            resigned,
            tablebase: s.tablebase,
            start: s.start,
        },
        samples,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_sharing_their_first_decisions_count_once() {
        let long: Vec<u16> = (0..30).collect();
        let mut same_opening = long.clone();
        same_opening[25] = 999; // differs only after the opening
        let mut other = long.clone();
        other[3] = 999;
        let short = vec![1u16, 2];
        let games = [&long[..], &same_opening, &other, &short, &short];
        assert_eq!(distinct_openings(games.into_iter().map(|g| (None, g))), 3);
        assert_eq!(distinct_openings(std::iter::empty()), 0);
        // The same decisions from another start are another opening.
        let starts = [None, Some("x"), Some("x"), Some("y")];
        let same = starts.into_iter().map(|s| (s, &long[..]));
        assert_eq!(distinct_openings(same), 3);
    }
}
