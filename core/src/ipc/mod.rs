//! `tern msg`: drive a running tern from outside, over a Unix socket.
//!
//! **Protocol** (version [`PROTOCOL_VERSION`]): one connection carries one request and
//! one reply, each a single line of JSON.
//!
//! ```text
//! → {"version":1,"request":{"type":"new-tab","cwd":"/src/wt","title":null,"command":["make"]}}
//! ← {"version":1,"ok":true,"result":{"pane":7}}
//! ← {"version":1,"ok":false,"error":"no pane 42"}
//! ```
//!
//! A request from a newer protocol, or a line that is not JSON, gets an `ok: false`
//! reply that says so; nothing reaches the app. The server ([`server`]) listens in
//! `$XDG_RUNTIME_DIR/tern/` (a 0700 folder owned by the user), accepts only peers of
//! the same uid (`SO_PEERCRED`), and hands each request to the app through a channel;
//! the app answers from its own loop, so a slow or silent client never blocks the
//! window. [`client`] is the `tern msg` side.

pub mod client;
pub mod server;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The protocol version this build speaks. A request with a higher version is refused
/// with a clear error; lower versions are accepted (there are none yet).
pub const PROTOCOL_VERSION: u32 = 1;

/// The environment variable naming the socket of the tern a program runs in.
pub const SOCKET_ENV: &str = "TERN_SOCKET";
pub use crate::pipeline::PANE_ENV;

/// The longest request line a server reads (a `send-text` paste included).
pub const MAX_REQUEST_BYTES: usize = 1 << 20;

/// Where a split puts the new pane: the one split direction (keys, `tern msg` —
/// written `right`/`down` — and tmux's `split-window -h`/`-v`). [`Axis`] is how a
/// split node arranges its children.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SplitDirection {
    /// Side by side (a vertical divider).
    Right,
    /// One above the other (a horizontal divider).
    Down,
}

/// What a client asks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Request {
    /// A new tab in the worktree group that holds `cwd` (a new group for a folder no
    /// group holds; the active group without `cwd`). Replies [`Reply::Pane`].
    NewTab {
        #[serde(default)]
        cwd: Option<PathBuf>,
        #[serde(default)]
        title: Option<String>,
        /// Program and arguments; empty: the configured shell.
        #[serde(default)]
        command: Vec<String>,
    },
    /// Splits `pane` (the focused pane without one). Replies [`Reply::Pane`].
    Split {
        #[serde(default)]
        pane: Option<u64>,
        direction: SplitDirection,
        #[serde(default)]
        cwd: Option<PathBuf>,
        #[serde(default)]
        command: Vec<String>,
    },
    /// Types `text` into the pane's program (as a paste would, without brackets).
    SendText { pane: u64, text: String },
    /// Shows and focuses the pane (its group and tab too).
    Focus { pane: u64 },
    /// Closes the pane without asking.
    Close { pane: u64 },
    /// Every pane. Replies [`Reply::Panes`].
    List,
    /// What the agent in `pane` does, in its own word (`tern msg agent-event`,
    /// `set-status`). Replies [`Reply::Done`].
    Report {
        pane: u64,
        report: crate::agent::AgentReport,
    },
    /// A pane's text: its screen, the last `lines` lines (reaching into history when
    /// more than a screen), or with `scrollback` its whole history and screen. Replies
    /// [`Reply::Text`].
    GetText {
        pane: u64,
        #[serde(default)]
        lines: Option<usize>,
        #[serde(default)]
        scrollback: bool,
    },
    /// Searches every pane's history and screen (or one pane's, or one worktree's) for
    /// `pattern`: plain text, or a regex with `regex`; case-smart (a pattern with no
    /// capital ignores case). At most `limit` matching lines (default 1,000). Replies
    /// [`Reply::Matches`].
    Search {
        pattern: String,
        #[serde(default)]
        regex: bool,
        #[serde(default)]
        pane: Option<u64>,
        /// A worktree by the name `list` gives it, its branch or its folder.
        #[serde(default)]
        worktree: Option<String>,
        #[serde(default)]
        limit: Option<usize>,
    },
}

impl Request {
    /// How long the server waits for the app's answer to this request.
    pub fn answer_timeout(&self) -> std::time::Duration {
        match self {
            // Searching every pane's history, or reading a whole history (a million
            // lines), can take a while; neither holds the app (each runs on a thread
            // of its own).
            Request::Search { .. }
            | Request::GetText {
                scrollback: true, ..
            } => SEARCH_TIMEOUT + std::time::Duration::from_secs(5),
            _ => server::ANSWER_TIMEOUT,
        }
    }
}

/// The longest a `search` waits for every pane to answer (the server waits 5 s more).
pub const SEARCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// One matching line of a `search` reply (`tern msg search` prints one JSON line each).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchHit {
    pub pane: u64,
    /// The worktree as `list` names it.
    pub worktree: String,
    /// The tab's index in its worktree (0 first).
    pub tab: usize,
    /// The line: counted from the first line the pane ever had (history, then the
    /// screen); while no history was dropped, its index in `get-text --scrollback`.
    pub line: u64,
    /// The line's text, trailing blanks trimmed.
    pub text: String,
    /// The tab's title (as it was last known, for a closed pane).
    #[serde(default)]
    pub title: String,
    /// The pane was closed during this session: the line is from the history kept of
    /// it until tern ends, `pane` its old id and `worktree`, `tab`, `title` as last known.
    #[serde(default)]
    pub closed: bool,
}

/// What a request is answered with when it worked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Reply {
    Pane {
        pane: u64,
    },
    Panes(Vec<PaneInfo>),
    Text {
        text: String,
    },
    /// A search's matching lines in the sidebar's order; `notes` on what was not
    /// searched (remote panes' history beyond what is held here, closed panes), and
    /// the limit when the search stopped at it.
    Matches {
        matches: Vec<SearchHit>,
        #[serde(default)]
        notes: Vec<String>,
        #[serde(default)]
        stopped_after: Option<usize>,
    },
    Done {},
}

/// What a pane is doing, as `list` reports it: the activity tracker's state, or
/// `exited` for a held pane.
pub use crate::pipeline::activity::ActivityState as Activity;

/// One pane in a `list` reply. Times are Unix milliseconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaneInfo {
    pub id: u64,
    /// The worktree as the sidebar names it (its branch, else its folder's name).
    pub worktree: String,
    /// The worktree's folder.
    #[serde(default)]
    pub worktree_path: Option<PathBuf>,
    /// The worktree's branch, when it is a git worktree on one.
    #[serde(default)]
    pub branch: Option<String>,
    /// The tab's index in its group (0 first).
    pub tab: usize,
    /// The tab's title as the tab bar shows it.
    pub title: String,
    pub cwd: Option<PathBuf>,
    /// The pane's program (the shell, or what `-e` / `new-tab --` started).
    #[serde(default)]
    pub pid: Option<u32>,
    /// The program in the foreground, when it is not the shell.
    #[serde(default)]
    pub command: Option<String>,
    /// The last command the shell ran (OSC 133 marks).
    #[serde(default)]
    pub last_command: Option<crate::pipeline::activity::LastCommand>,
    pub activity: Activity,
    /// Who decided `activity` (the order of trust: `hook`, `osc-21337`, `set-status`,
    /// then `notification`, `progress`, `bell`, `shell-marks`, `screen`, `output`,
    /// `exit`).
    #[serde(default)]
    pub activity_source: Option<crate::pipeline::activity::ActivitySource>,
    /// When the pane entered that activity.
    #[serde(default)]
    pub activity_since: Option<u64>,
    /// Why it waits: the notification's text, the question's line, "bell".
    #[serde(default)]
    pub wait_reason: Option<String>,
    /// The last notification's text.
    #[serde(default)]
    pub notification: Option<String>,
    /// OSC 9;4 progress.
    #[serde(default)]
    pub progress: Option<ProgressInfo>,
    /// The exit status once the program ended.
    pub exit_status: Option<i32>,
    /// The agent conversation running in the pane, as its hooks reported it.
    #[serde(default)]
    pub agent_session: Option<crate::agent::AgentSession>,
    pub focused: bool,
    /// What it has to tell the user that no face has shown since: a bell, a
    /// notification, a finished command (`finished`: true when it succeeded), output
    /// not seen. Headless, no pane is ever shown.
    #[serde(default)]
    pub badges: crate::badges::Badges,
    /// The pane's program ran while no tern was attached (the keeper held it) and
    /// printed meanwhile.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ran_detached: bool,
}

/// OSC 9;4 progress as `list` reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgressInfo {
    /// "normal", "error", "indeterminate" or "paused".
    pub state: String,
    pub percent: Option<u8>,
}

impl ProgressInfo {
    pub fn from_progress(p: crate::model::notify::Progress) -> ProgressInfo {
        use crate::model::notify::ProgressState;
        let state = match p.state {
            ProgressState::Hidden => "hidden",
            ProgressState::Normal => "normal",
            ProgressState::Error => "error",
            ProgressState::Indeterminate => "indeterminate",
            ProgressState::Paused => "paused",
        };
        ProgressInfo {
            state: state.to_owned(),
            percent: p.percent,
        }
    }
}

/// A request on the wire.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Envelope {
    pub version: u32,
    pub request: Request,
}

/// A reply on the wire: `ok` with a result, or an error message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response {
    pub version: u32,
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Reply>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Response {
    pub fn ok(result: Reply) -> Response {
        Response {
            version: PROTOCOL_VERSION,
            ok: true,
            result: Some(result),
            error: None,
        }
    }

    pub fn error(message: impl Into<String>) -> Response {
        Response {
            version: PROTOCOL_VERSION,
            ok: false,
            result: None,
            error: Some(message.into()),
        }
    }

    /// `Ok(result)` or `Err(message)`.
    pub fn into_result(self) -> Result<Reply, String> {
        match (self.ok, self.result, self.error) {
            (true, Some(r), _) => Ok(r),
            (true, None, _) => Ok(Reply::Done {}),
            (false, _, e) => Err(e.unwrap_or_else(|| "tern refused the request".into())),
        }
    }

    /// One JSON line (with the newline).
    pub fn to_line(&self) -> String {
        let mut line = serde_json::to_string(self)
            .unwrap_or_else(|e| format!(r#"{{"version":1,"ok":false,"error":"{e}"}}"#));
        line.push('\n');
        line
    }
}

impl Envelope {
    pub fn new(request: Request) -> Envelope {
        Envelope {
            version: PROTOCOL_VERSION,
            request,
        }
    }

    /// One JSON line (with the newline).
    pub fn to_line(&self) -> String {
        // A request holds only strings, numbers and paths: it always serializes.
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }
}

/// Reads a request line: the version first (so a newer client hears that, not a
/// field error), then the request.
pub fn parse_request(line: &str) -> Result<Request, String> {
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("the request is not JSON: {e}"))?;
    let version = value
        .get("version")
        .and_then(serde_json::Value::as_u64)
        .ok_or("the request has no \"version\" number")?;
    if version > u64::from(PROTOCOL_VERSION) {
        return Err(format!(
            "protocol version {version} is newer than this tern's ({PROTOCOL_VERSION}); update tern"
        ));
    }
    let envelope: Envelope =
        serde_json::from_value(value).map_err(|e| format!("bad request: {e}"))?;
    Ok(envelope.request)
}

/// `$XDG_RUNTIME_DIR/tern`, else `<temp dir>/tern-<uid>` (both made 0700 by the
/// server).
pub fn socket_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d).join("tern"),
        None => std::env::temp_dir().join(format!("tern-{}", rustix::process::getuid().as_raw())),
    }
}

/// The socket of the tern that owns the saved session (the first plain start).
pub fn session_socket_path() -> PathBuf {
    socket_dir().join("session.sock")
}

/// The socket of one tern process that does not own the session.
pub fn process_socket_path(pid: u32) -> PathBuf {
    socket_dir().join(format!("tern-{pid}.sock"))
}

/// Where `tern msg` sends without `--socket`: `$TERN_SOCKET` (inside a tern pane),
/// else the session's socket.
pub fn default_client_socket() -> PathBuf {
    std::env::var_os(SOCKET_ENV)
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(session_socket_path)
}

/// The uid of the process at the other end (`SO_PEERCRED`, set by the kernel at
/// `connect` or `listen` time, so the peer cannot forge it).
pub(crate) fn peer_cred(stream: &std::os::unix::net::UnixStream) -> std::io::Result<libc::ucred> {
    use std::os::fd::AsRawFd;
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: the descriptor is the open socket `stream` borrows for this call; `cred`
    // and `len` are valid for writes and `len` holds `cred`'s size, so the kernel
    // writes at most that many bytes into it.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(cred)
}

pub(crate) fn peer_uid(stream: &std::os::unix::net::UnixStream) -> std::io::Result<u32> {
    peer_cred(stream).map(|c| c.uid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_as_one_json_line() {
        let req = Request::NewTab {
            cwd: Some("/tmp".into()),
            title: None,
            command: vec!["make".into(), "-j2".into()],
        };
        let line = Envelope::new(req.clone()).to_line();
        assert!(line.ends_with('\n') && !line.trim_end().contains('\n'));
        assert_eq!(parse_request(&line), Ok(req));
    }

    #[test]
    fn a_newer_protocol_is_refused_by_version_first() {
        let err = parse_request(r#"{"version":99,"request":{"type":"teleport"}}"#).unwrap_err();
        assert!(err.contains("version 99 is newer"), "{err}");
    }

    #[test]
    fn garbage_is_named_not_json() {
        let err = parse_request("hello\n").unwrap_err();
        assert!(err.contains("not JSON"), "{err}");
        let err = parse_request(r#"{"version":1,"request":{"type":"focus"}}"#).unwrap_err();
        assert!(err.contains("pane"), "{err}");
    }

    #[test]
    fn replies_read_back_as_the_variant_sent() {
        for reply in [
            Reply::Pane { pane: 3 },
            Reply::Panes(vec![PaneInfo {
                id: 3,
                worktree: "main".into(),
                worktree_path: Some("/src/tern".into()),
                branch: Some("main".into()),
                tab: 0,
                title: "sh".into(),
                cwd: Some("/tmp".into()),
                pid: Some(42),
                command: None,
                last_command: Some(crate::pipeline::activity::LastCommand {
                    command: Some("false".into()),
                    exit_code: Some(1),
                    started_at: 1_000,
                    finished_at: Some(1_010),
                }),
                activity: Activity::Done,
                activity_source: Some(crate::pipeline::activity::ActivitySource::ShellMarks),
                activity_since: Some(1_010),
                wait_reason: None,
                notification: Some("built".into()),
                progress: Some(ProgressInfo {
                    state: "normal".into(),
                    percent: Some(40),
                }),
                exit_status: None,
                agent_session: None,
                focused: true,
                badges: Default::default(),
                ran_detached: false,
            }]),
            Reply::Done {},
        ] {
            let line = Response::ok(reply.clone()).to_line();
            let back: Response = serde_json::from_str(&line).unwrap();
            assert_eq!(back.into_result(), Ok(reply));
        }
        let line = Response::error("no pane 9").to_line();
        let back: Response = serde_json::from_str(&line).unwrap();
        assert_eq!(back.into_result(), Err("no pane 9".into()));
    }
}
