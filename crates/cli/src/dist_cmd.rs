//! `fanorona selfplay` and `fanorona learn`: self-play workers and a learner joined by
//! object storage (docs/distributed.md).

use crate::input_err;
use crate::train_cmd::Bars;
use anyhow::Result;
use clap::Args;
use fanorona_train::TrainConfig;
use fanorona_train::distributed::{self, LearnerOptions, WorkerOptions};
use fanorona_train::store::Store;
use std::path::PathBuf;
use std::time::Duration;

/// Where a distributed run lives, and the config it trains: the arguments `selfplay`
/// and `learn` share.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The store: s3://bucket/prefix (credentials and endpoint from the AWS_* environment
    /// variables), file:///absolute/path, or file://$PWD/store.
    #[arg(long, value_name = "URL")]
    pub store: String,
    /// The run (a folder in the store): `fanorona learn` creates it, and the same name
    /// resumes it.
    #[arg(long)]
    pub run: String,
    /// A TOML config (see configs/). The learner's may not ask for a warm start (it plays
    /// none); without one, tsivy self-play with the built-in defaults. A worker's must
    /// train what the run trains (its [distributed] section is the worker's own); without
    /// one, the run's config from the store.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Override a config key, repeatable: `--set distributed.chunk_games=16`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// `fanorona selfplay`.
#[derive(Args, Debug)]
pub struct SelfplayArgs {
    #[command(flatten)]
    pub target: RunArgs,
    /// Stop after this many games (default: play until killed).
    #[arg(long, value_name = "N")]
    pub games: Option<u64>,
    /// This worker's ID, unique among the run's workers (letters, digits, - _ .).
    /// Default: the host name and process ID.
    #[arg(long, value_name = "ID")]
    pub worker: Option<String>,
    /// A folder for downloaded models (default: a temporary folder, removed at the end).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// No progress bar (summary lines only).
    #[arg(long)]
    pub quiet: bool,
    /// End with one line of JSON: chunks, games, samples, seconds, games_per_second.
    #[arg(long)]
    pub json: bool,
}

/// `fanorona learn`.
#[derive(Args, Debug)]
pub struct LearnArgs {
    #[command(flatten)]
    pub target: RunArgs,
    /// Stop at this generation (default: the config's run.generations; 0 there: never).
    /// 0 here only creates the run and publishes model 0.
    #[arg(long, value_name = "N")]
    pub generations: Option<u64>,
    /// Parent folder of the run's metrics (metrics.jsonl, TensorBoard).
    #[arg(long, default_value = "experiments")]
    pub experiments: PathBuf,
    /// A folder for checkpoints on their way to and from the store (default: a
    /// temporary folder, removed at the end).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// A tree run's (`[tree]` config) checkpoints and label window: `DIR/<run>/` on this
    /// machine, where `fanorona train` would keep them (its workers' labels arrive
    /// through the store). A network run keeps its checkpoints in the store.
    #[arg(long, value_name = "DIR", default_value = "checkpoints")]
    pub checkpoints: PathBuf,
    /// End with one line of JSON: generation, games, samples, steps.
    #[arg(long)]
    pub json: bool,
}

fn open_store(url: &str, cfg: &TrainConfig) -> Result<Store> {
    Store::open(url, Duration::from_secs(cfg.distributed.retry_seconds)).map_err(input_err)
}

fn cache_dir(given: &Option<PathBuf>, role: &str, run: &str) -> (PathBuf, bool) {
    match given {
        Some(d) => (d.clone(), false),
        None => (
            std::env::temp_dir().join(format!("fanorona-{role}-{run}-{}", std::process::id())),
            true,
        ),
    }
}

fn map_err(e: fanorona_train::TrainError) -> anyhow::Error {
    match e {
        fanorona_train::TrainError::Distributed(_) | fanorona_train::TrainError::Checkpoint(_) => {
            input_err(e)
        }
        e => anyhow::Error::new(e),
    }
}

fn default_worker() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "worker".into());
    let host: String = host
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    format!(
        "{}-{}",
        if host.is_empty() { "worker" } else { &host },
        std::process::id()
    )
}

/// A self-play worker.
pub fn selfplay(a: SelfplayArgs) -> Result<()> {
    let config = if a.target.config.is_some() || !a.target.set.is_empty() {
        Some(TrainConfig::load(a.target.config.as_deref(), &a.target.set).map_err(input_err)?)
    } else {
        None
    };
    let store = open_store(
        &a.target.store,
        config.as_ref().unwrap_or(&TrainConfig::default()),
    )?;
    let (cache, temporary) = cache_dir(&a.cache, "worker", &a.target.run);
    let opts = WorkerOptions {
        run: a.target.run.clone(),
        config,
        games: a.games,
        worker: a.worker.clone().unwrap_or_else(default_worker),
        device: crate::backend::device(),
        cache: cache.clone(),
    };
    eprintln!("backend: {}", crate::backend::name());
    let mut bars = Bars::new(a.quiet);
    let r = distributed::selfplay_worker(&store, &opts, &mut bars);
    if temporary {
        let _ = std::fs::remove_dir_all(&cache);
    }
    let s = r.map_err(map_err)?;
    let rate = s.games as f64 / s.seconds.max(1e-9);
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "worker": opts.worker, "chunks": s.chunks, "games": s.games,
                "samples": s.samples, "seconds": s.seconds, "games_per_second": rate,
            })
        );
    } else {
        println!(
            "worker `{}`: {} chunks, {} games, {} samples in {:.0} s ({rate:.2} games/s)",
            opts.worker, s.chunks, s.games, s.samples, s.seconds
        );
    }
    Ok(())
}

/// The learner.
pub fn learn(a: LearnArgs) -> Result<()> {
    // Without a file, the built-in defaults: `fanorona train`'s recipe begins with a warm
    // start, which the learner does not play.
    let cfg = match &a.target.config {
        Some(p) => TrainConfig::load(Some(p), &a.target.set),
        None => TrainConfig::parse("<defaults>", "", &a.target.set),
    }
    .map_err(input_err)?;
    let store = open_store(&a.target.store, &cfg)?;
    let (cache, temporary) = cache_dir(&a.cache, "learner", &a.target.run);
    let opts = LearnerOptions {
        run: a.target.run.clone(),
        config: cfg,
        generations: a.generations,
        device: crate::backend::device(),
        cache: cache.clone(),
        experiments_root: a.experiments,
        checkpoints: a.checkpoints,
    };
    eprintln!("backend: {}", crate::backend::name());
    let mut bars = Bars::new(true);
    let r = distributed::learn(&store, &opts, &mut bars);
    if temporary {
        let _ = std::fs::remove_dir_all(&cache);
    }
    let s = r.map_err(map_err)?.state;
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "run": a.target.run, "generation": s.generation, "games": s.games,
                "samples": s.samples, "steps": s.steps,
            })
        );
    } else {
        println!(
            "run `{}`: generation {}, {} games, {} samples, {} steps",
            a.target.run, s.generation, s.games, s.samples, s.steps
        );
    }
    Ok(())
}
