//! Persisted scrollback: each pane's output written to the state folder as it is
//! parsed, so that a tern that comes back after a crash, a kill or a reboot shows the
//! pane's history. Parsing the same bytes again gives the same model, screen and
//! history (the model is deterministic), so what is kept is the pty's bytes.
//!
//! ```text
//!  model thread ─copy of each parsed piece─▶ bounded channel ─▶ "tern-history" thread
//!     (never waits: a full channel drops the piece and counts it)     │ append raw
//!                                                                      ▼
//!      $XDG_STATE_HOME/tern/history/<key>.raw  ──the pane quiet SETTLE_AFTER──▶ <key>.gz
//!      (0600 in 0700; gzip members appended; <key>.old.{gz,raw}: the segment before,
//!      once the current one passed its cap)
//! ```
//!
//! Bytes are appended raw as they come, after each batch, so what was written before
//! a `kill -9` reads back; once a pane has been quiet for [`SETTLE_AFTER`] its raw
//! tail is compressed into a gzip member of its segment. A flood thus costs a write,
//! not compression: most of a long flood's bytes pass the per-pane cap (two segments
//! of [`SEGMENT_CAP_BYTES`] of output) and are thrown away without ever being
//! compressed, and what is kept is compressed when the pane rests (or by the next
//! tern's writer at its start). The user closing the pane moves its files to
//! `closed/` ([`History::retire`]), where search everywhere reads them
//! ([`History::closed_reader`]) until this tern ends: the writer removes `closed/` when
//! it stops, and a writer that starts removes one a killed tern left. A write that
//! fails (a full disk) leaves a breadcrumb and stops that pane's history, nothing else.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use flate2::read::MultiGzDecoder;

/// Output bytes one segment holds before the next begins (the one before is kept).
pub const SEGMENT_CAP_BYTES: u64 = 32 << 20;
/// The history folder's size at most, all panes together: past it, the panes written
/// least recently lose their history (whole), with a breadcrumb.
pub const TOTAL_CAP_BYTES: u64 = 1 << 30;
/// Pieces waiting for the writer at most (then pieces are dropped and counted).
const QUEUE_PIECES: usize = 4096;
/// The writer thread's nice value (Linux: per thread).
const HISTORY_NICE: i32 = 10;
/// How long a pane stays quiet before its raw tail is compressed.
pub const SETTLE_AFTER: Duration = Duration::from_secs(2);

/// The folder of the history files when the session file has no folder:
/// `$XDG_STATE_HOME/tern/history` (the faces keep them beside the session file, which
/// is `$XDG_STATE_HOME/tern/session.ron` by default).
pub fn default_dir() -> Option<PathBuf> {
    dirs::state_dir()
        .or_else(|| dirs::home_dir().map(|h| h.join(".local/state")))
        .map(|d| d.join("tern").join("history"))
}

pub(super) enum Msg {
    /// `lost`: bytes of this pane not written before these (the queue was full).
    Bytes {
        key: u64,
        data: Vec<u8>,
        lost: u64,
    },
    Remove {
        key: u64,
    },
    /// The pane was closed: its files go to `closed/` (kept until tern ends).
    Retire {
        key: u64,
        done: Arc<Retired>,
    },
    Stop,
}

/// Writes breadcrumbs (the pipeline's ring).
pub type Note = Arc<dyn Fn(String) + Send + Sync>;

/// When a raw tail is compressed, and how large the folder may grow.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// A pane quiet this long has its raw tail compressed.
    pub settle_after: Duration,
    /// The folder's size at most, all panes together.
    pub total_cap_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            settle_after: SETTLE_AFTER,
            total_cap_bytes: TOTAL_CAP_BYTES,
        }
    }
}

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
        History::start_with(dir, note, Limits::default())
    }

    /// [`History::start`] with other limits (tests).
    pub fn start_with(dir: PathBuf, note: Note, limits: Limits) -> std::io::Result<History> {
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
                    // Behind the model thread and the programs: writing and compressing
                    // history must not take their CPU (on a busy machine the queue fills
                    // and pieces are dropped, with a marker in the file, instead).
                    let _ = rustix::process::setpriority_process(None, HISTORY_NICE);
                    write_loop(&dir, &rx, &dropped, &note, limits)
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

    /// The pane was closed by the user: its files move to `closed/`, kept for search
    /// everywhere until this tern ends (a closed pane's history was removed at once
    /// before; it is still never kept past the session). The answer is set once they
    /// are there.
    pub fn retire(&self, key: u64) -> Arc<Retired> {
        let done = Arc::new(Retired::default());
        if self
            .tx
            .send(Msg::Retire {
                key,
                done: done.clone(),
            })
            .is_err()
        {
            done.set();
        }
        done
    }

    /// A closed pane's history is no longer wanted (more panes were closed since).
    pub fn forget_closed(&self, key: u64) {
        remove_history(&closed_dir(&self.dir), key);
    }

    /// Everything the pane's files hold, oldest first (at most two segments).
    pub fn read(&self, key: u64) -> Vec<u8> {
        read_history(&self.dir, key)
    }

    /// A closed pane's history ([`History::retire`]), read as it is asked for (a gzip
    /// member is decoded a buffer at a time): oldest first.
    pub fn closed_reader(&self, key: u64) -> HistoryReader {
        HistoryReader::new(&closed_dir(&self.dir), key)
    }
}

/// Said once a closed pane's files are in `closed/` (or never will be).
#[derive(Debug, Default)]
pub struct Retired {
    moved: Mutex<bool>,
    cv: Condvar,
}

impl Retired {
    pub(super) fn set(&self) {
        if let Ok(mut m) = self.moved.lock() {
            *m = true;
        }
        self.cv.notify_all();
    }

    /// Waits at most `timeout` for the files to be in place; whether they are.
    pub fn wait(&self, timeout: Duration) -> bool {
        let Ok(m) = self.moved.lock() else {
            return false;
        };
        self.cv
            .wait_timeout_while(m, timeout, |moved| !*moved)
            .is_ok_and(|(m, _)| *m)
    }
}

/// Where closed panes' files wait for the end of the session.
pub(super) fn closed_dir(dir: &Path) -> PathBuf {
    dir.join("closed")
}

/// One pane's history as a stream (each segment's gzip members, a tail left mid-settle,
/// its raw tail), opened part by part.
pub struct HistoryReader {
    parts: std::collections::VecDeque<(PathBuf, bool)>,
    current: Option<Box<dyn Read + Send>>,
}

impl HistoryReader {
    fn new(dir: &Path, key: u64) -> HistoryReader {
        let mut parts = std::collections::VecDeque::new();
        for (raw, gz) in segments(dir, key) {
            let settling = settling_path_of(&raw);
            // Only after a kill mid-settle: the check decodes that segment once.
            let settling_new = settling.exists() && !settled_already(&gz, &settling);
            parts.push_back((gz, true));
            if settling_new {
                parts.push_back((settling, false));
            }
            parts.push_back((raw, false));
        }
        HistoryReader {
            parts,
            current: None,
        }
    }
}

impl Read for HistoryReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if let Some(r) = self.current.as_mut() {
                match r.read(buf) {
                    Ok(0) | Err(_) => self.current = None,
                    Ok(n) => return Ok(n),
                }
                continue;
            }
            // A file that is not there (or a member cut short) ends its part.
            let Some((path, gz)) = self.parts.pop_front() else {
                return Ok(0);
            };
            if let Ok(file) = File::open(&path) {
                let file = std::io::BufReader::new(file);
                self.current = Some(if gz {
                    Box::new(MultiGzDecoder::new(file))
                } else {
                    Box::new(file)
                });
            }
        }
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

/// The segment being written: its compressed part and its raw tail.
pub(super) fn path_of(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("{key:016x}.gz"))
}

pub(super) fn raw_path_of(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("{key:016x}.raw"))
}

/// The segment before.
pub(super) fn old_path_of(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("{key:016x}.old.gz"))
}

pub(super) fn old_raw_path_of(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("{key:016x}.old.raw"))
}

/// Each segment's (raw tail, compressed part), oldest first.
pub(super) fn segments(dir: &Path, key: u64) -> [(PathBuf, PathBuf); 2] {
    [
        (old_raw_path_of(dir, key), old_path_of(dir, key)),
        (raw_path_of(dir, key), path_of(dir, key)),
    ]
}

/// A raw tail being compressed (`<key>.settling`, `<key>.old.settling`).
pub(super) fn settling_path_of(raw: &Path) -> PathBuf {
    raw.with_extension("settling")
}

/// Everything a gzip file decodes to; a member cut short (tern killed while writing)
/// gives what decodes up to the cut.
fn decode(gz: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    if let Ok(file) = File::open(gz) {
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

/// Whether `gz` already ends with what `settling` holds (a tern killed after the
/// gzip file was remade, before the tail was removed).
pub(super) fn settled_already(gz: &Path, settling: &Path) -> bool {
    let tail = std::fs::read(settling).unwrap_or_default();
    !tail.is_empty() && decode(gz).ends_with(&tail)
}

/// What `dir` holds for `key`, oldest first: each segment's gzip file, a tail being
/// compressed when a tern was killed (unless the gzip file has it already), the raw tail.
pub fn read_history(dir: &Path, key: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for (raw, gz) in segments(dir, key) {
        let segment = decode(&gz);
        let settling = settling_path_of(&raw);
        let tail = std::fs::read(&settling).unwrap_or_default();
        out.extend_from_slice(&segment);
        if !tail.is_empty() && !segment.ends_with(&tail) {
            out.extend_from_slice(&tail);
        }
        if let Ok(mut file) = File::open(&raw) {
            let _ = file.read_to_end(&mut out);
        }
    }
    out
}

/// Removes what `dir` holds for `key`.
pub fn remove_history(dir: &Path, key: u64) {
    for (raw, gz) in segments(dir, key) {
        let _ = std::fs::remove_file(settling_path_of(&raw));
        let _ = std::fs::remove_file(raw);
        let _ = std::fs::remove_file(gz.with_extension("gz.tmp"));
        let _ = std::fs::remove_file(gz);
    }
}

mod writer;
use writer::write_loop;

#[cfg(test)]
mod tests;
