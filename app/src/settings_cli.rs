//! Settings from the command line: `--config PATH` (else the platform file) with the
//! `-o key=value` overrides on top, and `tern config check|show`.

use std::path::PathBuf;

use tern_core::config::{Config, ConfigError};

use crate::cli::{ConfigAction, SettingsArgs};

/// The settings in effect, and every problem found on the way (a file that does not
/// parse means the defaults, then the overrides still apply).
pub struct Effective {
    pub path: Option<PathBuf>,
    pub config: Config,
    pub problems: Vec<String>,
}

impl SettingsArgs {
    /// The config file this start reads.
    pub fn path(&self) -> Option<PathBuf> {
        self.config.clone().or_else(Config::default_path)
    }

    /// Loads the file (a missing one is the defaults) and applies the overrides.
    pub fn load(&self) -> Effective {
        let path = self.path();
        let mut problems = Vec::new();
        let base = match &path {
            Some(p) => Config::load_or_default(p).unwrap_or_else(|e: ConfigError| {
                problems.push(e.to_string());
                Config::default()
            }),
            None => Config::default(),
        };
        let (config, errors) = base.with_overrides(&self.overrides);
        problems.extend(errors.iter().map(ToString::to_string));
        Effective {
            path,
            config,
            problems,
        }
    }
}

/// `tern config check|show`: what to print on stdout, and whether it passed.
pub fn run(action: ConfigAction, args: &SettingsArgs) -> (String, Vec<String>) {
    let effective = args.load();
    let out = match action {
        ConfigAction::Check => {
            let file = effective
                .path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "(no config file: defaults)".into());
            if effective.problems.is_empty() {
                format!("{file}: ok\n")
            } else {
                String::new()
            }
        }
        ConfigAction::Show => {
            let mut text = effective.config.to_ron();
            text.push('\n');
            text
        }
    };
    (out, effective.problems)
}
