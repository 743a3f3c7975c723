//! Hot reload: [`ConfigWatcher`] watches the config file's folder (so a save that
//! writes a temporary file and renames it over the config, as many editors do, is seen
//! like an in-place write) and sends a [`ConfigEvent`] when the file's contents change.
//!
//! ```text
//!  file system ─inotify/FSEvents─▶ notify's thread: filter, read, compare, parse
//!                                        │ ConfigEvent ─▶ channel ─▶ UI try_recv()
//!                                        └ waker() (repaint)
//! ```
//!
//! Event-driven, no polling timer. The file is read again only for events that can
//! change it, and an event is sent only when the text differs from the last text seen,
//! so editors' extra events (metadata, backups) cost a read and nothing more. On Linux
//! a write is acted on when the writer closes the file, so a half-written file is not
//! parsed. An empty file is taken as a save in progress and sends nothing (emptying the
//! config takes effect at the next start); a save that races the read can still show a
//! passing `Error` before its `Reloaded`.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use super::{Config, ConfigError};
use crate::pipeline::Waker;

/// What changed.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigEvent {
    /// The file parsed; apply it.
    Reloaded(Box<Config>),
    /// The file does not parse; keep the last good config and show the error.
    Error(ConfigError),
    /// The file is gone (deleted, or moved away). The app may go back to the defaults,
    /// or keep what it has: an editor that saves by moving the old file away first
    /// follows this with `Reloaded` at once.
    Removed,
}

impl ConfigEvent {
    fn from_load(result: Result<Config, ConfigError>) -> ConfigEvent {
        match result {
            Ok(c) => ConfigEvent::Reloaded(Box::new(c)),
            Err(e) if e.not_found => ConfigEvent::Removed,
            Err(e) => ConfigEvent::Error(e),
        }
    }
}

/// Watches one config file. Dropping it stops watching. If the file is a symlink, the
/// folder it points into is watched too (where the link points is read once, at start).
/// If the config's folder itself is deleted, watching ends.
pub struct ConfigWatcher {
    path: PathBuf,
    events: Receiver<ConfigEvent>,
    _watcher: RecommendedWatcher,
}

impl ConfigWatcher {
    /// Starts watching `path` (creating its folder if missing) and returns the watcher
    /// with the file's state at that moment: `Reloaded`, `Error`, or `Removed` when
    /// there is no file yet (run on defaults). Later changes arrive through
    /// [`ConfigWatcher::try_recv`]; `waker` is called after each one is queued.
    pub fn start(
        path: impl Into<PathBuf>,
        waker: Option<Waker>,
    ) -> std::io::Result<(ConfigWatcher, ConfigEvent)> {
        let path: PathBuf = path.into();
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
            _ => PathBuf::from("."),
        };
        let name = path
            .file_name()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no file name"))?
            .to_owned();
        std::fs::create_dir_all(&dir)?;
        // A config that is a symlink (dotfile managers) changes where the link points:
        // watch that folder too.
        let target = std::fs::canonicalize(&path)
            .ok()
            .filter(|t| t.parent() != dir.canonicalize().ok().as_deref());
        let mut names = vec![name];
        if let Some(n) = target.as_ref().and_then(|t| t.file_name()) {
            names.push(n.to_owned());
        }
        let (tx, rx) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::channel::<Option<String>>();
        let mut state = WatchState {
            path: path.clone(),
            last_text: None,
            tx,
            waker,
            ready: Some(ready_rx),
        };
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            state.baseline();
            match res {
                Ok(event) => {
                    let ours = event.paths.is_empty()
                        || event.need_rescan()
                        || event
                            .paths
                            .iter()
                            .any(|p| p.file_name().is_some_and(|n| names.iter().any(|m| m == n)));
                    if ours && can_change_contents(&event.kind) {
                        state.check();
                    }
                }
                // The backend lost track (queue overflow): look at the file again.
                Err(_) => state.check(),
            }
        })
        .map_err(std::io::Error::other)?;
        watcher
            .watch(&dir, RecursiveMode::NonRecursive)
            .map_err(std::io::Error::other)?;
        if let Some(target_dir) = target.as_ref().and_then(|t| t.parent()) {
            watcher
                .watch(target_dir, RecursiveMode::NonRecursive)
                .map_err(std::io::Error::other)?;
        }
        // Read after the watch is in place, so no save can fall between the two.
        let text = read_text(&path);
        let initial = ConfigEvent::from_load(match &text {
            Ok(t) => Config::parse(t, &path),
            Err(e) => Err(e.clone()),
        });
        // The handler's baseline; if the channel is gone the handler already checked.
        let _ = ready_tx.send(text.ok());
        Ok((
            ConfigWatcher {
                path,
                events: rx,
                _watcher: watcher,
            },
            initial,
        ))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next change, if any; never blocks.
    pub fn try_recv(&self) -> Option<ConfigEvent> {
        self.events.try_recv().ok()
    }

    /// Waits up to `timeout` for a change (for tests and tools, not the UI thread).
    pub fn recv_timeout(&self, timeout: Duration) -> Option<ConfigEvent> {
        self.events.recv_timeout(timeout).ok()
    }
}

/// State owned by notify's event thread.
struct WatchState {
    path: PathBuf,
    /// The text last reported (`None`: no file).
    last_text: Option<String>,
    tx: Sender<ConfigEvent>,
    waker: Option<Waker>,
    /// Delivers the text `start` read, before the first event is looked at.
    ready: Option<Receiver<Option<String>>>,
}

impl WatchState {
    fn baseline(&mut self) {
        if let Some(ready) = self.ready.take() {
            // `start` sends right after installing the watch; an error means it failed
            // and this watcher is being dropped.
            self.last_text = ready.recv().ok().flatten();
        }
    }

    fn check(&mut self) {
        let text = match read_text(&self.path) {
            // Zero bytes: a writer truncated the file and has not written yet (events
            // are handled after the fact, so the next save may already be under way).
            // Its close-after-write brings the contents.
            Ok(t) if t.is_empty() => return,
            Ok(t) => Some(t),
            Err(e) if e.not_found => None,
            Err(e) => {
                self.send(ConfigEvent::Error(e));
                return;
            }
        };
        if text == self.last_text {
            return;
        }
        let event = match &text {
            Some(t) => ConfigEvent::from_load(Config::parse(t, &self.path)),
            None => ConfigEvent::Removed,
        };
        self.last_text = text;
        self.send(event);
    }

    fn send(&self, event: ConfigEvent) {
        if self.tx.send(event).is_ok()
            && let Some(w) = &self.waker
        {
            w();
        }
    }
}

fn read_text(path: &Path) -> Result<String, ConfigError> {
    // Non-blocking, regular files within the cap only: a FIFO saved as the config
    // cannot block this thread (later saves would never be seen).
    super::settings_file::read_settings_file(path).map_err(|e| ConfigError {
        path: path.to_owned(),
        position: None,
        message: e.to_string(),
        not_found: e.kind() == std::io::ErrorKind::NotFound,
    })
}

/// Whether an event may mean new contents. Opens, reads and closes after reading
/// (including our own) do not. On Linux a data write is followed by a close-after-write,
/// which is acted on instead, so a file is not read half written.
fn can_change_contents(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Data(_)) | EventKind::Create(_) => !cfg!(target_os = "linux"),
        EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any | EventKind::Other => true,
    }
}
