//! Checkpoints: the model, the optimizer state and metadata in one folder. The folder's
//! files, its metadata, checksums and atomic save are `fanorona_formats::checkpoint`'s
//! (re-exported here); this module turns the weights' bytes into a network and back.

use crate::net::{Net, NetConfig};
use burn::optim::ModuleOptimizer;
use burn::prelude::*;
pub use fanorona_formats::checkpoint::*;
use fanorona_rules::Variant;
use std::path::{Path, PathBuf};

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

impl From<&NetShape> for NetConfig {
    fn from(s: &NetShape) -> NetConfig {
        NetConfig::new(s.planes, s.height, s.width, s.actions)
            .with_blocks(s.blocks)
            .with_channels(s.channels)
            .with_policy_channels(s.policy_channels)
            .with_value_channels(s.value_channels)
            .with_value_hidden(s.value_hidden)
            .with_ownership(s.ownership)
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
    let tmp = prepare(dir)?;
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
    let cfg = NetConfig::from(&meta.net);
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
