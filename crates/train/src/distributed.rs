//! Self-play past one machine: stateless workers and one learner joined by object storage
//! (the shape of Minigo's and KataGo's loops), on the [`crate::store`] layer.
//!
//! Layout of a run in the store (version [`LAYOUT`]), every object written whole:
//!
//! ```text
//! <store>/<run>/
//!     layout.json                 {"layout": 1}: written first by the learner
//!     config.toml                 the run's configuration (the learner's)
//!     models/<gen:05>/meta.json   published networks, never changed once published
//!     models/<gen:05>/model.bpk
//!     models/LATEST               {"generation": g}: moved only after model g is whole
//!     chunks/<worker>/<seq:08>.chunk
//!                                 a worker's games: samples and records (format below)
//!     learner/<gen:05>/           the learner's checkpoint: model, optimizer, state.json,
//!                                 replay.bin (newest only), ledger.json (chunks consumed)
//!     learner/LATEST              {"generation": g}: moved after the checkpoint is whole
//!     quarantine/<worker>/<seq:08>.chunk
//!                                 damaged chunks, moved aside and skipped
//! ```
//!
//! A chunk: `"FNRC" | version u32 | header length u32 | header JSON | samples length u32 |
//! a sample file (see [`crate::records`]) | records length u32 | game records, JSON lines |
//! FNV-1a 64 of everything before`, little-endian. The header names the run, the worker,
//! its session (a random token per process), the sequence number, the generation of the
//! model that played it and the counts.
//!
//! Guarantees: a chunk is one object, so it is seen whole or not at all; the learner's
//! ledger, saved inside each checkpoint, lists every chunk the checkpoint holds, so a
//! restarted learner re-reads exactly the chunks after it; a chunk's key is
//! `(worker, seq)`, so a re-upload replaces nothing and is not counted twice; a worker
//! finding its sequence number taken by another session stops (two workers with one ID).

use crate::config::TrainConfig;
use crate::inputs::{players_eval_file, read_selfplay_aids, read_selfplay_book};
use crate::learner::{
    Generation, Keeper, Learner, Source, drive, generation_seed, net_config, open_sinks, trainer,
};
use crate::records::{self, GameRecord, Sample, fnv};
use crate::run::play_generation;
use crate::selfplay::SelfPlayStats;
use crate::state::{Progress, Summary, TrainError, io, read_json};
use crate::store::{Created, Store};
use fanorona_nn::NetEvaluator;
use fanorona_nn::burn::prelude::Device;
use fanorona_nn::checkpoint;
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Version of the store layout.
pub const LAYOUT: u32 = 1;
/// Version of the chunk format.
pub const CHUNK_VERSION: u32 = 1;
const CHUNK_MAGIC: &[u8; 4] = b"FNRC";
/// The file in each learner checkpoint that says which chunks it has read.
const LEDGER_FILE: &str = "ledger.json";

/// What a chunk says about itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkHeader {
    /// [`CHUNK_VERSION`].
    pub version: u32,
    /// The run.
    pub run: String,
    /// The worker's ID.
    pub worker: String,
    /// The worker process's random session token.
    pub session: String,
    /// The worker's sequence number.
    pub seq: u64,
    /// Generation of the model that played the games.
    pub generation: u64,
    /// `tsivy`, `dimy` or `telo`.
    pub variant: String,
    /// Games in the chunk.
    pub games: u64,
    /// Samples in the chunk.
    pub samples: u64,
    /// What self-play measured while playing them.
    pub stats: SelfPlayStats,
}

/// A decoded chunk.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// The header.
    pub header: ChunkHeader,
    /// Training samples.
    pub samples: Vec<Sample>,
    /// Game records.
    pub games: Vec<GameRecord>,
}

/// Encodes a chunk.
pub fn encode_chunk(chunk: &Chunk) -> Vec<u8> {
    let variant = chunk.header.variant.parse().expect("a variant name");
    let header = serde_json::to_vec(&chunk.header).expect("headers serialise");
    let samples = records::encode_samples(variant, chunk.samples.iter());
    let mut games = String::new();
    for g in &chunk.games {
        games.push_str(&serde_json::to_string(g).expect("records serialise"));
        games.push('\n');
    }
    let mut b = Vec::with_capacity(header.len() + samples.len() + games.len() + 32);
    b.extend_from_slice(CHUNK_MAGIC);
    b.extend_from_slice(&CHUNK_VERSION.to_le_bytes());
    for part in [&header[..], &samples[..], games.as_bytes()] {
        b.extend_from_slice(&(part.len() as u32).to_le_bytes());
        b.extend_from_slice(part);
    }
    let h = fnv(&b);
    b.extend_from_slice(&h.to_le_bytes());
    b
}

/// Decodes and checks a chunk of `run`.
///
/// # Errors
/// What is wrong with the bytes.
pub fn decode_chunk(bytes: &[u8], run: &str) -> Result<Chunk, String> {
    if bytes.len() < 8 + 8 {
        return Err("too short".into());
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if fnv(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
        return Err("checksum mismatch".into());
    }
    if &body[..4] != CHUNK_MAGIC {
        return Err("not a chunk (bad magic)".into());
    }
    let version = u32::from_le_bytes(body[4..8].try_into().expect("4 bytes"));
    if version != CHUNK_VERSION {
        return Err(format!(
            "chunk version {version}, this build reads {CHUNK_VERSION}"
        ));
    }
    let mut at = 8;
    let mut part = || -> Result<&[u8], String> {
        let len = body
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
            .ok_or("truncated")?;
        let p = body.get(at + 4..at + 4 + len).ok_or("truncated")?;
        at += 4 + len;
        Ok(p)
    };
    let (h, s, g) = (part()?, part()?, part()?);
    if at != body.len() {
        return Err(format!("{} trailing bytes", body.len() - at));
    }
    let header: ChunkHeader = serde_json::from_slice(h).map_err(|e| format!("bad header: {e}"))?;
    if header.run != run {
        return Err(format!("a chunk of run `{}`", header.run));
    }
    let variant = header
        .variant
        .parse()
        .map_err(|_| format!("unknown variant `{}`", header.variant))?;
    let samples = records::decode_samples(s, variant)?;
    let text = std::str::from_utf8(g).map_err(|e| format!("records: {e}"))?;
    let games = text
        .lines()
        .map(serde_json::from_str::<GameRecord>)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("records: {e}"))?;
    if samples.len() as u64 != header.samples || games.len() as u64 != header.games {
        return Err(format!(
            "header says {} games and {} samples, the chunk holds {} and {}",
            header.games,
            header.samples,
            games.len(),
            samples.len()
        ));
    }
    Ok(Chunk {
        header,
        samples,
        games,
    })
}

/// The key of a chunk.
pub fn chunk_key(worker: &str, seq: u64) -> String {
    format!("chunks/{worker}/{seq:08}.chunk")
}

/// `(worker, seq)` of a chunk key; `None` for anything else.
pub fn parse_chunk_key(key: &str) -> Option<(String, u64)> {
    let rest = key.strip_prefix("chunks/")?;
    let (worker, file) = rest.split_once('/')?;
    let seq = file.strip_suffix(".chunk")?;
    if seq.len() != 8 || !seq.bytes().all(|b| b.is_ascii_digit()) || !valid_worker(worker) {
        return None;
    }
    Some((worker.to_string(), seq.parse().ok()?))
}

/// Whether a worker ID is usable in keys: 1-64 of `A-Z a-z 0-9 - _ .`, not starting
/// with a dot.
pub fn valid_worker(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

#[derive(Serialize, Deserialize)]
struct Pointer {
    generation: u64,
}

#[derive(Serialize, Deserialize)]
struct LayoutFile {
    layout: u32,
}

/// The chunks a learner checkpoint holds, and what was set aside.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// Per worker, the sequence numbers consumed (ingested, dropped as stale, or
    /// quarantined).
    pub consumed: BTreeMap<String, BTreeSet<u64>>,
    /// Chunks dropped as too old.
    pub stale_chunks: u64,
    /// Samples in them.
    pub stale_samples: u64,
    /// Games in them.
    #[serde(default)]
    pub stale_games: u64,
    /// Their keys, each with the reason.
    #[serde(default)]
    pub stale: Vec<String>,
    /// Damaged chunks moved to `quarantine/`.
    pub quarantined: Vec<String>,
}

/// What the learner tells the workers (`learner/status.json`, rewritten when it
/// changes): how many games wait to be trained on, so that workers running ahead of it
/// wait instead of playing games too old to use.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LearnerStatus {
    /// The learner's generation (its newest published model).
    pub generation: u64,
    /// False once the learner has stopped at its generation limit.
    pub running: bool,
    /// Games read and not yet trained on (the next generation's and those after).
    pub waiting_games: u64,
    /// Chunk keys under `chunks/` the learner had read at its last look; a worker counts
    /// any beyond these as waiting too.
    pub read_chunks: u64,
    /// Chunks dropped as too old, since the run began.
    pub stale_chunks: u64,
    /// Damaged chunks set aside, since the run began.
    pub quarantined: u64,
}

impl LearnerStatus {
    /// Where it is kept in a run.
    pub const KEY: &'static str = "learner/status.json";
}

impl Ledger {
    fn has(&self, worker: &str, seq: u64) -> bool {
        self.consumed.get(worker).is_some_and(|s| s.contains(&seq))
    }
    fn mark(&mut self, worker: &str, seq: u64) {
        self.consumed
            .entry(worker.to_string())
            .or_default()
            .insert(seq);
    }
}

/// A store seen through one run's prefix.
struct RunStore<'a> {
    store: &'a Store,
    run: String,
}

impl RunStore<'_> {
    fn key(&self, k: &str) -> String {
        format!("{}/{k}", self.run)
    }
    fn get(&self, k: &str) -> Result<Option<Vec<u8>>, TrainError> {
        Ok(self.store.get(&self.key(k))?)
    }
    fn put(&self, k: &str, b: &[u8]) -> Result<(), TrainError> {
        Ok(self.store.put(&self.key(k), b)?)
    }
    fn create(&self, k: &str, b: &[u8]) -> Result<Created, TrainError> {
        Ok(self.store.create(&self.key(k), b)?)
    }
    fn delete(&self, k: &str) -> Result<(), TrainError> {
        Ok(self.store.delete(&self.key(k))?)
    }
    /// Fails at once on a missing bucket: a listing answers "no such bucket" where some
    /// servers answer a read of a missing object with "no such key", which a worker
    /// would take for "no model yet" and wait on.
    fn check_bucket(&self) -> Result<(), TrainError> {
        self.list("models").map(|_| ())
    }
    fn list(&self, prefix: &str) -> Result<Vec<String>, TrainError> {
        let strip = format!("{}/", self.run);
        Ok(self
            .store
            .list(&self.key(prefix))?
            .into_iter()
            .filter_map(|k| k.strip_prefix(&strip).map(str::to_string))
            .collect())
    }
    fn pointer(&self, k: &str) -> Result<Option<u64>, TrainError> {
        match self.get(k)? {
            None => Ok(None),
            Some(b) => serde_json::from_slice::<Pointer>(&b)
                .map(|p| Some(p.generation))
                .map_err(|e| {
                    TrainError::Distributed(format!(
                        "{}: `{}` is damaged: {e}",
                        self.store.url(),
                        self.key(k)
                    ))
                }),
        }
    }
    fn set_pointer(&self, k: &str, generation: u64) -> Result<(), TrainError> {
        let b = serde_json::to_vec(&Pointer { generation }).expect("pointers serialise");
        self.put(k, &b)
    }
    /// Uploads every file of a local folder under `prefix/`.
    fn upload_dir(&self, dir: &Path, prefix: &str) -> Result<(), TrainError> {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .map_err(io(dir))?
            .filter_map(Result::ok)
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        // meta.json last: a folder with its meta is a finished upload.
        names.sort_by_key(|n| n == "meta.json");
        for n in names {
            let p = dir.join(&n);
            let bytes = std::fs::read(&p).map_err(io(&p))?;
            self.put(&format!("{prefix}/{n}"), &bytes)?;
        }
        Ok(())
    }
    /// Downloads every object under `prefix/` into a fresh local folder.
    fn download_dir(&self, prefix: &str, dir: &Path) -> Result<(), TrainError> {
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(io(dir))?;
        }
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let keys = self.list(prefix)?;
        if keys.is_empty() {
            return Err(TrainError::Distributed(format!(
                "{}: `{}` is empty",
                self.store.url(),
                self.key(prefix)
            )));
        }
        for k in keys {
            let name = k.rsplit('/').next().unwrap_or(&k).to_string();
            if let Some(bytes) = self.get(&k)? {
                let p = dir.join(name);
                std::fs::write(&p, bytes).map_err(io(&p))?;
            }
        }
        Ok(())
    }
}

/// The run's configuration in the store, checked against `mine` when given.
fn stored_config(
    rs: &RunStore,
    mine: Option<&TrainConfig>,
) -> Result<Option<TrainConfig>, TrainError> {
    let Some(bytes) = rs.get("config.toml")? else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&bytes);
    let cfg: TrainConfig = TrainConfig::parse(&rs.key("config.toml"), &text, &[]).map_err(|e| {
        TrainError::Distributed(format!(
            "{}: `{}` is not a configuration: {e}",
            rs.store.url(),
            rs.key("config.toml")
        ))
    })?;
    if let Some(m) = mine
        && !m.same_training(&cfg)
    {
        return Err(TrainError::Distributed(format!(
            "run `{}` in {} trains another configuration than the one given (compare `{}` with yours, or use another --run)",
            rs.run,
            rs.store.url(),
            rs.key("config.toml")
        )));
    }
    Ok(Some(cfg))
}

fn check_layout(rs: &RunStore) -> Result<bool, TrainError> {
    match rs.get("layout.json")? {
        None => Ok(false),
        Some(b) => match serde_json::from_slice::<LayoutFile>(&b) {
            Ok(l) if l.layout == LAYOUT => Ok(true),
            Ok(l) => Err(TrainError::Distributed(format!(
                "run `{}` in {} has store layout {}, this build uses {LAYOUT}",
                rs.run,
                rs.store.url(),
                l.layout
            ))),
            Err(e) => Err(TrainError::Distributed(format!(
                "{}: `{}` is damaged: {e}",
                rs.store.url(),
                rs.key("layout.json")
            ))),
        },
    }
}

fn check_run_name(run: &str) -> Result<(), TrainError> {
    if run.is_empty() || run.contains(['/', '\\']) || run.starts_with('.') {
        return Err(TrainError::Distributed(format!(
            "run name `{run}` must be a plain name (no slashes, not starting with a dot)"
        )));
    }
    Ok(())
}

/// A random token naming one worker process.
fn new_session() -> String {
    let mut rng = rand::rng();
    format!("{:016x}", rng.random::<u64>())
}

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
        Some(mine) => TrainConfig {
            distributed: mine.distributed.clone(),
            ..cfg
        },
        None => cfg,
    };
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
            },
            samples,
            games,
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
fn wait_for_learner(
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
fn upload_chunk(rs: &RunStore, chunk: &Chunk) -> Result<(), TrainError> {
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

/// What the learner is asked to do.
#[derive(Clone, Debug)]
pub struct LearnerOptions {
    /// The run.
    pub run: String,
    /// The configuration.
    pub config: TrainConfig,
    /// Stop at this generation (`Some(0)`: only create the run and publish model 0;
    /// `None`: the config's `run.generations`, where 0 means never).
    pub generations: Option<u64>,
    /// The device the network trains on.
    pub device: Device,
    /// A local folder for checkpoints on their way to and from the store.
    pub cache: PathBuf,
    /// Parent of `<run>/` folders for metrics (JSON lines and TensorBoard).
    pub experiments_root: PathBuf,
}

/// The learner: ingest new chunks into the replay window, train a generation once the
/// config's games per generation have arrived, checkpoint to the store, publish the
/// model; until the generation limit.
///
/// # Errors
/// Storage that keeps failing, another configuration or layout in the store.
pub fn learn(
    store: &Store,
    opts: &LearnerOptions,
    progress: &mut dyn Progress,
) -> Result<Summary, TrainError> {
    check_run_name(&opts.run)?;
    let cfg = &opts.config;
    if cfg.bootstrap.games > 0 {
        return Err(TrainError::Distributed(
            "bootstrap.games: the distributed learner plays no warm start; run it with `fanorona train` (for instance --set run.max_seconds=1 to stop after it) and start this run from its network with train.init, or set bootstrap.games to 0".into(),
        ));
    }
    let rs = RunStore {
        store,
        run: opts.run.clone(),
    };
    rs.check_bucket()?;
    // The run: layout, then configuration (a second learner config is refused).
    if !check_layout(&rs)? {
        let b = serde_json::to_vec(&LayoutFile { layout: LAYOUT }).expect("serialises");
        rs.create("layout.json", &b)?;
        check_layout(&rs)?;
    }
    if stored_config(&rs, Some(cfg))?.is_none() {
        rs.create("config.toml", cfg.to_toml().as_bytes())?;
        stored_config(&rs, Some(cfg))?;
    }
    let exp_dir = opts.experiments_root.join(&opts.run);
    std::fs::create_dir_all(&exp_dir).map_err(io(&exp_dir))?;
    std::fs::create_dir_all(&opts.cache).map_err(io(&opts.cache))?;

    // Resume from the newest checkpoint in the store, or start.
    let mut ledger = Ledger::default();
    let mut resumed = None::<PathBuf>;
    let mut learner = match rs.pointer("learner/LATEST")? {
        Some(g) => {
            let dir = opts.cache.join(format!("learner-{g:05}"));
            rs.download_dir(&format!("learner/{g:05}"), &dir)?;
            let (l, _) = Learner::resume(&dir, cfg, &opts.device, &mut |m| progress.message(m))?;
            ledger = read_json(&dir.join(LEDGER_FILE))?;
            // The network and optimizer read their files lazily: the folder stays in the
            // cache for the learner's life.
            progress.message(&format!(
                "learner of run `{}` in {}: resuming at generation {g} ({} games, {} samples, {} steps, window {}, {} chunks consumed)",
                opts.run,
                store.url(),
                l.state.games,
                l.state.samples,
                l.state.steps,
                l.replay.len(),
                ledger.consumed.values().map(BTreeSet::len).sum::<usize>()
            ));
            resumed = Some(dir);
            l
        }
        None => {
            let mut l = Learner::start(cfg, &opts.device)?;
            // A model 0 published by an earlier start that died before its first
            // checkpoint is the one workers may already be playing: start from it.
            let published = rs.pointer("models/LATEST")?;
            if let Some(p) = published
                && p > 0
            {
                return Err(TrainError::Distributed(format!(
                    "run `{}` in {} has published models up to generation {p} but holds no learner checkpoint (`{}` is missing); start a new run",
                    opts.run,
                    store.url(),
                    rs.key("learner/LATEST")
                )));
            }
            if published.is_some() {
                let dir = opts.cache.join("model-00000");
                rs.download_dir("models/00000", &dir)?;
                let net_cfg = net_config(cfg);
                let (net, _, _) =
                    checkpoint::load(&dir, &opts.device, Some(cfg.variant()), Some(&net_cfg))?;
                l.trainer = trainer(net, cfg, &opts.device);
            }
            progress.message(&format!(
                "learner of run `{}` in {}: new run, {}, network {} blocks x {} channels",
                opts.run,
                store.url(),
                cfg.variant(),
                cfg.net.blocks,
                cfg.net.channels
            ));
            l
        }
    };
    learner.eval_file = players_eval_file(cfg)?;
    let target = match opts.generations {
        Some(n) => Some(n),
        None => (cfg.run.generations > 0).then_some(cfg.run.generations),
    };
    // Before the model: workers that see it see a running learner.
    if target.is_none_or(|t| learner.state.generation < t) {
        // Running (until its first look, workers count every chunk as waiting).
        let start = LearnerStatus {
            generation: learner.state.generation,
            running: true,
            ..LearnerStatus::default()
        };
        rs.put(
            LearnerStatus::KEY,
            &serde_json::to_vec(&start).expect("serialises"),
        )?;
    }
    // The model of the learner's generation must be published (a crash may have come
    // between the checkpoint and the model).
    let published = rs.pointer("models/LATEST")?;
    if published.is_none_or(|p| p < learner.state.generation) {
        publish_model(&rs, &learner, cfg, opts)?;
    }

    let mut sinks = open_sinks(&exp_dir, resumed.as_deref())?;
    let gpg = cfg.selfplay.games_per_generation as u64;
    let mut chunks = Chunks {
        rs: &rs,
        cfg,
        ledger,
        strays: BTreeSet::new(),
        queue: BTreeMap::new(),
        read_ahead: (cfg.distributed.max_staleness + 1) * gpg,
        status: None,
    };
    let mut keeper = StoreKeeper { rs: &rs, opts };
    drive(
        cfg,
        &mut learner,
        &mut chunks,
        &mut keeper,
        &mut sinks,
        target,
        None,
        progress,
    )?;
    // Workers that are ahead end instead of waiting for a learner that has stopped; a
    // last look makes the count of what waits exact.
    let last = chunks.look((learner.state.generation, false, 0), progress)?;
    rs.put(
        LearnerStatus::KEY,
        &serde_json::to_vec(&last).expect("serialises"),
    )?;
    Ok(Summary {
        state: learner.state,
        last_checkpoint: None,
    })
}

/// `fanorona learn`'s generations: the chunks workers upload, oldest first, read ahead up
/// to the games workers may run ahead (so that the status they read is exact).
struct Chunks<'a> {
    rs: &'a RunStore<'a>,
    cfg: &'a TrainConfig,
    /// What has been read, saved with each checkpoint.
    ledger: Ledger,
    /// Objects under `chunks/` that are not chunks, each reported once.
    strays: BTreeSet<String>,
    /// Chunks read and not yet in a generation, oldest sequence numbers first.
    queue: BTreeMap<(u64, String), Chunk>,
    read_ahead: u64,
    /// The status last written for the workers.
    status: Option<LearnerStatus>,
}

impl Chunks<'_> {
    fn look(
        &mut self,
        at: (u64, bool, u64),
        progress: &mut dyn Progress,
    ) -> Result<LearnerStatus, TrainError> {
        look(
            self.rs,
            &mut self.ledger,
            &mut self.queue,
            &mut self.strays,
            self.read_ahead,
            at,
            progress,
        )
    }
}

impl Source for Chunks<'_> {
    fn generation(
        &mut self,
        learner: &mut Learner,
        g: u64,
        _lr: f64,
        progress: &mut dyn Progress,
    ) -> Result<Generation, TrainError> {
        let (cfg, rs) = (self.cfg, self.rs);
        let gpg = cfg.selfplay.games_per_generation as u64;
        let poll = Duration::from_secs_f64(cfg.distributed.poll_seconds);
        let start = Instant::now();
        let mut made = Generation::default();
        let mut said = None::<Instant>;
        loop {
            let now = self.look((learner.state.generation, true, made.games), progress)?;
            // Into the generation, oldest first, until it has its games.
            while made.games < gpg
                && let Some(((seq, worker), chunk)) = self.queue.pop_first()
            {
                let ledger = &mut self.ledger;
                ledger.mark(&worker, seq);
                if chunk.header.generation + cfg.distributed.max_staleness
                    < learner.state.generation
                {
                    let key = rs.key(&chunk_key(&worker, seq));
                    let reason = format!(
                        "played by model {}, more than distributed.max_staleness = {} generations before {}",
                        chunk.header.generation,
                        cfg.distributed.max_staleness,
                        learner.state.generation
                    );
                    ledger.stale_chunks += 1;
                    ledger.stale_samples += chunk.header.samples;
                    ledger.stale_games += chunk.header.games;
                    ledger.stale.push(format!("{key}: {reason}"));
                    progress.message(&format!(
                        "chunk `{key}` ({} games) dropped: {reason} (more games were in flight at once than a generation takes: workers x distributed.chunk_games above selfplay.games_per_generation?)",
                        chunk.header.games
                    ));
                    continue;
                }
                made.games += chunk.header.games;
                made.samples += chunk.header.samples;
                let mut s = chunk.header.stats;
                s.seconds = 0.0;
                made.stats.add(&s);
                learner.replay.extend(chunk.samples);
            }
            if self.status.as_ref() != Some(&now) {
                rs.put(
                    LearnerStatus::KEY,
                    &serde_json::to_vec(&now).expect("serialises"),
                )?;
                self.status = Some(now);
            }
            if made.games >= gpg {
                break;
            }
            if said.is_none_or(|t| t.elapsed() > Duration::from_secs(30)) {
                let l = &self.ledger;
                let dropped = if l.stale_chunks + l.quarantined.len() as u64 > 0 {
                    format!(
                        "; set aside so far: {} chunks ({} games) too old, {} damaged",
                        l.stale_chunks,
                        l.stale_games,
                        l.quarantined.len()
                    )
                } else {
                    String::new()
                };
                progress.message(&format!(
                    "learner: generation {g} has {} of {gpg} games (selfplay.games_per_generation); waiting for workers to upload more{dropped}",
                    made.games
                ));
                said = Some(Instant::now());
            }
            std::thread::sleep(poll);
        }
        made.stats.seconds = start.elapsed().as_secs_f64();
        Ok(made)
    }

    fn files(&self) -> Vec<(&'static str, Vec<u8>)> {
        let ledger = serde_json::to_vec(&self.ledger).expect("ledgers serialise");
        vec![(LEDGER_FILE, ledger)]
    }
}

/// `fanorona learn`'s checkpoints: `learner/<generation>/` in the store, then the model
/// the workers play, `models/<generation>/`.
struct StoreKeeper<'a> {
    rs: &'a RunStore<'a>,
    opts: &'a LearnerOptions,
}

impl Keeper for StoreKeeper<'_> {
    fn save(&mut self, learner: &Learner, files: &[(&str, &[u8])]) -> Result<(), TrainError> {
        save_learner(self.rs, learner, files, &self.opts.config, self.opts)?;
        publish_model(self.rs, learner, &self.opts.config, self.opts)
    }
}

/// One look at `chunks/`: reads new chunks into `queue` (damaged ones quarantined) until
/// it and the `pending` games of the next generation hold `read_ahead` games; returns the
/// status for the workers of a learner at `generation`, `running` or not.
fn look(
    rs: &RunStore,
    ledger: &mut Ledger,
    queue: &mut BTreeMap<(u64, String), Chunk>,
    strays: &mut BTreeSet<String>,
    read_ahead: u64,
    (generation, running, pending): (u64, bool, u64),
    progress: &mut dyn Progress,
) -> Result<LearnerStatus, TrainError> {
    let mut fresh: Vec<(u64, String, String)> = Vec::new();
    let mut read_chunks = 0u64;
    for k in rs.list("chunks")? {
        match parse_chunk_key(&k) {
            Some((w, s)) if ledger.has(&w, s) || queue.contains_key(&(s, w.clone())) => {
                read_chunks += 1;
            }
            Some((w, s)) => fresh.push((s, w, k)),
            None => {
                if strays.insert(k.clone()) {
                    progress.message(&format!(
                        "`{}` is not a chunk (chunks/<worker>/<8 digits>.chunk): ignored",
                        rs.key(&k)
                    ));
                }
            }
        }
    }
    fresh.sort();
    let mut queued: u64 = queue.values().map(|c| c.header.games).sum();
    for (seq, worker, key) in fresh {
        if pending + queued >= read_ahead {
            break;
        }
        let Some(bytes) = rs.get(&key)? else { continue };
        match decode_chunk(&bytes, &rs.run) {
            Ok(c) if c.header.worker == worker && c.header.seq == seq => {
                queued += c.header.games;
                read_chunks += 1;
                queue.insert((seq, worker), c);
            }
            other => {
                let reason = match other {
                    Ok(c) => format!(
                        "it says it is chunk {} of worker `{}`",
                        c.header.seq, c.header.worker
                    ),
                    Err(e) => e,
                };
                ledger.mark(&worker, seq);
                quarantine(rs, &key, &bytes, &reason, ledger, progress)?;
            }
        }
    }
    Ok(LearnerStatus {
        generation,
        running,
        waiting_games: pending + queued,
        read_chunks,
        stale_chunks: ledger.stale_chunks,
        quarantined: ledger.quarantined.len() as u64,
    })
}

/// A worker's next sequence number: after the last of its chunks, waiting or
/// quarantined. The ledger counts a quarantined chunk's key as read, so a new chunk
/// under that key would never be read: keys are never reused.
fn next_sequence(rs: &RunStore, worker: &str) -> Result<u64, TrainError> {
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

/// Moves a damaged chunk to `quarantine/` (kept, never read again) and reports it.
fn quarantine(
    rs: &RunStore,
    key: &str,
    bytes: &[u8],
    reason: &str,
    ledger: &mut Ledger,
    progress: &mut dyn Progress,
) -> Result<(), TrainError> {
    let aside = format!("quarantine/{}", key.strip_prefix("chunks/").unwrap_or(key));
    rs.put(&aside, bytes)?;
    rs.delete(key)?;
    ledger.quarantined.push(key.to_string());
    progress.message(&format!(
        "warning: chunk `{}` is damaged ({reason}); moved to `{}` and skipped",
        rs.key(key),
        rs.key(&aside)
    ));
    Ok(())
}

/// The learner's checkpoint to `learner/<g>/`, then the pointer; the previous
/// checkpoint's replay window is deleted (the largest file).
fn save_learner(
    rs: &RunStore,
    learner: &Learner,
    files: &[(&str, &[u8])],
    cfg: &TrainConfig,
    opts: &LearnerOptions,
) -> Result<(), TrainError> {
    let g = learner.state.generation;
    let dir = opts.cache.join(format!("learner-{g:05}"));
    learner.save(&dir, &learner.meta(cfg, g, &opts.run), files)?;
    rs.upload_dir(&dir, &format!("learner/{g:05}"))?;
    let _ = std::fs::remove_dir_all(&dir);
    let previous = rs.pointer("learner/LATEST")?;
    rs.set_pointer("learner/LATEST", g)?;
    if let Some(p) = previous
        && p != g
    {
        rs.delete(&format!("learner/{p:05}/replay.bin"))?;
    }
    Ok(())
}

/// The learner's network as model `generation` (model and meta only), then the pointer.
fn publish_model(
    rs: &RunStore,
    learner: &Learner,
    cfg: &TrainConfig,
    opts: &LearnerOptions,
) -> Result<(), TrainError> {
    let g = learner.state.generation;
    let dir = opts.cache.join(format!("model-{g:05}"));
    checkpoint::save(
        &dir,
        &learner.trainer.inference_net(),
        None,
        &learner.meta(cfg, g, &opts.run),
    )?;
    rs.upload_dir(&dir, &format!("models/{g:05}"))?;
    let _ = std::fs::remove_dir_all(&dir);
    rs.set_pointer("models/LATEST", g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::jsonl_has_step;
    use crate::state::Quiet;

    fn smoke() -> TrainConfig {
        TrainConfig::parse(
            "<defaults>",
            "",
            &[
                "variant=dimy".into(),
                "net.blocks=1".into(),
                "net.channels=8".into(),
                "selfplay.games_in_flight=4".into(),
                "selfplay.games_per_generation=8".into(),
                "selfplay.sims=8".into(),
                "selfplay.max_decisions=60".into(),
                "train.batch_size=16".into(),
                "train.replay_window=4000".into(),
                "train.min_replay=16".into(),
                "train.train_ratio=1.0".into(),
                "distributed.poll_seconds=0.05".into(),
                "distributed.retry_seconds=2".into(),
            ],
        )
        .unwrap()
    }

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("fanorona-dist-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// A folder store in a fresh temporary folder, and the options of run `r`'s learners
    /// and workers over it.
    struct Fixture {
        dir: PathBuf,
        store: Store,
        cfg: TrainConfig,
    }

    impl Fixture {
        fn new(name: &str, cfg: TrainConfig) -> Fixture {
            let dir = tmp(name);
            let store = Store::open(
                &format!("file://{}", dir.join("store").display()),
                Duration::from_secs(2),
            )
            .unwrap();
            Fixture { dir, store, cfg }
        }
        fn learner(&self, generations: u64) -> LearnerOptions {
            LearnerOptions {
                run: "r".into(),
                config: self.cfg.clone(),
                generations: Some(generations),
                device: Device::default(),
                cache: self.dir.join("lcache"),
                experiments_root: self.dir.join("exp"),
            }
        }
        fn worker(&self, id: &str, games: u64) -> WorkerOptions {
            WorkerOptions {
                run: "r".into(),
                config: Some(self.cfg.clone()),
                games: Some(games),
                worker: id.into(),
                device: Device::default(),
                cache: self.dir.join(format!("wcache-{id}")),
            }
        }
    }

    #[test]
    fn chunks_round_trip_and_damage_is_named() {
        let cfg = smoke();
        let sample = Sample {
            planes: vec![0.5; fanorona_sim::num_planes(cfg.variant()) * 25],
            policy: vec![(1, 1.0)],
            wdl: [1.0, 0.0, 0.0],
            ownership: vec![1; 25],
        };
        let chunk = Chunk {
            header: ChunkHeader {
                version: CHUNK_VERSION,
                run: "r".into(),
                worker: "w1".into(),
                session: "abc".into(),
                seq: 3,
                generation: 2,
                variant: "dimy".into(),
                games: 1,
                samples: 2,
                stats: SelfPlayStats::default(),
            },
            samples: vec![sample.clone(), sample],
            games: vec![GameRecord {
                version: records::GAME_VERSION,
                variant: "dimy".into(),
                generation: 2,
                result: "draw".into(),
                actions: vec![1, 2],
                moves: vec!["a".into(), "b".into()],
                resigned: false,
                tablebase: false,
                start: Some("BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 0".into()),
            }],
        };
        let b = encode_chunk(&chunk);
        assert_eq!(decode_chunk(&b, "r").unwrap(), chunk);
        assert!(decode_chunk(&b, "other").unwrap_err().contains("run `r`"));
        for i in [0, 9, b.len() / 2, b.len() - 1] {
            let mut d = b.clone();
            d[i] ^= 1;
            assert!(decode_chunk(&d, "r").is_err(), "byte {i}");
        }
        assert!(decode_chunk(&b[..b.len() - 1], "r").is_err());
        assert_eq!(
            parse_chunk_key("chunks/w1/00000003.chunk"),
            Some(("w1".into(), 3))
        );
        for bad in [
            "chunks/w1/3.chunk",
            "chunks/w1/00000003.bin",
            "models/00001/meta.json",
            "chunks/.x/00000001.chunk",
        ] {
            assert_eq!(parse_chunk_key(bad), None, "{bad}");
        }
    }

    /// The whole loop in one process over a folder store: a worker's chunks, a damaged
    /// chunk set aside, a learner killed (dropped) between generations and resumed, a
    /// second worker with the same ID refused; every finished game's samples counted
    /// once.
    /// Keeps the messages.
    #[derive(Default)]
    struct Lines(Vec<String>);
    impl Progress for Lines {
        fn message(&mut self, line: &str) {
            self.0.push(line.to_string());
        }
        fn selfplay_started(&mut self, _: u64, _: usize) {}
        fn game_finished(&mut self, _: usize) {}
        fn selfplay_finished(&mut self) {}
    }

    #[test]
    fn workers_and_learner_over_a_folder_store() {
        let f = Fixture::new("loop", smoke());
        let (cfg, dir, store) = (&f.cfg, &f.dir, &f.store);
        let lopts = |generations| f.learner(generations);
        // A warm start is `fanorona train`'s: the learner refuses one, naming the key.
        let mut warm = lopts(0);
        warm.config.bootstrap.games = 10;
        let e = learn(store, &warm, &mut Quiet).unwrap_err();
        assert!(e.to_string().contains("bootstrap.games"), "{e}");
        // The learner creates the run and model 0 (nothing to train on yet: generation 0).
        let s = learn(store, &lopts(0), &mut Quiet).unwrap();
        assert_eq!(s.state.generation, 0);
        let wopts = |id: &str, games| f.worker(id, games);
        let w = selfplay_worker(store, &wopts("w1", 16), &mut Quiet).unwrap();
        assert_eq!((w.chunks, w.games), (4, 16));
        // A damaged chunk from a "worker" that died mid-write, and an object that is no
        // chunk at all (reported once, then ignored).
        store
            .put("r/chunks/w9/00000000.chunk", b"FNRC half a chunk")
            .unwrap();
        store.put("r/chunks/evil/junk.bin", b"junk").unwrap();
        let mut lines = Lines::default();
        let s = learn(store, &lopts(1), &mut lines).unwrap();
        let stray: Vec<_> = lines.0.iter().filter(|l| l.contains("junk.bin")).collect();
        assert_eq!(stray.len(), 1, "{:?}", lines.0);
        assert!(stray[0].contains("r/chunks/evil/junk.bin") && stray[0].contains("not a chunk"));
        store.delete("r/chunks/evil/junk.bin").unwrap();
        assert_eq!((s.state.generation, s.state.games), (1, 8));
        assert!(store.exists("r/quarantine/w9/00000000.chunk").unwrap());
        assert!(!store.exists("r/chunks/w9/00000000.chunk").unwrap());
        // Restart (a new learner process): generation 2 takes the other 8 games.
        let s = learn(store, &lopts(2), &mut Quiet).unwrap();
        assert_eq!((s.state.generation, s.state.games), (2, 16));
        let produced: u64 = store
            .list("r/chunks")
            .unwrap()
            .iter()
            .map(|k| {
                decode_chunk(&store.get(k).unwrap().unwrap(), "r")
                    .unwrap()
                    .header
                    .samples
            })
            .sum();
        assert_eq!(s.state.samples, produced);
        assert_eq!(
            store.get("r/models/LATEST").unwrap().unwrap(),
            br#"{"generation":2}"#
        );
        // The same worker ID again from another session: its first upload goes to the
        // next sequence number; a clash with a sequence number another session wrote is
        // refused.
        let taken = Chunk {
            header: ChunkHeader {
                version: CHUNK_VERSION,
                run: "r".into(),
                worker: "w1".into(),
                session: "another".into(),
                seq: 4,
                generation: 2,
                variant: "dimy".into(),
                games: 0,
                samples: 0,
                stats: SelfPlayStats::default(),
            },
            samples: vec![],
            games: vec![],
        };
        let rs = RunStore {
            store,
            run: "r".into(),
        };
        upload_chunk(&rs, &taken).unwrap();
        upload_chunk(&rs, &taken).unwrap(); // a retried upload of the same session
        let mut clash = taken.clone();
        clash.header.session = "mine".into();
        let e = upload_chunk(&rs, &clash).unwrap_err().to_string();
        assert!(e.contains("w1") && e.contains("another worker"), "{e}");
        // Staleness: a copy of a chunk played by model 0, arriving when the learner is at
        // generation 2 with max_staleness 1, is dropped and counted; eight fresh games
        // make generation 3.
        let mut old = decode_chunk(
            &store.get("r/chunks/w1/00000000.chunk").unwrap().unwrap(),
            "r",
        )
        .unwrap();
        assert_eq!(old.header.generation, 0);
        old.header.worker = "old".into();
        old.header.seq = 0;
        store
            .put(&format!("r/{}", chunk_key("old", 0)), &encode_chunk(&old))
            .unwrap();
        selfplay_worker(store, &wopts("w1", 8), &mut Quiet).unwrap();
        let mut strict = cfg.clone();
        strict.distributed.max_staleness = 1;
        let s3 = learn(
            store,
            &LearnerOptions {
                config: strict,
                ..lopts(3)
            },
            &mut Quiet,
        )
        .unwrap();
        assert_eq!((s3.state.generation, s3.state.games), (3, 24));
        let ledger: Ledger =
            serde_json::from_slice(&store.get("r/learner/00003/ledger.json").unwrap().unwrap())
                .unwrap();
        assert_eq!(ledger.stale_chunks, 1);
        assert_eq!(ledger.stale_samples, old.header.samples);
        assert!(ledger.consumed["old"].contains(&0));
        // Chunks of four games (games_in_flight): sequence numbers 5 and 6.
        let fresh: u64 = [5, 6]
            .iter()
            .map(|q| {
                let bytes = store.get(&format!("r/{}", chunk_key("w1", *q))).unwrap();
                let c = decode_chunk(&bytes.unwrap(), "r").unwrap();
                assert_eq!(c.header.generation, 2);
                c.header.samples
            })
            .sum();
        assert_eq!(s3.state.samples, s.state.samples + fresh);
        // Another configuration is refused, naming the run.
        let mut other = cfg.clone();
        other.selfplay.sims = 99;
        let e = learn(
            store,
            &LearnerOptions {
                config: other,
                ..lopts(3)
            },
            &mut Quiet,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("run `r`") && e.contains("another configuration"),
            "{e}"
        );
        // A worker with the quarantined chunk's ID continues after it: the key the ledger
        // counts as read is never written again, and every one of its games is read.
        let w = selfplay_worker(store, &wopts("w9", 8), &mut Quiet).unwrap();
        assert_eq!((w.chunks, w.games), (2, 8));
        assert!(!store.exists("r/chunks/w9/00000000.chunk").unwrap());
        assert!(store.exists("r/chunks/w9/00000001.chunk").unwrap());
        assert!(store.exists("r/chunks/w9/00000002.chunk").unwrap());
        let s4 = learn(store, &lopts(4), &mut Quiet).unwrap();
        assert_eq!((s4.state.generation, s4.state.games), (4, 32));
        std::fs::remove_dir_all(dir).ok();
    }

    /// Two workers far faster than the learner (`max_staleness = 1`): they wait instead
    /// of running ahead, nothing is dropped, and when the learner stops every game they
    /// finished is either trained on or waiting in its status.
    #[test]
    fn workers_faster_than_the_learner_wait_and_lose_nothing() {
        let mut cfg = smoke();
        cfg.distributed.max_staleness = 1;
        // A slower learner: more training steps per sample.
        cfg.train.train_ratio = 4.0;
        let f = Fixture::new("fast", cfg);
        let (dir, store) = (&f.dir, &f.store);
        let lopts = |generations| f.learner(generations);
        learn(store, &lopts(0), &mut Quiet).unwrap();
        let wopts = |id: &str| f.worker(id, 400);
        let (mut a_lines, mut b_lines) = (Lines::default(), Lines::default());
        let (summary, a, b) = std::thread::scope(|s| {
            let l = s.spawn(|| learn(store, &lopts(4), &mut Quiet).unwrap());
            // The workers once the learner runs (one that has stopped ends them).
            while !store
                .get("r/learner/status.json")
                .unwrap()
                .is_some_and(|b| serde_json::from_slice::<LearnerStatus>(&b).unwrap().running)
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            let a = s.spawn(|| selfplay_worker(store, &wopts("a"), &mut a_lines).unwrap());
            let b = s.spawn(|| selfplay_worker(store, &wopts("b"), &mut b_lines).unwrap());
            (l.join().unwrap(), a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!((summary.state.generation, summary.state.games), (4, 32));
        // The workers stopped early, saying why, once the learner had stopped.
        assert!(a.games < 400 && b.games < 400, "{a:?} {b:?}");
        // Which of the two meets the budget first is a matter of timing.
        assert!(
            [&a_lines, &b_lines]
                .iter()
                .any(|lines| lines.0.iter().any(|l| l.contains("wait for the learner"))),
            "{:?} {:?}",
            a_lines.0,
            b_lines.0
        );
        for lines in [&a_lines, &b_lines] {
            assert!(
                lines.0.last().unwrap().contains("nothing more to play for"),
                "{:?}",
                lines.0
            );
        }
        let ledger: Ledger =
            serde_json::from_slice(&store.get("r/learner/00004/ledger.json").unwrap().unwrap())
                .unwrap();
        assert_eq!((ledger.stale_chunks, ledger.stale.len()), (0, 0));
        let status: LearnerStatus =
            serde_json::from_slice(&store.get("r/learner/status.json").unwrap().unwrap()).unwrap();
        assert!(!status.running);
        // Every finished game is in the store, and trained on or waiting.
        let mut stored = 0;
        for k in store.list("r/chunks").unwrap() {
            stored += decode_chunk(&store.get(&k).unwrap().unwrap(), "r")
                .unwrap()
                .header
                .games;
        }
        assert_eq!(stored, a.games + b.games);
        // The workers stopped at the budget (a generation, max_staleness = 1) and no more
        // than a generation past it: a restarted learner trains on what waits, drops
        // nothing, and its status counts the rest.
        let unread = stored - summary.state.games;
        assert!((8..24).contains(&unread), "{unread} games unread");
        let s5 = learn(store, &lopts(4 + unread / 8), &mut Quiet).unwrap();
        assert_eq!(s5.state.games, 32 + unread / 8 * 8);
        let ledger: Ledger = serde_json::from_slice(
            &store
                .get(&format!("r/learner/{:05}/ledger.json", s5.state.generation))
                .unwrap()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(ledger.stale_chunks, 0);
        let status: LearnerStatus =
            serde_json::from_slice(&store.get("r/learner/status.json").unwrap().unwrap()).unwrap();
        assert_eq!(s5.state.games + status.waiting_games, stored);
        // Its metrics line: written with the checkpoint and into metrics.jsonl once.
        let jsonl = std::fs::read_to_string(dir.join("exp/r/metrics.jsonl")).unwrap();
        let lines_of = |step: u64| {
            jsonl
                .lines()
                .filter(|l| {
                    l.contains("\"loss/policy\"") && l.contains(&format!("\"step\":{step},"))
                })
                .count()
        };
        assert_eq!((lines_of(4), lines_of(s5.state.generation)), (1, 1));
        std::fs::remove_dir_all(dir).ok();
    }

    /// A learner killed after its checkpoint and before its metrics line writes the line
    /// when it resumes, once.
    #[test]
    fn a_generation_s_metrics_survive_a_kill_after_the_checkpoint() {
        let f = Fixture::new("metrics", smoke());
        let (dir, store) = (&f.dir, &f.store);
        let lopts = |generations| f.learner(generations);
        learn(store, &lopts(0), &mut Quiet).unwrap();
        let w = f.worker("w", 8);
        selfplay_worker(store, &w, &mut Quiet).unwrap();
        learn(store, &lopts(1), &mut Quiet).unwrap();
        let path = dir.join("exp/r/metrics.jsonl");
        let whole = std::fs::read_to_string(&path).unwrap();
        assert!(jsonl_has_step(&path, 1));
        // As if killed before the line: the file without it.
        std::fs::write(&path, "").unwrap();
        learn(store, &lopts(1), &mut Quiet).unwrap();
        let again = std::fs::read_to_string(&path).unwrap();
        let tags = |t: &str| -> Vec<String> {
            t.lines()
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    format!("{}@{}={}", v["tag"], v["step"], v["value"])
                })
                .collect()
        };
        assert_eq!(tags(&again), tags(&whole));
        // Resumed once more with the line in place: not written twice.
        learn(store, &lopts(1), &mut Quiet).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), again);
        std::fs::remove_dir_all(dir).ok();
    }
}
