//! What a generation reports: its metrics and the line the person watching reads.

use crate::config::TrainConfig;
use crate::metrics::MetricsSink;
use crate::selfplay::SelfPlayStats;
use crate::state::TrainError;
use fanorona_nn::Losses;
use fanorona_rules::Position;

/// The mean ownership loss of the steps that trained it (NaN when none did).
pub(crate) fn ownership_loss(losses: &[Losses]) -> f64 {
    mean(losses.iter().map(|l| l.ownership).filter(|x| x.is_finite()))
}

pub(crate) fn mean(v: impl Iterator<Item = f32>) -> f64 {
    let (s, n) = v.fold((0.0f64, 0usize), |(s, n), x| (s + x as f64, n + 1));
    if n == 0 { f64::NAN } else { s / n as f64 }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn log_generation(
    sinks: &mut dyn MetricsSink,
    g: u64,
    s: &SelfPlayStats,
    losses: &[Losses],
    lr: f64,
    train_secs: f64,
    batch_size: usize,
    window: usize,
) {
    let secs = s.seconds.max(1e-9);
    let mut put = |tag: &str, v: f64| {
        if v.is_finite() {
            sinks.scalar(tag, g, v);
        }
    };
    put("loss/policy", mean(losses.iter().map(|l| l.policy)));
    put("loss/value", mean(losses.iter().map(|l| l.value)));
    put("loss/ownership", ownership_loss(losses));
    put("policy/entropy", mean(losses.iter().map(|l| l.entropy)));
    put(
        "value/accuracy",
        mean(losses.iter().map(|l| l.value_accuracy)),
    );
    put("train/lr", lr);
    put("train/steps", losses.len() as f64);
    put(
        "train/steps_per_second",
        losses.len() as f64 / train_secs.max(1e-9),
    );
    // Samples through the network: every step trains a whole batch.
    put(
        "train/samples_per_second",
        (losses.len() * batch_size) as f64 / train_secs.max(1e-9),
    );
    // A share or a mean: `n` over `d`, 0 where `d` is.
    let per = |n: u64, d: u64| n as f64 / d.max(1) as f64;
    put("selfplay/games_per_second", s.games as f64 / secs);
    put("selfplay/samples_per_second", s.samples as f64 / secs);
    put("selfplay/simulations_per_second", s.sims as f64 / secs);
    put("selfplay/evaluations_per_second", s.evals as f64 / secs);
    put("selfplay/batch", per(s.evals, s.calls));
    put("selfplay/game_length", per(s.decisions, s.games));
    put("selfplay/draw_rate", per(s.draws, s.games));
    put(
        "selfplay/distinct_openings",
        per(s.distinct_openings, s.games),
    );
    put("selfplay/white_win_rate", per(s.white, s.games));
    put("selfplay/resign_rate", per(s.resigned, s.games));
    if s.resign_checks > 0 {
        put(
            "selfplay/resign_false_positive_rate",
            per(s.resign_false, s.resign_checks),
        );
    }
    if s.adjudicated > 0 || s.draw_checks > 0 {
        put("selfplay/adjudicated_rate", per(s.adjudicated, s.games));
        if s.draw_checks > 0 {
            put(
                "selfplay/adjudicated_false_positive_rate",
                per(s.draw_false, s.draw_checks),
            );
        }
    }
    if s.teacher_samples > 0 {
        put("tree/teacher_node_share", per(s.teacher_nodes, s.evals));
        put(
            "tree/teacher_sample_share",
            per(s.teacher_samples, s.samples),
        );
    }
    if s.tablebase > 0 {
        put("selfplay/tablebase_rate", per(s.tablebase, s.games));
    }
    put("replay/window", window as f64);
}

pub(crate) fn summary_line(
    g: u64,
    s: &SelfPlayStats,
    losses: &[Losses],
    window: usize,
    arena: Option<f64>,
    cfg: &TrainConfig,
) -> String {
    let secs = s.seconds.max(1e-9);
    let openings = if s.distinct_openings > 0 {
        format!(", {} distinct openings", s.distinct_openings)
    } else {
        String::new()
    };
    // Network evaluations come in batches; a search with no network (tree learning)
    // counts its nodes, one call each.
    let evals = if s.calls > 0 {
        format!(
            "{:.0} evals/s (batch {:.0})",
            s.evals as f64 / secs,
            s.evals as f64 / s.calls.max(1) as f64
        )
    } else {
        format!(
            "{:.0} nodes/s, {} samples ({:.0}/s)",
            s.evals as f64 / secs,
            s.samples,
            s.samples as f64 / secs
        )
    };
    let mut line = format!(
        "gen {g:4}: {} games ({:.1}/s, {:.0} decisions avg, {:.0}% draws{openings}), {evals}, {} samples in window",
        s.games,
        s.games as f64 / secs,
        s.decisions as f64 / s.games.max(1) as f64,
        100.0 * s.draws as f64 / s.games.max(1) as f64,
        window
    );
    if s.teacher_samples > 0 {
        line.push_str(&format!(
            ", deeper teacher {:.0}% of the nodes and {:.0}% of the samples",
            100.0 * s.teacher_nodes as f64 / s.evals.max(1) as f64,
            100.0 * s.teacher_samples as f64 / s.samples.max(1) as f64
        ));
    }
    if s.adjudicated > 0 || s.draw_checks > 0 {
        line.push_str(&format!(
            ", {} adjudicated drawn ({} of {} checks not drawn)",
            s.adjudicated, s.draw_false, s.draw_checks
        ));
    }
    if s.tablebase > 0 {
        line.push_str(&format!(", {} ended by the tables", s.tablebase));
    }
    let policy = mean(losses.iter().map(|l| l.policy));
    if !losses.is_empty() && policy.is_nan() {
        // An evaluation's loss alone (tree learning).
        line.push_str(&format!(
            ", loss {:.4}",
            mean(losses.iter().map(|l| l.value))
        ));
    } else if !losses.is_empty() {
        line.push_str(&format!(
            ", loss p {policy:.3} v {:.3}, value acc {:.0}%",
            mean(losses.iter().map(|l| l.value)),
            100.0 * mean(losses.iter().map(|l| l.value_accuracy))
        ));
        let o = ownership_loss(losses);
        if o.is_finite() {
            line.push_str(&format!(", ownership loss {o:.3}"));
        }
    }
    if let Some(a) = arena {
        line.push_str(&format!(
            ", vs ab:depth={}: {:.0}%",
            cfg.run.arena_ab_depth,
            100.0 * a
        ));
    }
    line
}

/// Alpha-beta to `depth` turns with `hash_mb` MiB of hash table and `learned` (`None`:
/// the hand-written evaluation), named `name`: the players of a run's own matches, made
/// by the one player factory (`ab:depth=D,hash=H` with the evaluation in memory).
pub(crate) fn depth_player(
    depth: u32,
    hash_mb: usize,
    learned: Option<std::sync::Arc<fanorona_search::LearnedEval>>,
    name: &str,
    variant: fanorona_rules::Variant,
) -> Result<Box<dyn fanorona_search::Player>, String> {
    use fanorona_nn::spec::{EngineSpec, NoNetworks};
    EngineSpec::parse(&format!("ab:depth={depth},hash={hash_mb}"))
        .and_then(|s| s.with_learned(learned).player(name, variant, &NoNetworks))
        .map_err(|e| e.to_string())
}

/// A player of a run's match, made by index (0 or 1) and seed.
pub(crate) type MakePlayer<'a> =
    &'a (dyn Fn(usize, u64) -> Result<Box<dyn fanorona_search::Player>, String> + Sync);

/// The periodic match of a run: player 0 against player 1 (made by `make`, named by
/// `specs`), `run.arena_games` games of the arena ([`fanorona_arena::play_pairings_with`])
/// on one thread, game `i` from the traditional opening `(i / 2) % 5` or from book
/// position `i / 2`, player 0 White in even games: player 0's score in [0, 1].
pub(crate) fn match_score(
    cfg: &TrainConfig,
    specs: &[String; 2],
    make: MakePlayer,
    seed: u64,
    book: Option<&[Position]>,
) -> Result<f64, TrainError> {
    let records = match_records(cfg, specs, make, seed, book, cfg.run.arena_games, 1)?;
    Ok(points_of(&specs[0], &records))
}

/// `games` games of player 0 against player 1 as [`match_score`] plays them, on
/// `threads` threads: their records.
pub(crate) fn match_records(
    cfg: &TrainConfig,
    specs: &[String; 2],
    make: MakePlayer,
    seed: u64,
    book: Option<&[Position]>,
    games: usize,
    threads: usize,
) -> Result<Vec<fanorona_arena::GameRecord>, TrainError> {
    use fanorona_arena::{ArenaConfig, ArenaError, Format, Openings, play_pairings_with};
    let arena = ArenaConfig {
        variant: cfg.variant(),
        rules: cfg.rule_options(),
        openings: book.map_or(Openings::Traditional, |b| Openings::Book(b.to_vec())),
        format: Format::Riatras,
        games: games.max(1),
        threads: threads.max(1),
        seed,
        max_turns: 400,
        out: None,
        // Players come from `make`, none from a spec: no network is made on it.
        device: fanorona_nn::burn::prelude::Device::flex(),
        adjudicate: None,
        clock: None,
    };
    let make = |k: usize, seed: u64| make(k, seed).map_err(ArenaError::Invalid);
    play_pairings_with(&arena, specs, &[(0, 1)], &make, &|_, _, _| {}, None)
        .map_err(|e| TrainError::Arena(e.to_string()))
}

/// Player `spec`'s score in `records`, 0 to 1.
pub(crate) fn points_of(spec: &str, records: &[fanorona_arena::GameRecord]) -> f64 {
    let points: f64 = records
        .iter()
        .map(|r| match (r.result.as_str(), r.white == spec) {
            ("draw", _) => 0.5,
            ("white", true) | ("black", false) => 1.0,
            _ => 0.0,
        })
        .sum();
    points / records.len().max(1) as f64
}
