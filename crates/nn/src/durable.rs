//! Writes that survive a power loss, not only a killed process: a file's bytes are
//! flushed to the disk before the rename that publishes it, and the folder that holds
//! the new name after it. Without the first, a file system that orders its metadata
//! before its data (ext4's delayed allocation, XFS) may keep the rename and lose the
//! bytes: a checkpoint of empty files under its real name, which is worse than none.

use std::fs::File;
use std::io;
use std::path::Path;

/// Flushes the file at `path` (its bytes and its size) to the disk.
pub(crate) fn sync_file(path: &Path) -> io::Result<()> {
    File::open(path)?.sync_all()
}

/// Flushes a folder's entries (names created, removed or renamed in it) to the disk.
/// Folders cannot be opened as files on Windows, whose renames are not reordered so;
/// there it does nothing.
pub(crate) fn sync_dir(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    File::open(path)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Flushes every file directly in `dir`, then `dir` itself.
pub(crate) fn sync_tree(dir: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            sync_file(&entry.path())?;
        }
    }
    sync_dir(dir)
}

/// The folder that holds `path` (`.` for a bare name).
pub(crate) fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_and_its_files_sync_and_a_missing_one_is_an_error() {
        let dir = std::env::temp_dir().join(format!("fanorona-durable-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.bin"), b"bytes").unwrap();
        std::fs::create_dir_all(dir.join("inner")).unwrap();
        sync_tree(&dir).unwrap();
        sync_dir(parent(&dir)).unwrap();
        assert_eq!(parent(Path::new("model.onnx")), Path::new("."));
        assert!(sync_file(&dir.join("missing")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
