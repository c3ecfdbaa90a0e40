//! The store seen through one run's prefix: its layout, its configuration, its pointers
//! and the learner's ledger and status.

use super::*;
use crate::config::TrainConfig;
use crate::state::{TrainError, io};
use crate::store::{Created, Store};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[derive(Serialize, Deserialize)]
pub(super) struct Pointer {
    generation: u64,
}

#[derive(Serialize, Deserialize)]
pub(super) struct LayoutFile {
    pub(super) layout: u32,
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
    pub(super) fn has(&self, worker: &str, seq: u64) -> bool {
        self.consumed.get(worker).is_some_and(|s| s.contains(&seq))
    }
    pub(super) fn mark(&mut self, worker: &str, seq: u64) {
        self.consumed
            .entry(worker.to_string())
            .or_default()
            .insert(seq);
    }
}

/// A store seen through one run's prefix.
pub(super) struct RunStore<'a> {
    pub(super) store: &'a Store,
    pub(super) run: String,
}

impl RunStore<'_> {
    pub(super) fn key(&self, k: &str) -> String {
        format!("{}/{k}", self.run)
    }
    pub(super) fn get(&self, k: &str) -> Result<Option<Vec<u8>>, TrainError> {
        Ok(self.store.get(&self.key(k))?)
    }
    pub(super) fn put(&self, k: &str, b: &[u8]) -> Result<(), TrainError> {
        Ok(self.store.put(&self.key(k), b)?)
    }
    pub(super) fn create(&self, k: &str, b: &[u8]) -> Result<Created, TrainError> {
        Ok(self.store.create(&self.key(k), b)?)
    }
    pub(super) fn delete(&self, k: &str) -> Result<(), TrainError> {
        Ok(self.store.delete(&self.key(k))?)
    }
    /// Fails at once on a missing bucket: a listing answers "no such bucket" where some
    /// servers answer a read of a missing object with "no such key", which a worker
    /// would take for "no model yet" and wait on.
    pub(super) fn check_bucket(&self) -> Result<(), TrainError> {
        self.list("models").map(|_| ())
    }
    pub(super) fn list(&self, prefix: &str) -> Result<Vec<String>, TrainError> {
        let strip = format!("{}/", self.run);
        Ok(self
            .store
            .list(&self.key(prefix))?
            .into_iter()
            .filter_map(|k| k.strip_prefix(&strip).map(str::to_string))
            .collect())
    }
    pub(super) fn pointer(&self, k: &str) -> Result<Option<u64>, TrainError> {
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
    pub(super) fn set_pointer(&self, k: &str, generation: u64) -> Result<(), TrainError> {
        let b = serde_json::to_vec(&Pointer { generation }).expect("pointers serialise");
        self.put(k, &b)
    }
    /// Uploads every file of a local folder under `prefix/`.
    pub(super) fn upload_dir(&self, dir: &Path, prefix: &str) -> Result<(), TrainError> {
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
    pub(super) fn download_dir(&self, prefix: &str, dir: &Path) -> Result<(), TrainError> {
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
pub(super) fn stored_config(
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

pub(super) fn check_layout(rs: &RunStore) -> Result<bool, TrainError> {
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

pub(super) fn check_run_name(run: &str) -> Result<(), TrainError> {
    if run.is_empty() || run.contains(['/', '\\']) || run.starts_with('.') {
        return Err(TrainError::Distributed(format!(
            "run name `{run}` must be a plain name (no slashes, not starting with a dot)"
        )));
    }
    Ok(())
}

/// A random token naming one worker process.
pub(super) fn new_session() -> String {
    let mut rng = rand::rng();
    format!("{:016x}", rng.random::<u64>())
}
