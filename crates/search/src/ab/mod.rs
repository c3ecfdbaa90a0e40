//! Principal-variation alpha-beta over whole turns.
//!
//! Negamax with iterative deepening, a transposition table, move ordering (hash move,
//! captures by size, killers, history), quiescence over capture sequences, the draw rules
//! (quiet clock, and repetition where enabled) and mate-distance scores. Selective as chess
//! engines are (each technique kept because the arena said so: `experiments/ab68`):
//! reverse futility pruning, null-move pruning, late-move reductions and pruning, all at
//! quiet non-PV nodes only (where a capture is forced the static score is about to
//! swing), aspiration windows and internal iterative reduction; a search stopped by its
//! clock keeps the best turn of the iteration it was in. Several threads search one
//! position together over a shared lockless table (Lazy SMP).

mod config;

use crate::tt::Table;
pub use config::{AbConfig, DEFAULT_DEPTH, Limits, NodeLabel, SearchParams, SearchResult};
use fanorona_eval::learned::Accumulator;
use fanorona_eval::{Bound, MATE, MATE_BOUND, TB_WIN, evaluate, outcome_score};
use fanorona_rules::{History, Position, Turn, TurnMode};
use fanorona_tb::Wdl;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;
use web_time::Instant;

/// Beyond every score: the open window's bound.
pub(crate) const INF: i32 = MATE + 1;

/// What [`AlphaBeta::record_labels`] keeps.
#[derive(Debug)]
struct Recorder {
    min_depth: i32,
    max_quiet: u16,
    labels: Vec<NodeLabel>,
}

/// The alpha-beta engine. Keeps its transposition table between searches of one game;
/// [`AlphaBeta::new_game`] clears it. Deterministic for a given sequence of searches
/// limited by depth or nodes when it searches on one thread.
#[derive(Debug)]
pub struct AlphaBeta {
    cfg: AbConfig,
    tt: Arc<Table>,
    stop: Arc<AtomicBool>,
    /// The first searches and reports; the others fill the shared table.
    workers: Vec<Worker>,
}

/// One thread's search state.
#[derive(Debug)]
struct Worker {
    cfg: AbConfig,
    tt: Arc<Table>,
    /// Set by whichever thread stops first; every thread stops.
    stop: Arc<AtomicBool>,
    killers: Vec<[u16; 2]>,
    history: Vec<i32>,
    lists: Vec<Vec<Turn>>,
    order: Vec<Vec<(i32, u16)>>,
    pv: Vec<Vec<Turn>>,
    /// With a learned evaluation: the position at each ply of the search path, its
    /// accumulator, and which of the accumulator's views (by colour) are up to date.
    /// Views are computed when a leaf is evaluated, from the nearest ancestor with the
    /// same side to move whose view is, and kept for its siblings.
    stack: Vec<(Position, Accumulator, [bool; 2])>,
    /// Hashes of the positions before the current node (game, then search path), for
    /// the repetition rule.
    path: Vec<u64>,
    nodes: u64,
    /// Positions answered by the endgame tables in this search.
    tb_hits: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    /// When the current search began (the time manager's clock).
    started: Instant,
    stopped: bool,
    /// The root's best score so far in the current iteration.
    partial: i32,
    /// Tree learning's labels, when asked for.
    recorder: Option<Recorder>,
}

const MAX_PLY: usize = 128;

/// Reverse futility: a non-PV node this close to the leaves whose static score beats
/// beta by the margin per remaining turn ([`SearchParams::rfp_margin`]) is taken as
/// failing high.
const RFP_DEPTH: i32 = 5;
/// Null move: from this depth, reduced by `nmp_base + depth / nmp_div` more turns
/// ([`SearchParams`]), when the side to move has more than `NMP_PIECES` pieces (few
/// pieces: zugzwang-like).
const NMP_DEPTH: i32 = 3;
const NMP_PIECES: u32 = 3;
/// Late-move pruning: at a quiet non-PV node of depth d, at most `lmp_base + d * d`
/// turns are searched.
const LMP_DEPTH: i32 = 4;
/// Late-move reductions from this depth and move number (quiet turns, not killers).
const LMR_DEPTH: i32 = 3;
const LMR_MOVE: usize = 3;
/// Aspiration window at the root from this depth ([`SearchParams::asp_window`]).
const ASP_DEPTH: u32 = 4;

/// Internal iterative reduction: a node without a table move from this depth searches
/// one turn shallower.
const IIR_DEPTH: i32 = 4;

impl AlphaBeta {
    /// An engine with these settings.
    pub fn new(cfg: AbConfig) -> AlphaBeta {
        let tt = Arc::new(Table::new(cfg.hash_mb));
        let stop = Arc::new(AtomicBool::new(false));
        let workers = (0..cfg.threads.max(1))
            .map(|_| Worker::new(cfg.clone(), tt.clone(), stop.clone()))
            .collect();
        AlphaBeta {
            cfg,
            tt,
            stop,
            workers,
        }
    }

    /// Positions the endgame tables answered in the last search, over all its threads
    /// (0 without tables).
    pub fn tb_hits(&self) -> u64 {
        self.workers.iter().map(|w| w.tb_hits).sum()
    }

    /// A flag that stops the search in progress when set, from any thread (the engine
    /// protocol's `stop`); the search then reports what it had. Each search clears it
    /// when it starts.
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// The settings.
    pub fn config(&self) -> &AbConfig {
        &self.cfg
    }

    /// From now on, every node the searches finish (not stopped, not cut by the table or
    /// a pruning rule) at `min_depth` turns or more, whose quiet counter is at most
    /// `max_quiet`, is kept as a [`NodeLabel`] until [`AlphaBeta::take_labels`].
    pub fn record_labels(&mut self, min_depth: u32, max_quiet: u16) {
        for w in &mut self.workers {
            w.recorder = Some(Recorder {
                min_depth: min_depth.max(1) as i32,
                max_quiet,
                labels: Vec::new(),
            });
        }
    }

    /// The labels kept since the last call, one a position (positions told apart by
    /// their quiet counter too): the deepest search of each, the later of equals.
    pub fn take_labels(&mut self) -> Vec<NodeLabel> {
        let mut all: Vec<(usize, NodeLabel)> = Vec::new();
        for w in &mut self.workers {
            if let Some(r) = &mut w.recorder {
                let start = all.len();
                all.extend(r.labels.drain(..).enumerate().map(|(i, l)| (start + i, l)));
            }
        }
        let key = |l: &NodeLabel| (l.position.hash(), l.position.quiet());
        all.sort_by(|(i, a), (j, b)| {
            key(a)
                .cmp(&key(b))
                .then(b.depth.cmp(&a.depth))
                .then(j.cmp(i))
        });
        all.dedup_by(|(_, later), (_, kept)| key(later) == key(kept));
        all.sort_by_key(|(i, _)| *i);
        all.into_iter().map(|(_, l)| l).collect()
    }

    /// Forgets everything learned (transposition table, killers, history).
    pub fn new_game(&mut self) {
        self.tt.clear();
        for w in &mut self.workers {
            w.history.fill(0);
            w.killers.fill([0; 2]);
        }
    }

    /// Searches the current position of a game (its history feeds the repetition rule).
    pub fn search(&mut self, game: &History, limits: &Limits) -> SearchResult {
        let mut path = Vec::new();
        game_path(game, &mut path);
        self.search_root(game.position(), &path, limits)
    }

    /// Searches a position with no game history.
    pub fn search_position(&mut self, pos: &Position, limits: &Limits) -> SearchResult {
        self.search_root(pos, &[], limits)
    }

    /// Resets the counters and limits of a new search.
    fn begin(&mut self) {
        self.tt.new_search();
        self.stop.store(false, Relaxed);
    }

    /// One search of the current position of `game` to `depth` turns within the window
    /// (`alpha`, `beta`), without iterative deepening (the table's moves from earlier
    /// searches order it), on one thread: a score at most `alpha` is an upper bound of
    /// the position's value, at least `beta` a lower bound, between them exact
    /// (fail-soft). With `alpha + 1 == beta` it answers "is the value above `alpha`?"
    /// far faster than an exact search. `None` when `deadline` passed first.
    pub fn search_window(
        &mut self,
        game: &History,
        depth: u32,
        alpha: i32,
        beta: i32,
        deadline: Option<Instant>,
    ) -> Option<i32> {
        self.begin();
        let w = &mut self.workers[0];
        game_path(game, &mut w.path);
        w.begin(None, deadline);
        let root = game.position();
        w.set_root(root);
        let depth = depth.clamp(1, MAX_PLY as u32 - 16) as i32;
        let score = w.negamax(root, depth, 0, alpha.max(-INF), beta.min(INF), true);
        (!w.stopped).then_some(score)
    }

    fn search_root(&mut self, root: &Position, path: &[u64], limits: &Limits) -> SearchResult {
        let start = Instant::now();
        // A position the tables cover: their turn (the fastest safe win, the longest
        // defence, a drawing turn), no search.
        if let Some(tb) = &self.cfg.tb
            && let Some(p) = tb.probe(root)
            && let Some(best) = p.best
        {
            return SearchResult {
                best: Some(best),
                score: tb_score(p.wdl, p.dtc),
                pv: vec![best],
                depth: 0,
                nodes: 1,
                seconds: start.elapsed().as_secs_f64(),
            };
        }
        self.begin();
        let deadline = limits.time.map(|t| start + t);
        let (main, helpers) = self.workers.split_first_mut().expect("one worker");
        main.path.clear();
        main.path.extend_from_slice(path);
        main.begin(limits.nodes, deadline);
        let mut result = if helpers.is_empty() {
            main.iterate(root, limits)
        } else {
            let stop = &self.stop;
            std::thread::scope(|s| {
                for (i, h) in helpers.iter_mut().enumerate() {
                    h.path.clear();
                    h.path.extend_from_slice(path);
                    h.begin(None, None);
                    // Half the helpers start one turn deeper, so that the threads do
                    // not all finish the same iteration at once.
                    let skew = (i % 2) as u32;
                    // The main thread alone manages the time; the helpers stop with it.
                    let limits = Limits {
                        target: None,
                        ..*limits
                    };
                    s.spawn(move || h.iterate_from(root, &limits, 1 + skew));
                }
                let r = main.iterate(root, limits);
                stop.store(true, Relaxed);
                r
            })
        };
        result.nodes = self.workers.iter().map(|w| w.nodes).sum();
        result.seconds = start.elapsed().as_secs_f64();
        result
    }
}

/// The time manager's view of one search on a clock ([`Limits::target`]): after each
/// completed iteration, whether to start the next.
struct TimeManager {
    /// Seconds the turn aims at.
    target: f64,
    /// Changes of the best turn, each iteration's count halved by the next.
    instability: f64,
    /// The last iteration's best turn and score.
    best: Option<Turn>,
    score: Option<i32>,
}

impl TimeManager {
    /// The target's scale with a best turn that has stayed and a score that holds.
    const STABLE: f64 = 0.7;
    /// The most the target stretches, and the least it shrinks to.
    const MAX_SCALE: f64 = 2.5;
    const MIN_SCALE: f64 = 0.5;
    /// A score fall (hundredths of a piece) between iterations that doubles the target.
    const FALL: i32 = 100;
    /// The share of the (scaled) target past which the next iteration is not started:
    /// it would likely take as long as all before it, and more.
    const NEXT: f64 = 0.5;

    fn new(target: Duration) -> TimeManager {
        TimeManager {
            target: target.as_secs_f64(),
            instability: 0.0,
            best: None,
            score: None,
        }
    }

    /// After an iteration that chose `best` at `score`, `elapsed` into the turn: whether
    /// the turn has had enough time.
    fn enough(&mut self, best: Option<Turn>, score: i32, elapsed: Duration) -> bool {
        let changed = self.best.is_some() && self.best != best;
        self.instability = self.instability * 0.5 + f64::from(u8::from(changed));
        let fall = self
            .score
            .map_or(0, |last| (last - score).clamp(0, Self::FALL));
        self.best = best;
        self.score = Some(score);
        let scale = ((Self::STABLE + self.instability)
            * (1.0 + f64::from(fall) / f64::from(Self::FALL)))
        .clamp(Self::MIN_SCALE, Self::MAX_SCALE);
        elapsed.as_secs_f64() >= self.target * scale * Self::NEXT
    }
}

impl Worker {
    fn new(cfg: AbConfig, tt: Arc<Table>, stop: Arc<AtomicBool>) -> Worker {
        Worker {
            cfg,
            tt,
            stop,
            killers: vec![[0; 2]; MAX_PLY],
            history: vec![0; 64 * 64],
            lists: (0..MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            order: (0..MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            pv: (0..MAX_PLY).map(|_| Vec::with_capacity(MAX_PLY)).collect(),
            stack: Vec::new(),
            path: Vec::with_capacity(512),
            nodes: 0,
            tb_hits: 0,
            node_limit: u64::MAX,
            deadline: None,
            started: Instant::now(),
            stopped: false,
            partial: 0,
            recorder: None,
        }
    }

    /// Resets the counters and limits of a new search.
    fn begin(&mut self, node_limit: Option<u64>, deadline: Option<Instant>) {
        self.nodes = 0;
        self.tb_hits = 0;
        self.stopped = false;
        self.node_limit = node_limit.unwrap_or(u64::MAX);
        self.deadline = deadline;
        self.started = Instant::now();
    }

    fn iterate(&mut self, root: &Position, limits: &Limits) -> SearchResult {
        self.iterate_from(root, limits, 1)
    }

    /// Iterative deepening from `first` turns to the limits' depth.
    fn iterate_from(&mut self, root: &Position, limits: &Limits, first: u32) -> SearchResult {
        self.set_root(root);
        let max_depth = match (limits.depth, limits.nodes, limits.time) {
            (Some(d), _, _) => d.clamp(1, MAX_PLY as u32 - 16),
            (None, None, None) => DEFAULT_DEPTH,
            _ => MAX_PLY as u32 - 16,
        };
        let legal = root.turns(TurnMode::Distinct);
        let mut result = SearchResult {
            best: legal.first().copied(),
            score: 0,
            pv: legal.first().copied().into_iter().collect(),
            depth: 0,
            nodes: 0,
            seconds: 0.0,
        };
        if let Some(o) = root.outcome_given(!legal.is_empty()) {
            result.best = None;
            result.pv.clear();
            result.score = outcome_score(o, root, 0, self.cfg.graded_draws);
            return result;
        }
        let mut manager = limits.target.map(TimeManager::new);
        for depth in first.min(max_depth)..=max_depth {
            let score =
                if self.cfg.selective && depth >= ASP_DEPTH && result.score.abs() < MATE_BOUND {
                    self.aspiration(root, depth as i32, result.score)
                } else {
                    self.negamax(root, depth as i32, 0, -INF, INF, true)
                };
            if self.stopped && depth > 1 {
                // An interrupted iteration's best turn so far was searched to the full
                // depth, and the table's turn (the last iteration's best) came first:
                // it is at least as well founded as the last complete iteration's.
                if let Some(&best) = self.pv[0].first() {
                    result.best = Some(best);
                    result.pv = self.pv[0].clone();
                    result.score = self.partial;
                }
                break;
            }
            if let Some(&best) = self.pv[0].first() {
                result.best = Some(best);
                result.pv = self.pv[0].clone();
                result.score = score;
                result.depth = depth;
            }
            if self.stopped {
                break;
            }
            // A forced result within the searched depth will not change.
            if score.abs() > MATE_BOUND && (MATE - score.abs()) as u32 <= depth {
                break;
            }
            if let Some(m) = &mut manager
                && (legal.len() == 1 || m.enough(result.best, score, self.started.elapsed()))
            {
                break;
            }
        }
        result
    }

    /// A root search in a window around the last iteration's score, widened on failure.
    fn aspiration(&mut self, root: &Position, depth: i32, last: i32) -> i32 {
        let mut delta = self.cfg.params.asp_window.max(1);
        let (mut alpha, mut beta) = (last - delta, last + delta);
        loop {
            let score = self.negamax(root, depth, 0, alpha, beta, true);
            if self.stopped {
                return score;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INF);
            } else if score >= beta {
                beta = (score + delta).min(INF);
            } else {
                return score;
            }
            delta += delta;
            if delta > 1000 {
                alpha = -INF;
                beta = INF;
            }
        }
    }

    /// The root of a search, ply 0, both views of its accumulator computed.
    fn set_root(&mut self, root: &Position) {
        if let Some(e) = self.cfg.learned.as_deref() {
            if self.stack.is_empty() {
                self.stack = vec![(*root, Accumulator::default(), [false; 2]); MAX_PLY];
            }
            self.stack[0] = (*root, e.accumulate(root), [true; 2]);
        }
    }

    /// Records the position now at `ply` (its views not yet computed).
    #[inline]
    fn enter(&mut self, ply: usize, pos: &Position) {
        if ply > 0 && self.cfg.learned.is_some() {
            let slot = &mut self.stack[ply];
            slot.0 = *pos;
            slot.2 = [false; 2];
        }
    }

    /// The tables' score of a covered position.
    #[inline]
    fn tb_probe(&mut self, pos: &Position) -> Option<i32> {
        let (w, d) = self.cfg.tb.as_ref()?.wdl(pos)?;
        self.tb_hits += 1;
        Some(tb_score(w, d))
    }

    /// The static score of `pos`, at `ply`, for the side to move.
    #[inline]
    fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        let Some(e) = self.cfg.learned.as_deref() else {
            return evaluate(pos, &self.cfg.weights);
        };
        let side = pos.side_to_move();
        let v = side.index();
        // Up the path by twos (the side to move alternates) to a computed view; the
        // root has both.
        let mut from = ply;
        while !self.stack[from].2[v] {
            from = from.saturating_sub(2);
        }
        let mut at = from;
        while at < ply {
            let next = if at == 0 && ply % 2 == 1 { 1 } else { at + 2 };
            let (here, below) = self.stack.split_at_mut(next);
            let (before, acc, _) = &here[at];
            let (after, child, done) = &mut below[0];
            e.update(acc, before, child, after, side);
            done[v] = true;
            at = next;
        }
        let score = e.evaluate_acc(pos, &self.cfg.weights, &self.stack[ply].1);
        // The unit tests check every leaf against the score added up from scratch.
        #[cfg(test)]
        assert_eq!(
            score,
            e.evaluate(pos, &self.cfg.weights),
            "accumulator out of date at ply {ply}"
        );
        score
    }

    #[inline]
    fn check_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes >= self.node_limit
            || (self.nodes & 1023 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.stopped = true;
            self.stop.store(true, Relaxed);
        } else if self.stop.load(Relaxed) {
            self.stopped = true;
        }
        self.stopped
    }

    fn is_repetition(&self, pos: &Position) -> bool {
        if !pos.rules().repetition_draw {
            return false;
        }
        // Positions since the last capture, same side to move: every second one back.
        let window = pos.quiet() as usize;
        let h = pos.hash();
        let seen = self
            .path
            .iter()
            .rev()
            .take(window)
            .skip(1)
            .step_by(2)
            .filter(|&&x| x == h)
            .count();
        seen >= 2
    }

    /// Searches `pos` to `depth` turns in (`alpha`, `beta`). `null_ok`: a null move may
    /// be tried here (not right after another).
    fn negamax(
        &mut self,
        pos: &Position,
        mut depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        null_ok: bool,
    ) -> i32 {
        self.pv[ply].clear();
        if self.check_stop() {
            return 0;
        }
        if depth <= 0 || ply >= MAX_PLY - 2 {
            return self.qsearch(pos, ply, alpha, beta, self.cfg.qsearch_depth);
        }
        self.enter(ply, pos);
        self.nodes += 1;
        if ply > 0
            && let Some(s) = self.tb_probe(pos)
        {
            return s;
        }
        // The table's slot is fetched while the turns are generated.
        let key = pos.hash();
        self.tt.prefetch(key);
        let mut list = std::mem::take(&mut self.lists[ply]);
        pos.turns_into(&mut list, TurnMode::Distinct);
        if let Some(o) = pos.outcome_given(!list.is_empty()) {
            self.lists[ply] = list;
            return outcome_score(o, pos, ply, self.cfg.graded_draws);
        }
        if ply > 0 && self.is_repetition(pos) {
            self.lists[ply] = list;
            return 0;
        }
        let mut hash_move = 0u16;
        if let Some(e) = self.tt.probe(key) {
            hash_move = e.best;
            if ply > 0 && e.depth as i32 >= depth {
                let s = score_from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    self.lists[ply] = list;
                    return s;
                }
            }
        }
        let pv_node = beta - alpha > 1;
        // Captures are compulsory: either every turn captures or none does.
        let quiet_node = !list[0].is_capture();
        // Selective search where the static score says the node is decided: never at a
        // PV node, never where a capture is forced (its score is about to swing), never
        // near mate scores.
        if self.cfg.selective
            && !pv_node
            && ply > 0
            && quiet_node
            && alpha.abs() < MATE_BOUND
            && beta.abs() < MATE_BOUND
        {
            let eval = self.evaluate(pos, ply);
            let params = self.cfg.params;
            if depth <= RFP_DEPTH && eval - params.rfp_margin * depth >= beta {
                self.lists[ply] = list;
                return eval;
            }
            if null_ok
                && depth >= NMP_DEPTH
                && eval >= beta
                && pos.pieces(pos.side_to_move()).count() > NMP_PIECES
            {
                let r = params.nmp_base + depth / params.nmp_div.max(1);
                let mut child = *pos;
                child.null_turn();
                self.path.push(key);
                let s = -self.negamax(&child, depth - 1 - r, ply + 1, -beta, -beta + 1, false);
                self.path.pop();
                if self.stopped {
                    self.lists[ply] = list;
                    return 0;
                }
                if s >= beta {
                    self.lists[ply] = list;
                    return if s > MATE_BOUND { beta } else { s };
                }
            }
        }
        if self.cfg.selective && hash_move == 0 && depth >= IIR_DEPTH {
            depth -= 1;
        }
        let mut order = std::mem::take(&mut self.order[ply]);
        self.score_moves(&list, &mut order, hash_move, ply);
        let mut best = -INF;
        let mut best_idx = 0u16;
        let mut bound = Bound::Upper;
        let lmp_limit = (self.cfg.params.lmp_base.max(0) + depth * depth) as usize;
        let new_depth = depth - 1;
        for i in 0..order.len() {
            pick_next(&mut order, i);
            let idx = order[i].1 as usize;
            let t = list[idx];
            // Late-move pruning.
            if self.cfg.selective
                && i >= lmp_limit
                && depth <= LMP_DEPTH
                && !pv_node
                && quiet_node
                && best > -MATE_BOUND
            {
                break;
            }
            let mut child = *pos;
            child.play_unchecked(&t);
            self.path.push(key);
            let score = if i == 0 {
                -self.negamax(&child, new_depth, ply + 1, -beta, -alpha, true)
            } else {
                // Late quiet turns (not killers) are first searched shallower.
                let r = if self.cfg.selective
                    && quiet_node
                    && depth >= LMR_DEPTH
                    && i >= LMR_MOVE
                    && order[i].0 < 800_000
                {
                    let r = lmr(depth, i, self.cfg.params.lmr_percent) - i32::from(pv_node);
                    r.clamp(0, depth - 2)
                } else {
                    0
                };
                let mut s = -self.negamax(&child, new_depth - r, ply + 1, -alpha - 1, -alpha, true);
                if r > 0 && s > alpha {
                    s = -self.negamax(&child, new_depth, ply + 1, -alpha - 1, -alpha, true);
                }
                if s > alpha && s < beta {
                    -self.negamax(&child, new_depth, ply + 1, -beta, -alpha, true)
                } else {
                    s
                }
            };
            self.path.pop();
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
                best_idx = idx as u16;
                if score > alpha {
                    alpha = score;
                    bound = Bound::Exact;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(t);
                    head[ply].extend_from_slice(&tail[0]);
                    if ply == 0 {
                        self.partial = score;
                    }
                    if score >= beta {
                        bound = Bound::Lower;
                        if !t.is_capture() {
                            let k = quiet_key(&t);
                            let ks = &mut self.killers[ply];
                            if ks[0] != k {
                                ks[1] = ks[0];
                                ks[0] = k;
                            }
                            self.history[t.from().index() * 64 + t.to().index()] += depth * depth;
                        }
                        break;
                    }
                }
            }
        }
        self.order[ply] = order;
        self.lists[ply] = list;
        if !self.stopped {
            self.tt
                .store(key, depth, score_to_tt(best, ply), bound, best_idx + 1);
            if let Some(r) = &mut self.recorder
                && depth >= r.min_depth
                && pos.quiet() <= r.max_quiet
            {
                r.labels.push(NodeLabel {
                    position: *pos,
                    score: score_to_tt(best, ply),
                    bound,
                    depth: depth.min(255) as u8,
                });
            }
        }
        best
    }

    fn score_moves(&self, list: &[Turn], order: &mut Vec<(i32, u16)>, hash_move: u16, ply: usize) {
        order.clear();
        let ks = self.killers[ply];
        for (i, t) in list.iter().enumerate() {
            let s = if hash_move as usize == i + 1 {
                i32::MAX
            } else if t.is_capture() {
                1_000_000 + t.captured().count() as i32 * 1000 + t.len() as i32
            } else {
                let k = quiet_key(t);
                if k == ks[0] {
                    900_000
                } else if k == ks[1] {
                    800_000
                } else {
                    self.history[t.from().index() * 64 + t.to().index()].min(700_000)
                }
            };
            order.push((s, i as u16));
        }
    }

    fn qsearch(
        &mut self,
        pos: &Position,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        qdepth: u32,
    ) -> i32 {
        // Captures chain on in the quiescence search too: the node limit is kept here.
        if self.check_stop() {
            return 0;
        }
        self.nodes += 1;
        self.enter(ply, pos);
        // Most leaves are quiet: they need whether a turn exists, not the list, which is
        // built only when captures are searched.
        let captures = pos.must_capture();
        if let Some(o) = pos.outcome_given(captures || pos.has_turn()) {
            return outcome_score(o, pos, ply, self.cfg.graded_draws);
        }
        if let Some(s) = self.tb_probe(pos) {
            return s;
        }
        let stand = self.evaluate(pos, ply);
        if !captures || qdepth == 0 || ply >= MAX_PLY - 2 || stand >= beta {
            return stand;
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        pos.turns_into(&mut list, TurnMode::Distinct);
        alpha = alpha.max(stand);
        let mut best = stand;
        let mut order = std::mem::take(&mut self.order[ply]);
        order.clear();
        order.extend(
            list.iter()
                .enumerate()
                .map(|(i, t)| (t.captured().count() as i32 * 64 + t.len() as i32, i as u16)),
        );
        for i in 0..order.len() {
            pick_next(&mut order, i);
            let mut child = *pos;
            child.play_unchecked(&list[order[i].1 as usize]);
            let s = -self.qsearch(&child, ply + 1, -beta, -alpha, qdepth - 1);
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        self.order[ply] = order;
        self.lists[ply] = list;
        best
    }
}

/// The repetition rule's path: the hashes of the positions of `game` before its current
/// one, into `out`.
fn game_path(game: &History, out: &mut Vec<u64>) {
    out.clear();
    out.extend((0..game.turns().len()).map(|i| game.position_at(i).hash()));
}

/// Late-move reduction in turns for the `i`-th turn at `depth`: about
/// ln(depth) ln(i) / 2, as chess engines reduce.
#[inline]
fn lmr(depth: i32, i: usize, percent: i32) -> i32 {
    let d = if depth >= 0 {
        ln(depth as usize)
    } else {
        f32::NAN
    };
    let m = ln(i);
    (0.5 + d * m * percent as f32 / 100.0) as i32
}

/// `(k as f32).ln()`, tabulated below 256 (late-move reductions ask it at every node,
/// and `logf` was a percent or two of the search).
#[inline]
fn ln(k: usize) -> f32 {
    static TABLE: std::sync::LazyLock<[f32; 256]> =
        std::sync::LazyLock::new(|| std::array::from_fn(|k| (k as f32).ln()));
    TABLE.get(k).copied().unwrap_or_else(|| (k as f32).ln())
}

/// Moves the highest-scored remaining entry to position `i` (selection sort, lazily).
#[inline]
fn pick_next(order: &mut [(i32, u16)], i: usize) {
    let mut best = i;
    for j in i + 1..order.len() {
        if order[j].0 > order[best].0 {
            best = j;
        }
    }
    order.swap(i, best);
}

#[inline]
fn quiet_key(t: &Turn) -> u16 {
    ((t.from().0 as u16 + 1) << 8) | t.to().0 as u16
}

/// The score of a tables' result with `dtc` turns to the next capture.
pub(crate) fn tb_score(w: Wdl, dtc: u8) -> i32 {
    match w {
        Wdl::Win => TB_WIN - i32::from(dtc),
        Wdl::Draw => 0,
        Wdl::Loss => -(TB_WIN - i32::from(dtc)),
    }
}

/// Mate scores are stored relative to the node, so they stay right at any depth.
fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s > MATE_BOUND {
        s + ply as i32
    } else if s < -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s > MATE_BOUND {
        s - ply as i32
    } else if s < -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_eval::{EvalWeights, LearnedEval};
    use fanorona_rules::{RuleOptions, Variant};

    #[test]
    fn the_time_manager_stops_sooner_while_the_best_turn_stays_and_later_when_it_changes() {
        let pos = Position::start(Variant::Tsivy, RuleOptions::default());
        let turns = pos.turns(TurnMode::Distinct);
        let (a, b) = (Some(turns[0]), Some(turns[1]));
        let ms = Duration::from_millis;
        // A 100 ms target: with a best turn that stays, half of 70 ms is enough.
        let mut m = TimeManager::new(ms(100));
        assert!(!m.enough(a, 10, ms(20)));
        assert!(!m.enough(a, 10, ms(34)));
        assert!(m.enough(a, 10, ms(36)));
        // A change of the best turn stretches it (to half of 170 ms) ...
        let mut m = TimeManager::new(ms(100));
        assert!(!m.enough(a, 10, ms(10)));
        assert!(!m.enough(b, 10, ms(84)));
        // ... and the stretch fades while the new best turn stays (120 ms, then 95 ms).
        assert!(!m.enough(b, 10, ms(59)));
        assert!(m.enough(b, 10, ms(48)));
        // A falling score stretches it too: a fall of a piece doubles the target.
        let mut m = TimeManager::new(ms(100));
        assert!(!m.enough(a, 100, ms(10)));
        assert!(!m.enough(a, 0, ms(60)));
        assert!(m.enough(a, 0, ms(60)));
        // Never beyond 2.5 targets, whatever happens (half of it past, the next is not
        // started).
        let mut m = TimeManager::new(ms(100));
        for (i, t) in [a, b, a, b, a, b].into_iter().enumerate() {
            let fall = 300 * i as i32;
            assert!(!m.enough(t, -fall, ms(10)));
        }
        assert!(m.enough(a, -3000, ms(125)));
    }

    #[test]
    fn on_a_clock_a_forced_turn_is_played_after_one_iteration() {
        use rand::{RngExt, SeedableRng};
        // The first position of a seeded random game where one turn is legal.
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        let forced = 'found: loop {
            let mut pos = Position::start(Variant::Tsivy, RuleOptions::default());
            loop {
                let turns = pos.turns(TurnMode::Distinct);
                match turns.len() {
                    0 => break,
                    1 => break 'found pos,
                    n => pos.play_unchecked(&turns[rng.random_range(0..n)]),
                }
            }
        };
        let mut ab = AlphaBeta::new(AbConfig::default());
        let target = Limits {
            time: Some(Duration::from_secs(20)),
            target: Some(Duration::from_secs(5)),
            ..Limits::default()
        };
        let r = ab.search_position(&forced, &target);
        assert_eq!(r.depth, 1);
        assert_eq!(r.best, forced.turns(TurnMode::Distinct).first().copied());
        // Without a target, the same search runs to its depth.
        let r = ab.search_position(
            &forced,
            &Limits {
                depth: Some(3),
                ..Limits::default()
            },
        );
        assert_eq!(r.depth, 3);
    }

    /// Every leaf's score is checked against the one added up from scratch (in
    /// `AlphaBeta::evaluate`, under `cfg(test)`): searches of both boards, whole and in a
    /// window, with a learned evaluation whose every input matters.
    #[test]
    fn a_search_keeps_the_learned_evaluation_up_to_date_along_its_path() {
        for (variant, fens) in [
            (Variant::Tsivy, &crate::bench::POSITIONS[..4]),
            (Variant::Dimy, &crate::bench::POSITIONS[14..]),
        ] {
            let learned = Arc::new(LearnedEval::random(variant, 16, 9));
            let mut ab = AlphaBeta::new(AbConfig {
                hash_mb: 1,
                learned: Some(learned.clone()),
                ..AbConfig::default()
            });
            let limits = Limits {
                depth: Some(4),
                ..Limits::default()
            };
            for fen in fens {
                let pos = Position::from_fen(fen, RuleOptions::default()).unwrap();
                assert_eq!(pos.variant(), variant);
                let r = ab.search_position(&pos, &limits);
                assert!(r.best.is_some() && r.nodes > 50, "{fen} {}", r.nodes);
                let game = History::new(pos);
                let s = ab.search_window(&game, 3, r.score - 1, r.score + 1, None);
                assert!(s.is_some());
            }
            // The learned evaluation is not the hand-written one.
            let pos = Position::from_fen(fens[0], RuleOptions::default()).unwrap();
            assert_ne!(
                learned.evaluate(&pos, &EvalWeights::default()),
                evaluate(&pos, &EvalWeights::default())
            );
        }
    }
}
