//! The self-play worker: fetch the newest model, play a chunk of games, upload it.

use super::*;
use crate::config::TrainConfig;
use crate::inputs::{read_selfplay_aids, read_selfplay_book};
use crate::learner::{generation_seed, net_config};
use crate::records::{GameRecord, Sample};
use crate::run::play_generation;
use crate::state::{Progress, TrainError};
use crate::store::{Created, Store};
use fanorona_nn::NetEvaluator;
use fanorona_nn::burn::prelude::Device;
use fanorona_nn::checkpoint;
use fanorona_rules::checksum::fnv1a as fnv;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What a worker is asked to do.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The run.
    pub run: String,
    /// The worker's configuration, if one was given (it must train what the run trains).
    pub config: Option<TrainConfig>,
    /// Stop after this many games (`None`: never).
    pub games: Option<u64>,
    /// The worker's ID (unique among the run's workers).
    pub worker: String,
    /// The device the network runs on.
    pub device: Device,
    /// A local folder for downloaded models.
    pub cache: PathBuf,
}

/// What a worker did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WorkerSummary {
    /// Chunks uploaded.
    pub chunks: u64,
    /// Games played and uploaded.
    pub games: u64,
    /// Samples uploaded.
    pub samples: u64,
    /// Seconds spent.
    pub seconds: f64,
}

/// A self-play worker: fetch the newest model, play a chunk of games, upload it; until
/// `games` are played (or forever).
///
/// # Errors
/// Storage that keeps failing, another configuration in the store, another worker with
/// the same ID.
pub fn selfplay_worker(
    store: &Store,
    opts: &WorkerOptions,
    progress: &mut dyn Progress,
) -> Result<WorkerSummary, TrainError> {
    check_run_name(&opts.run)?;
    if !valid_worker(&opts.worker) {
        return Err(TrainError::Distributed(format!(
            "worker ID `{}` must be 1-64 letters, digits, `-`, `_` or `.`",
            opts.worker
        )));
    }
    let rs = RunStore {
        store,
        run: opts.run.clone(),
    };
    let t0 = Instant::now();
    let session = new_session();
    // Wait for the learner to create the run and publish its first model.
    let poll = opts
        .config
        .as_ref()
        .map_or(2.0, |c| c.distributed.poll_seconds);
    rs.check_bucket()?;
    let mut said = None::<Instant>;
    let (cfg, mut latest) = loop {
        if check_layout(&rs)?
            && let Some(cfg) = stored_config(&rs, opts.config.as_ref())?
            && let Some(g) = rs.pointer("models/LATEST")?
        {
            break (cfg, g);
        }
        if said.is_none_or(|t| t.elapsed() > Duration::from_secs(30)) {
            progress.message(&format!(
                "waiting for the learner of run `{}` in {} to publish its first model",
                opts.run,
                store.url()
            ));
            said = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_secs_f64(poll));
    };
    // How far workers may run ahead is the run's (the learner drops what is older).
    let budget = cfg.distributed.max_staleness.max(1) * cfg.selfplay.games_per_generation as u64;
    let cfg = match &opts.config {
        // The worker's own plumbing settings, the run's training settings.
        Some(mine) => {
            let mut cfg = TrainConfig {
                distributed: mine.distributed.clone(),
                ..cfg
            };
            cfg.tree.threads = mine.tree.threads;
            cfg
        }
        None => cfg,
    };
    if cfg.tree.enabled() {
        return teacher::teacher_worker(&rs, opts, &cfg, &session, progress);
    }
    let variant = cfg.variant();
    let net_cfg = net_config(&cfg);
    // The run's `selfplay.book`, read from this worker's folder (the path is the run's).
    let book = read_selfplay_book(&cfg)?;
    let aids = read_selfplay_aids(&cfg)?;
    let chunk_games = if cfg.distributed.chunk_games > 0 {
        cfg.distributed.chunk_games
    } else {
        cfg.selfplay.games_in_flight
    } as u64;
    let mut seq = next_sequence(&rs, &opts.worker)?;
    let mut loaded: Option<(u64, fanorona_nn::Net)> = None;
    let mut summary = WorkerSummary::default();
    progress.message(&format!(
        "worker `{}` (session {session}) of run `{}` in {}: {variant}, chunks of {chunk_games} games from sequence {seq}",
        opts.worker,
        opts.run,
        store.url()
    ));
    loop {
        let left = opts.games.map(|n| n.saturating_sub(summary.games));
        if left == Some(0) || !wait_for_learner(&rs, opts, budget, chunk_games, poll, progress)? {
            break;
        }
        // The newest model (published whole before the pointer moved).
        if let Some(g) = rs.pointer("models/LATEST")? {
            latest = latest.max(g);
        }
        if loaded.as_ref().is_none_or(|(g, _)| *g != latest) {
            let dir = opts.cache.join(format!("model-{latest:05}"));
            rs.download_dir(&format!("models/{latest:05}"), &dir)?;
            // The network reads its file lazily: the folder stays while it plays; the
            // previous model's goes.
            let (net, _, _) = checkpoint::load(&dir, &opts.device, Some(variant), Some(&net_cfg))?;
            if let Some((old, _)) = &loaded {
                let _ = std::fs::remove_dir_all(opts.cache.join(format!("model-{old:05}")));
            }
            progress.message(&format!("worker `{}`: model {latest}", opts.worker));
            loaded = Some((latest, net));
        }
        let (generation, net) = loaded.as_ref().expect("loaded above");
        let n = left.map_or(chunk_games, |l| l.min(chunk_games));
        let worker_hash = fnv(format!("{}/{session}", opts.worker).as_bytes());
        let seed = generation_seed(&cfg, seq) ^ worker_hash;
        let mut eval = NetEvaluator::new(
            net.clone(),
            opts.device.clone(),
            variant,
            cfg.selfplay.random_symmetry,
            seed,
        );
        progress.selfplay_started(*generation, n as usize);
        let (finished, stats) = play_generation(
            &cfg,
            &mut eval,
            &aids,
            n as usize,
            *generation,
            seed,
            book.as_deref(),
            progress,
        );
        progress.selfplay_finished();
        let samples: Vec<Sample> = finished.iter().flat_map(|f| f.samples.clone()).collect();
        let games: Vec<GameRecord> = finished.into_iter().map(|f| f.record).collect();
        let chunk = Chunk {
            header: ChunkHeader {
                version: CHUNK_VERSION,
                run: opts.run.clone(),
                worker: opts.worker.clone(),
                session: session.clone(),
                seq,
                generation: *generation,
                variant: variant.name().into(),
                games: games.len() as u64,
                samples: samples.len() as u64,
                stats,
                labels: 0,
            },
            samples,
            games,
            labels: Vec::new(),
        };
        upload_chunk(&rs, &chunk)?;
        summary.chunks += 1;
        summary.games += chunk.header.games;
        summary.samples += chunk.header.samples;
        progress.message(&format!(
            "worker `{}`: chunk {seq:08} uploaded: {} games ({:.1}/s), {} samples, model {generation}; {} games in all",
            opts.worker,
            chunk.header.games,
            chunk.header.games as f64 / stats.seconds.max(1e-9),
            chunk.header.samples,
            summary.games
        ));
        seq += 1;
    }
    summary.seconds = t0.elapsed().as_secs_f64();
    Ok(summary)
}

/// Waits while the games waiting for the learner reach `budget` (the run's
/// `distributed.max_staleness` generations of games): a game played further ahead would
/// reach the learner too late to be used. False when the learner has stopped for good
/// with that many games waiting: nothing more will be read.
pub(super) fn wait_for_learner(
    rs: &RunStore,
    opts: &WorkerOptions,
    budget: u64,
    chunk_games: u64,
    poll: f64,
    progress: &mut dyn Progress,
) -> Result<bool, TrainError> {
    let mut said = None::<Instant>;
    loop {
        // A learner older than the status file: no budget to keep.
        let Some(bytes) = rs.get(LearnerStatus::KEY)? else {
            return Ok(true);
        };
        let status: LearnerStatus = serde_json::from_slice(&bytes).map_err(|e| {
            TrainError::Distributed(format!(
                "{}: `{}` is damaged: {e}",
                rs.store.url(),
                rs.key(LearnerStatus::KEY)
            ))
        })?;
        // Chunks uploaded since the learner's last look count as whole chunks.
        let listed = rs
            .list("chunks")?
            .iter()
            .filter(|k| parse_chunk_key(k).is_some())
            .count() as u64;
        let waiting =
            status.waiting_games + listed.saturating_sub(status.read_chunks) * chunk_games;
        if waiting < budget {
            return Ok(true);
        }
        if !status.running {
            progress.message(&format!(
                "worker `{}`: the learner stopped at generation {} with {waiting} games unread (the run lets workers run {budget} games ahead): nothing more to play for",
                opts.worker, status.generation
            ));
            return Ok(false);
        }
        if said.is_none_or(|t| t.elapsed() > Duration::from_secs(30)) {
            progress.message(&format!(
                "worker `{}`: {waiting} games wait for the learner (at generation {}), as many as the run lets workers run ahead (distributed.max_staleness x selfplay.games_per_generation = {budget}); waiting for it to train",
                opts.worker, status.generation
            ));
            said = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_secs_f64(poll));
    }
}

/// Writes a chunk under its key unless that key is taken; a key taken by this session
/// (a retried upload that had landed) is fine, by another session is a second worker
/// with the same ID.
pub(super) fn upload_chunk(rs: &RunStore, chunk: &Chunk) -> Result<(), TrainError> {
    let h = &chunk.header;
    let key = chunk_key(&h.worker, h.seq);
    let taken = |existing: Option<Vec<u8>>| -> Result<(), TrainError> {
        let Some(bytes) = existing else {
            return Ok(());
        };
        match decode_chunk(&bytes, &rs.run) {
            Ok(c) if c.header.session == h.session => Ok(()),
            Ok(c) => Err(TrainError::Distributed(format!(
                "worker ID `{}` is in use by another worker (session {} wrote `{}`); give each worker its own --worker",
                h.worker,
                c.header.session,
                rs.key(&key)
            ))),
            Err(e) => Err(TrainError::Distributed(format!(
                "`{}` exists and is damaged ({e}); another worker with ID `{}`?",
                rs.key(&key),
                h.worker
            ))),
        }
    };
    // Look first (S3-compatible servers without conditional writes), then create.
    taken(rs.get(&key)?)?;
    match rs.create(&key, &encode_chunk(chunk))? {
        Created::Written => Ok(()),
        Created::Exists => taken(rs.get(&key)?),
    }
}

/// A worker's next sequence number: after the last of its chunks, waiting or
/// quarantined. The ledger counts a quarantined chunk's key as read, so a new chunk
/// under that key would never be read: keys are never reused.
pub(super) fn next_sequence(rs: &RunStore, worker: &str) -> Result<u64, TrainError> {
    let mut next = 0;
    for folder in ["chunks", "quarantine"] {
        for k in rs.list(&format!("{folder}/{worker}"))? {
            let Some(rest) = k.strip_prefix(folder) else {
                continue;
            };
            if let Some((w, seq)) = parse_chunk_key(&format!("chunks{rest}"))
                && w == worker
            {
                next = next.max(seq + 1);
            }
        }
    }
    Ok(next)
}
