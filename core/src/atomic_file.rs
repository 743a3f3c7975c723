//! Atomic file replacement: write a temporary file in the same folder, flush it to
//! disk, rename it over the target, flush the folder. A reader sees the old file or the
//! new one, never a mix; a failure anywhere (disk full, a crash) leaves the old file as
//! it was and removes the temporary.

use std::io::{self, Write};
use std::path::Path;

/// Replaces `path` with `contents` atomically, creating its folder if needed. The new
/// file is private to the user (mode 0600 on Unix).
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |w| w.write_all(contents))
}

/// Like [`write_atomic`], with the contents written by `write` (which may fail part way:
/// the target is then untouched).
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{}.", name.to_string_lossy()))
        .suffix(".tmp")
        .tempfile_in(dir)?;
    {
        let mut buffered = io::BufWriter::new(tmp.as_file_mut());
        write(&mut buffered)?;
        buffered.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir);
    Ok(())
}

/// Flushes the folder entry of the rename. Best effort: some file systems refuse to
/// open or sync a directory, and the rename itself has already happened.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails once `limit` bytes went through: a full disk.
    struct FullDisk<'a> {
        inner: &'a mut dyn Write,
        left: usize,
    }

    impl Write for FullDisk<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"));
            }
            let n = buf.len().min(self.left);
            self.left -= n;
            self.inner.write(&buf[..n])
        }

        fn flush(&mut self) -> io::Result<()> {
            self.inner.flush()
        }
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("f.ron");
        write_atomic(&path, b"old contents").expect("first write");
        let err = write_atomic_with(&path, |w| {
            FullDisk { inner: w, left: 5 }.write_all(b"new contents that do not fit")
        })
        .expect_err("disk full");
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
        assert_eq!(std::fs::read(&path).expect("read"), b"old contents");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("f.ron")]);
    }

    #[test]
    fn creates_the_folder_and_replaces_the_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("a/b/f");
        write_atomic(&path, b"1").expect("write");
        write_atomic(&path, b"2").expect("rewrite");
        assert_eq!(std::fs::read(&path).expect("read"), b"2");
    }
}
