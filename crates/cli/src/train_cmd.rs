//! `fanorona train` and `fanorona oracle`.

use crate::engine::EngineSpec;
use crate::input_err;
use anyhow::Result;
use clap::Args;
use fanorona_nn::spec::NetSource;
use fanorona_rules::Variant;
use fanorona_rules::telo::TeloSolution;
use fanorona_search::judge::judge_telo;
use fanorona_train::{RunOptions, TrainConfig};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// `fanorona train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// A TOML config (see configs/); without one, configs/tsivy.toml, built in: the main
    /// job, tsivy learned from nothing (alpha-beta's self-play teaches its evaluation and
    /// the network; 12 hours unless stopped, resumable; level with the hand-written
    /// evaluation within minutes). configs/quick.toml shows learning in ten minutes.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The run's name: checkpoints go to <checkpoints>/<run>/, the rest to
    /// <experiments>/<run>/. The same name resumes the run. Default: the config file's
    /// name, or the variant.
    #[arg(long)]
    pub run: Option<String>,
    /// Override a config key, repeatable: `--set selfplay.sims=400`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Parent folder of the run's checkpoints.
    #[arg(long, default_value = "checkpoints")]
    pub checkpoints: PathBuf,
    /// Parent folder of the run's metrics, games and config.
    #[arg(long, default_value = "experiments")]
    pub experiments: PathBuf,
    /// No progress bar (summary lines only).
    #[arg(long)]
    pub quiet: bool,
}

pub(crate) struct Bars {
    pub(crate) bar: Option<ProgressBar>,
    pub(crate) quiet: bool,
    /// The run's latest standing (a tree run's curve), shown beside the bar.
    pub(crate) standing: String,
}

impl Bars {
    /// No bar yet; `quiet`: none at all, summary lines only.
    pub(crate) fn new(quiet: bool) -> Bars {
        Bars {
            bar: None,
            quiet,
            standing: String::new(),
        }
    }
}

impl fanorona_train::Progress for Bars {
    fn message(&mut self, line: &str) {
        match &self.bar {
            // A hidden bar (output not a terminal: a log file) drops what it is given to
            // print, so the line goes to stdout itself.
            Some(b) if !b.is_hidden() => b.println(line),
            _ => println!("{line}"),
        }
    }
    fn selfplay_started(&mut self, generation: u64, games: usize) {
        if self.quiet {
            return;
        }
        let b = ProgressBar::new(games as u64);
        b.set_style(
            ProgressStyle::with_template(
                "gen {msg} self-play [{bar:30}] {pos}/{len} games, {elapsed} (eta {eta}){prefix}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        b.set_message(generation.to_string());
        if !self.standing.is_empty() {
            b.set_prefix(format!(" | {}", self.standing));
        }
        self.bar = Some(b);
    }
    fn game_finished(&mut self, n: usize) {
        if let Some(b) = &self.bar {
            b.set_position(n as u64);
        }
    }
    fn selfplay_finished(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
    fn standing(&mut self, summary: &str) {
        self.standing = summary.to_string();
    }
}

pub fn train(a: TrainArgs) -> Result<()> {
    let cfg = TrainConfig::load(a.config.as_deref(), &a.set).map_err(input_err)?;
    let run = a.run.clone().unwrap_or_else(|| {
        a.config
            .as_ref()
            .and_then(|p| p.file_stem())
            .map_or_else(|| cfg.variant.clone(), |s| s.to_string_lossy().into_owned())
    });
    if run.is_empty() || run.contains(['/', '\\']) || run.starts_with('.') {
        return Err(input_err(format!(
            "run name `{run}` must be a plain folder name"
        )));
    }
    let opts = RunOptions {
        config: cfg,
        run,
        checkpoints_root: a.checkpoints,
        experiments_root: a.experiments,
        device: crate::backend::device(),
    };
    println!("backend: {}", crate::backend::name());
    let mut bars = Bars::new(a.quiet);
    let summary = fanorona_train::train(&opts, &mut bars).map_err(|e| match e {
        // A file that cannot be written (a full disk) is not the user's input.
        fanorona_train::TrainError::Checkpoint(
            fanorona_nn::checkpoint::CheckpointError::Io { .. }
            | fanorona_nn::checkpoint::CheckpointError::Save { .. },
        ) => anyhow::Error::new(e),
        fanorona_train::TrainError::ConfigChanged(..)
        | fanorona_train::TrainError::Checkpoint(_)
        | fanorona_train::TrainError::Book(_)
        | fanorona_train::TrainError::Eval(_) => input_err(e),
        e => anyhow::Error::new(e),
    })?;
    let s = summary.state;
    println!(
        "run `{}`: generation {}, {} games, {} samples, {} steps, {:.0} s in all; latest checkpoint {}",
        opts.run,
        s.generation,
        s.games,
        s.samples,
        s.steps,
        s.seconds,
        summary
            .last_checkpoint
            .map_or("none".to_string(), |p| p.display().to_string())
    );
    Ok(())
}

/// `fanorona oracle`.
#[derive(Args, Debug)]
pub struct OracleArgs {
    /// A telo checkpoint folder, or a run folder (its latest checkpoint).
    #[arg(long, value_name = "DIR")]
    pub checkpoint: PathBuf,
    /// Simulations per position.
    #[arg(long, default_value_t = 64)]
    pub sims: u32,
    /// One line of JSON: positions, value_preserving, share.
    #[arg(long)]
    pub json: bool,
}

/// Judges a telo network + search against the exact solver on every reachable position
/// that is not lost for the side to move.
pub fn oracle(a: OracleArgs) -> Result<()> {
    let spec = EngineSpec::network(NetSource::Dir(a.checkpoint.clone()), a.sims);
    // Fail early, with the checkpoint's own error, if it is not a telo network.
    let mut eval = crate::engine::evaluator(&spec, Variant::Telo)?;
    let j = judge_telo(&mut eval, a.sims, &TeloSolution::solve());
    if a.json {
        println!(
            "{}",
            serde_json::json!({"positions": j.positions, "value_preserving": j.value_preserving, "share": j.share(), "sims": a.sims})
        );
    } else {
        println!(
            "{} of {} reachable positions that are not lost: value-preserving move ({:.2} %), {} simulations each",
            j.value_preserving,
            j.positions,
            100.0 * j.share(),
            a.sims
        );
        for b in j.mistakes {
            println!("  mistake: {b}");
        }
    }
    Ok(())
}
