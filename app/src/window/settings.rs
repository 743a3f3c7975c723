//! The config file as the window uses it: loaded at start, watched for saves, and the
//! last good config kept when a save does not parse (the error, with its line and
//! column, is shown until the file is fixed). The session file is the core's
//! (`tern_core::session_file`).

use std::path::PathBuf;

use tern_core::config::{Config, ConfigEvent, ConfigWatcher};
use tern_core::pipeline::Waker;

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
