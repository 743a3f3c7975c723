//! Parsed files kept while their file is unchanged ([`FileCache`]), so that a light/dark
//! flip of the desktop or a config reload naming the same theme reads nothing: the
//! folder and the file are `stat`ed (same inode, size, modification and change times)
//! and what was parsed before is used. A file that changed is read again (`themes`
//! reads through [`super::settings_file`]: regular files within the cap only).
//!
//! The first read happens where the config is parsed: at start-up, and on hot reload
//! in the config watcher's thread, so the window's thread finds the theme here.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// At most this many files and folder look-ups are kept (names come from the config:
/// a handful); past it the cache starts over.
const MAX_ENTRIES: usize = 64;

static FILES_READ: AtomicU64 = AtomicU64::new(0);

/// How many theme files were read (opened and parsed) by this process.
pub fn theme_files_read() -> u64 {
    FILES_READ.load(Ordering::Relaxed)
}

/// What `stat` says about a file, enough to tell that it changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let m = std::fs::metadata(path).ok()?;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Some(Stamp {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime_ns: ns(m.mtime(), m.mtime_nsec()),
            ctime_ns: ns(m.ctime(), m.ctime_nsec()),
        })
    }
}

struct Entries<T> {
    /// (folder, name key) → the folder's stamp and the file found for the name.
    found: HashMap<(PathBuf, String), (Stamp, Option<PathBuf>)>,
    /// File → its stamp and what parsing it gave.
    parsed: HashMap<PathBuf, (Stamp, T)>,
}

/// Files parsed into `T`, and names looked up in folders, kept while unchanged. A
/// `static` holds one (`themes::THEMES`).
pub struct FileCache<T> {
    entries: Mutex<Option<Entries<T>>>,
}

impl<T: Clone> FileCache<T> {
    pub const fn new() -> FileCache<T> {
        FileCache {
            entries: Mutex::new(None),
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut Entries<T>) -> R) -> R {
        let mut guard = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let entries = guard.get_or_insert_with(|| Entries {
            found: HashMap::new(),
            parsed: HashMap::new(),
        });
        if entries.found.len() + entries.parsed.len() > MAX_ENTRIES {
            entries.found.clear();
            entries.parsed.clear();
        }
        f(entries)
    }

    /// The file in `dir` for the name key `wanted`, looked for with `look` only when
    /// the folder changed since the last look.
    pub fn find_in(
        &self,
        dir: &Path,
        wanted: &str,
        look: impl FnOnce() -> Option<PathBuf>,
    ) -> Option<PathBuf> {
        let stamp = Stamp::of(dir);
        let key = (dir.to_path_buf(), wanted.to_owned());
        if let Some(stamp) = stamp
            && let Some(found) = self.with(|c| {
                c.found
                    .get(&key)
                    .filter(|(s, _)| *s == stamp)
                    .map(|(_, p)| p.clone())
            })
        {
            return found;
        }
        let found = look();
        if let Some(stamp) = stamp {
            self.with(|c| c.found.insert(key, (stamp, found.clone())));
        }
        found
    }

    /// What the file at `path` parses into, parsed with `read` only when the file
    /// changed since it was last parsed.
    pub fn parsed(&self, path: &Path, read: impl FnOnce(&Path) -> T) -> T {
        let stamp = Stamp::of(path);
        if let Some(stamp) = stamp
            && let Some(done) = self.with(|c| {
                c.parsed
                    .get(path)
                    .filter(|(s, _)| *s == stamp)
                    .map(|(_, r)| r.clone())
            })
        {
            return done;
        }
        FILES_READ.fetch_add(1, Ordering::Relaxed);
        let result = read(path);
        if let Some(stamp) = stamp {
            self.with(|c| c.parsed.insert(path.to_path_buf(), (stamp, result.clone())));
        }
        result
    }
}
