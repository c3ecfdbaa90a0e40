//! Checkpoints: the model, the optimizer state and metadata in one folder, written to a
//! temporary name, flushed to the disk and renamed, so that neither a crash nor a power
//! loss leaves a half-written checkpoint.
//!
//! ```text
//! checkpoints/<run>/<generation>/
//!     meta.json        format, variant, network config, generation, step
//!     model.bpk        the network (burnpack)
//!     optimizer.bpk    the optimizer state (when saved from training)
//! ```

use crate::net::{Net, NetConfig};
use burn::optim::ModuleOptimizer;
use burn::prelude::*;
use fanorona_rules::Variant;
use fanorona_rules::durable;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Version of the checkpoint layout.
pub const FORMAT: u32 = 1;

/// What a checkpoint says about itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointMeta {
    /// Layout version ([`FORMAT`]).
    pub format: u32,
    /// `tsivy`, `dimy` or `telo`.
    pub variant: String,
    /// The network's shape.
    pub net: NetShape,
    /// Training generation.
    pub generation: u64,
    /// Optimizer steps so far.
    pub step: u64,
    /// The run it belongs to, if any.
    #[serde(default)]
    pub run: Option<String>,
}

impl CheckpointMeta {
    /// The metadata of a checkpoint of `variant`'s network of shape `net`, at training
    /// generation `generation` after `step` optimizer steps, of run `run` (if any), in the
    /// current layout ([`FORMAT`]).
    pub fn new(
        variant: Variant,
        net: &NetConfig,
        generation: u64,
        step: u64,
        run: Option<&str>,
    ) -> CheckpointMeta {
        CheckpointMeta {
            format: FORMAT,
            variant: variant.name().into(),
            net: NetShape::from(net),
            generation,
            step,
            run: run.map(str::to_string),
        }
    }
}

/// The network's shape as stored in `meta.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetShape {
    /// Input planes.
    pub planes: usize,
    /// Rows.
    pub height: usize,
    /// Columns.
    pub width: usize,
    /// Actions.
    pub actions: usize,
    /// Residual blocks.
    pub blocks: usize,
    /// Tower channels.
    pub channels: usize,
    /// Policy head channels.
    pub policy_channels: usize,
    /// Value head channels.
    pub value_channels: usize,
    /// Value head hidden units.
    pub value_hidden: usize,
    /// Whether it has an ownership head (absent in checkpoints from before it: none).
    #[serde(default)]
    pub ownership: bool,
}

impl From<&NetConfig> for NetShape {
    fn from(c: &NetConfig) -> NetShape {
        NetShape {
            planes: c.planes,
            height: c.height,
            width: c.width,
            actions: c.actions,
            blocks: c.blocks,
            channels: c.channels,
            policy_channels: c.policy_channels,
            value_channels: c.value_channels,
            value_hidden: c.value_hidden,
            ownership: c.ownership,
        }
    }
}

impl NetShape {
    /// The network configuration.
    pub fn config(&self) -> NetConfig {
        NetConfig::new(self.planes, self.height, self.width, self.actions)
            .with_blocks(self.blocks)
            .with_channels(self.channels)
            .with_policy_channels(self.policy_channels)
            .with_value_channels(self.value_channels)
            .with_value_hidden(self.value_hidden)
            .with_ownership(self.ownership)
    }
}

/// A checkpoint that cannot be used, with the path and the reason.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading or writing failed.
    #[error("checkpoint {}: {error}", shown(.path))]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// Not a checkpoint folder, and not a run folder holding one.
    #[error("{} is not a checkpoint (no meta.json) and holds no checkpoint folders", shown(.0))]
    NotFound(PathBuf),
    /// `meta.json` is damaged.
    #[error("checkpoint {}: damaged meta.json: {}", shown(.path), fanorona_rules::cut(.reason))]
    Meta {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The checkpoint is of another variant or network size than wanted.
    #[error("checkpoint {} is a {found} network; expected {expected}", shown(.path))]
    Mismatch {
        /// The folder.
        path: PathBuf,
        /// What it holds.
        found: String,
        /// What was asked for.
        expected: String,
    },
    /// The weights could not be read (damaged or of another shape).
    #[error("checkpoint {}: cannot load the weights: {}", shown(.path), fanorona_rules::cut(.reason))]
    Weights {
        /// The file.
        path: PathBuf,
        /// burn's reason.
        reason: String,
    },
    /// The weights could not be written (a full disk); the checkpoints before stay whole.
    #[error("checkpoint {}: cannot write the weights: {}", shown(.path), fanorona_rules::cut(.reason))]
    Save {
        /// The file.
        path: PathBuf,
        /// burn's reason.
        reason: String,
    },
    /// No release folder for the variant.
    #[error(transparent)]
    NoRelease(#[from] ReleaseError),
}

/// A path as an error names it: quoted, at most about 100 characters.
fn shown(path: &Path) -> String {
    fanorona_rules::quote(&path.display().to_string()).to_string()
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CheckpointError + '_ {
    move |error| CheckpointError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Writes a checkpoint folder atomically: everything goes to `<dir>.tmp`, which is then
/// renamed to `dir` (an existing `dir` is replaced).
///
/// # Errors
/// Any file that cannot be written.
pub fn save(
    dir: &Path,
    net: &Net,
    optimizer: Option<&ModuleOptimizer>,
    meta: &CheckpointMeta,
) -> Result<(), CheckpointError> {
    save_with(dir, net, optimizer, meta, &[])
}

/// [`save`], with extra files (name, bytes) written into the same folder before the
/// rename (the training loop's state and replay window).
///
/// # Errors
/// Any file that cannot be written.
pub fn save_with(
    dir: &Path,
    net: &Net,
    optimizer: Option<&ModuleOptimizer>,
    meta: &CheckpointMeta,
    extra: &[(&str, &[u8])],
) -> Result<(), CheckpointError> {
    let tmp = sibling(dir, "tmp");
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
    let model = tmp.join(MODEL_FILE);
    net.clone()
        .save_file(&model)
        .map_err(|e| CheckpointError::Save {
            path: model.clone(),
            reason: e.to_string(),
        })?;
    if let Some(o) = optimizer {
        let p = tmp.join("optimizer.bpk");
        o.save(&p).map_err(|e| CheckpointError::Save {
            path: p.clone(),
            reason: e.to_string(),
        })?;
    }
    let text = serde_json::to_string_pretty(meta).expect("metadata serialises");
    let mut files = extra.to_vec();
    files.push(("meta.json", text.as_bytes()));
    publish(&tmp, dir, &files)
}

/// Saves checkpoint folder `dir` holding `files` (name, bytes) alone, written whole as
/// [`save_with`] writes (and [`recover`] finishes): the last file is the one whose
/// presence says the folder is complete, `meta.json` for [`resolve`] to find it.
///
/// # Errors
/// Any file that cannot be written.
pub fn save_files(dir: &Path, files: &[(&str, &[u8])]) -> Result<(), CheckpointError> {
    let tmp = sibling(dir, "tmp");
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
    publish(&tmp, dir, files)
}

/// Writes `files` into `tmp` (in order), then puts `tmp` in `dir`'s place.
fn publish(tmp: &Path, dir: &Path, files: &[(&str, &[u8])]) -> Result<(), CheckpointError> {
    let write = |name: &str, bytes: &[u8]| {
        let p = tmp.join(name);
        std::fs::write(&p, bytes).map_err(io(&p))
    };
    let Some(((last, last_bytes), rest)) = files.split_last() else {
        return Err(CheckpointError::Meta {
            path: tmp.to_path_buf(),
            reason: "nothing to save".into(),
        });
    };
    for (name, bytes) in rest {
        write(name, bytes)?;
    }
    // The checksum of every file but the last (meta.json), which is written after them.
    write(CHECKSUM_FILE, checksums(tmp)?.as_bytes())?;
    write(last, last_bytes)?;
    // On the disk before the rename publishes them (fanorona_rules::durable).
    durable::sync_tree(tmp).map_err(io(tmp))?;
    // A kill between the two renames leaves `<dir>.old` and a complete `<dir>.tmp`:
    // [`recover`] finishes such a save, and [`resolve`] reads `<dir>.old` meanwhile.
    let old = sibling(dir, "old");
    if dir.exists() {
        if old.exists() {
            std::fs::remove_dir_all(&old).map_err(io(&old))?;
        }
        std::fs::rename(dir, &old).map_err(io(dir))?;
    }
    std::fs::rename(tmp, dir).map_err(io(dir))?;
    let runs = durable::parent(dir);
    durable::sync_dir(runs).map_err(io(runs))?;
    // The folder replaced, or one left by an earlier save stopped between its renames.
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(io(&old))?;
    }
    Ok(())
}

/// The file of a checkpoint folder that holds the network's weights.
pub const MODEL_FILE: &str = "model.bpk";

/// The file of a checkpoint folder that lists the checksum of each file written before
/// it (`name hex` lines, `fanorona_rules::checksum::fnv1a`): [`verify_file`] refuses a
/// damaged file instead of loading other weights from it. Folders without it (older
/// saves) are read unchecked.
pub const CHECKSUM_FILE: &str = "checksums.txt";

/// `name hex` lines for every file in `dir`.
fn checksums(dir: &Path) -> Result<String, CheckpointError> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut out = String::new();
    for n in names {
        let p = dir.join(&n);
        let bytes = std::fs::read(&p).map_err(io(&p))?;
        out.push_str(&format!(
            "{n} {:016x}\n",
            fanorona_rules::checksum::fnv1a(&bytes)
        ));
    }
    Ok(out)
}

/// Checks `name` in checkpoint folder `dir` against the folder's [`CHECKSUM_FILE`] (if it
/// has one and lists the file).
///
/// # Errors
/// The file or the list cannot be read, or the file does not match its checksum.
pub fn verify_file(dir: &Path, name: &str) -> Result<(), CheckpointError> {
    let list = dir.join(CHECKSUM_FILE);
    if !list.is_file() {
        return Ok(());
    }
    let text = std::fs::read_to_string(&list).map_err(io(&list))?;
    let Some(want) = text.lines().find_map(|l| {
        l.split_once(' ')
            .filter(|(n, _)| *n == name)
            .map(|(_, h)| h.trim().to_string())
    }) else {
        return Ok(());
    };
    let p = dir.join(name);
    let bytes = std::fs::read(&p).map_err(io(&p))?;
    let found = format!("{:016x}", fanorona_rules::checksum::fnv1a(&bytes));
    if found == want {
        Ok(())
    } else {
        Err(CheckpointError::Weights {
            path: p,
            reason: format!(
                "its checksum {found} is not the {want} that {CHECKSUM_FILE} lists: the file was damaged"
            ),
        })
    }
}

/// `<dir>.<suffix>` beside `dir`: where [`save_with`] writes (`tmp`) and what it replaces (`old`).
fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    dir.with_file_name(format!(
        "{}.{suffix}",
        dir.file_name()
            .map_or("checkpoint".into(), |n| n.to_string_lossy().into_owned())
    ))
}

/// Finishes the saves in run folder `run` that were stopped between [`save_with`]'s two
/// renames (the old folder moved aside as `<name>.old`, the new one not yet in place):
/// a complete `<name>.tmp` (its `meta.json`, written last, present) takes the name, else
/// `<name>.old` gets it back. Returns the checkpoint folders put back. Only the run's
/// writer may call it (a reader racing a save would undo it): [`resolve`] reads around an
/// unfinished save without changing anything.
///
/// # Errors
/// A folder that cannot be renamed or removed.
pub fn recover(run: &Path) -> Result<Vec<PathBuf>, CheckpointError> {
    let mut restored = Vec::new();
    let Ok(entries) = std::fs::read_dir(run) else {
        return Ok(restored);
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".old") else {
            continue;
        };
        let dir = run.join(stem);
        let old = e.path();
        if dir.exists() {
            // Stopped after the second rename: only the clean-up is left.
            std::fs::remove_dir_all(&old).map_err(io(&old))?;
            continue;
        }
        let tmp = sibling(&dir, "tmp");
        if tmp.join("meta.json").is_file() {
            std::fs::rename(&tmp, &dir).map_err(io(&tmp))?;
            std::fs::remove_dir_all(&old).map_err(io(&old))?;
        } else {
            std::fs::rename(&old, &dir).map_err(io(&old))?;
        }
        restored.push(dir);
    }
    Ok(restored)
}

/// Reads `meta.json` of a checkpoint folder.
///
/// # Errors
/// A missing or damaged file.
pub fn read_meta(dir: &Path) -> Result<CheckpointMeta, CheckpointError> {
    let m = dir.join("meta.json");
    let text = std::fs::read_to_string(&m).map_err(io(&m))?;
    let bad = |reason: String| CheckpointError::Meta {
        path: m.clone(),
        reason,
    };
    // The format first, then the reader of that format: every format a release was
    // written in stays readable (tests/compat.rs holds the releases to their outputs).
    #[derive(Deserialize)]
    struct Version {
        format: u32,
    }
    let version: Version = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let meta: CheckpointMeta = match version.format {
        // Format 1 is the current layout.
        1 => serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?,
        n => {
            return Err(bad(format!(
                "format {n}, which this build cannot read (it reads 1 to {FORMAT}): made by a newer build?"
            )));
        }
    };
    if meta.variant.parse::<Variant>().is_err() {
        return Err(CheckpointError::Meta {
            path: m,
            reason: format!("unknown variant `{}`", meta.variant),
        });
    }
    Ok(meta)
}

/// A checkpoint folder, or the latest checkpoint (highest generation) of a run folder.
///
/// # Errors
/// Neither kind of folder.
pub fn resolve(path: &Path) -> Result<PathBuf, CheckpointError> {
    if path.join("meta.json").is_file() {
        return Ok(path.to_path_buf());
    }
    let entries = std::fs::read_dir(path).map_err(io(path))?;
    let mut best: Option<(u64, PathBuf)> = None;
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".tmp") || !p.join("meta.json").is_file() {
            continue;
        }
        // `<name>.old` stands in for `<name>` while a save replaces it (see [`recover`]).
        if name
            .strip_suffix(".old")
            .is_some_and(|stem| path.join(stem).exists())
        {
            continue;
        }
        let generation = read_meta(&p).map(|m| m.generation).unwrap_or(0);
        if best.as_ref().is_none_or(|(g, _)| generation >= *g) {
            best = Some((generation, p));
        }
    }
    best.map(|(_, p)| p)
        .ok_or_else(|| CheckpointError::NotFound(path.to_path_buf()))
}

pub use fanorona_players::release::{
    BOOK_FILE, EVAL_FILE, ReleaseError, eval_path, release_candidates, release_dir,
};

/// Loads a checkpoint (folder or run folder) onto `device`, checking it against
/// `expected` (variant, and the network shape when given).
///
/// # Errors
/// Missing, damaged, or of another variant or size.
pub fn load(
    path: &Path,
    device: &Device,
    expected_variant: Option<Variant>,
    expected_shape: Option<&NetConfig>,
) -> Result<(Net, CheckpointMeta, PathBuf), CheckpointError> {
    let dir = resolve(path)?;
    let meta = read_meta(&dir)?;
    let variant: Variant = meta.variant.parse().expect("checked in read_meta");
    if let Some(v) = expected_variant
        && v != variant
    {
        return Err(CheckpointError::Mismatch {
            path: dir,
            found: variant.to_string(),
            expected: v.to_string(),
        });
    }
    let cfg = meta.net.config();
    if cfg.variant() != Some(variant) || cfg.actions != fanorona_rules::num_actions(variant) {
        return Err(CheckpointError::Meta {
            path: dir.join("meta.json"),
            reason: "network shape does not fit its variant".into(),
        });
    }
    if let Some(want) = expected_shape
        && NetShape::from(want) != meta.net
    {
        return Err(CheckpointError::Mismatch {
            path: dir,
            found: format!("{:?}", meta.net),
            expected: format!("{:?}", NetShape::from(want)),
        });
    }
    let model = dir.join(MODEL_FILE);
    if !model.is_file() {
        return Err(CheckpointError::Weights {
            path: model,
            reason: "file missing".into(),
        });
    }
    verify_file(&dir, MODEL_FILE)?;
    let net = catch(|| cfg.init(device).try_load_file(&model)).map_err(|reason| {
        CheckpointError::Weights {
            path: model.clone(),
            reason,
        }
    })?;
    Ok((net, meta, dir))
}

/// Loads the optimizer state saved beside a model.
///
/// # Errors
/// Missing or damaged.
pub fn load_optimizer(
    dir: &Path,
    optimizer: ModuleOptimizer,
) -> Result<ModuleOptimizer, CheckpointError> {
    let p = dir.join("optimizer.bpk");
    verify_file(dir, "optimizer.bpk")?;
    catch(|| optimizer.load(&p)).map_err(|reason| CheckpointError::Weights {
        path: p.clone(),
        reason,
    })
}

/// Runs a loader, turning both its error and any panic inside burn into a message.
fn catch<T, E: std::fmt::Display>(f: impl FnOnce() -> Result<T, E>) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(t)) => Ok(t),
        Ok(Err(e)) => Err(e.to_string()),
        Err(p) => Err(p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "the file could not be decoded".to_string())),
    }
}
