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
//! tern's writer at its start). The user closing the pane removes its files; a write
//! that fails (a full disk) leaves a breadcrumb and stops that pane's history, nothing
//! else.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::time::{Duration, Instant};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;

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

/// The segment being written: its compressed part and its raw tail.
fn path_of(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("{key:016x}.gz"))
}

fn raw_path_of(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("{key:016x}.raw"))
}

/// The segment before.
fn old_path_of(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("{key:016x}.old.gz"))
}

fn old_raw_path_of(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("{key:016x}.old.raw"))
}

/// Each segment's (raw tail, compressed part), oldest first.
fn segments(dir: &Path, key: u64) -> [(PathBuf, PathBuf); 2] {
    [
        (old_raw_path_of(dir, key), old_path_of(dir, key)),
        (raw_path_of(dir, key), path_of(dir, key)),
    ]
}

/// What `dir` holds for `key`, oldest first. A member cut short (tern killed while
/// writing) gives what decodes up to the cut.
pub fn read_history(dir: &Path, key: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for (raw, gz) in segments(dir, key) {
        if let Ok(file) = File::open(&gz) {
            let mut decoder = MultiGzDecoder::new(std::io::BufReader::new(file));
            let mut buf = vec![0u8; 64 << 10];
            loop {
                match decoder.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => out.extend_from_slice(&buf[..n]),
                }
            }
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
        let _ = std::fs::remove_file(raw);
        let _ = std::fs::remove_file(gz);
    }
}

/// Compresses each segment's raw tail of `key` into a gzip member of that segment.
/// A tern killed between the member's end and the tail's removal shows that tail twice.
fn settle(dir: &Path, key: u64) -> std::io::Result<()> {
    for (raw, gz) in segments(dir, key) {
        let mut tail = match File::open(&raw) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        if tail.metadata()?.len() > 0 {
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(&gz)?;
            let mut encoder = GzEncoder::new(file, Compression::fast());
            std::io::copy(&mut tail, &mut encoder)?;
            encoder.finish()?;
        }
        std::fs::remove_file(&raw)?;
    }
    Ok(())
}

/// The keys of raw tails left in `dir` (a tern that ended or was killed mid-flood).
fn raw_keys(dir: &Path) -> Vec<u64> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut keys: Vec<u64> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let stem = name
                .strip_suffix(".old.raw")
                .or_else(|| name.strip_suffix(".raw"))?;
            u64::from_str_radix(stem, 16).ok()
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// Removes whole panes' history, the panes written least recently first, until the
/// folder holds at most `cap` bytes; never the pane written last. The keys removed.
fn enforce_total_cap(dir: &Path, cap: u64) -> Vec<u64> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    // Per key: its bytes and its newest file's time.
    let mut panes: HashMap<u64, (u64, std::time::SystemTime)> = HashMap::new();
    let mut total = 0;
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Some(key) = name
            .split('.')
            .next()
            .filter(|k| k.len() == 16)
            .and_then(|k| u64::from_str_radix(k, 16).ok())
        else {
            continue;
        };
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let modified = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
        let pane = panes.entry(key).or_insert((0, std::time::UNIX_EPOCH));
        pane.0 += meta.len();
        pane.1 = pane.1.max(modified);
        total += meta.len();
    }
    if total <= cap {
        return Vec::new();
    }
    let mut by_age: Vec<(u64, (u64, std::time::SystemTime))> = panes.into_iter().collect();
    by_age.sort_by_key(|(key, (_, at))| (*at, *key));
    by_age.pop(); // the newest stays
    let mut gone = Vec::new();
    for (key, (bytes, _)) in by_age {
        if total <= cap {
            break;
        }
        remove_history(dir, key);
        total = total.saturating_sub(bytes);
        gone.push(key);
    }
    gone
}

struct Open {
    raw: std::io::BufWriter<File>,
    /// Output bytes in this segment (its compressed part counted at about 4x).
    written: u64,
}

fn open(dir: &Path, key: u64) -> std::io::Result<Open> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(raw_path_of(dir, key))?;
    // Roughly what the segment held before: it counts against the cap (so a pane that
    // keeps coming back still rotates).
    let compressed = std::fs::metadata(path_of(dir, key)).map_or(0, |m| m.len());
    let written = compressed * 4 + file.metadata().map_or(0, |m| m.len());
    Ok(Open {
        raw: std::io::BufWriter::with_capacity(64 << 10, file),
        written,
    })
}

fn write_loop(dir: &Path, rx: &Receiver<Msg>, dropped: &AtomicU64, note: &Note, limits: Limits) {
    let settle_after = limits.settle_after;
    // The folder grew past what was last checked (a pane's first bytes, a new segment).
    let mut grew = true;
    let mut open_files: HashMap<u64, Open> = HashMap::new();
    let mut failed: HashMap<u64, ()> = HashMap::new();
    let mut dirty: Vec<u64> = Vec::new();
    // Panes with a raw tail to compress, and when they last had bytes.
    let mut unsettled: HashMap<u64, Instant> = raw_keys(dir)
        .into_iter()
        .map(|k| {
            let at = Instant::now();
            (k, at.checked_sub(settle_after).unwrap_or(at))
        })
        .collect();
    let mut reported_drops = 0;
    loop {
        let first = if unsettled.is_empty() {
            rx.recv().map_err(|_| RecvTimeoutError::Disconnected)
        } else {
            let due = unsettled
                .values()
                .min()
                .copied()
                .unwrap_or_else(Instant::now)
                + settle_after;
            rx.recv_timeout(due.saturating_duration_since(Instant::now()))
        };
        let first = match first {
            Ok(m) => Some(m),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let mut next = first;
        // A batch: everything queued now, then one flush per file.
        while let Some(msg) = next.take() {
            match msg {
                Msg::Stop => {
                    flush(&mut open_files, &mut dirty, &mut failed, note);
                    return;
                }
                Msg::Remove { key } => {
                    open_files.remove(&key);
                    failed.remove(&key);
                    dirty.retain(|k| *k != key);
                    unsettled.remove(&key);
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
                        append(dir, &mut open_files, key, line.as_bytes(), &mut grew)
                    } else {
                        Ok(())
                    };
                    if let Err(e) =
                        marked.and_then(|()| append(dir, &mut open_files, key, &data, &mut grew))
                    {
                        note(format!(
                            "history: cannot write pane history ({e}); it stops here"
                        ));
                        open_files.remove(&key);
                        failed.insert(key, ());
                    } else if !dirty.contains(&key) {
                        dirty.push(key);
                    }
                    unsettled.insert(key, Instant::now());
                }
            }
            next = rx.try_recv().ok();
        }
        flush(&mut open_files, &mut dirty, &mut failed, note);
        if std::mem::take(&mut grew) {
            let gone = enforce_total_cap(dir, limits.total_cap_bytes);
            for key in &gone {
                open_files.remove(key);
                unsettled.remove(key);
            }
            if !gone.is_empty() {
                note(format!(
                    "history: the history folder passed its cap ({} MiB): the history of \
                     {} panes written least recently removed",
                    limits.total_cap_bytes >> 20,
                    gone.len()
                ));
            }
        }
        let now = Instant::now();
        let quiet: Vec<u64> = unsettled
            .iter()
            .filter(|(_, at)| now.saturating_duration_since(**at) >= settle_after)
            .map(|(k, _)| *k)
            .collect();
        for key in quiet {
            unsettled.remove(&key);
            if failed.contains_key(&key) {
                continue;
            }
            // Closed first: the next bytes open a new raw tail after the member.
            let written = open_files.remove(&key).map(|o| o.written);
            if let Err(e) = settle(dir, key) {
                note(format!(
                    "history: cannot compress pane history ({e}); kept raw"
                ));
            }
            if let Some(written) = written
                && let Ok(o) = open(dir, key)
            {
                open_files.insert(key, Open { written, ..o });
            }
        }
        let now = dropped.load(Ordering::Relaxed);
        if now != reported_drops {
            reported_drops = now;
            note(format!(
                "history: {now} bytes not written (the writer fell behind)"
            ));
        }
    }
}

/// Appends `data` to `key`'s raw tail; whether the folder grew by a file (a pane's
/// first bytes in this run, a new segment) is said through `grew`.
fn append(
    dir: &Path,
    open_files: &mut HashMap<u64, Open>,
    key: u64,
    data: &[u8],
    grew: &mut bool,
) -> std::io::Result<()> {
    let o = match open_files.entry(key) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(v) => {
            *grew = true;
            v.insert(open(dir, key)?)
        }
    };
    o.raw.write_all(data)?;
    o.written += data.len() as u64;
    if o.written >= SEGMENT_CAP_BYTES {
        // The segment is full: it becomes the old one (the one before goes, never
        // compressed if it was still raw).
        *grew = true;
        if let Some(mut o) = open_files.remove(&key) {
            o.raw.flush()?;
        }
        let [(old_raw, old_gz), (raw, gz)] = segments(dir, key);
        for (from, to) in [(raw, old_raw), (gz, old_gz)] {
            match std::fs::rename(&from, &to) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    let _ = std::fs::remove_file(&to);
                }
                Err(e) => return Err(e),
            }
        }
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
            && let Err(e) = o.raw.flush()
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
        use std::os::unix::fs::PermissionsExt;
        for file in [path_of(&path, 7), raw_path_of(&path, 7)] {
            if let Ok(meta) = std::fs::metadata(&file) {
                assert_eq!(meta.permissions().mode() & 0o777, 0o600, "{file:?}");
            }
        }
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

    /// A flood's bytes are appended raw (a write, no compression on the way) and
    /// compressed only once the pane has been quiet; both read back the same.
    #[test]
    fn a_pane_s_bytes_are_kept_raw_while_it_prints_and_compressed_once_it_rests() {
        let dir = tempfile::tempdir().unwrap();
        let settle = std::time::Duration::from_millis(300);
        let limits = Limits {
            settle_after: settle,
            ..Limits::default()
        };
        let h = History::start_with(dir.path().to_owned(), quiet(), limits).unwrap();
        let tap = h.tap(3);
        let mut want = Vec::new();
        // Printing for 4 settle periods, a line every 20 ms: never quiet long enough.
        let began = Instant::now();
        let mut i = 0;
        while began.elapsed() < settle * 4 {
            let line = format!("line {i} {}\r\n", "x".repeat(60));
            tap.send(line.as_bytes());
            want.extend_from_slice(line.as_bytes());
            i += 1;
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        while read_history(dir.path(), 3) != want {
            assert!(Instant::now() < deadline, "never written");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(
            !path_of(dir.path(), 3).exists(),
            "nothing compressed while the pane printed"
        );
        // Quiet: the tail becomes a gzip member, the raw file goes.
        while std::fs::metadata(raw_path_of(dir.path(), 3)).is_ok_and(|m| m.len() > 0)
            || !path_of(dir.path(), 3).exists()
        {
            assert!(Instant::now() < deadline, "never compressed");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let gz = std::fs::metadata(path_of(dir.path(), 3)).unwrap().len();
        assert!(
            gz * 4 < want.len() as u64,
            "compressed: {gz} of {}",
            want.len()
        );
        assert_eq!(read_history(dir.path(), 3), want);
        tap.send(b"after the rest");
        drop(h);
        want.extend_from_slice(b"after the rest");
        assert_eq!(
            read_history(dir.path(), 3),
            want,
            "a new tail after the member"
        );
        // The next writer compresses a tail it finds at its start.
        let h = History::start_with(dir.path().to_owned(), quiet(), limits).unwrap();
        while raw_path_of(dir.path(), 3).exists() {
            assert!(
                Instant::now() < deadline,
                "a tail left at start never compressed"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(read_history(dir.path(), 3), want);
        drop(h);
    }

    /// Past the folder's cap, the panes written least recently lose their history,
    /// whole; the pane being written keeps its own.
    #[test]
    fn past_the_folder_s_cap_the_least_recently_written_panes_lose_their_history() {
        let dir = tempfile::tempdir().unwrap();
        let notes = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let note: Note = {
            let notes = notes.clone();
            Arc::new(move |n| notes.lock().unwrap().push(n))
        };
        let limits = Limits {
            total_cap_bytes: 25_000,
            ..Limits::default()
        };
        let h = History::start_with(dir.path().to_owned(), note, limits).unwrap();
        let block = |pane: u64| format!("pane {pane} {}\r\n", "y".repeat(9_980)).into_bytes();
        for pane in 1..=4u64 {
            h.tap(pane).send(&block(pane));
            let deadline = Instant::now() + std::time::Duration::from_secs(10);
            while read_history(dir.path(), pane) != block(pane) {
                assert!(Instant::now() < deadline, "pane {pane} never written");
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            // Distinct file times, oldest first.
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        drop(h);
        let kept: Vec<u64> = (1..=4)
            .filter(|p| !read_history(dir.path(), *p).is_empty())
            .collect();
        assert_eq!(kept, vec![3, 4], "the two written last are kept");
        assert_eq!(read_history(dir.path(), 4), block(4));
        let notes = notes.lock().unwrap();
        assert!(
            notes.iter().any(|n| n.contains("passed its cap")),
            "said: {notes:?}"
        );
    }
}
