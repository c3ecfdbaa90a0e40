//! Tree runs over the store: the learner (`fanorona learn` with a `[tree]` config)
//! trains as `fanorona train` does, on its own disk, and publishes its evaluation;
//! workers (`fanorona selfplay`) play games with it and label positions of them with the
//! deeper teacher, `distributed.teacher_gap` turns past `tree.depth` (a deeper search
//! than the learner's own teacher can afford: more machines buy deeper labels).
//!
//! In the store, beside the layout and the configuration of every run:
//!
//! ```text
//! <store>/<run>/
//!     models/<gen:05>/eval.txt   the learner's evaluation after generation gen (the
//!                                newest two are kept)
//!     models/LATEST              {"generation": g}: moved after eval.txt is whole
//!     chunks/<worker>/<seq:08>.chunk
//!                                a worker's labels (the chunk format's labels part)
//! ```
//!
//! The guarantees are the network runs': a chunk is one object, whole or absent; the
//! learner's ledger of the chunks it has read is saved in each of its checkpoints
//! (`ledger.json`, beside the label window's list), so a learner stopped anywhere and
//! resumed reads each chunk's labels into its window exactly once; a damaged chunk is
//! moved to `quarantine/`; a worker ID in use by another process is refused. Workers do
//! not wait for the learner: labels do not go stale as a network's games do (the window
//! keeps hours of them), and a learner that was stopped reads what they left when it
//! resumes.

use super::*;
use crate::config::TrainConfig;
use crate::learner::generation_seed;
use crate::state::{Progress, Summary, TrainError, io, read_json};
use crate::tree::{Helpers, decode_labels, encode_labels, teacher_games};
use fanorona_rules::checksum::fnv1a as fnv;
use fanorona_search::{LearnedEval, NodeLabel};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The key of the evaluation of generation `g`.
fn eval_key(g: u64) -> String {
    format!("models/{g:05}/eval.txt")
}

/// The learner of a tree run (see the module's notes): `fanorona train`'s loop in
/// `<checkpoints>/<run>/`, with the workers' labels.
pub(super) fn learn_tree(
    rs: &RunStore,
    opts: &LearnerOptions,
    progress: &mut dyn Progress,
) -> Result<Summary, TrainError> {
    let mut cfg = opts.config.clone();
    if let Some(n) = opts.generations.filter(|&n| n > 0) {
        cfg.run.generations = n;
    }
    let ckpt_dir = opts.checkpoints.join(&opts.run);
    let exp_dir = opts.experiments_root.join(&opts.run);
    for d in [&ckpt_dir, &exp_dir] {
        std::fs::create_dir_all(d).map_err(io(d))?;
    }
    progress.message(&format!(
        "learner of run `{}` in {}: tree learning in {} (checkpoints and label window), its evaluation published to the store for the workers",
        opts.run,
        rs.store.url(),
        ckpt_dir.display()
    ));
    let mut helpers = StoreHelpers {
        rs,
        cfg: &cfg,
        ledger: Ledger::default(),
        strays: BTreeSet::new(),
        published: None,
    };
    crate::tree::train_with(
        &cfg,
        &opts.run,
        &ckpt_dir,
        &exp_dir,
        &opts.device,
        Some(&mut helpers),
        opts.generations == Some(0),
        progress,
    )
}

/// The workers of a tree run, as the learner sees them.
struct StoreHelpers<'a> {
    rs: &'a RunStore<'a>,
    cfg: &'a TrainConfig,
    /// The chunks read, saved with each checkpoint.
    ledger: Ledger,
    /// Objects under `chunks/` that are not chunks, each reported once.
    strays: BTreeSet<String>,
    /// The generation last published.
    published: Option<u64>,
}

impl Helpers for StoreHelpers<'_> {
    fn resume(&mut self, checkpoint: Option<&Path>) -> Result<(), TrainError> {
        // A checkpoint of a run begun by `fanorona train` has no ledger: nothing read yet.
        if let Some(file) = checkpoint
            .map(|d| d.join(LEDGER_FILE))
            .filter(|f| f.exists())
        {
            self.ledger = read_json(&file)?;
        }
        Ok(())
    }

    fn publish(&mut self, eval: &LearnedEval, g: u64) -> Result<(), TrainError> {
        if self.published == Some(g) {
            return Ok(());
        }
        let rs = self.rs;
        rs.put(&eval_key(g), eval.to_text().as_bytes())?;
        rs.set_pointer("models/LATEST", g)?;
        // The one before stays for a worker that read the pointer just before it moved.
        for k in rs.list("models")? {
            let old = k
                .strip_prefix("models/")
                .and_then(|r| r.strip_suffix("/eval.txt"))
                .and_then(|n| n.parse::<u64>().ok());
            if old.is_some_and(|o| o + 1 < g) {
                rs.delete(&k)?;
            }
        }
        self.published = Some(g);
        Ok(())
    }

    fn take(&mut self, progress: &mut dyn Progress) -> Result<Vec<NodeLabel>, TrainError> {
        let rs = self.rs;
        let mut queue = BTreeMap::new();
        look(
            rs,
            &mut self.ledger,
            &mut queue,
            &mut self.strays,
            u64::MAX,
            (self.published.unwrap_or(0), true, 0),
            progress,
        )?;
        let (variant, rules) = (self.cfg.variant(), self.cfg.rule_options());
        let mut labels = Vec::new();
        let mut read = 0;
        for ((seq, worker), chunk) in queue {
            self.ledger.mark(&worker, seq);
            let key = chunk_key(&worker, seq);
            let decoded = decode_labels(&chunk.labels, variant, rules).and_then(|l| {
                if l.len() as u64 == chunk.header.labels {
                    Ok(l)
                } else {
                    Err(format!(
                        "its header counts {} labels, it holds {}",
                        chunk.header.labels,
                        l.len()
                    ))
                }
            });
            match decoded {
                Ok(l) => {
                    read += 1;
                    labels.extend(l);
                }
                Err(e) => quarantine(
                    rs,
                    &key,
                    &encode_chunk(&chunk),
                    &format!("labels: {e}"),
                    &mut self.ledger,
                    progress,
                )?,
            }
        }
        if read > 0 {
            progress.message(&format!(
                "learner: {} labels from {read} chunks of the workers",
                labels.len()
            ));
        }
        Ok(labels)
    }

    fn files(&self) -> Vec<(&'static str, Vec<u8>)> {
        let ledger = serde_json::to_vec(&self.ledger).expect("ledgers serialise");
        vec![(LEDGER_FILE, ledger)]
    }
}

/// A worker of tree run `cfg` (the run's configuration with the worker's own
/// `[distributed]` and `tree.threads`): fetch the newest evaluation, play a chunk of
/// games with it, upload the deeper teacher's labels of them; until `opts.games` games
/// are played (or forever).
pub(super) fn teacher_worker(
    rs: &RunStore,
    opts: &WorkerOptions,
    cfg: &TrainConfig,
    session: &str,
    progress: &mut dyn Progress,
) -> Result<WorkerSummary, TrainError> {
    let t0 = Instant::now();
    let mut cfg = cfg.clone();
    if cfg.distributed.teacher_gap > 0 {
        cfg.tree.deep_gap = cfg.distributed.teacher_gap;
    }
    if cfg.tree.deep_gap == 0 || cfg.tree.deep_positions == 0 {
        return Err(TrainError::Distributed(format!(
            "run `{}` learns a tree evaluation with its deeper teacher off (tree.deep_gap = {}, tree.deep_positions = {}): a worker has nothing to label{}",
            opts.run,
            cfg.tree.deep_gap,
            cfg.tree.deep_positions,
            if cfg.tree.deep_positions > 0 {
                "; give the worker a config with distributed.teacher_gap"
            } else {
                ""
            }
        )));
    }
    cfg.validate()
        .map_err(|e| TrainError::Distributed(format!("the worker's configuration: {e}")))?;
    let variant = cfg.variant();
    let poll = Duration::from_secs_f64(cfg.distributed.poll_seconds);
    let chunk_games = if cfg.distributed.chunk_games > 0 {
        cfg.distributed.chunk_games
    } else {
        cfg.tree.games
    } as u64;
    let mut seq = next_sequence(rs, &opts.worker)?;
    progress.message(&format!(
        "worker `{}` (session {session}) of tree run `{}` in {}: {variant}, the deeper teacher {} turns past the players' {}, {} positions a game, chunks of {chunk_games} games from sequence {seq}",
        opts.worker,
        opts.run,
        rs.store.url(),
        cfg.tree.deep_gap,
        cfg.tree.depth,
        cfg.tree.deep_positions
    ));
    let mut loaded: Option<(u64, Arc<LearnedEval>)> = None;
    let mut summary = WorkerSummary::default();
    loop {
        let left = opts.games.map(|n| n.saturating_sub(summary.games));
        if left == Some(0) {
            break;
        }
        let Some(g) = rs.pointer("models/LATEST")? else {
            std::thread::sleep(poll);
            continue;
        };
        if loaded.as_ref().is_none_or(|(h, _)| *h != g) {
            let key = eval_key(g);
            // Gone: the pointer has moved on since it was read.
            let Some(bytes) = rs.get(&key)? else {
                std::thread::sleep(poll);
                continue;
            };
            let eval = std::str::from_utf8(&bytes)
                .map_err(|e| e.to_string())
                .and_then(|t| LearnedEval::from_text(t).map_err(|e| e.to_string()))
                .and_then(|e| {
                    e.check_variant(variant)
                        .map(|()| e)
                        .map_err(|e| e.to_string())
                })
                .map_err(|e| TrainError::Distributed(format!("`{}`: {e}", rs.key(&key))))?;
            progress.message(&format!("worker `{}`: evaluation {g}", opts.worker));
            loaded = Some((g, Arc::new(eval)));
        }
        let (generation, eval) = loaded.as_ref().expect("loaded above");
        let n = left.map_or(chunk_games, |l| l.min(chunk_games));
        let seed =
            generation_seed(&cfg, seq) ^ fnv(format!("{}/{session}", opts.worker).as_bytes());
        progress.selfplay_started(*generation, n as usize);
        let (labels, stats) = teacher_games(&cfg, eval, n as usize, seed, &mut |k| {
            progress.game_finished(k)
        });
        progress.selfplay_finished();
        let chunk = Chunk {
            header: ChunkHeader {
                version: CHUNK_VERSION,
                run: opts.run.clone(),
                worker: opts.worker.clone(),
                session: session.to_string(),
                seq,
                generation: *generation,
                variant: variant.name().into(),
                games: stats.games,
                samples: 0,
                stats,
                labels: labels.len() as u64,
            },
            samples: Vec::new(),
            games: Vec::new(),
            labels: encode_labels(variant, labels.iter()),
        };
        upload_chunk(rs, &chunk)?;
        summary.chunks += 1;
        summary.games += stats.games;
        summary.samples += labels.len() as u64;
        progress.message(&format!(
            "worker `{}`: chunk {seq:08} uploaded: {} games ({:.1}/s), {} labels searched {} turns deep, evaluation {generation}; {} games in all",
            opts.worker,
            stats.games,
            stats.games as f64 / stats.seconds.max(1e-9),
            labels.len(),
            cfg.tree.depth + cfg.tree.deep_gap,
            summary.games
        ));
        seq += 1;
    }
    summary.seconds = t0.elapsed().as_secs_f64();
    Ok(summary)
}
