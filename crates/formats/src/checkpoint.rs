//! Checkpoint folders, below the network library: their metadata (`meta.json`), their
//! checksums (`checksums.txt`) and the atomic save that publishes them, written to a
//! temporary name, flushed to the disk and renamed, so that neither a crash nor a power
//! loss leaves a half-written checkpoint. The network's weights are bytes here; turning
//! them into a network is `fanorona_nn::checkpoint`'s.
//!
//! ```text
//! checkpoints/<run>/<generation>/
//!     meta.json        format, variant, network config, generation, step
//!     checksums.txt    the checksum of every file written before meta.json
//!     model.bpk        the network (burnpack)
//!     optimizer.bpk    the optimizer state (when saved from training)
//! ```

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
        net: impl Into<NetShape>,
        generation: u64,
        step: u64,
        run: Option<&str>,
    ) -> CheckpointMeta {
        CheckpointMeta {
            format: FORMAT,
            variant: variant.name().into(),
            net: net.into(),
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
pub fn shown(path: &Path) -> String {
    fanorona_rules::quote(&path.display().to_string()).to_string()
}

/// An I/O error on `path` as a [`CheckpointError`].
pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CheckpointError + '_ {
    move |error| CheckpointError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// An empty `<dir>.tmp` beside `dir`, for a save to write its files into before
/// [`publish`] puts it in `dir`'s place.
///
/// # Errors
/// The folder cannot be made.
pub fn prepare(dir: &Path) -> Result<PathBuf, CheckpointError> {
    let tmp = sibling(dir, "tmp");
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
    Ok(tmp)
}

/// Saves checkpoint folder `dir` holding `files` (name, bytes) alone, written whole as
/// every save is (and [`recover`] finishes): the last file is the one whose presence
/// says the folder is complete, `meta.json` for [`resolve`] to find it.
///
/// # Errors
/// Any file that cannot be written.
pub fn save_files(dir: &Path, files: &[(&str, &[u8])]) -> Result<(), CheckpointError> {
    let tmp = prepare(dir)?;
    publish(&tmp, dir, files)
}

/// Writes `files` into `tmp` ([`prepare`]'s, which may hold files already), in order,
/// then the checksums of all but the last, then the last, and puts `tmp` in `dir`'s place.
///
/// # Errors
/// Any file that cannot be written or renamed.
pub fn publish(tmp: &Path, dir: &Path, files: &[(&str, &[u8])]) -> Result<(), CheckpointError> {
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
    let text = std::fs::read(&list).map_err(io(&list))?;
    let p = dir.join(name);
    check_listed(&text, name, || std::fs::read(&p).map_err(io(&p))).map_err(|e| match e {
        Listed::Read(e) => e,
        Listed::Differs(reason) => CheckpointError::Weights {
            path: p.clone(),
            reason,
        },
    })
}

/// Why [`check_listed`] refused a file.
#[derive(Debug)]
pub enum Listed<E> {
    /// The file could not be read.
    Read(E),
    /// Its checksum is not the listed one (the message says both).
    Differs(String),
}

/// Checks the bytes `read` gives (read only when `list`, a [`CHECKSUM_FILE`]'s bytes,
/// names `name`) against the checksum the list gives them. A list that is not text, or
/// whose lines are not `name hex`, lists nothing it cannot read.
///
/// # Errors
/// [`Listed::Read`] from `read`; [`Listed::Differs`] when the checksums differ.
pub fn check_listed<E>(
    list: &[u8],
    name: &str,
    read: impl FnOnce() -> Result<Vec<u8>, E>,
) -> Result<(), Listed<E>> {
    let text = String::from_utf8_lossy(list);
    let Some(want) = text.lines().find_map(|l| {
        l.split_once(' ')
            .filter(|(n, _)| *n == name)
            .map(|(_, h)| h.trim().to_string())
    }) else {
        return Ok(());
    };
    let bytes = read().map_err(Listed::Read)?;
    let found = format!("{:016x}", fanorona_rules::checksum::fnv1a(&bytes));
    if found == want {
        Ok(())
    } else {
        Err(Listed::Differs(format!(
            "its checksum {found} is not the {} that {CHECKSUM_FILE} lists: the file was damaged",
            fanorona_rules::quote(&want).at_most(40)
        )))
    }
}

/// `<dir>.<suffix>` beside `dir`: where a save writes (`tmp`, [`prepare`]) and what it replaces (`old`).
pub fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    dir.with_file_name(format!(
        "{}.{suffix}",
        dir.file_name()
            .map_or("checkpoint".into(), |n| n.to_string_lossy().into_owned())
    ))
}

/// Finishes the saves in run folder `run` that were stopped between [`publish`]'s two
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
    let text = std::fs::read(&m).map_err(io(&m))?;
    parse_meta(&text).map_err(|reason| CheckpointError::Meta { path: m, reason })
}

/// Reads a `meta.json`'s bytes: the format first, then the reader of that format (every
/// format a release was written in stays readable; tests/compat.rs holds the releases to
/// their outputs), then the variant.
///
/// # Errors
/// What is wrong with them.
pub fn parse_meta(bytes: &[u8]) -> Result<CheckpointMeta, String> {
    #[derive(Deserialize)]
    struct Version {
        format: u32,
    }
    let version: Version = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let meta: CheckpointMeta = match version.format {
        // Format 1 is the current layout.
        1 => serde_json::from_slice(bytes).map_err(|e| e.to_string())?,
        n => {
            return Err(format!(
                "format {n}, which this build cannot read (it reads 1 to {FORMAT}): made by a newer build?"
            ));
        }
    };
    if meta.variant.parse::<Variant>().is_err() {
        return Err(format!(
            "unknown variant {}",
            fanorona_rules::quote(&meta.variant)
        ));
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
