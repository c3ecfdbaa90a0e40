//! Self-play: many games in flight, their leaves evaluated together in one network batch.

use crate::config::{SelfPlayConfig, TrainConfig};
use crate::records::{GAME_VERSION, GameRecord, Sample, ownership_targets};
use fanorona_nn::NetEvaluator;
use fanorona_rules::{Color, Game, History, Outcome};
use fanorona_search::{
    AbBlend, Evaluator, Leaf, LearnedEval, Mcts, Oracle, TurnGuard, next_actions, wdl_index,
};
use fanorona_sim::{Encode, frame_action};
use fanorona_tb::Tablebase;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::sync::Arc;

/// The learned evaluation of self-play's alpha-beta searches (`selfplay.ab_eval`; `None`:
/// the hand-written one).
pub type AbEval = Option<Arc<LearnedEval>>;

/// What self-play's searches use beside the network.
#[derive(Clone, Debug, Default)]
pub struct Aids {
    /// The learned evaluation of the alpha-beta searches (`selfplay.ab_eval`).
    pub learned: AbEval,
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

/// Whether two learned evaluations are the same one (both hand-written, or one file read
/// once).
fn same_eval(a: &AbEval, b: &AbEval) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        _ => false,
    }
}

/// What self-play measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct SelfPlayStats {
    /// Games finished.
    pub games: u64,
    /// Decisions (actions) played.
    pub decisions: u64,
    /// Samples recorded (full searches).
    pub samples: u64,
    /// Simulations run.
    pub sims: u64,
    /// Positions evaluated by the network.
    pub evals: u64,
    /// Network calls.
    pub calls: u64,
    /// Games won by White, by Black, drawn.
    pub white: u64,
    /// Games won by Black.
    pub black: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games ended by resignation.
    pub resigned: u64,
    /// Check games (played out) in which a side would have resigned.
    pub resign_checks: u64,
    /// ... and did not lose: resignation false positives.
    pub resign_false: u64,
    /// Games scored a draw by adjudication (`selfplay.draw_value`).
    pub adjudicated: u64,
    /// Games ended by the endgame tables' result (`selfplay.tablebases`).
    pub tablebase: u64,
    /// Check games (played out) that would have been adjudicated a draw.
    pub draw_checks: u64,
    /// ... and were not drawn: adjudication false positives.
    pub draw_false: u64,
    /// Seconds spent.
    pub seconds: f64,
    /// Distinct openings (first [`OPENING_DECISIONS`] decisions) among the games of each
    /// batch (a generation, or a worker's chunk), summed over batches: games that share
    /// an opening count once. A fall is self-play collapsing onto a few lines, which the
    /// value loss hides (it falls too: `experiments/dimy7`).
    pub distinct_openings: u64,
}

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

impl SelfPlayStats {
    /// Adds another batch's counts (seconds add too).
    pub fn add(&mut self, o: &SelfPlayStats) {
        self.games += o.games;
        self.decisions += o.decisions;
        self.samples += o.samples;
        self.sims += o.sims;
        self.evals += o.evals;
        self.calls += o.calls;
        self.white += o.white;
        self.black += o.black;
        self.draws += o.draws;
        self.resigned += o.resigned;
        self.resign_checks += o.resign_checks;
        self.resign_false += o.resign_false;
        self.adjudicated += o.adjudicated;
        self.tablebase += o.tablebase;
        self.draw_checks += o.draw_checks;
        self.draw_false += o.draw_false;
        self.seconds += o.seconds;
        self.distinct_openings += o.distinct_openings;
    }
}

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
    pending: Vec<Pending>,
    actions: Vec<u16>,
    moves: Vec<String>,
    target: u32,
    full: bool,
    resign_check: bool,
    would_resign: Option<Color>,
    /// Decisions in a row whose search gave a draw at least `selfplay.draw_value`.
    drawish: u32,
    /// A check game that would have been adjudicated a draw.
    would_draw: bool,
    /// Scored a draw by adjudication.
    adjudicated: bool,
    /// Ended by the endgame tables.
    tablebase: bool,
    rng: SmallRng,
    leaves: Vec<Leaf<G>>,
    sims_at_start: u32,
    /// Decisions of the random opening (recorded as moves, not as samples).
    opening: usize,
    /// The FEN of the position the game began from, if not the start position.
    start: Option<String>,
    /// With `selfplay.guard`: the sound turns of the turn being played (as step-level
    /// actions), `None` until judged.
    sound: Option<Vec<Vec<usize>>>,
    /// ... where that turn began in `actions`.
    turn_start: usize,
    /// ... and whether the guard must judge the root before the next search.
    guard_due: bool,
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
        let resign_check = rng.random_range(0.0f32..1.0) < cfg.selfplay.resign_check_share;
        let (start, start_fen) = match starts {
            [one] => one,
            _ => &starts[rng.random_range(0..starts.len())],
        };
        let turns = rng.random_range(0..=cfg.selfplay.opening_turns);
        let (game, actions, moves) = random_opening(start, turns, &mut rng);
        let mut s = Slot {
            number,
            tree: Mcts::new(game, cfg.selfplay.search().mcts, seed).with_oracle(
                aids.tables
                    .clone()
                    .map(|t| Arc::new(Tables(t)) as Arc<dyn Oracle<G>>),
            ),
            pending: Vec::new(),
            opening: actions.len(),
            actions,
            moves,
            target: 0,
            full: true,
            resign_check,
            would_resign: None,
            drawish: 0,
            would_draw: false,
            adjudicated: false,
            tablebase: false,
            rng,
            leaves: Vec::new(),
            sims_at_start: 0,
            start: start_fen.clone(),
            sound: None,
            turn_start: 0,
            guard_due: false,
        };
        s.plan(cfg);
        s
    }

    /// Chooses the next search's size (playout-cap randomisation).
    fn plan(&mut self, cfg: &TrainConfig) {
        let s = &cfg.selfplay;
        self.full = s.fast_sims == 0 || self.rng.random_range(0.0f32..1.0) < s.full_search_prob;
        let sims = if self.full {
            s.sims
        } else {
            s.fast_sims.min(s.sims)
        };
        self.sims_at_start = self.tree.visits();
        self.target = sims.max(self.tree.visits() + 1);
        if s.guard > 0 {
            let in_chain = self
                .tree
                .root_game()
                .as_fanorona()
                .is_some_and(|p| p.chain().is_some());
            if in_chain {
                // A chain goes on along one of the sound turns.
                if let Some(allowed) = self.allowed() {
                    self.tree.restrict_root(&allowed);
                }
            } else {
                self.turn_start = self.actions.len();
                self.sound = None;
                self.guard_due = true;
            }
        }
    }

    /// The root actions the guard allows (`None`: no guard, or not judged).
    fn allowed(&self) -> Option<Vec<usize>> {
        let played: Vec<usize> = self.actions[self.turn_start..]
            .iter()
            .map(|&a| a as usize)
            .collect();
        self.sound.as_ref().map(|t| next_actions(t, &played))
    }

    /// The guard's judgement of the root, a turn's first decision (on this thread's
    /// guard, its table cleared so that the judgement does not depend on which games the
    /// thread judged before).
    fn judge(&mut self, sp: &SelfPlayConfig, learned: &AbEval) {
        self.guard_due = false;
        let Some(pos) = self.tree.root_game().as_fanorona() else {
            return;
        };
        let Some(cfg) = sp.search().guard else {
            return;
        };
        let sound = GUARD.with_borrow_mut(|g| {
            let g = match g {
                Some((g, l)) if *g.config() == cfg && same_eval(l, learned) => g,
                _ => {
                    let guard = TurnGuard::with_table(cfg, 2).with_learned(learned.clone());
                    &mut g.insert((guard, learned.clone())).0
                }
            };
            g.new_game();
            g.sound_turns(&History::new(*pos))
        });
        self.tree.restrict_root(&next_actions(&sound, &[]));
        self.sound = Some(sound);
    }

    fn searching(&self) -> bool {
        self.tree.visits() < self.target
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

thread_local! {
    /// Each self-play thread's tactical guard (`selfplay.guard`) and the learned evaluation
    /// it was made with.
    static GUARD: std::cell::RefCell<Option<(TurnGuard, AbEval)>> = const { std::cell::RefCell::new(None) };
    /// Each self-play thread's alpha-beta engine for blended leaf values, and its learned
    /// evaluation.
    static BLEND: std::cell::RefCell<Option<(AbBlend<()>, AbEval)>> = const { std::cell::RefCell::new(None) };
}

/// Mixes an alpha-beta search's value into each leaf's (`selfplay.blend`), the
/// searches spread over the threads.
fn blend_values<G: Encode>(
    games: &[&G],
    wdl: &mut [[f32; 3]],
    sp: &SelfPlayConfig,
    learned: &AbEval,
) {
    let Some(cfg) = sp.search().blend else {
        return;
    };
    games.par_iter().zip(wdl.par_iter_mut()).for_each(|(g, v)| {
        let Some(pos) = g.as_fanorona() else { return };
        BLEND.with_borrow_mut(|b| {
            let b = match b {
                Some((b, l)) if *b.config() == cfg && same_eval(l, learned) => b,
                _ => {
                    let blend = AbBlend::new((), cfg).with_learned(learned.clone());
                    &mut b.insert((blend, learned.clone())).0
                }
            };
            b.mix(pos, v);
        });
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
    fn gather(&mut self, per: usize, sp: &SelfPlayConfig, learned: &AbEval) {
        self.slots.par_iter_mut().for_each(|s| {
            s.leaves.clear();
            if s.guard_due {
                s.judge(sp, learned);
            }
            if s.searching() {
                let want = per.min((s.target - s.tree.visits()) as usize).max(1);
                s.tree.gather(want, &mut s.leaves);
            }
        });
        self.total = self.slots.iter().map(|s| s.leaves.len()).sum();
    }

    /// Evaluates the gathered leaves in one network call.
    fn evaluate(&mut self, eval: &mut NetEvaluator, sp: &SelfPlayConfig, learned: &AbEval) {
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
            &mut self.priors[..total],
            &mut self.wdl[..total],
        );
        if sp.blend > 0 {
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
    let per = sp.leaves_per_game;
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
    stats.sims += (s.tree.visits() - s.sims_at_start) as u64;
    let root = s.tree.root_game().clone();
    let mover = root.to_move();
    if s.full {
        let mut planes = vec![0.0; fanorona_sim::num_planes(variant) * variant.points()];
        root.encode(&mut planes);
        let mut policy: Vec<(usize, f32)> = s
            .tree
            .policy()
            .into_iter()
            .filter(|&(_, p)| p > 0.0)
            .collect();
        if let Some(allowed) = s.allowed() {
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
        s.pending.push(Pending {
            planes,
            policy,
            mover,
            root_wdl: s.tree.value(),
        });
    }
    // Resignation.
    if sp.resign_threshold > -1.0 {
        let v = s.tree.value();
        if v[0] - v[2] < sp.resign_threshold {
            if s.resign_check {
                s.would_resign.get_or_insert(mover);
            } else {
                return Some((Outcome::Win(mover.other()), true));
            }
        }
    }
    // Draw adjudication.
    if sp.draw_value > 0.0 {
        if s.tree.value()[1] >= sp.draw_value {
            s.drawish += 1;
        } else {
            s.drawish = 0;
        }
        if s.drawish >= sp.draw_decisions {
            if s.resign_check {
                s.would_draw = true;
            } else {
                s.adjudicated = true;
                return Some((Outcome::Draw, false));
            }
        }
    }
    let temperature = if ((s.actions.len() - s.opening) as u32) < sp.temperature_moves {
        1.0
    } else {
        0.0
    };
    let a = s.tree.choose(temperature)?;
    s.actions.push(a as u16);
    s.moves.push(root.action_name(a));
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
    if let Some(c) = s.would_resign {
        stats.resign_checks += 1;
        if outcome != Outcome::Win(c.other()) {
            stats.resign_false += 1;
        }
    }
    if s.adjudicated {
        stats.adjudicated += 1;
    }
    if s.tablebase {
        stats.tablebase += 1;
    }
    if s.would_draw {
        stats.draw_checks += 1;
        if outcome != Outcome::Draw {
            stats.draw_false += 1;
        }
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
