//! The commands tern sends to tmux, and the version check.
//!
//! Every command is one line. Arguments that come from outside (a folder) are single
//! quoted (a `'` inside as `'\''`, tmux's parser takes `\'` outside quotes as a quote)
//! and refused when they hold a control character, since a newline would end the
//! command line and start another. Formats (`-F`) are fixed here and their replies
//! parsed by [`WindowInfo::parse`] and [`PaneInfo::parse`]. Keys go as hex
//! (`send-keys -H 1b 5b 41`), so every byte arrives exactly as it was; long input is
//! cut into commands of [`SEND_KEYS_CHUNK`] bytes.

use std::ffi::OsStr;
use std::fmt;

use super::layout::Layout;
use super::{TmuxPaneId, WindowId};

/// Bytes per `send-keys -H` command (3 characters each on the command line).
pub const SEND_KEYS_CHUNK: usize = 1024;

/// `list-windows -F`: name last, since it may hold spaces.
pub const LIST_WINDOWS_FORMAT: &str = "#{window_id} #{window_index} #{window_active} #{window_layout} #{window_visible_layout} #{window_name}";

/// `list-panes -F`.
pub const LIST_PANES_FORMAT: &str = "#{pane_id} #{window_id} #{pane_index} #{pane_width} #{pane_height} #{pane_left} #{pane_top} #{pane_active} #{pane_in_mode} #{pane_dead}";

/// What `refresh-client -A` does to a pane's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowAction {
    /// Stop sending it (tmux keeps the screen up to date and sends nothing until
    /// `Continue`).
    Pause,
    /// Send it again (after a `%pause`, or a `Pause`).
    Continue,
}

/// Where `split-window` puts the new pane (`Right`: `-h`, `Down`: `-v`).
pub use crate::ipc::SplitDirection;

/// A command for tmux.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `send-keys -t %P -H XX …`: `bytes` reach the pane's program exactly.
    SendKeys { pane: TmuxPaneId, bytes: Vec<u8> },
    /// `refresh-client -C COLSxROWS`: the size this client gives its windows.
    ResizeClient { cols: u16, rows: u16 },
    /// `refresh-client -f pause-after=N`: pause a pane whose output is `seconds`
    /// behind (tmux ≥ 3.2); output then comes as `%extended-output`.
    PauseAfter { seconds: u32 },
    /// `refresh-client -A '%P:pause'` or `'%P:continue'`.
    PaneFlow {
        pane: TmuxPaneId,
        action: FlowAction,
    },
    /// `capture-pane -p -e -N -t %P`: the pane's visible screen, with attributes as
    /// escape sequences, one line per row; `-N` keeps trailing blanks, which carry
    /// a background colour (a coloured bar of spaces is lost without it).
    CapturePane { pane: TmuxPaneId },
    /// `split-window -h|-v -t %P -P -F '#{pane_id}'`: replies the new pane's id.
    SplitWindow {
        pane: TmuxPaneId,
        direction: SplitDirection,
    },
    /// `new-window [-c DIR] -P -F '#{window_id} #{pane_id}'`.
    NewWindow { cwd: Option<String> },
    /// `list-windows -F LIST_WINDOWS_FORMAT` (the attached session's windows).
    ListWindows,
    /// `list-panes -F LIST_PANES_FORMAT`, of one window or (`None`) the session.
    ListPanes { window: Option<WindowId> },
    /// `detach-client`: the control client exits, the session runs on.
    DetachClient,
    /// `kill-pane -t %P`.
    KillPane { pane: TmuxPaneId },
    /// `select-window -t @W`.
    SelectWindow { window: WindowId },
    /// `select-pane -t %P`.
    SelectPane { pane: TmuxPaneId },
    /// `display-message -p -t %P '#{cursor_x} #{cursor_y} #{alternate_on}'`: where the
    /// pane's cursor is and which screen it shows (read with [`PaneCursor::parse`]),
    /// for a repaint after [`Command::CapturePane`].
    PaneCursor { pane: TmuxPaneId },
}

/// The reply to [`Command::PaneCursor`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaneCursor {
    /// Column, 0-based.
    pub x: u32,
    /// Row, 0-based.
    pub y: u32,
    /// The pane shows its alternate screen.
    pub alternate: bool,
}

impl PaneCursor {
    pub fn parse(line: &[u8]) -> Option<PaneCursor> {
        let text = std::str::from_utf8(line).ok()?;
        let mut words = text.split(' ');
        let cursor = PaneCursor {
            x: words.next()?.parse().ok()?,
            y: words.next()?.parse().ok()?,
            alternate: flag(words.next()?)?,
        };
        words.next().is_none().then_some(cursor)
    }
}

/// A command that cannot be written safely.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandError {
    /// An argument holds a control character (a newline would end the command).
    ControlCharacter { argument: String },
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::ControlCharacter { argument } => {
                write!(f, "argument {argument:?} holds a control character")
            }
        }
    }
}

impl std::error::Error for CommandError {}

/// `text` as a literal in an argument tmux expands as a format (`new-session -c`
/// and `-s`, `new-window -c`): every `#` doubled, so a folder named `#(cmd)` or
/// `#{host}` is that folder, not a command tmux runs or a value it fills in.
pub fn format_literal(text: &str) -> String {
    text.replace('#', "##")
}

/// Single-quotes `arg` for tmux's command parser.
pub fn quote(arg: &str) -> Result<String, CommandError> {
    if arg.chars().any(char::is_control) {
        return Err(CommandError::ControlCharacter {
            argument: arg.to_owned(),
        });
    }
    Ok(format!("'{}'", arg.replace('\'', "'\\''")))
}

impl Command {
    /// `bytes` as `send-keys` commands of at most [`SEND_KEYS_CHUNK`] bytes each (none
    /// for no bytes).
    pub fn send_keys(pane: TmuxPaneId, bytes: &[u8]) -> Vec<Command> {
        bytes
            .chunks(SEND_KEYS_CHUNK)
            .map(|chunk| Command::SendKeys {
                pane,
                bytes: chunk.to_vec(),
            })
            .collect()
    }

    /// The command line, without its newline.
    pub fn line(&self) -> Result<String, CommandError> {
        use std::fmt::Write as _;
        Ok(match self {
            Command::SendKeys { pane, bytes } => {
                let mut line = format!("send-keys -t {pane} -H");
                for b in bytes {
                    let _ = write!(line, " {b:02x}");
                }
                line
            }
            Command::ResizeClient { cols, rows } => format!("refresh-client -C {cols}x{rows}"),
            Command::PauseAfter { seconds } => format!("refresh-client -f pause-after={seconds}"),
            Command::PaneFlow { pane, action } => {
                let action = match action {
                    FlowAction::Pause => "pause",
                    FlowAction::Continue => "continue",
                };
                format!("refresh-client -A '{pane}:{action}'")
            }
            Command::CapturePane { pane } => format!("capture-pane -p -e -N -t {pane}"),
            Command::SplitWindow { pane, direction } => {
                let flag = match direction {
                    SplitDirection::Right => "-h",
                    SplitDirection::Down => "-v",
                };
                format!("split-window {flag} -t {pane} -P -F '#{{pane_id}}'")
            }
            Command::NewWindow { cwd } => {
                let mut line = String::from("new-window");
                if let Some(cwd) = cwd {
                    // `-c` is expanded as a format.
                    let _ = write!(line, " -c {}", quote(&format_literal(cwd))?);
                }
                line.push_str(" -P -F '#{window_id} #{pane_id}'");
                line
            }
            Command::ListWindows => format!("list-windows -F '{LIST_WINDOWS_FORMAT}'"),
            Command::ListPanes {
                window: Some(window),
            } => {
                format!("list-panes -t {window} -F '{LIST_PANES_FORMAT}'")
            }
            Command::ListPanes { window: None } => {
                format!("list-panes -s -F '{LIST_PANES_FORMAT}'")
            }
            Command::DetachClient => String::from("detach-client"),
            Command::KillPane { pane } => format!("kill-pane -t {pane}"),
            Command::SelectWindow { window } => format!("select-window -t {window}"),
            Command::SelectPane { pane } => format!("select-pane -t {pane}"),
            Command::PaneCursor { pane } => format!(
                "display-message -p -t {pane} '#{{cursor_x}} #{{cursor_y}} #{{alternate_on}}'"
            ),
        })
    }
}

/// One line of a [`Command::ListWindows`] reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowInfo {
    pub window: WindowId,
    pub index: u32,
    pub active: bool,
    pub layout: Layout,
    pub visible_layout: Layout,
    pub name: String,
}

/// One line of a [`Command::ListPanes`] reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaneInfo {
    pub pane: TmuxPaneId,
    pub window: WindowId,
    pub index: u32,
    pub width: u32,
    pub height: u32,
    pub left: u32,
    pub top: u32,
    pub active: bool,
    pub in_mode: bool,
    pub dead: bool,
}

fn flag(word: &str) -> Option<bool> {
    match word {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

impl WindowInfo {
    /// Parses a line written with [`LIST_WINDOWS_FORMAT`].
    pub fn parse(line: &[u8]) -> Option<WindowInfo> {
        let text = String::from_utf8_lossy(line);
        let mut words = text.splitn(6, ' ');
        Some(WindowInfo {
            window: WindowId::parse(words.next()?)?,
            index: words.next()?.parse().ok()?,
            active: flag(words.next()?)?,
            layout: Layout::parse(words.next()?).ok()?,
            visible_layout: Layout::parse(words.next()?).ok()?,
            name: words.next().unwrap_or("").to_owned(),
        })
    }
}

impl PaneInfo {
    /// Parses a line written with [`LIST_PANES_FORMAT`].
    pub fn parse(line: &[u8]) -> Option<PaneInfo> {
        let text = std::str::from_utf8(line).ok()?;
        let words: Vec<&str> = text.split(' ').collect();
        let [
            pane,
            window,
            index,
            width,
            height,
            left,
            top,
            active,
            in_mode,
            dead,
        ] = words[..]
        else {
            return None;
        };
        Some(PaneInfo {
            pane: TmuxPaneId::parse(pane)?,
            window: WindowId::parse(window)?,
            index: index.parse().ok()?,
            width: width.parse().ok()?,
            height: height.parse().ok()?,
            left: left.parse().ok()?,
            top: top.parse().ok()?,
            active: flag(active)?,
            in_mode: flag(in_mode)?,
            dead: flag(dead)?,
        })
    }
}

/// A tmux version (`tmux -V`), as far as features go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmuxVersion {
    pub major: u32,
    pub minor: u32,
    /// What `tmux -V` said after `tmux `, for messages.
    pub text: String,
}

/// The oldest tmux this client works with: `refresh-client -f pause-after`, which
/// tern's flow control maps onto, came in tmux 3.2.
pub const MIN_VERSION: (u32, u32) = (3, 2);

impl TmuxVersion {
    pub fn at_least(&self, (major, minor): (u32, u32)) -> bool {
        (self.major, self.minor) >= (major, minor)
    }
}

/// Why tmux cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VersionError {
    /// No tmux to run (`program` did not start).
    Missing { program: String, error: String },
    /// `tmux -V` failed.
    Failed { program: String, message: String },
    /// It said something that is not a version.
    Unrecognized { output: String },
    /// Older than [`MIN_VERSION`].
    TooOld { found: String },
}

impl fmt::Display for VersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (major, minor) = MIN_VERSION;
        match self {
            VersionError::Missing { program, error } => write!(
                f,
                "tmux is not installed ({program}: {error}); tern needs tmux {major}.{minor} or newer"
            ),
            VersionError::Failed { program, message } => {
                write!(f, "`{program} -V` failed: {message}")
            }
            VersionError::Unrecognized { output } => {
                write!(f, "`tmux -V` said {output:?}, not a version tern knows")
            }
            VersionError::TooOld { found } => write!(
                f,
                "tmux {found} is too old: tern needs tmux {major}.{minor} or newer (for refresh-client -f pause-after)"
            ),
        }
    }
}

impl std::error::Error for VersionError {}

/// Parses `tmux -V`'s output: `tmux 3.3a`, `tmux 3.4-rc2`, `tmux next-3.5` (a
/// development build before 3.5), `tmux master`, or `tmux openbsd-7.4` (OpenBSD's
/// own, which has had pause-after since OpenBSD 6.9).
pub fn parse_version(output: &str) -> Result<TmuxVersion, VersionError> {
    let unrecognized = || VersionError::Unrecognized {
        output: output.trim().to_owned(),
    };
    let text = output
        .trim()
        .strip_prefix("tmux ")
        .ok_or_else(unrecognized)?
        .trim();
    let numbers = |s: &str| -> Option<(u32, u32)> {
        let (major, rest) = s.split_once('.')?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        Some((major.parse().ok()?, digits.parse().ok()?))
    };
    let (major, minor) = if text == "master" {
        (u32::MAX, 0)
    } else if let Some(openbsd) = text.strip_prefix("openbsd-") {
        let release = numbers(openbsd).ok_or_else(unrecognized)?;
        if release >= (6, 9) {
            MIN_VERSION
        } else {
            (3, 1)
        }
    } else {
        numbers(text.strip_prefix("next-").unwrap_or(text)).ok_or_else(unrecognized)?
    };
    Ok(TmuxVersion {
        major,
        minor,
        text: text.to_owned(),
    })
}

/// Parses `tmux -V`'s output and checks it is new enough.
pub fn check_version(output: &str) -> Result<TmuxVersion, VersionError> {
    let version = parse_version(output)?;
    if !version.at_least(MIN_VERSION) {
        return Err(VersionError::TooOld {
            found: version.text,
        });
    }
    Ok(version)
}

/// Runs `PROGRAM -V` here and checks the version.
pub fn local_version(program: &OsStr) -> Result<TmuxVersion, VersionError> {
    let name = program.to_string_lossy().into_owned();
    let output = std::process::Command::new(program)
        .arg("-V")
        .output()
        .map_err(|e| VersionError::Missing {
            program: name.clone(),
            error: e.to_string(),
        })?;
    if !output.status.success() {
        return Err(VersionError::Failed {
            program: name,
            message: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        });
    }
    check_version(&String::from_utf8_lossy(&output.stdout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn send_keys_is_hex_and_chunked() {
        assert_eq!(
            Command::SendKeys {
                pane: TmuxPaneId(3),
                bytes: vec![0x00, b'\n', 0xff, b'\'']
            }
            .line()
            .unwrap(),
            "send-keys -t %3 -H 00 0a ff 27"
        );
        let commands = Command::send_keys(TmuxPaneId(1), &vec![b'x'; SEND_KEYS_CHUNK * 2 + 1]);
        assert_eq!(commands.len(), 3);
        assert!(Command::send_keys(TmuxPaneId(1), b"").is_empty());
    }

    #[test]
    fn command_lines_are_what_tmux_expects() {
        assert_eq!(
            Command::ResizeClient {
                cols: 120,
                rows: 40
            }
            .line()
            .unwrap(),
            "refresh-client -C 120x40"
        );
        assert_eq!(
            Command::PauseAfter { seconds: 2 }.line().unwrap(),
            "refresh-client -f pause-after=2"
        );
        assert_eq!(
            Command::PaneFlow {
                pane: TmuxPaneId(7),
                action: FlowAction::Continue
            }
            .line()
            .unwrap(),
            "refresh-client -A '%7:continue'"
        );
        assert_eq!(
            Command::CapturePane {
                pane: TmuxPaneId(2)
            }
            .line()
            .unwrap(),
            "capture-pane -p -e -N -t %2"
        );
        assert_eq!(
            Command::SplitWindow {
                pane: TmuxPaneId(0),
                direction: SplitDirection::Right
            }
            .line()
            .unwrap(),
            "split-window -h -t %0 -P -F '#{pane_id}'"
        );
    }

    #[test]
    fn pane_commands_and_the_cursor_reply() {
        assert_eq!(
            Command::PaneCursor {
                pane: TmuxPaneId(4)
            }
            .line()
            .unwrap(),
            "display-message -p -t %4 '#{cursor_x} #{cursor_y} #{alternate_on}'"
        );
        assert_eq!(
            Command::KillPane {
                pane: TmuxPaneId(4)
            }
            .line()
            .unwrap(),
            "kill-pane -t %4"
        );
        assert_eq!(
            Command::SelectWindow {
                window: WindowId(2)
            }
            .line()
            .unwrap(),
            "select-window -t @2"
        );
        assert_eq!(
            PaneCursor::parse(b"12 3 1"),
            Some(PaneCursor {
                x: 12,
                y: 3,
                alternate: true
            })
        );
        assert_eq!(PaneCursor::parse(b"12 3"), None);
        assert_eq!(PaneCursor::parse(b"12 3 0 x"), None);
    }

    #[test]
    fn a_folder_is_quoted_and_a_newline_refused() {
        assert_eq!(
            Command::NewWindow {
                cwd: Some("/w/it's #1".into())
            }
            .line()
            .unwrap(),
            "new-window -c '/w/it'\\''s ##1' -P -F '#{window_id} #{pane_id}'"
        );
        assert!(
            Command::NewWindow {
                cwd: Some("/w\nkill-server".into())
            }
            .line()
            .is_err()
        );
    }

    #[test]
    fn list_replies_parse() {
        let w =
            WindowInfo::parse(b"@1 0 1 a87e,100x30,0,0,1 a87e,100x30,0,0,1 my  window").unwrap();
        assert_eq!(
            (w.window, w.index, w.active, w.name.as_str()),
            (WindowId(1), 0, true, "my  window")
        );
        assert_eq!(w.layout.panes(), vec![TmuxPaneId(1)]);
        assert!(WindowInfo::parse(b"@1 0 1 ffff,100x30,0,0,1 a87e,100x30,0,0,1 x").is_none());
        let p = PaneInfo::parse(b"%4 @1 0 80 24 0 0 1 0 0").unwrap();
        assert_eq!(
            (p.pane, p.window, p.width, p.height, p.active),
            (TmuxPaneId(4), WindowId(1), 80, 24, true)
        );
        assert!(PaneInfo::parse(b"%4 @1 0 80 24 0 0 1 0").is_none());
    }

    #[test]
    fn versions() {
        assert!(check_version("tmux 3.3a\n").is_ok());
        assert!(check_version("tmux 3.2").is_ok());
        assert!(check_version("tmux next-3.5").is_ok());
        assert!(check_version("tmux master").is_ok());
        assert!(check_version("tmux openbsd-7.4").is_ok());
        assert!(check_version("tmux 3.4-rc2").is_ok());
        let old = check_version("tmux 3.1c").unwrap_err();
        assert_eq!(
            old,
            VersionError::TooOld {
                found: "3.1c".into()
            }
        );
        assert!(old.to_string().contains("needs tmux 3.2 or newer"), "{old}");
        assert!(matches!(
            check_version("bash: tmux: not found"),
            Err(VersionError::Unrecognized { .. })
        ));
        let missing = local_version(OsStr::new("/nonexistent/tmux")).unwrap_err();
        assert!(matches!(missing, VersionError::Missing { .. }));
        assert!(
            missing.to_string().contains("tmux 3.2 or newer"),
            "{missing}"
        );
    }
}
