//! The window's start-up from the command line, short of the window itself: the first
//! pane's program, folder and size, the settings (and their problems), shell
//! integration, the session file and the exit behaviour. `main` and the app tests'
//! harness (`app/tests/common`) both start here, so a window test starts the way the
//! binary does: the shell-integration break shipped because the harness built its
//! `Launch` by hand and skipped what `main` set up.

use std::path::PathBuf;

use tern_core::config::Config;
use tern_core::model::TermSize;
use tern_core::pipeline::SpawnSpec;

use crate::cli::Cli;
use crate::desktop::{Desktop, Ipc};
use crate::window::app::Launch;
use crate::window::settings::ConfigSource;

/// What `main` starts the window from.
pub struct WindowStart {
    /// The first pane's program, folder and size (shell integration set when on).
    pub spec: SpawnSpec,
    /// The effective settings (file, then `-o` overrides).
    pub config: Config,
    /// Each problem with the settings, for `main` to print (the window runs on).
    pub problems: Vec<String>,
    pub config_source: ConfigSource,
    /// No program and no folder on the command line: this start restores and keeps
    /// the saved session (when the settings say so) and owns the session socket.
    pub plain: bool,
    /// The session file to restore from and save to (`None`: no session).
    pub session: Option<PathBuf>,
    pub overrides: Vec<String>,
    pub hold: bool,
    pub title: Option<String>,
    /// The window class (`--class`, default `tern`).
    pub class: String,
    /// The grid's size, at least 2x1.
    pub cols: usize,
    pub rows: usize,
}

impl WindowStart {
    /// Reads the command line and the settings it names.
    pub fn from_cli(cli: Cli) -> WindowStart {
        let command: Vec<String> = if cli.exec.is_empty() {
            cli.program
        } else {
            cli.exec
        };
        let (cols, rows) = (cli.cols.max(2), cli.rows.max(1));
        let mut spec = SpawnSpec {
            command: command
                .split_first()
                .map(|(p, rest)| (p.clone(), rest.to_vec())),
            cwd: cli.working_directory,
            size: Some(TermSize::new(cols, rows)),
            ..Default::default()
        };
        let effective = cli.settings.load();
        let config = effective.config;
        let config_source = match cli.settings.config {
            Some(path) => ConfigSource::File(path),
            None => ConfigSource::Platform,
        };
        spec.login_shell = config.shell.login;
        if config.shell_integration {
            spec.shell_integration = tern_core::shell_integration::default_dir();
        }
        // A plain start restores (and keeps saving) the last session; `-e` or a folder
        // on the command line asks for one pane, and leaves the saved session alone.
        let plain = spec.command.is_none() && spec.cwd.is_none();
        let session = (plain && config.session.restore)
            .then(crate::desktop::session_path)
            .flatten();
        WindowStart {
            spec,
            config,
            problems: effective.problems,
            config_source,
            plain,
            session,
            overrides: cli.settings.overrides,
            hold: cli.hold,
            title: cli.window.title,
            class: cli.window.class.unwrap_or_else(|| "tern".to_owned()),
            cols,
            rows,
        }
    }

    /// Whether this start owns the session socket (else it listens on its own).
    pub fn owns_session(&self) -> bool {
        self.plain && self.config.session.restore
    }

    /// The window's launch, with the `tern msg` socket when one was opened.
    pub fn launch(&self, ipc: Option<Ipc>) -> Launch {
        Launch {
            spec: self.spec.clone(),
            config: self.config_source.clone(),
            session: self.session.clone(),
            title: self.title.clone(),
            desktop: Desktop {
                overrides: self.overrides.clone(),
                hold: self.hold,
                ipc: ipc.map(std::sync::Arc::new),
                ..Desktop::default()
            },
        }
    }
}
