//! What the window needs from the desktop side of a start: the `-o` overrides, the
//! exit behaviour (`--hold`), the remote-control socket (`tern msg`) and the status
//! `tern -e CMD` exits with. Built by `main` before the window opens; the window reads
//! it through [`crate::window::app::Launch::desktop`].

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, mpsc};

use tern_core::config::{Config, ExitBehavior};
use tern_core::ipc::server::{BindError, IpcCall, IpcServer};

/// The session file a plain start restores and saves: `$TERN_SESSION`, else the
/// platform's state folder.
pub fn session_path() -> Option<PathBuf> {
    std::env::var_os("TERN_SESSION")
        .map(PathBuf::from)
        .or_else(tern_core::session::SessionStore::default_path)
}

/// Wakes the window when a request arrives; bound to the egui context once it exists.
#[derive(Clone, Default)]
pub struct LateWaker(Arc<OnceLock<Box<dyn Fn() + Send + Sync>>>);

impl LateWaker {
    pub fn set(&self, wake: impl Fn() + Send + Sync + 'static) {
        let _ = self.0.set(Box::new(wake));
    }

    pub fn wake(&self) {
        if let Some(w) = self.0.get() {
            w();
        }
    }
}

/// A listening `tern msg` socket and the requests it received.
pub struct Ipc {
    server: IpcServer,
    calls: Mutex<mpsc::Receiver<IpcCall>>,
}

impl Ipc {
    /// Listens on `path` (see [`IpcServer::bind`]); requests wake `waker`.
    pub fn bind(path: &Path, waker: LateWaker) -> Result<Ipc, BindError> {
        let (tx, rx) = mpsc::channel();
        let server = IpcServer::bind(path, tx, Arc::new(move || waker.wake()))?;
        Ok(Ipc {
            server,
            calls: Mutex::new(rx),
        })
    }

    pub fn path(&self) -> &Path {
        self.server.path()
    }

    /// The requests waiting for an answer (never blocks).
    pub fn take_calls(&self) -> Vec<IpcCall> {
        match self.calls.lock() {
            Ok(rx) => rx.try_iter().collect(),
            Err(_) => Vec::new(),
        }
    }
}

/// The desktop side of one start. Cheap to clone (shared parts are behind `Arc`s).
#[derive(Clone, Default)]
pub struct Desktop {
    /// `-o key=value`, applied over the config file at every load.
    pub overrides: Vec<String>,
    /// `--hold`: every pane is held whatever the config says.
    pub hold: bool,
    /// The remote-control socket, when it could be opened.
    pub ipc: Option<Arc<Ipc>>,
    /// `tern -e CMD`: the status of the last pane's program, for the process to exit
    /// with when that pane closed the window.
    pub exit_status: Arc<Mutex<Option<i32>>>,
}

impl std::fmt::Debug for Desktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desktop")
            .field("overrides", &self.overrides)
            .field("hold", &self.hold)
            .field("socket", &self.socket())
            .finish()
    }
}

impl Desktop {
    /// The socket children are told about (`TERN_SOCKET`).
    pub fn socket(&self) -> Option<PathBuf> {
        self.ipc.as_ref().map(|r| r.path().to_owned())
    }

    /// The environment every program tern starts gets on top of the config's.
    pub fn child_env(&self) -> Vec<(String, String)> {
        self.socket()
            .map(|s| {
                vec![(
                    tern_core::ipc::SOCKET_ENV.to_owned(),
                    s.display().to_string(),
                )]
            })
            .unwrap_or_default()
    }

    /// The config with the overrides applied; each override that did not apply is
    /// returned as a message.
    pub fn apply(&self, config: &Config) -> (Config, Vec<String>) {
        let (c, errors) = config.with_overrides(&self.overrides);
        (c, errors.iter().map(ToString::to_string).collect())
    }

    /// What happens when a pane's program exits.
    pub fn exit_behavior(&self, config: &Config) -> ExitBehavior {
        if self.hold {
            ExitBehavior::Hold
        } else {
            config.exit_behavior
        }
    }

    /// Records the status the process exits with.
    pub fn set_exit_status(&self, code: i32) {
        if let Ok(mut s) = self.exit_status.lock() {
            *s = Some(code);
        }
    }

    pub fn exit_status(&self) -> Option<i32> {
        self.exit_status.lock().ok().and_then(|s| *s)
    }
}
