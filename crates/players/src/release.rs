//! The release folders (`checkpoints/release/<variant>`): the release network, its
//! learned evaluation ([`EVAL_FILE`]) and its opening book ([`BOOK_FILE`]), found from
//! wherever the binary runs.

use fanorona_rules::Variant;
use std::path::{Path, PathBuf};

/// The learned evaluation's file in a checkpoint folder: the release folders have one,
/// and a run whose alpha-beta searches used one (`bootstrap.ab_eval`, `selfplay.ab_eval`)
/// writes it into each of its checkpoints, so that the network and the evaluation it was
/// trained with play together (`mcts:ckpt=DIR`).
pub const EVAL_FILE: &str = "eval.txt";
/// The opening book beside a release (`book=release`; `fanorona book --opening`).
pub const BOOK_FILE: &str = "book.txt";

/// No release folder for a variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no release network for {variant} (looked in {looked_in}); name one with ckpt=DIR, or ckpt=none for an untrained network"
)]
pub struct ReleaseError {
    /// The variant.
    pub variant: String,
    /// The folders looked in, comma separated.
    pub looked_in: String,
}

/// The file a config or spec means by a learned evaluation's name: `release` is the
/// release folder's [`EVAL_FILE`] for `variant`, a folder its [`EVAL_FILE`] (a checkpoint
/// of a run, a tree-learning run's among them), anything else a path.
///
/// # Errors
/// `release` when no release folder is found.
pub fn eval_path(name: &Path, variant: Variant) -> Result<PathBuf, ReleaseError> {
    if name.as_os_str() == "release" {
        Ok(release_dir(variant)?.join(EVAL_FILE))
    } else if name.is_dir() {
        Ok(name.join(EVAL_FILE))
    } else {
        Ok(name.to_path_buf())
    }
}

/// Where the release network of `variant` is looked for, in order: `$FANORONA_RELEASE/<variant>`,
/// `checkpoints/release/<variant>` under the working folder and under each folder above the
/// running binary, and the repository the binary was built from.
pub fn release_candidates(variant: Variant) -> Vec<PathBuf> {
    let tail = Path::new("checkpoints")
        .join("release")
        .join(variant.name());
    let mut out = Vec::new();
    if let Some(root) = std::env::var_os("FANORONA_RELEASE") {
        out.push(PathBuf::from(root).join(variant.name()));
    }
    out.push(tail.clone());
    if let Ok(exe) = std::env::current_exe() {
        out.extend(exe.ancestors().skip(1).map(|a| a.join(&tail)));
    }
    out.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(&tail),
    );
    out
}

/// The release network's folder for `variant` (the first of [`release_candidates`] that
/// holds a checkpoint).
///
/// # Errors
/// [`ReleaseError`] naming the places looked in.
pub fn release_dir(variant: Variant) -> Result<PathBuf, ReleaseError> {
    let candidates = release_candidates(variant);
    candidates
        .iter()
        .find(|p| p.join("meta.json").is_file())
        .cloned()
        .ok_or_else(|| ReleaseError {
            variant: variant.name().into(),
            looked_in: candidates
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_release_folders_are_found() {
        for v in [Variant::Tsivy, Variant::Dimy] {
            let dir = release_dir(v).expect("the repository's release folder");
            assert!(dir.join(EVAL_FILE).is_file(), "{}", dir.display());
            assert_eq!(
                eval_path(Path::new("release"), v).unwrap(),
                dir.join(EVAL_FILE)
            );
        }
        assert_eq!(
            eval_path(Path::new("e.txt"), Variant::Tsivy).unwrap(),
            Path::new("e.txt")
        );
    }
}
