//! The learner: ingest new chunks into the replay window, train, checkpoint to the
//! store, publish the model.

use super::*;
use crate::config::TrainConfig;
use crate::inputs::players_eval_file;
use crate::learner::{Generation, Keeper, Learner, Source, drive, net_config, open_sinks, trainer};
use crate::state::{Progress, Summary, TrainError, io, read_json};
use crate::store::Store;
use fanorona_nn::burn::prelude::Device;
use fanorona_nn::checkpoint;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    /// Parent of `<run>/` folders for a tree run's checkpoints and label window (a
    /// network run keeps its checkpoints in the store).
    pub checkpoints: PathBuf,
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
    if cfg.bootstrap.games > 0 && !cfg.tree.enabled() {
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
    if cfg.tree.enabled() {
        return teacher::learn_tree(&rs, opts, progress);
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
pub(super) struct Chunks<'a> {
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
    pub(super) fn look(
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
pub(super) struct StoreKeeper<'a> {
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
pub(super) fn look(
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

/// Moves a damaged chunk to `quarantine/` (kept, never read again) and reports it.
pub(super) fn quarantine(
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
pub(super) fn save_learner(
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
pub(super) fn publish_model(
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
