//! Writes that a crash cannot half-do: every file the project writes goes through here.
//!
//! A whole file ([`write_atomic`]) is written beside its name, flushed to the disk, and
//! renamed over the old one, and the folder is flushed after the rename: a killed
//! process or a power loss leaves either the old file or the new one, never a mix.
//! Without the first flush a file system that orders its metadata before its data
//! (ext4's delayed allocation, XFS) may keep the rename and lose the bytes: an empty
//! file under the real name, which is worse than none.
//!
//! A log that grows a line at a time ([`Appender`]: game records, opening books being
//! built, metrics) can lose at most the line being written; its readers skip a damaged
//! line, and an appender that finds the file ending inside a line ends it first, so the
//! torn line never swallows the next good one.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Writes `bytes` to `path` whole or not at all (see the module's notes), creating the
/// folder that holds it.
///
/// # Errors
/// The folder, the temporary file or the rename fails (the old file, if any, is kept).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent(path);
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written?;
    sync_dir(dir)
}

/// A file that grows by whole lines (see the module's notes).
#[derive(Debug)]
pub struct Appender {
    file: File,
    sync: bool,
}

impl Appender {
    /// Opens `path` for appending (created if missing, with its folder). With `sync`,
    /// each [`Appender::line`] reaches the disk before it returns (records worth a
    /// game's time); without, it reaches the operating system (metrics).
    ///
    /// # Errors
    /// The file cannot be opened, read or ended.
    pub fn open(path: &Path, sync: bool) -> io::Result<Appender> {
        std::fs::create_dir_all(parent(path))?;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)?;
        let len = file.seek(SeekFrom::End(0))?;
        if len > 0 {
            let mut last = [0u8];
            file.seek(SeekFrom::Start(len - 1))?;
            file.read_exact(&mut last)?;
            if last[0] != b'\n' {
                // A line cut off by a crash: end it, so that it stays one damaged line.
                file.write_all(b"\n")?;
            }
        }
        Ok(Appender { file, sync })
    }

    /// Appends `text` (one or more lines; a final newline is added where missing). A
    /// write that fails part way (a full disk, a file-size limit) is taken back where
    /// the file allows it, so the log keeps whole lines.
    ///
    /// # Errors
    /// The write or the flush fails.
    pub fn line(&mut self, text: &str) -> io::Result<()> {
        let mut buf = String::with_capacity(text.len() + 1);
        buf.push_str(text);
        if !buf.ends_with('\n') {
            buf.push('\n');
        }
        let before = self.file.metadata()?.len();
        let written = self.file.write_all(buf.as_bytes()).and_then(|()| {
            if self.sync {
                self.file.sync_data()
            } else {
                Ok(())
            }
        });
        if written.is_err() {
            let _ = self.file.set_len(before);
        }
        written
    }
}

/// Flushes the file at `path` (its bytes and its size) to the disk.
///
/// # Errors
/// The file cannot be opened or flushed.
pub fn sync_file(path: &Path) -> io::Result<()> {
    File::open(path)?.sync_all()
}

/// Flushes a folder's entries (names created, removed or renamed in it) to the disk.
/// Folders cannot be opened as files on Windows, whose renames are not reordered so;
/// there it does nothing.
///
/// # Errors
/// The folder cannot be opened or flushed.
pub fn sync_dir(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    File::open(path)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Flushes every file directly in `dir`, then `dir` itself.
///
/// # Errors
/// A file or the folder cannot be flushed.
pub fn sync_tree(dir: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            sync_file(&entry.path())?;
        }
    }
    sync_dir(dir)
}

/// The folder that holds `path` (`.` for a bare name).
#[must_use]
pub fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("fanorona-durable-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_whole_file_replaces_the_old_one_and_leaves_no_temporary_file() {
        let dir = scratch("whole");
        let p = dir.join("inner/file.txt");
        write_atomic(&p, b"old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(parent(&p))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("file.txt")]);
        // A write that cannot happen keeps the old file.
        assert!(write_atomic(&dir.join("inner"), b"a folder's name").is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        sync_tree(&dir.join("inner")).unwrap();
        assert!(sync_file(&dir.join("missing")).is_err());
        assert_eq!(parent(Path::new("model.onnx")), Path::new("."));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_line_cut_off_by_a_crash_stays_one_damaged_line() {
        let dir = scratch("append");
        let p = dir.join("games.jsonl");
        let mut a = Appender::open(&p, true).unwrap();
        a.line("{\"game\": 1}").unwrap();
        drop(a);
        // A crash in the middle of the second line.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .unwrap()
            .write_all(b"{\"ga")
            .unwrap();
        let mut a = Appender::open(&p, false).unwrap();
        a.line("{\"game\": 3}\n").unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text, "{\"game\": 1}\n{\"ga\n{\"game\": 3}\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
