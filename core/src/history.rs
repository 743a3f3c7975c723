//! Persisted scrollback: each pane's output written to the state folder as it is
//! parsed, so that a tern that comes back after a crash, a kill or a reboot shows the
//! pane's history. Parsing the same bytes again gives the same model, screen and
//! history (the model is deterministic), so what is kept is the pty's bytes.
//!
//! ```text
//!  model thread ─copy of each parsed piece─▶ bounded channel ─▶ "tern-history" thread
//!     (never waits: a full channel drops the piece and counts it)     │ gzip, sync flush
//!                                                                      ▼
//!      $XDG_STATE_HOME/tern/history/<key>.gz   (0600 in 0700; gzip members appended;
//!      <key>.old.gz: the segment before, once the current one passed its cap)
//! ```
//!
//! Each tern run appends a gzip member, flushed (`Z_SYNC_FLUSH`) after each batch, so
//! what was written before a `kill -9` decodes. A file is capped per pane (two
//! segments of [`SEGMENT_CAP_BYTES`] of output); the user closing the pane removes it;
//! a write that fails (a full disk) leaves a breadcrumb and stops that pane's history,
//! nothing else.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;

/// Output bytes one segment holds before the next begins (the one before is kept).
pub const SEGMENT_CAP_BYTES: u64 = 32 << 20;
/// Pieces waiting for the writer at most (then pieces are dropped and counted).
const QUEUE_PIECES: usize = 4096;
/// The writer thread's nice value (Linux: per thread).
const HISTORY_NICE: i32 = 10;

/// The folder of the history files when the session file has no folder:
/// `$XDG_STATE_HOME/tern/history` (the faces keep them beside the session file, which
/// is `$XDG_STATE_HOME/tern/session.ron` by default).
pub fn default_dir() -> Option<PathBuf> {
    dirs::state_dir()
        .or_else(|| dirs::home_dir().map(|h| h.join(".local/state")))
        .map(|d| d.join("tern").join("history"))
}

enum Msg {
    /// `lost`: bytes of this pane not written before these (the queue was full).
    Bytes {
        key: u64,
        data: Vec<u8>,
        lost: u64,
    },
    Remove {
        key: u64,
    },
    Stop,
}

/// Writes breadcrumbs (the pipeline's ring).
pub type Note = Arc<dyn Fn(String) + Send + Sync>;

/// The history writer: a thread and the channel to it.
pub struct History {
    dir: PathBuf,
    tx: SyncSender<Msg>,
    dropped: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("History").field("dir", &self.dir).finish()
    }
}

/// A pane's end of the channel (on the model thread).
#[derive(Clone, Debug)]
pub struct Tap {
    key: u64,
    tx: SyncSender<Msg>,
    dropped: Arc<AtomicU64>,
    /// This pane's bytes not queued since its last piece that was.
    lost: Arc<AtomicU64>,
}

impl std::fmt::Debug for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Msg")
    }
}

impl Tap {
    /// Queues a copy of `bytes`; never waits (a full queue drops them and counts).
    pub fn send(&self, bytes: &[u8]) {
        self.send_owned(bytes.to_vec());
    }

    /// Queues `bytes`; never waits (a full queue drops them and counts).
    pub fn send_owned(&self, bytes: Vec<u8>) {
        if bytes.is_empty() {
            return;
        }
        let len = bytes.len() as u64;
        let msg = Msg::Bytes {
            key: self.key,
            data: bytes,
            lost: self.lost.swap(0, Ordering::Relaxed),
        };
        if let Err(TrySendError::Full(Msg::Bytes { lost, .. })) = self.tx.try_send(msg) {
            self.dropped.fetch_add(len, Ordering::Relaxed);
            self.lost.fetch_add(lost + len, Ordering::Relaxed);
        }
    }
}

impl History {
    /// Starts the writer for `dir` (made 0700).
    pub fn start(dir: PathBuf, note: Note) -> std::io::Result<History> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)?;
        let (tx, rx) = sync_channel(QUEUE_PIECES);
        let dropped = Arc::new(AtomicU64::new(0));
        let thread = {
            let (dir, dropped) = (dir.clone(), dropped.clone());
            std::thread::Builder::new()
                .name("tern-history".into())
                .spawn(move || {
                    // Behind the model thread and the programs: compressing a flood's
                    // history must not take their CPU (on a busy machine the queue fills
                    // and pieces are dropped, with a marker in the file, instead).
                    let _ = rustix::process::setpriority_process(None, HISTORY_NICE);
                    write_loop(&dir, &rx, &dropped, &note)
                })?
        };
        Ok(History {
            dir,
            tx,
            dropped,
            thread: Some(thread),
        })
    }

    pub fn tap(&self, key: u64) -> Tap {
        Tap {
            key,
            tx: self.tx.clone(),
            dropped: self.dropped.clone(),
            lost: Arc::default(),
        }
    }

    /// The pane was closed by the user: its history goes.
    pub fn remove(&self, key: u64) {
        let _ = self.tx.send(Msg::Remove { key });
    }

    /// Everything the pane's files hold, oldest first (at most two segments).
    pub fn read(&self, key: u64) -> Vec<u8> {
        read_history(&self.dir, key)
    }
}

impl Drop for History {
    fn drop(&mut self) {
        let _ = self.tx.send(Msg::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn path_of(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("{key:016x}.gz"))
}

fn old_path_of(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("{key:016x}.old.gz"))
}

/// What `dir` holds for `key`, oldest first. A member cut short (tern killed while
/// writing) gives what decodes up to the cut.
pub fn read_history(dir: &Path, key: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for path in [old_path_of(dir, key), path_of(dir, key)] {
        let Ok(file) = File::open(&path) else {
            continue;
        };
        let mut decoder = MultiGzDecoder::new(std::io::BufReader::new(file));
        let mut buf = vec![0u8; 64 << 10];
        loop {
            match decoder.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    }
    out
}

/// Removes what `dir` holds for `key`.
pub fn remove_history(dir: &Path, key: u64) {
    let _ = std::fs::remove_file(path_of(dir, key));
    let _ = std::fs::remove_file(old_path_of(dir, key));
}

struct Open {
    encoder: GzEncoder<File>,
    written: u64,
}

fn open(dir: &Path, key: u64) -> std::io::Result<Open> {
    let path = path_of(dir, key);
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)?;
    // Roughly what the segment held before: its compressed size counts against the cap
    // (so a pane that keeps coming back still rotates).
    let written = file.metadata().map(|m| m.len()).unwrap_or(0) * 4;
    Ok(Open {
        encoder: GzEncoder::new(file, Compression::fast()),
        written,
    })
}

fn write_loop(dir: &Path, rx: &Receiver<Msg>, dropped: &AtomicU64, note: &Note) {
    let mut open_files: HashMap<u64, Open> = HashMap::new();
    let mut failed: HashMap<u64, ()> = HashMap::new();
    let mut dirty: Vec<u64> = Vec::new();
    let mut reported_drops = 0;
    while let Ok(first) = rx.recv() {
        let mut next = Some(first);
        // A batch: everything queued now, then one flush per file.
        while let Some(msg) = next.take() {
            match msg {
                Msg::Stop => {
                    flush(&mut open_files, &mut dirty, &mut failed, note);
                    for (_, o) in open_files.drain() {
                        let _ = o.encoder.finish();
                    }
                    return;
                }
                Msg::Remove { key } => {
                    open_files.remove(&key);
                    failed.remove(&key);
                    dirty.retain(|k| *k != key);
                    remove_history(dir, key);
                }
                Msg::Bytes { key, data, lost } => {
                    if failed.contains_key(&key) {
                        continue;
                    }
                    let marked = if lost > 0 {
                        let line = format!(
                            "\r\n\x1b[0;2m[tern] {lost} bytes of history not kept (tern was busy)\x1b[0m\r\n"
                        );
                        append(dir, &mut open_files, key, line.as_bytes())
                    } else {
                        Ok(())
                    };
                    if let Err(e) = marked.and_then(|()| append(dir, &mut open_files, key, &data)) {
                        note(format!(
                            "history: cannot write pane history ({e}); it stops here"
                        ));
                        open_files.remove(&key);
                        failed.insert(key, ());
                    } else if !dirty.contains(&key) {
                        dirty.push(key);
                    }
                }
            }
            next = rx.try_recv().ok();
        }
        flush(&mut open_files, &mut dirty, &mut failed, note);
        let now = dropped.load(Ordering::Relaxed);
        if now != reported_drops {
            reported_drops = now;
            note(format!(
                "history: {now} bytes not written (the writer fell behind)"
            ));
        }
    }
}

fn append(
    dir: &Path,
    open_files: &mut HashMap<u64, Open>,
    key: u64,
    data: &[u8],
) -> std::io::Result<()> {
    let o = match open_files.entry(key) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(v) => v.insert(open(dir, key)?),
    };
    o.encoder.write_all(data)?;
    o.written += data.len() as u64;
    if o.written >= SEGMENT_CAP_BYTES {
        // The segment is full: it becomes the old one (the one before goes).
        if let Some(o) = open_files.remove(&key) {
            o.encoder.finish()?;
        }
        std::fs::rename(path_of(dir, key), old_path_of(dir, key))?;
    }
    Ok(())
}

fn flush(
    open_files: &mut HashMap<u64, Open>,
    dirty: &mut Vec<u64>,
    failed: &mut HashMap<u64, ()>,
    note: &Note,
) {
    for key in dirty.drain(..) {
        if let Some(o) = open_files.get_mut(&key)
            && let Err(e) = o.encoder.flush()
        {
            note(format!(
                "history: cannot write pane history ({e}); it stops here"
            ));
            open_files.remove(&key);
            failed.insert(key, ());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quiet() -> Note {
        Arc::new(|_| {})
    }

    #[test]
    fn what_is_written_reads_back_in_order_across_runs_and_goes_on_remove() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h");
        for run in 0..2 {
            let h = History::start(path.clone(), quiet()).unwrap();
            let tap = h.tap(7);
            for i in 0..1000 {
                tap.send(format!("run {run} line {i}\r\n").as_bytes());
            }
            drop(h);
        }
        let text = String::from_utf8(read_history(&path, 7)).unwrap();
        let want: String = (0..2)
            .flat_map(|run| (0..1000).map(move |i| format!("run {run} line {i}\r\n")))
            .collect();
        assert_eq!(text, want);
        let mode = std::fs::metadata(path_of(&path, 7)).unwrap().permissions();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(mode.mode() & 0o777, 0o600);
        let h = History::start(path.clone(), quiet()).unwrap();
        h.remove(7);
        drop(h);
        assert!(read_history(&path, 7).is_empty());
    }

    #[test]
    fn a_flushed_member_reads_back_while_the_writer_still_runs() {
        let dir = tempfile::tempdir().unwrap();
        let h = History::start(dir.path().to_owned(), quiet()).unwrap();
        h.tap(1).send(b"before the kill");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while read_history(dir.path(), 1) != b"before the kill" {
            assert!(std::time::Instant::now() < deadline, "never flushed");
            std::thread::yield_now();
        }
        std::mem::forget(h); // as a tern killed with -9 leaves it
    }
}
