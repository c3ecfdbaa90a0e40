//! `fanorona arena`: round robins and gauntlets.

use crate::input_err;
use crate::rules_cmds::PositionArgs;
use anyhow::Result;
use clap::Args;
use fanorona_arena::arena::{ArenaConfig, GameRecord, default_anchor, play_pairings, rate, tally};
use fanorona_arena::report;
use fanorona_nn::checkpoint;
use fanorona_rules::Variant;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// `fanorona arena`.
#[derive(Args, Debug)]
pub struct ArenaArgs {
    /// Players of a round robin (every pair plays), e.g. `random ab:depth=1 ab:depth=3
    /// mcts:ckpt=checkpoints/run1,sims=100`.
    #[arg(long, num_args = 1.., value_name = "SPEC", conflicts_with = "gauntlet")]
    pub players: Vec<String>,
    /// A run folder: its checkpoints (see --max-checkpoints) each play the --vs players.
    #[arg(long, value_name = "DIR", requires = "vs")]
    pub gauntlet: Option<PathBuf>,
    /// The fixed opponents of a gauntlet.
    #[arg(long, num_args = 1.., value_name = "SPEC")]
    pub vs: Vec<String>,
    /// Simulations per decision of the gauntlet's network players.
    #[arg(long, default_value_t = 100)]
    pub sims: u32,
    /// Checkpoints of the run in a gauntlet, evenly spaced, the latest always included.
    #[arg(long, default_value_t = 8)]
    pub max_checkpoints: usize,
    /// Games per pairing (10: the traditional match, each opening once by each side).
    #[arg(long, default_value_t = 10)]
    pub games: usize,
    /// Where results accumulate (a rerun skips finished games). Default:
    /// experiments/arena, or <run>/../../experiments/<run>/gauntlet for a gauntlet.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Games played at once (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seed of random players.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The player rated 0 (default: random, else ab:depth=1, else the first).
    #[arg(long)]
    pub anchor: Option<String>,
    /// End with one line of JSON: ratings and game count.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub pos: PositionArgs,
}

pub fn arena(a: ArenaArgs) -> Result<()> {
    let rules = a.pos.rule_options()?;
    if a.games == 0 {
        return Err(input_err("--games must be at least 1"));
    }
    let mut generations: Vec<(usize, u64)> = Vec::new();
    let (specs, pairings, variant, out) = if let Some(run) = &a.gauntlet {
        let mut ck: Vec<(u64, PathBuf)> = std::fs::read_dir(run)
            .map_err(|e| input_err(format!("gauntlet run folder `{}`: {e}", run.display())))?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.join("meta.json").is_file() && !p.to_string_lossy().ends_with(".tmp"))
            .filter_map(|p| checkpoint::read_meta(&p).ok().map(|m| (m.generation, p)))
            .collect();
        ck.sort();
        if ck.is_empty() {
            return Err(input_err(format!(
                "`{}` holds no checkpoints",
                run.display()
            )));
        }
        let variant: Variant = checkpoint::read_meta(&ck[0].1)
            .map_err(input_err)?
            .variant
            .parse()
            .map_err(input_err)?;
        let keep = a.max_checkpoints.max(1).min(ck.len());
        let chosen: Vec<(u64, PathBuf)> = (0..keep)
            .map(|i| {
                if keep == 1 {
                    ck.len() - 1
                } else {
                    i * (ck.len() - 1) / (keep - 1)
                }
            })
            .map(|i| ck[i].clone())
            .collect();
        let mut specs: Vec<String> = chosen
            .iter()
            .map(|(_, p)| format!("mcts:ckpt={},sims={}", p.display(), a.sims))
            .collect();
        generations = chosen
            .iter()
            .enumerate()
            .map(|(i, (g, _))| (i, *g))
            .collect();
        let n = specs.len();
        specs.extend(a.vs.iter().cloned());
        let pairings: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| (n..specs.len()).map(move |j| (i, j)))
            .collect();
        let name = run
            .file_name()
            .map_or("run".into(), |s| s.to_string_lossy().into_owned());
        let out = a
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("experiments").join(name).join("gauntlet"));
        (specs, pairings, variant, out)
    } else {
        if a.players.len() < 2 {
            return Err(input_err(
                "a round robin needs at least two --players (or use --gauntlet DIR --vs SPEC...)",
            ));
        }
        let specs = a.players.clone();
        let n = specs.len();
        let pairings: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect();
        let variant = a.pos.variant.unwrap_or(Variant::Tsivy);
        (
            specs,
            pairings,
            variant,
            a.out
                .clone()
                .unwrap_or_else(|| PathBuf::from("experiments/arena")),
        )
    };
    if variant == Variant::Telo {
        return Err(input_err(
            "the arena plays tsivy and dimy (telo is solved: use `fanorona oracle`)",
        ));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(d) = specs.iter().find(|s| !seen.insert(s.as_str())) {
        return Err(input_err(format!("player `{d}` is named twice")));
    }
    let anchor_spec = match &a.anchor {
        Some(s) => Some(
            specs
                .iter()
                .position(|x| x == s)
                .ok_or_else(|| input_err(format!("anchor `{s}` is not a player")))?,
        ),
        None => None,
    };
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let cfg = ArenaConfig {
        variant,
        rules,
        games: a.games,
        threads,
        seed: a.seed,
        max_turns: 400,
        out: Some(out.clone()),
        device: crate::backend::device(),
    };
    let total = pairings.len() * a.games;
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("[{bar:30}] {pos}/{len} games, {elapsed} (eta {eta}) {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    if a.json {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let first = specs[0].clone();
    let score = std::sync::Mutex::new((0.0f64, 0u32));
    let on_game = |r: &GameRecord, _done: usize, _total: usize| {
        bar.inc(1);
        let mut s = score.lock().expect("not poisoned");
        let side = if r.white == first {
            Some("white")
        } else if r.black == first {
            Some("black")
        } else {
            None
        };
        if let Some(side) = side {
            s.0 += if r.result == side {
                1.0
            } else if r.result == "draw" {
                0.5
            } else {
                0.0
            };
            s.1 += 1;
            bar.set_message(format!("{first}: {:.1}/{}", s.0, s.1));
        }
    };
    let records = play_pairings(&cfg, &specs, &pairings, &on_game).map_err(|e| match e {
        fanorona_arena::ArenaError::Spec(_) => input_err(e),
        e => anyhow::Error::new(e),
    })?;
    bar.finish_and_clear();
    let results = tally(&specs, &records);
    let anchor = anchor_spec.unwrap_or_else(|| default_anchor(&specs, &records));
    let ratings = rate(&specs, &records, anchor);
    report::save(&out, &specs, &results, &ratings, records.len())
        .map_err(|e| anyhow::anyhow!("writing reports into {}: {e}", out.display()))?;
    if !generations.is_empty() {
        let pts: Vec<(u64, f64, f64, f64)> = generations
            .iter()
            .map(|&(i, g)| (g, ratings[i].elo, ratings[i].low, ratings[i].high))
            .collect();
        let title = format!("Elo against generation (anchor {})", specs[anchor]);
        if let Err(e) = report::plot_elo(&out.join("elo.svg"), &title, &pts) {
            eprintln!("warning: no plot: {e}");
        }
    }
    if !a.json {
        println!(
            "{} games ({variant}), results in {}\n",
            records.len(),
            out.display()
        );
        println!("{}", report::results_markdown(&specs, &results));
        println!("{}", report::ratings_markdown(&specs, &ratings, anchor));
    } else {
        println!("{}", report::ratings_json(&specs, &ratings, records.len()));
    }
    Ok(())
}

/// `fanorona plot`.
#[derive(Args, Debug)]
pub struct PlotArgs {
    /// A run's metrics.jsonl.
    #[arg(long, value_name = "FILE")]
    pub metrics: PathBuf,
    /// Tags to draw, e.g. `loss/policy loss/value` or `arena/score`.
    #[arg(long, num_args = 1.., required = true)]
    pub tag: Vec<String>,
    /// The SVG to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Title of the plot.
    #[arg(long, default_value = "training")]
    pub title: String,
}

pub fn plot(a: PlotArgs) -> Result<()> {
    let text = std::fs::read_to_string(&a.metrics)
        .map_err(|e| input_err(format!("metrics file `{}`: {e}", a.metrics.display())))?;
    let mut series: Vec<(String, Vec<(f64, f64)>)> =
        a.tag.iter().map(|t| (t.clone(), Vec::new())).collect();
    for (i, line) in text.lines().enumerate() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            eprintln!(
                "warning: {}:{}: not a metrics line, skipped",
                a.metrics.display(),
                i + 1
            );
            continue;
        };
        if let (Some(tag), Some(step), Some(value)) =
            (v["tag"].as_str(), v["step"].as_f64(), v["value"].as_f64())
            && let Some(s) = series.iter_mut().find(|s| s.0 == tag)
        {
            s.1.push((step, value));
        }
    }
    if let Some(empty) = series.iter().find(|s| s.1.is_empty()) {
        return Err(input_err(format!(
            "no `{}` values in {}",
            empty.0,
            a.metrics.display()
        )));
    }
    report::plot_series(&a.out, &a.title, "generation", &series)
        .map_err(|e| anyhow::anyhow!("plot: {e}"))?;
    println!("wrote {}", a.out.display());
    Ok(())
}
