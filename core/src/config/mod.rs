//! tern's settings: `config.ron` in the platform config folder (`~/.config/tern/` on
//! Linux), or the file `TERN_CONFIG` names. Every field has a default, so a partial
//! file (or an empty one) works; unknown fields are errors, so a typo is reported with
//! its line and column instead of being ignored. `assets/config.ron` documents every
//! option with its default (a test keeps it equal to [`Config::default`]).
//!
//! RON is read with `implicit_some`: an optional value is written bare
//! (`family: "Iosevka"`), not `Some("Iosevka")` (which is also accepted).
//!
//! [`ConfigWatcher`] reloads the file when it is saved (see `watch.rs`).

mod agents;
mod chord;
mod every_problem;
mod font;
mod overrides;
pub mod settings_file;
pub mod suggest;
mod theme_cache;
mod theme_config;
pub mod themes;
mod watch;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::{CursorShape, TermConfig};
use crate::pipeline::{PipelineConfig, SpawnSpec};

pub use agents::{NotifyConfig, NotifyWhen, SendText};
pub use chord::{ChordError, KeyBinding, KeyChord};
pub use font::{CellScale, FontConfig, FontFeature};
pub use overrides::OverrideError;
pub use theme_cache::theme_files_read;
pub use theme_config::{AnsiColors, BaseTheme, Rgb, ThemeConfig, ThemeName};
pub use watch::{ConfigEvent, ConfigWatcher};

/// The documented default file, every option at its default.
pub const DEFAULT_CONFIG_RON: &str = include_str!("../../assets/config.ron");

/// Bytes of scrollback allowed per configured line (see [`Config::term_config`]).
pub const SCROLLBACK_BYTES_PER_LINE: usize = 128;

/// The environment variable naming a config file to use instead of the platform one.
pub const CONFIG_ENV: &str = "TERN_CONFIG";

/// All settings. `#[serde(default)]` on every struct: a missing field keeps its default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub font: FontConfig,
    /// Space around the panes, in points (Alacritty's `window.padding`).
    pub padding: f32,
    pub theme: ThemeConfig,
    /// Lines of history kept per pane.
    pub scrollback_lines: usize,
    pub shell: ShellConfig,
    /// Extra environment variables for every program tern starts.
    pub env: BTreeMap<String, String>,
    pub cursor: CursorConfig,
    /// Action name (the app's command list) to chord, or `"none"` to unbind.
    pub key_bindings: BTreeMap<String, KeyBinding>,
    /// Bytes a pane's program may have in flight before tern stops reading it.
    pub flow_control_window_bytes: u64,
    pub clipboard: ClipboardConfig,
    /// Ask before closing a window, tab or pane whose program is still running.
    pub confirm_on_close: bool,
    /// Ask before pasting several lines into a program that did not turn on bracketed
    /// paste (each line would run as a command).
    pub confirm_multiline_paste: bool,
    /// Let programs resize the window (`CSI 8 t`).
    pub resize_requests: bool,
    /// Answer DECRQCRA with the real checksum (off: always 0000). A 1x1 checksum
    /// reveals a cell's character, so a program can read text it did not write.
    pub rect_checksum_reports: bool,
    /// Remote control (`tern msg`): a socket in a private folder, named to programs in
    /// `TERN_SOCKET`. Off: no socket and no `TERN_SOCKET`. Read at start.
    pub remote_control: bool,
    /// What a program in a pane may do to *other* panes over `tern msg` (its own pane,
    /// new tabs, splits, focus and the list are always allowed): `OwnPane` refuses
    /// reading, typing into and closing another pane; `AllPanes` allows them.
    pub pane_remote_control: PaneRemoteControl,
    pub session: SessionConfig,
    /// What happens to a pane when its program exits.
    pub exit_behavior: ExitBehavior,
    /// How the window hands its frames to the screen. Read at start.
    pub present_mode: PresentMode,
    /// Inject tern's OSC 133 / OSC 7 integration into bash, zsh and fish.
    pub shell_integration: bool,
    pub notify: NotifyConfig,
    /// Bindings that type text.
    pub send_text: Vec<SendText>,
    /// How remote worktrees (`ssh://host/path`, `host:path`) are reached.
    pub remote: RemoteConfig,
    /// Extra regular expressions the hints (Ctrl+Shift+H) label, before the built-in
    /// URLs, paths, `path:line`, hashes and IP addresses.
    pub hint_patterns: Vec<String>,
    /// The editor a hint's `path:line` opens in, at that line, in a new tab (`"nvim"`,
    /// `"code --wait"`...); `None`: `$VISUAL`, else `$EDITOR` (tern's, else the user's
    /// interactive shell's: `crate::shell_env`), else the file opener.
    pub editor: Option<String>,
    /// What "Review changes" runs in a new tab of the worktree, through `sh -c`;
    /// `{base}` stands for the repository's main branch. `None`: `git diff
    /// --merge-base {base}` (git's pager shows it), then a line that keeps the tab until
    /// Enter. Say `lazygit`, `tig {base}..` or
    /// `git diff --merge-base {base} | delta` for another reviewer.
    pub review_command: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            font: FontConfig::default(),
            padding: 0.0,
            theme: ThemeConfig::default(),
            scrollback_lines: TermConfig::default().scrollback_lines,
            shell: ShellConfig::default(),
            env: BTreeMap::new(),
            cursor: CursorConfig::default(),
            key_bindings: BTreeMap::new(),
            flow_control_window_bytes: PipelineConfig::default().window_bytes,
            clipboard: ClipboardConfig::default(),
            confirm_on_close: true,
            confirm_multiline_paste: true,
            resize_requests: false,
            rect_checksum_reports: true,
            remote_control: true,
            pane_remote_control: PaneRemoteControl::OwnPane,
            session: SessionConfig::default(),
            exit_behavior: ExitBehavior::default(),
            present_mode: PresentMode::default(),
            shell_integration: true,
            notify: NotifyConfig::default(),
            send_text: Vec::new(),
            remote: RemoteConfig::default(),
            hint_patterns: Vec::new(),
            editor: None,
            review_command: None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShellConfig {
    /// The program new panes run; `None`: the user's login shell.
    pub program: Option<String>,
    pub args: Vec<String>,
    /// Start the shell as a login shell (`-l`): it reads `/etc/profile` and
    /// `~/.profile` (or `.bash_profile`, `.zprofile`) before its rc file. Off by
    /// default, as GNOME Terminal, Konsole and Alacritty start shells on Linux: the
    /// desktop's own login already read the profile, and Debian's `/etc/profile` sets
    /// `PATH` afresh. On, as WezTerm and Ghostty do, each pane reads the profile again;
    /// folders on tern's own `PATH` that the profile dropped are put back at its end.
    /// Applies to the shell tern picks, and to `program` when it names bash, zsh or
    /// fish with no `args`.
    pub login: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CursorStyle {
    #[default]
    Block,
    Beam,
    Underline,
}

/// The cursor until a program asks for another (DECSCUSR).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CursorConfig {
    pub style: CursorStyle,
    pub blinking: bool,
}

/// What to do when a program asks for the clipboard through OSC 52.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ClipboardPolicy {
    Allow,
    /// Show the request and let the user decide.
    Ask,
    Deny,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClipboardConfig {
    /// Programs setting the clipboard (how `ssh` sessions and tmux copy): allowed.
    pub osc52_write: ClipboardPolicy,
    /// Programs reading the clipboard: denied (anything on the remote side of an ssh
    /// session could read what you copied).
    pub osc52_read: ClipboardPolicy,
}

impl Default for ClipboardConfig {
    fn default() -> Self {
        ClipboardConfig {
            osc52_write: ClipboardPolicy::Allow,
            osc52_read: ClipboardPolicy::Deny,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionConfig {
    /// Reopen the last session's worktrees, tabs and splits (programs start fresh in
    /// their folders).
    pub restore: bool,
    /// Also show each pane's last screen of text, above the new prompt. Off by
    /// default: it writes whatever was on screen (secrets included) to disk.
    pub restore_last_screen: bool,
    /// Programs started again, resumed, in a restored tab that ran them
    /// (`crate::resume`); others come back as a shell saying what ran there.
    pub resume: Vec<crate::resume::ResumeRule>,
    /// Keep each pane's history in the state folder as it grows (compressed, private,
    /// capped, removed when the pane is closed), so that a restart, even after a
    /// reboot, shows it above the program that comes back.
    pub persist_scrollback: bool,
    /// Closing the window while programs run: ask whether to keep them running (a
    /// keeper holds them for the next start) or end them, or decide for good.
    pub on_close: OnClose,
}

/// What closing the window does to the programs still running in it (the keeper
/// holds those kept; without a keeper they end, as always).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OnClose {
    /// Ask each time (Keep running / End them / Cancel).
    #[default]
    Ask,
    /// Keep them running without asking; the next start takes them back.
    KeepRunning,
    /// End them (asking first, as `confirm_close` says, like a tab's close).
    End,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            restore: true,
            restore_last_screen: false,
            resume: crate::resume::default_rules(),
            persist_scrollback: true,
            on_close: OnClose::Ask,
        }
    }
}

/// Remote worktrees: tmux in control mode on another machine, through the system
/// `ssh` (see `tern_core::tmux`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RemoteConfig {
    /// The ssh program.
    pub ssh: String,
    /// Options given to ssh before the host (`["-F", "/path/config"]`, `["-J", "jump"]`).
    pub ssh_options: Vec<String>,
    /// `-o BatchMode=yes`: fail instead of asking for a password or a host key.
    pub batch_mode: bool,
    /// The tmux program on the host and its options, as words
    /// (`["tmux", "-L", "agents"]`).
    pub tmux: Vec<String>,
}

impl Default for RemoteConfig {
    fn default() -> Self {
        RemoteConfig {
            ssh: String::from("ssh"),
            ssh_options: Vec::new(),
            batch_mode: false,
            tmux: vec![String::from("tmux")],
        }
    }
}

/// What a program in a pane may do to other panes over `tern msg`
/// (`workspace::remote_policy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PaneRemoteControl {
    /// Its own pane only (and new tabs, splits, the list).
    #[default]
    OwnPane,
    /// Any pane, as the user's own tools outside tern.
    AllPanes,
}

/// What happens to a pane when its program exits (like kitty's `close_on_child_death`
/// and WezTerm's `exit_behavior`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ExitBehavior {
    /// The pane closes (and its tab, and the window, when it was the last).
    #[default]
    Close,
    /// The pane stays, with a line saying how the program ended.
    Hold,
    /// Closes after a status of 0; stays after a failure or a signal.
    HoldOnFailure,
}

/// How the window presents its frames. Either way at most one frame waits ahead of the
/// screen, so a key's echo is never queued behind frames built before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PresentMode {
    /// The lowest latency the surface offers: Immediate, else Mailbox, else FIFO (a
    /// frame may tear where Immediate is used).
    #[default]
    LowLatency,
    /// Wait for the vertical blank (FIFO; relaxed FIFO where offered): no tearing, up
    /// to one refresh more latency.
    Vsync,
}

impl ExitBehavior {
    /// Whether a pane whose program ended with `code` (and `signal`) stays open.
    pub fn holds(self, code: i32, signaled: bool) -> bool {
        match self {
            ExitBehavior::Close => false,
            ExitBehavior::Hold => true,
            ExitBehavior::HoldOnFailure => code != 0 || signaled,
        }
    }
}

/// A config that did not load: where, and why. `Display`: `path:line:col: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub path: PathBuf,
    /// 1-based line and column of the problem; `None` for I/O errors.
    pub position: Option<(usize, usize)>,
    pub message: String,
    /// The file does not exist (the app then runs on defaults without complaint).
    pub not_found: bool,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some((line, col)) = self.position {
            write!(f, ":{line}:{col}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Reads and parses the file at `path`.
    pub fn load(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let path = path.as_ref();
        let text = settings_file::read_settings_file(path).map_err(|e| ConfigError {
            path: path.to_owned(),
            position: None,
            message: e.to_string(),
            not_found: e.kind() == std::io::ErrorKind::NotFound,
        })?;
        Config::parse(&text, path)
    }

    /// [`Config::load`], with a missing file meaning the defaults.
    pub fn load_or_default(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        match Config::load(path) {
            Err(e) if e.not_found => Ok(Config::default()),
            other => other,
        }
    }

    /// Parses config text; `path` only labels errors. Blank text is the defaults.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let config = Config::parse_settings(text, path.as_ref())?;
        // A theme name that names nothing is an error of the file, where it is written
        // (the window keeps the last good settings).
        if let Some((_, name, e)) = config.theme.unknown_names().into_iter().next() {
            return Err(ConfigError {
                path: path.as_ref().to_owned(),
                position: position_of(text, &name),
                message: e,
                not_found: false,
            });
        }
        Ok(config)
    }

    /// Parses config text into settings without asking whether the themes it names
    /// exist (`tern config check` reports those beside every other problem). An
    /// unknown field's error offers the nearest field's name.
    pub fn parse_settings(text: &str, path: &Path) -> Result<Config, ConfigError> {
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        let mut config: Config =
            ron_options()
                .from_str(text)
                .map_err(|e: ron::error::SpannedError| ConfigError {
                    path: path.to_owned(),
                    position: Some((e.span.start.line, e.span.start.col)),
                    message: message_with_suggestion(&e.code),
                    not_found: false,
                })?;
        config.theme.themes_dir = path.parent().map(|d| d.join("themes"));
        Ok(config)
    }

    /// [`Config::parse_settings`] reporting every problem of the file in one run (each
    /// erring entry left out and the rest parsed on), in the file's order, with the
    /// settings the rest makes.
    pub fn parse_reporting_all(text: &str, path: &Path) -> (Config, Vec<ConfigError>) {
        every_problem::parse_reporting_all(text, path)
    }

    /// The config as RON (pretty), e.g. to show the effective settings.
    pub fn to_ron(&self) -> String {
        let pretty = ron::ser::PrettyConfig::new().struct_names(false);
        ron_options()
            .to_string_pretty(self, pretty)
            .unwrap_or_else(|e| format!("// could not write the config: {e}"))
    }

    /// Where the config lives: `$TERN_CONFIG` if set, else `<config dir>/tern/config.ron`
    /// (`$XDG_CONFIG_HOME` or `~/.config` on Linux, `~/Library/Application Support` on
    /// macOS). `None` when no home folder is known.
    pub fn default_path() -> Option<PathBuf> {
        if let Some(p) = std::env::var_os(CONFIG_ENV).filter(|p| !p.is_empty()) {
            return Some(PathBuf::from(p));
        }
        dirs::config_dir().map(|d| d.join("tern").join("config.ron"))
    }

    /// Writes the documented default file to `path` unless a file is there (for the
    /// app's "open config" action). Returns whether it wrote.
    pub fn write_default_if_missing(path: impl AsRef<Path>) -> std::io::Result<bool> {
        let path = path.as_ref();
        if path.exists() {
            return Ok(false);
        }
        crate::atomic_file::write_atomic(path, DEFAULT_CONFIG_RON.as_bytes())?;
        Ok(true)
    }

    /// The model's settings from this config (scrollback, theme, cursor).
    pub fn term_config(&self) -> TermConfig {
        TermConfig {
            scrollback_lines: self.scrollback_lines,
            // The byte cap follows the line count (128 B a line, far above a typical
            // line's encoding) so that a long history asked for is kept whole.
            scrollback_bytes: TermConfig::default().scrollback_bytes.max(
                self.scrollback_lines
                    .saturating_mul(SCROLLBACK_BYTES_PER_LINE),
            ),
            palette: self.theme.palette_defaults(),
            cursor_shape: match self.cursor.style {
                CursorStyle::Block => CursorShape::Block,
                CursorStyle::Beam => CursorShape::Beam,
                CursorStyle::Underline => CursorShape::Underline,
            },
            cursor_blink: self.cursor.blinking,
            rect_checksum_reports: self.rect_checksum_reports,
            far_side: false,
        }
    }

    /// The pipeline's settings from this config (flow-control window, scrollback).
    pub fn pipeline_config(&self) -> PipelineConfig {
        PipelineConfig {
            window_bytes: self.flow_control_window_bytes.max(4096),
            term: self.term_config(),
            ..PipelineConfig::default()
        }
    }

    /// How to start a new pane's program: the configured shell (or the login shell)
    /// with the configured environment, in `cwd`.
    pub fn spawn_spec(&self, cwd: Option<PathBuf>) -> SpawnSpec {
        SpawnSpec {
            command: self.shell.program.clone().map(|p| {
                let mut args = self.shell.args.clone();
                if self.shell.login
                    && args.is_empty()
                    && crate::shell_integration::Shell::detect(&p).is_some()
                {
                    args.push("-l".to_owned());
                }
                (p, args)
            }),
            history_key: None,
            login_shell: self.shell.login,
            cwd,
            size: None,
            env: self
                .env
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            shell_integration: self
                .shell_integration
                .then(crate::shell_integration::default_dir)
                .flatten(),
        }
    }
}

/// RON's message, with the nearest allowed name for an unknown field or variant.
fn message_with_suggestion(code: &ron::Error) -> String {
    let hint = match code {
        ron::Error::NoSuchStructField {
            expected, found, ..
        } => suggest::did_you_mean(found, expected.iter().copied()),
        ron::Error::NoSuchEnumVariant {
            expected, found, ..
        } => suggest::did_you_mean(found, expected.iter().copied()),
        _ => String::new(),
    };
    format!("{code}{hint}")
}

/// The 1-based line and column where `needle` is first written in `text` (quoted
/// first: `"Dracla"`, then bare).
pub fn position_of(text: &str, needle: &str) -> Option<(usize, usize)> {
    if needle.is_empty() {
        return None;
    }
    let at = text
        .find(&format!("\"{needle}\""))
        .or_else(|| text.find(needle))?;
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    Some((line, col))
}

fn ron_options() -> ron::Options {
    ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
}
