//! The sections of a training configuration (`[rules]`, `[net]`, `[selfplay]`,
//! `[train]`, `[run]`, `[bootstrap]`, `[distributed]`, `[tree]`): one documented field per
//! tunable, each section's defaults beside it.

use fanorona_search::SearchSettings;
use serde::{Deserialize, Serialize};

/// `[tree]`: tree learning (`fanorona_train::tree`). With `method` set, `fanorona train` trains a
/// learned evaluation for alpha-beta (`ab:eval=CKPT`) instead of the policy/value
/// network: alpha-beta plays itself with the evaluation being learned, and every node its
/// searches finish becomes a label with its bound. `[train]`'s optimizer settings (`lr`
/// and its schedule, `batch_size`, `replay_window` in labels, `train_ratio`,
/// `min_replay`, `augment`: random left-right mirrors) and `[run]`'s limits and match
/// apply; `[selfplay]`, `[net]` and `[bootstrap]` do not. Tsivy and dimy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TreeConfig {
    /// `treestrap` (TreeStrap(alpha-beta), Veness et al. 2009: alpha-beta plays, every
    /// node it finishes a label with its bound), `descent` (Descent, Cohen-Solal 2020:
    /// best-first minimax to the game's end plays, every node of its tree a label of its
    /// minimax value), or empty: train the network by MCTS self-play.
    pub method: String,
    /// The evaluation the run starts from: empty for zero knowledge (a network with no
    /// hand-written base and a zero output), `release` for the release file, or a path
    /// (a `tune-eval` file or a tree run's checkpoint folder). A resumed run ignores it.
    pub init: String,
    /// Hidden units of a zero-knowledge evaluation (an `init` file keeps its own).
    pub hidden: usize,
    /// TreeStrap: depth in turns of the searches that play the games (quiescence on
    /// top).
    pub depth: u32,
    /// Descent: iterations a turn (each follows the best line to the game's end).
    pub iterations: u32,
    /// Nodes searched to at least this many turns (TreeStrap), or that at least this many
    /// iterations passed through (Descent), give labels: shallower ones say little more
    /// than the evaluation itself.
    pub label_depth: u32,
    /// Nodes whose quiet counter (turns since the last capture) is above this give no
    /// label: the evaluation cannot see the counter, and near the draw limit equal boards
    /// have different values.
    pub max_quiet: u16,
    /// Games per generation.
    pub games: usize,
    /// Each game opens with a uniformly random number, 0 to this, of uniformly random
    /// turns (no engine chose them), then the engine plays.
    pub opening_turns: u32,
    /// Draws at the quiet limit score a little for the side with more pieces (see
    /// `fanorona_search::DRAW_PER_PIECE`) in the searches, so drawn lines still teach who
    /// was better.
    pub graded_draws: bool,
    /// Threads playing games (0: one a core). The games do not depend on it.
    pub threads: usize,
    /// TreeStrap: the teacher deeper than the player. Positions of each game (after
    /// its random opening, both sides, `max_quiet` or fewer quiet turns) are searched
    /// this many turns deeper than `depth`, and every node of those searches searched
    /// deeper than `depth` (the root first) is a label: values the players' own
    /// searches cannot give. 0: off.
    pub deep_gap: u32,
    /// Positions of each game the deeper teacher searches (chosen at random from the
    /// game's own; 0: off). With `deep_gap` it sets the teacher's share of the compute,
    /// which the log reports.
    pub deep_positions: usize,
    /// Positions of each game labelled with the game's own result (chosen at random from
    /// those the teacher may search): a win or a loss as a mate in the turns the game
    /// still took, a draw as 0 or, with `graded_draws`, by the last position's material.
    /// Anchors the evaluation to what its games ended in, against its searches' values
    /// drifting on their own. 0: off.
    pub outcome_positions: usize,
}

impl Default for TreeConfig {
    fn default() -> Self {
        TreeConfig {
            method: String::new(),
            init: String::new(),
            hidden: 32,
            depth: 4,
            iterations: 32,
            label_depth: 2,
            max_quiet: 60,
            games: 512,
            opening_turns: 8,
            graded_draws: true,
            threads: 0,
            deep_gap: 0,
            deep_positions: 0,
            outcome_positions: 0,
        }
    }
}

impl TreeConfig {
    /// Whether the run trains an evaluation by tree learning.
    pub fn enabled(&self) -> bool {
        !self.method.is_empty()
    }

    /// Threads playing games: `threads`, or one a core.
    pub fn threads(&self) -> usize {
        match self.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }
}

/// `[rules]`: the rule options of docs/RULES.md.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RulesConfig {
    /// Black's first turn may chain.
    pub reply_chains: bool,
    /// Turns without capture before a draw; 0 = the variant's default.
    pub quiet_limit: u16,
    /// Third repetition draws.
    pub repetition_draw: bool,
    /// Train the vela handicap game: `none`, `white` or `black` (the vela player).
    pub vela: String,
    /// The vela's form: `be` or `kely`.
    pub vela_form: String,
}

/// `[net]`: the residual tower, and in a tree run (`tree.method = treestrap`) how the
/// network learns from alpha-beta's games beside the evaluation (expert iteration with
/// alpha-beta as the expert: the network's teacher improves while it learns).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetSection {
    /// Residual blocks.
    pub blocks: usize,
    /// Channels.
    pub channels: usize,
    /// Tree runs: positions of each game whose chosen turn trains the network, every step
    /// of the turn a sample (policy: that step; value: the game's result mixed with the
    /// search's score, `score_weight`). The deeper teacher's positions come first, with
    /// its turn (the deepest search the run makes of them), then others of the game with
    /// the players' turn. 0: the evaluation alone, no network.
    pub positions: usize,
    /// Tree runs: the network's learning rate at the start; it follows `[train]`'s
    /// schedule, scaled by `lr / train.lr`.
    pub lr: f64,
    /// Tree runs: the network's replay window, in samples.
    pub window: usize,
    /// Tree runs: samples the network trains on per new sample (`[train]`'s
    /// `batch_size`, `min_replay`, `weight_decay` and `augment` apply).
    pub train_ratio: f32,
    /// Tree runs: the search's score's weight in the value target (as
    /// `bootstrap.score_weight`), the rest the game's result.
    pub score_weight: f32,
}

/// `[selfplay]`: how games are generated. Its search keys (`fpu`, `ptemp`, `guard`, ...)
/// are the search's settings, read and written through their one table
/// ([`fanorona_search::settings::OPTIONS`], the names and ranges of the players' `mcts:`
/// specs); any other key the section does not know is an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SelfPlayConfig {
    /// Games played at once; their leaves share network batches.
    pub games_in_flight: usize,
    /// Games per generation.
    pub games_per_generation: usize,
    /// Simulations of a full search.
    pub sims: u32,
    /// Playout-cap randomisation: simulations of a fast search (0 = off, every search full).
    pub fast_sims: u32,
    /// Share of decisions searched fully (and recorded) when fast searches are on.
    pub full_search_prob: f32,
    /// Self-play threads, each with its own share of the games in flight, its own copy
    /// of the network and one core's worth of work: every thread's network calls and
    /// tree work run on that thread alone, side by side. On a CPU this beats one stream
    /// of games whose every call is split over the cores (small networks split badly:
    /// dimy's 4 x 32 makes 1.3 times the positions a second on two cores as on one).
    /// 0: automatic, one per core on the CPU backend (rayon's thread count, so
    /// `RAYON_NUM_THREADS` limits it) and one on a GPU (one large batch a call).
    pub workers: usize,
    /// Decisions at the start of a game played with temperature 1 (then greedy), counted
    /// after the random opening.
    pub temperature_moves: u32,
    /// Each game opens with a uniformly random number of turns, 0 to this many, each
    /// uniformly random and not recorded as a sample (0 = every game from the start
    /// position). Spreads self-play over the positions a book or an opponent brings, as
    /// `bootstrap.opening_turns` does for the warm start; without it a sharp network's
    /// games share their first decisions.
    pub opening_turns: u32,
    /// A book file (one FEN a line, as `fanorona book` writes; tsivy and dimy): each game
    /// starts from one of its positions, drawn at random, instead of the start position
    /// (`opening_turns` random turns still come first). Balanced, varied positions as a
    /// book arena plays them; make it with `fanorona book --exclude` the match's book so
    /// that training never sees the positions it is measured on. A relative path is read
    /// from the working folder. Empty: the start position.
    pub book: String,
    /// A game longer than this many decisions is scored a draw.
    pub max_decisions: u32,
    /// Resign when the root's expected score (win - loss) falls below this (-1 = never).
    pub resign_threshold: f32,
    /// Share of games played out despite resignation, to measure false positives.
    pub resign_check_share: f32,
    /// Draw adjudication: a game is scored a draw once the root search has given a draw
    /// at least this probability (its win/draw/loss) for `draw_decisions` decisions in a
    /// row, both sides' (0 = never). Drawn endings are shuffled out to the quiet limit
    /// (100 turns) otherwise, and in dimy they took most of self-play's time. The
    /// `resign_check_share` games are played out, to measure false adjudications.
    pub draw_value: f32,
    /// ... for this many decisions in a row.
    pub draw_decisions: u32,
    /// Evaluate each position under a random board symmetry.
    pub random_symmetry: bool,
    /// Value target: `(1 - w)` times the game's result plus `w` times the search's value
    /// at the root (its visit-averaged win/draw/loss), as Lc0 and KataGo mix them; 0 = the
    /// result alone. Less noise from the game's later moves, some bias from the search.
    pub value_q_weight: f32,
    /// A learned evaluation (`fanorona tune-eval`'s file, for instance
    /// `checkpoints/release/tsivy/eval.txt`) for the alpha-beta searches of `blend`
    /// and `guard`; "" = the hand-written evaluation, `release` the release folder's.
    pub ab_eval: String,
    /// A folder of endgame tables (`fanorona tb build`; "" = none; tsivy and dimy): the
    /// searches take their exact values, and a game that reaches a position they cover
    /// ends there with their result, which becomes every earlier position's value target
    /// (docs/tablebases.md).
    pub tablebases: String,
    /// The search: [`SearchSettings::selfplay`] with the section's search keys. A guard
    /// in self-play (`guard`) keeps the games and their policy targets free of the
    /// blunders its search sees; use it with `book`: from dimy's start position the
    /// guarded line is one that Black wins, and every game follows it (experiments/dimy30).
    #[serde(flatten, with = "search_keys")]
    pub search: SearchSettings,
}

/// `[selfplay]`'s search keys through the search settings' table: written with their
/// types, read by any of their names; a key that is neither a field of
/// [`SelfPlayConfig`] nor a search setting is an error naming it.
mod search_keys {
    use fanorona_search::SearchSettings;
    use fanorona_search::settings::{OPTIONS, OptionKind, SearchOption, option_names};
    use serde::de::{Error, MapAccess, Visitor};
    use serde::ser::SerializeMap;

    pub fn serialize<S: serde::Serializer>(s: &SearchSettings, ser: S) -> Result<S::Ok, S::Error> {
        let mut map = ser.serialize_map(Some(OPTIONS.len()))?;
        for o in OPTIONS {
            let v = o.value(s);
            let bad = || serde::ser::Error::custom(format!("selfplay.{} = {v}", o.name));
            match o.kind {
                OptionKind::Bool => {
                    map.serialize_entry(o.name, &v.parse::<bool>().map_err(|_| bad())?)?
                }
                OptionKind::Int => {
                    map.serialize_entry(o.name, &v.parse::<i64>().map_err(|_| bad())?)?
                }
                OptionKind::Float => {
                    map.serialize_entry(o.name, &v.parse::<f32>().map_err(|_| bad())?)?
                }
                OptionKind::Text => map.serialize_entry(o.name, &v)?,
            }
        }
        map.end()
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<SearchSettings, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = SearchSettings;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the [selfplay] section")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<SearchSettings, A::Error> {
                let mut s = SearchSettings::selfplay();
                while let Some(key) = a.next_key::<String>()? {
                    let value: toml::Value = a.next_value()?;
                    if SearchOption::find(&key).is_none() {
                        return Err(A::Error::custom(format!(
                            "unknown key {} (the section's own keys are in configs/tsivy.toml; its search settings: {})",
                            fanorona_rules::quote(&format!("selfplay.{key}")),
                            option_names()
                        )));
                    }
                    let text = match value {
                        toml::Value::String(x) => x,
                        other => other.to_string(),
                    };
                    s.set(&key, &text).map_err(|e| {
                        A::Error::custom(format!(
                            "{} {}",
                            fanorona_rules::quote(&format!("selfplay.{}", e.key)),
                            e.problem
                        ))
                    })?;
                }
                Ok(s)
            }
        }
        d.deserialize_map(Keys)
    }
}

/// `[train]`: optimisation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OptimConfig {
    /// Samples per step.
    pub batch_size: usize,
    /// Learning rate at the start.
    pub lr: f64,
    /// Learning rate at the end of the decay (cosine); equal to `lr` for a constant rate.
    pub lr_final: f64,
    /// Generations over which the rate decays (when `lr_decay_seconds` is 0).
    pub lr_decay_generations: u64,
    /// Seconds of the run's clock (warm start included, summed over resumed sessions)
    /// over which the rate decays instead; 0 = decay over `lr_decay_generations`. Set it
    /// to `run.max_seconds` and the rate reaches `lr_final` as the run stops, however
    /// many generations fit (a long warm start leaves fewer).
    pub lr_decay_seconds: u64,
    /// AdamW decoupled weight decay.
    pub weight_decay: f32,
    /// Weight of the ownership loss (KataGo's auxiliary target: the game's last position,
    /// point by point, as each mover sees it; KataGo weights its own 1.5). Above 0 the
    /// network gets an ownership head, which trains the tower on what the game's end
    /// looks like, drawn games included; 0 = no head (the default, and every network
    /// saved before it).
    pub ownership_weight: f32,
    /// Samples kept in the replay window (the oldest go first).
    pub replay_window: usize,
    /// Samples trained per sample generated.
    pub train_ratio: f32,
    /// Samples needed in the window before training starts.
    pub min_replay: usize,
    /// Augment each training sample with a random board symmetry.
    pub augment: bool,
    /// Train while the next generation plays (both cores busy): generation `g` plays
    /// with the network trained through generation `g - 1`'s samples, and its training
    /// runs at the same time on the window as it was before `g`'s games arrive (a lag of
    /// one generation, as in KataGo and lc0). `false`: play, then train, in turn.
    pub overlap: bool,
    /// With `overlap`: the trainer's threads beside self-play (a pool of its own, so that
    /// its calls do not queue behind self-play's; 0 = share rayon's global pool).
    pub threads: usize,
    /// A checkpoint (a generation's folder, or a run's checkpoint folder for its latest
    /// generation, as `mcts:ckpt=` reads) whose network a new run starts from instead of
    /// weights drawn from the seed: its variant and shape must be the config's; the
    /// optimizer, the counters and the learning-rate schedule start afresh. Empty: none.
    /// A warm start, if asked for, then trains this network. A resumed run ignores it.
    pub init: String,
}

/// `[run]`: the loop around generations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LoopConfig {
    /// Generations to train (the run stops there; resuming goes on to this number). 0: no
    /// limit.
    pub generations: u64,
    /// Wall-clock budget in seconds (0: none): stop after the generation that passes it.
    pub max_seconds: u64,
    /// Every this many generations, a short match against alpha-beta (0: never; tsivy
    /// and dimy only).
    pub arena_every: u64,
    /// Depth of that alpha-beta opponent.
    pub arena_ab_depth: u32,
    /// Games of that match (even: each side plays White as often).
    pub arena_games: usize,
    /// Simulations per decision of the network player in that match.
    pub arena_sims: u32,
    /// A book file (one FEN a line, as `fanorona book` writes) for that match: the first
    /// `arena_games / 2` positions, each played twice with the colours swapped. Empty:
    /// the traditional openings.
    pub arena_book: String,
    /// Tree learning: every this many minutes of the run's clock, the evaluation is kept
    /// and plays a paired match against the hand-written and the release evaluation
    /// (`<run>/curve/`, `fanorona plot --x cpu-hours`; see `tree::curve`). 0: never.
    pub curve_minutes: u64,
    /// Games of each of those matches (`arena_book`'s first `curve_games / 2`
    /// positions, each with both colours).
    pub curve_games: usize,
    /// Both players' depth in turns in those matches.
    pub curve_depth: u32,
    /// Tree runs with a network (`net.positions`): games of the network's curve match,
    /// its MCTS player at `curve_sims` against the anchors' network at the same.
    pub curve_net_games: usize,
    /// Simulations a decision of both players in that match.
    pub curve_sims: u32,
    /// The curve's fixed opponents beside the hand-written evaluation: `release` (the
    /// release folder as found), a folder laid out like one (`eval.txt`, and `model.bpk`
    /// with `meta.json` for the network's match), or empty for none. Copied into the
    /// run's folder at its first point and read there ever after, as anchors only (no
    /// run learns from them); where there is none the points against it are skipped,
    /// with a line saying so.
    pub curve_anchors: String,
}

/// `[bootstrap]`: before the first generation of a new run, games of the alpha-beta
/// engine against itself, learned from for a few passes (see
/// `fanorona_train::bootstrap`). Tsivy and dimy only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BootstrapConfig {
    /// Games of the engine (0: no warm start; the run learns by self-play alone).
    pub games: usize,
    /// The engine's depth in turns (capture quiescence comes on top).
    pub depth: u32,
    /// Share of the turns played at random instead of the engine's choice, so that the
    /// games differ (the targets stay the engine's choices). Random turns are mostly
    /// blunders: in dimy at depth 8, 15 % gave games of 22 turns with no draws, 5 % games
    /// of 46 turns with 12 % draws, 2 % 72 turns and 38 % draws (128 games each).
    pub explore: f32,
    /// Passes over the engine's samples (optimizer steps: `epochs * samples /
    /// batch_size`), at the first learning rate (or on the clock's schedule with
    /// `train.lr_decay_seconds`).
    pub epochs: f32,
    /// Each game opens with a uniformly random number, 0 to this, of uniformly random
    /// turns (as `fanorona book` makes its positions), so that the network also sees
    /// positions away from the engine's own openings (0: every game starts from the
    /// start). The targets there are still the engine's choices.
    pub opening_turns: u32,
    /// Weight of the engine's score in the value target, 0 to 1; the rest is the game's
    /// result. The score maps to a win probability as in `selfplay.blend_weight`
    /// (logistic, 150 hundredths of a piece to 73 %); results of games with random turns
    /// in them are noisy, the engine's judgement of each position less so.
    pub score_weight: f32,
    /// Train while the engine plays: its games go to the trainer as they finish (32 at a
    /// time; the engine plays on every core and the trainer shares them), and the
    /// trainer owes `epochs` passes over the samples received so far. The steps and what
    /// each step draws from are the same whatever the timing (deterministic for a seed),
    /// but differ from `false`, which plays every game first and then trains on all of
    /// them.
    pub overlap: bool,
    /// The engine's threads (0: one a core). On a GPU machine leave the trainer a core or
    /// two (cores - 2, say): the trainer's thread feeds the GPU and compiles its kernels,
    /// and an engine on every core starved it there (experiments/gpu1). The games do
    /// not depend on it.
    pub threads: usize,
    /// With `overlap`: every this many seconds the warm start brings the trainer level
    /// with the games so far and saves checkpoint 0 with their count, so that a run
    /// stopped during its warm start resumes from there instead of from nothing (0: only
    /// at the end). Raising `games` on a run still at its warm start's checkpoint (a
    /// finished one included) continues it with the next games. Each of these
    /// checkpoints, and the last, also leaves its network in `<run>/warm/<seconds>/` (the
    /// model, meta and state: a few MB at most), the warm start's learning curve for
    /// `fanorona arena --gauntlet <run>/warm --x seconds`.
    pub checkpoint_seconds: u64,
    /// A learned evaluation (a `fanorona tune-eval` file, such as
    /// `checkpoints/release/tsivy/eval.txt`) for the engine's searches, so that the
    /// network imitates the stronger engine (alpha-beta with it scores 58-63 % against
    /// alpha-beta without at 50-200 ms a turn on tsivy). Empty: the hand-written
    /// evaluation.
    pub ab_eval: String,
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        BootstrapConfig {
            games: 0,
            depth: 4,
            explore: 0.05,
            epochs: 2.0,
            opening_turns: 0,
            score_weight: 0.0,
            overlap: true,
            threads: 0,
            checkpoint_seconds: 1800,
            ab_eval: String::new(),
        }
    }
}

/// `[distributed]`: workers and a learner joined by object storage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DistributedConfig {
    /// Games a worker plays per uploaded chunk (0: `selfplay.games_in_flight`).
    pub chunk_games: usize,
    /// Generations of games workers may run ahead of the learner (they wait beyond it);
    /// the learner drops chunks played by a model more than this many generations older
    /// than its own (workers take 0 as 1).
    pub max_staleness: u64,
    /// Seconds between looks at the store when there is nothing new.
    pub poll_seconds: f64,
    /// Seconds a failing storage operation is retried (with backoff) before the command
    /// gives up.
    pub retry_seconds: u64,
    /// A tree run's workers: how many turns deeper than `tree.depth` this worker's
    /// deeper teacher searches (0: the run's `tree.deep_gap`). Workers label positions of
    /// their own games for the learner, so more machines can buy deeper labels.
    pub teacher_gap: u32,
}

impl Default for DistributedConfig {
    fn default() -> Self {
        DistributedConfig {
            chunk_games: 0,
            max_staleness: 4,
            poll_seconds: 2.0,
            retry_seconds: 600,
            teacher_gap: 0,
        }
    }
}

impl Default for RulesConfig {
    fn default() -> Self {
        RulesConfig {
            reply_chains: true,
            quiet_limit: 0,
            repetition_draw: false,
            vela: "none".into(),
            vela_form: "be".into(),
        }
    }
}

impl Default for NetSection {
    fn default() -> Self {
        NetSection {
            blocks: 4,
            channels: 32,
            positions: 0,
            lr: 0.002,
            window: 200_000,
            train_ratio: 1.0,
            score_weight: 0.5,
        }
    }
}

impl SelfPlayConfig {
    /// The self-play threads `workers` asks for, at least 1, for a network on the CPU
    /// backend (`cpu`) or a GPU.
    pub fn worker_count(&self, cpu: bool) -> usize {
        match self.workers {
            0 if cpu => rayon::current_num_threads().max(1),
            0 => 1,
            n => n,
        }
    }
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            games_in_flight: 64,
            games_per_generation: 128,
            sims: 200,
            fast_sims: 0,
            full_search_prob: 0.25,
            workers: 0,
            temperature_moves: 20,
            opening_turns: 0,
            book: String::new(),
            max_decisions: 600,
            resign_threshold: -1.0,
            resign_check_share: 0.1,
            draw_value: 0.0,
            draw_decisions: 20,
            random_symmetry: true,
            value_q_weight: 0.0,
            ab_eval: String::new(),
            tablebases: String::new(),
            search: SearchSettings::selfplay(),
        }
    }
}

impl Default for OptimConfig {
    fn default() -> Self {
        OptimConfig {
            batch_size: 256,
            lr: 2e-3,
            lr_final: 2e-4,
            lr_decay_generations: 200,
            lr_decay_seconds: 0,
            weight_decay: 1e-4,
            ownership_weight: 0.0,
            replay_window: 200_000,
            train_ratio: 4.0,
            min_replay: 2_000,
            augment: true,
            overlap: true,
            threads: 1,
            init: String::new(),
        }
    }
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig {
            generations: 0,
            max_seconds: 0,
            arena_every: 0,
            arena_ab_depth: 2,
            arena_games: 10,
            arena_sims: 100,
            arena_book: String::new(),
            curve_minutes: 0,
            curve_games: 200,
            curve_depth: 4,
            curve_net_games: 100,
            curve_sims: 100,
            curve_anchors: "release".into(),
        }
    }
}
