//! The `tern-history` thread: raw tails appended per batch, compressed once a pane
//! rests, segments rotated at their cap, the folder kept under its cap.

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Instant;

use flate2::Compression;
use flate2::write::GzEncoder;

use super::{
    Limits, Msg, Note, SEGMENT_CAP_BYTES, closed_dir, path_of, raw_path_of, remove_history,
    segments, settled_already, settling_path_of,
};

/// Moves `key`'s files to `closed/` (made 0700), where they wait for the end of the
/// session.
fn retire(dir: &Path, key: u64) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let closed = closed_dir(dir);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&closed)?;
    for (raw, gz) in segments(dir, key) {
        for from in [settling_path_of(&raw), raw, gz] {
            let Some(name) = from.file_name() else {
                continue;
            };
            match std::fs::rename(&from, closed.join(name)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
    }
    Ok(())
}

/// Compresses each segment's raw tail of `key` into a gzip member of that segment, so
/// that a tern killed at any moment leaves each byte read back once: the tail is first
/// renamed `.settling`, the segment's gzip file remade beside it with the new member
/// and renamed over the old one, then the `.settling` file removed; a reader (and the
/// next writer) skips a `.settling` file the gzip file already ends with.
fn settle(dir: &Path, key: u64) -> std::io::Result<()> {
    for (raw, gz) in segments(dir, key) {
        let settling = settling_path_of(&raw);
        if settling.exists() {
            // Left by a tern killed while settling: done already, or to do again.
            if settled_already(&gz, &settling) {
                std::fs::remove_file(&settling)?;
            } else {
                compress_into(&settling, &gz)?;
            }
        }
        match std::fs::metadata(&raw) {
            Ok(m) if m.len() > 0 => {
                std::fs::rename(&raw, &settling)?;
                compress_into(&settling, &gz)?;
            }
            Ok(_) => std::fs::remove_file(&raw)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// `gz` remade with `settling` as a new member (a copy renamed over it), then
/// `settling` removed.
fn compress_into(settling: &Path, gz: &Path) -> std::io::Result<()> {
    let tmp = gz.with_extension("gz.tmp");
    let mut out = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)?;
    if let Ok(mut old) = File::open(gz) {
        std::io::copy(&mut old, &mut out)?;
    }
    let mut encoder = GzEncoder::new(out, Compression::fast());
    std::io::copy(&mut File::open(settling)?, &mut encoder)?;
    encoder.finish()?;
    std::fs::rename(&tmp, gz)?;
    std::fs::remove_file(settling)
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
                .or_else(|| name.strip_suffix(".raw"))
                .or_else(|| name.strip_suffix(".old.settling"))
                .or_else(|| name.strip_suffix(".settling"))?;
            u64::from_str_radix(stem, 16).ok()
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// Per pane in `dir`: its bytes and its newest file's time; and all its files' bytes.
type Sizes = (HashMap<u64, (u64, std::time::SystemTime)>, u64);

/// Removes whole panes' history until the folder holds at most `cap` bytes: closed
/// panes' first (`closed/`), then the panes written least recently; never the pane
/// written last. The keys of open panes removed.
fn enforce_total_cap(dir: &Path, cap: u64) -> Vec<u64> {
    let closed = closed_dir(dir);
    let (panes, open_total) = sizes(dir);
    let (closed_panes, closed_total) = sizes(&closed);
    let mut total = open_total + closed_total;
    if total > cap {
        let mut by_age: Vec<_> = closed_panes.into_iter().collect();
        by_age.sort_by_key(|(key, (_, at))| (*at, *key));
        for (key, (bytes, _)) in by_age {
            if total <= cap {
                break;
            }
            remove_history(&closed, key);
            total = total.saturating_sub(bytes);
        }
    }
    if total <= cap {
        return Vec::new();
    }
    remove_oldest(dir, panes, total, cap)
}

fn sizes(dir: &Path) -> Sizes {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (HashMap::new(), 0);
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
    (panes, total)
}

/// Removes the open panes written least recently (never the newest) until `total` is
/// at most `cap`.
fn remove_oldest(
    dir: &Path,
    panes: HashMap<u64, (u64, std::time::SystemTime)>,
    mut total: u64,
    cap: u64,
) -> Vec<u64> {
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

pub(super) fn write_loop(
    dir: &Path,
    rx: &Receiver<Msg>,
    dropped: &AtomicU64,
    note: &Note,
    limits: Limits,
) {
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
    // Closed panes' files a killed tern left: not kept past their session.
    let _ = std::fs::remove_dir_all(closed_dir(dir));
    // Panes closed (removed or retired): bytes that still come for them are not kept.
    let mut gone: HashSet<u64> = HashSet::new();
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
                    // Closed panes' history ends with the session.
                    let _ = std::fs::remove_dir_all(closed_dir(dir));
                    return;
                }
                Msg::Remove { key } => {
                    open_files.remove(&key);
                    failed.remove(&key);
                    dirty.retain(|k| *k != key);
                    unsettled.remove(&key);
                    remove_history(dir, key);
                    forget_later(&mut gone, key);
                }
                Msg::Retire { key, done } => {
                    if let Some(mut o) = open_files.remove(&key) {
                        let _ = o.raw.flush();
                    }
                    failed.remove(&key);
                    dirty.retain(|k| *k != key);
                    unsettled.remove(&key);
                    forget_later(&mut gone, key);
                    if let Err(e) = retire(dir, key) {
                        note(format!(
                            "history: cannot keep a closed pane's history ({e}); removed"
                        ));
                        remove_history(dir, key);
                    }
                    done.set();
                }
                Msg::Bytes { key, data, lost } => {
                    if failed.contains_key(&key) || gone.contains(&key) {
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

/// Bytes for `key` that come after its pane was closed (parsed in the moment before)
/// are not written. The set is bounded: such bytes come within moments of the close.
fn forget_later(gone: &mut HashSet<u64>, key: u64) {
    if gone.len() >= 4096 {
        gone.clear();
    }
    gone.insert(key);
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
