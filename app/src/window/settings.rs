//! The config file as the window uses it: loaded at start, watched for saves, and the
//! last good config kept when a save does not parse (the error, with its line and
//! column, is shown until the file is fixed). Also the session file: restored at start
//! and saved off the UI thread whenever the layout changes.

use std::path::PathBuf;
use std::sync::mpsc;

use tern_core::config::{Config, ConfigEvent, ConfigWatcher};
use tern_core::pipeline::Waker;
use tern_core::session::{LoadOutcome, SessionState, SessionStore};

/// Where the settings come from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ConfigSource {
    /// The built-in defaults, no file, no watching (tests).
    #[default]
    BuiltIn,
    /// The platform file (`~/.config/tern/config.ron` or `$TERN_CONFIG`).
    Platform,
    /// `--config PATH`.
    File(PathBuf),
}

/// What a poll of the config file found.
pub enum ConfigChange {
    Reloaded,
    Failed,
    Removed,
}

pub struct Settings {
    pub path: Option<PathBuf>,
    /// The config in force (the last one that parsed).
    pub config: Config,
    /// Why the file on disk is not in force, when it is not.
    pub error: Option<String>,
    watcher: Option<ConfigWatcher>,
    /// `-o key=value` from the command line, applied over every load.
    overrides: Vec<String>,
}

impl Settings {
    pub fn load(source: &ConfigSource, waker: Waker) -> Settings {
        let path = match source {
            ConfigSource::BuiltIn => None,
            ConfigSource::Platform => Config::default_path(),
            ConfigSource::File(p) => Some(p.clone()),
        };
        let mut settings = Settings {
            path: path.clone(),
            config: Config::default(),
            error: None,
            watcher: None,
            overrides: Vec::new(),
        };
        let Some(path) = path else {
            return settings;
        };
        // The watcher reports the file as it is when watching starts, so no save can
        // slip between loading and watching.
        match ConfigWatcher::start(&path, Some(waker)) {
            Ok((watcher, first)) => {
                settings.watcher = Some(watcher);
                settings.take(first);
            }
            Err(e) => {
                match Config::load_or_default(&path) {
                    Ok(c) => settings.config = c,
                    Err(err) => settings.error = Some(err.to_string()),
                }
                settings
                    .error
                    .get_or_insert(format!("{}: not watched for changes: {e}", path.display()));
            }
        }
        settings
    }

    /// Applies `-o key=value` overrides now and after every reload (the bad ones are
    /// reported by `main` at start and skipped).
    pub fn with_overrides(mut self, overrides: Vec<String>) -> Settings {
        self.overrides = overrides;
        self.config = self.config.with_overrides(&self.overrides).0;
        self
    }

    fn take(&mut self, event: ConfigEvent) -> ConfigChange {
        match event {
            ConfigEvent::Reloaded(c) => {
                self.config = (*c).with_overrides(&self.overrides).0;
                self.error = None;
                ConfigChange::Reloaded
            }
            ConfigEvent::Error(e) if e.not_found => {
                // No file yet: the defaults, silently.
                self.error = None;
                ConfigChange::Removed
            }
            ConfigEvent::Error(e) => {
                self.error = Some(format!("{e} (keeping the last good settings)"));
                ConfigChange::Failed
            }
            ConfigEvent::Removed => ConfigChange::Removed,
        }
    }

    /// The next change on disk, if any (the old config stays in `config` on failure).
    pub fn poll(&mut self) -> Option<ConfigChange> {
        let event = self.watcher.as_ref()?.try_recv()?;
        Some(self.take(event))
    }
}

/// The session file and a thread that writes it, so saving never blocks a frame.
pub struct SessionFile {
    store: SessionStore,
    /// The saving thread's queue (`None` once `save_now` closed it).
    saver: Option<mpsc::Sender<SessionState>>,
    thread: Option<std::thread::JoinHandle<()>>,
    last_saved: Option<SessionState>,
    /// The window as it is now, saved with the session (`TernApp::note_window`).
    pub window: Option<tern_core::session::SavedWindow>,
    /// The restored window was maximized: asked again once the window is up (a
    /// window manager may drop the state asked for before the window was mapped).
    pub maximize_pending: bool,
}

impl SessionFile {
    pub fn new(path: PathBuf) -> SessionFile {
        let store = SessionStore::new(path);
        let (saver, jobs) = mpsc::channel::<SessionState>();
        let thread_store = SessionStore::new(store.path().to_path_buf());
        let thread = std::thread::Builder::new()
            .name("tern-session".into())
            .spawn(move || {
                while let Ok(mut state) = jobs.recv() {
                    // Only the newest state matters.
                    while let Ok(newer) = jobs.try_recv() {
                        state = newer;
                    }
                    if let Err(e) = thread_store.save(&state) {
                        eprintln!(
                            "tern: cannot save the session to {}: {e}",
                            thread_store.path().display()
                        );
                    }
                }
            })
            .ok();
        SessionFile {
            store,
            saver: thread.is_some().then_some(saver),
            thread,
            last_saved: None,
            window: None,
            maximize_pending: false,
        }
    }

    pub fn load(&mut self) -> LoadOutcome {
        let outcome = self.store.load();
        if let LoadOutcome::Restored(s) = &outcome {
            self.last_saved = Some(s.clone());
        }
        outcome
    }

    /// Saves `state` in the background if it differs from the last one saved.
    pub fn save_if_changed(&mut self, state: SessionState) {
        if self.last_saved.as_ref() != Some(&state) {
            crate::signals::remember_session(&self.store, &state);
            match &self.saver {
                Some(tx) => {
                    let _ = tx.send(state.clone());
                }
                None => {
                    let _ = self.store.save(&state);
                }
            }
            self.last_saved = Some(state);
        }
    }

    /// Saves now and returns once it is written (at exit). The saving thread is
    /// closed and waited for first, so an older state it was still writing cannot land
    /// after this one.
    pub fn save_now(&mut self, state: SessionState) -> std::io::Result<()> {
        drop(self.saver.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        self.store.save(&state)?;
        self.last_saved = Some(state);
        Ok(())
    }

    pub fn path(&self) -> &std::path::Path {
        self.store.path()
    }
}
