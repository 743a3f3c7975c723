//! The command line (clap): the window's flags, `--headless`, and the subcommands
//! (`msg`, `config`, `completions`, `man`, `replay`). `tern completions SHELL` and
//! `tern man` generate from this one definition, so they never drift from it.

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "tern",
    version,
    about = "A GPU terminal for many shells and coding agents",
    after_help = "A second plain `tern` start opens a tab in the running tern (its socket: \
                  $XDG_RUNTIME_DIR/tern/session.sock) instead of restoring the session twice."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// No window. With `-- CMD` (or --dump-screen): run CMD (or the shell) through
    /// the whole pipeline and exit with its status. Without: serve the workspace
    /// (tabs, splits, session) over `tern msg` until SIGTERM.
    #[arg(long)]
    pub headless: bool,
    #[arg(long, default_value_t = 80)]
    pub cols: usize,
    #[arg(long, default_value_t = 24)]
    pub rows: usize,
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub working_directory: Option<PathBuf>,
    #[command(flatten)]
    pub settings: SettingsArgs,
    #[command(flatten)]
    pub window: WindowArgs,
    /// Keep a pane open after its program exits, with a line saying how it ended
    /// (the config's exit_behavior: Hold).
    #[arg(long)]
    pub hold: bool,
    /// With --headless: write the final visible screen as text to PATH (`-` for stdout).
    #[arg(long, value_name = "PATH")]
    pub dump_screen: Option<String>,
    /// With --headless: when the child exits, write the diagnostics report (RON: the
    /// delivery table, latency histograms, throughput, breadcrumbs, environment) to PATH.
    #[arg(long, value_name = "PATH")]
    pub diagnostics_report: Option<PathBuf>,
    /// Run this program (and arguments) instead of the login shell, like alacritty's -e.
    /// The window closes when it exits and tern exits with its status.
    #[arg(short = 'e', long = "command", num_args = 1.., allow_hyphen_values = true)]
    pub exec: Vec<String>,
    /// The program and its arguments (after `--`).
    #[arg(last = true)]
    pub program: Vec<String>,
}

/// Where settings come from: shared by the window, `--headless` and `tern config`.
/// How the window names itself to the desktop.
#[derive(Args, Debug, Clone, Default)]
pub struct WindowArgs {
    /// The window's title (programs may still set the tab titles).
    #[arg(long, value_name = "TITLE")]
    pub title: Option<String>,
    /// The window class: the Wayland app_id and the X11 WM_CLASS instance name, for
    /// window rules and task bars (default: tern, as in tern.desktop).
    #[arg(long, value_name = "NAME")]
    pub class: Option<String>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct SettingsArgs {
    /// Read settings from PATH instead of the platform file (~/.config/tern/config.ron
    /// or $TERN_CONFIG), for the window, --headless and `tern config`.
    #[arg(long, value_name = "PATH", global = true, value_hint = clap::ValueHint::FilePath)]
    pub config: Option<PathBuf>,
    /// Override one setting: a dotted name and a value (`-o font.size=18`,
    /// `-o theme.name=Light`, `-o exit_behavior=Hold`). Repeatable; applied over the
    /// file. A bad one is reported and the rest apply.
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE", global = true)]
    pub overrides: Vec<String>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Feed a file of terminal output to a fresh model and print the visible screen.
    Replay {
        /// The recorded bytes.
        file: PathBuf,
        #[arg(long, default_value_t = 80)]
        cols: usize,
        #[arg(long, default_value_t = 24)]
        rows: usize,
        /// Also print the attribute runs of each row.
        #[arg(long)]
        attrs: bool,
    },
    /// Control a running tern (open tabs, type into panes, list them).
    Msg(MsgArgs),
    /// Check or print the settings.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Set up a coding agent to tell tern what it does (its own hooks and notify
    /// settings), or take tern's entries out again.
    Agents {
        #[command(subcommand)]
        action: AgentsAction,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `tern man > tern.1`.
    Man,
    /// The keeper that holds the panes' programs while no tern runs (started by tern).
    #[command(hide = true)]
    Keeper {
        /// Serve (tern starts it so; it ends when it holds nothing).
        #[arg(long)]
        serve: bool,
        /// Hang up every program the keeper holds and end it.
        #[arg(long, conflicts_with = "serve")]
        stop: bool,
        /// Its socket (default: $XDG_RUNTIME_DIR/tern/keeper.sock).
        #[arg(long, value_name = "PATH")]
        socket: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug, Clone, Copy)]
pub enum AgentsAction {
    /// Write the agent's configuration so that it reports to tern: Claude Code's hooks
    /// in $CLAUDE_CONFIG_DIR/settings.json (default ~/.claude), Codex's notify and
    /// [tui] notification keys in $CODEX_HOME/config.toml (default ~/.codex). Merged
    /// into your file, a backup kept beside it (FILE.tern-backup); running it twice
    /// changes nothing.
    Setup {
        #[arg(value_enum)]
        agent: AgentArg,
        /// Print the change; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Take tern's entries out (your file as it was before setup).
        #[arg(long)]
        remove: bool,
    },
}

/// The agents `tern agents setup` and `tern msg agent-event` know.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentArg {
    Claude,
    Codex,
}

impl AgentArg {
    pub fn kind(self) -> tern_core::agent::AgentKind {
        match self {
            AgentArg::Claude => tern_core::agent::AgentKind::Claude,
            AgentArg::Codex => tern_core::agent::AgentKind::Codex,
        }
    }
}

#[derive(Subcommand, Debug, Clone, Copy)]
pub enum ConfigAction {
    /// Load the config file and the -o overrides; print each problem, exit 1 if any.
    Check,
    /// Print the effective settings (file, then -o overrides) as RON.
    Show,
}

#[derive(Args, Debug)]
pub struct MsgArgs {
    /// The socket of the tern to control (default: $TERN_SOCKET inside a tern pane,
    /// else $XDG_RUNTIME_DIR/tern/session.sock).
    #[arg(long, value_name = "PATH", value_hint = clap::ValueHint::FilePath)]
    pub socket: Option<PathBuf>,
    #[command(subcommand)]
    pub action: MsgAction,
}

#[derive(Subcommand, Debug)]
pub enum MsgAction {
    /// Open a tab (in the worktree group holding DIR) and print its pane's id.
    NewTab {
        #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
        cwd: Option<PathBuf>,
        #[arg(long)]
        title: Option<String>,
        /// The program and its arguments (default: the configured shell).
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Split a pane (default: the focused one) and print the new pane's id.
    Split {
        #[arg(long, value_name = "ID")]
        pane: Option<u64>,
        #[arg(long, value_enum, default_value_t = SplitWay::Right)]
        direction: SplitWay,
        #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
        cwd: Option<PathBuf>,
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Type TEXT into a pane's program (default: $TERN_PANE_ID). Add a newline
    /// yourself to run a command: `tern msg send-text --pane 3 $'make\n'`.
    SendText {
        #[arg(long, value_name = "ID")]
        pane: Option<u64>,
        text: String,
    },
    /// Show and focus a pane.
    Focus {
        #[arg(long, value_name = "ID")]
        pane: u64,
    },
    /// Close a pane (its program is ended without asking).
    Close {
        #[arg(long, value_name = "ID")]
        pane: u64,
    },
    /// Print every pane as a JSON array: id, worktree, worktree_path, branch, tab,
    /// title, cwd, pid, command, last_command, activity, activity_source,
    /// activity_since, wait_reason, notification, progress, exit_status, agent_session,
    /// focused.
    List,
    /// Print a pane's text (default: $TERN_PANE_ID): its screen, its last N lines
    /// (reaching into history), or with --scrollback all its history and screen.
    GetText {
        #[arg(long, value_name = "ID")]
        pane: Option<u64>,
        #[arg(long, value_name = "N")]
        lines: Option<usize>,
        #[arg(long)]
        scrollback: bool,
    },
    /// Search every pane's history and screen for PATTERN and print each matching line
    /// as a JSON line: pane, worktree, tab, line (counted from the pane's first line;
    /// its index in `get-text --scrollback` while no history was dropped), text. Plain
    /// text unless --regex; a pattern with no capital ignores case. Notes (a remote
    /// pane searched only as far as its history here goes, a search stopped at its
    /// limit) go to stderr.
    Search {
        pattern: String,
        /// PATTERN is a regular expression (Rust `regex` syntax).
        #[arg(long)]
        regex: bool,
        /// Only this pane.
        #[arg(long, value_name = "ID", conflicts_with = "worktree")]
        pane: Option<u64>,
        /// Only this worktree (its name as `list` gives it, its branch or its folder).
        #[arg(long, value_name = "W")]
        worktree: Option<String>,
        /// At most N matching lines (default 1000, at most 100000).
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
    },
    /// Say what the program in a pane does (default: $TERN_PANE_ID): its state, shown
    /// by every part of tern, until a newer report or the program ends. Outside tern,
    /// or with tern gone, it does nothing and exits 0.
    SetStatus {
        #[arg(long, value_name = "ID")]
        pane: Option<u64>,
        #[arg(long, value_enum, value_name = "STATE")]
        state: StatusArg,
        /// Why it waits, or what it does (shown with the state).
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
    },
    /// The hook command `tern agents setup` installs: reads the agent's hook JSON (on
    /// stdin, or as the last argument as Codex's notify passes it) and reports the
    /// pane's state and conversation. It never fails and prints nothing, so it never
    /// slows or breaks the agent.
    AgentEvent {
        #[arg(long, value_enum)]
        agent: Option<AgentArg>,
        /// The hook's JSON (default: read from stdin).
        json: Option<String>,
    },
    /// Wait until a pane is waiting, idle, done (a command finished) or its program
    /// exited; exit status 0 then, 2 when TIMEOUT seconds pass first.
    Wait {
        /// The pane to wait for (default: the pane this runs in, $TERN_PANE_ID).
        #[arg(long, value_name = "ID")]
        pane: Option<u64>,
        #[arg(long = "for", value_enum, value_name = "STATE")]
        state: WaitFor,
        /// Seconds (default: no limit).
        #[arg(long, value_name = "S")]
        timeout: Option<f64>,
    },
}

/// What `tern msg set-status` says; `clear` takes a report back.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusArg {
    Running,
    Waiting,
    Idle,
    Done,
    Clear,
}

/// What `tern msg wait` waits for.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitFor {
    Waiting,
    Idle,
    Done,
    Exit,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitWay {
    Right,
    Down,
}

/// The clap command (for completions and the man page).
pub fn command() -> clap::Command {
    Cli::command()
}

/// The completion script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut cmd = command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "tern", &mut out);
    out
}

/// The man page, roff: clap's name, synopsis, description and options, then every
/// subcommand with its usage (no pages of their own to refer to), the default keys
/// (from the window's command table), FILES and ENVIRONMENT.
pub fn man_page() -> std::io::Result<Vec<u8>> {
    let cmd = command();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    out.extend_from_slice(b".SH SUBCOMMANDS\n");
    for sub in cmd.get_subcommands() {
        let nested: Vec<&clap::Command> = sub.get_subcommands().collect();
        if nested.is_empty() {
            man_entry(&mut out, &["tern"], sub);
        } else {
            for leaf in nested {
                man_entry(&mut out, &["tern", sub.get_name()], leaf);
            }
        }
    }
    out.extend_from_slice(b".SH KEYS\nThe window's default keys (any can be changed with key_bindings in the config; Ctrl+Shift+P lists them with the current bindings):\n");
    for info in crate::window::commands::COMMANDS {
        if info.keys.is_empty() {
            continue;
        }
        out.extend_from_slice(
            format!(
                ".TP\n\\fB{}\\fR\n{}\n",
                roff(&info.keys.join(", ")),
                roff(info.title)
            )
            .as_bytes(),
        );
    }
    out.extend_from_slice(
        roff_sections(&[
            (
                "FILES",
                &[
                    ("~/.config/tern/config.ron", "The settings (every option is documented in the default file); reloaded when saved. A file that does not parse keeps the last good settings."),
                    ("~/.local/state/tern/session.ron", "The last session: worktrees, tabs, splits, each pane's folder and the program a tab was opened to run."),
                    ("$XDG_RUNTIME_DIR/tern/session.sock", "The socket tern msg talks to (tern-PID.sock for a tern that does not own the session)."),
                    ("$XDG_RUNTIME_DIR/tern/shell-VERSION/", "The shell integration scripts, written before each integrated shell starts."),
                ],
            ),
            (
                "ENVIRONMENT",
                &[
                    ("TERN_CONFIG", "The config file to read instead of the default."),
                    ("TERN_SESSION", "The session file to read and write instead of the default."),
                    ("TERN_SOCKET, TERN_PANE_ID", "Set for every program tern starts: the socket and the pane, for tern msg."),
                    ("TERN_TRACE", "A file to write the window's trace (JSON lines) to."),
                    ("SHELL", "The shell new panes run, unless the config names one."),
                    ("XDG_RUNTIME_DIR", "Where the socket and the shell integration scripts live."),
                ],
            ),
        ])
        .as_bytes(),
    );
    man.render_version_section(&mut out)?;
    Ok(out)
}

/// Text escaped for roff.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('-', "\\-");
    match escaped.chars().next() {
        Some('.' | '\'') => format!("\\&{escaped}"),
        _ => escaped,
    }
}

fn roff_sections(sections: &[(&str, &[(&str, &str)])]) -> String {
    let mut out = String::new();
    for (name, items) in sections {
        out.push_str(&format!(".SH {name}\n"));
        for (term, text) in *items {
            out.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff(term), roff(text)));
        }
    }
    out
}

/// One subcommand: its usage under `path`, and what it does.
fn man_entry(out: &mut Vec<u8>, path: &[&str], sub: &clap::Command) {
    let usage = sub.clone().render_usage().to_string();
    let usage = usage.trim_start_matches("Usage: ");
    let prefix = path.join(" ");
    let about = sub
        .get_long_about()
        .or(sub.get_about())
        .map(|a| a.to_string())
        .unwrap_or_default();
    out.extend_from_slice(
        format!(
            ".TP\n\\fB{}\\fR\n{}\n",
            roff(&format!("{prefix} {usage}")),
            roff(&about)
        )
        .as_bytes(),
    );
}

#[cfg(test)]
mod tests {
    /// clap checks the definition (conflicting flags, hints) only when it parses in a
    /// debug build; this makes every such mistake a test failure.
    #[test]
    fn the_command_line_definition_is_consistent() {
        super::command().debug_assert();
    }
}
