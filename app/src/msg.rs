//! `tern msg ACTION`: one request to a running tern over its socket
//! (`tern_core::ipc`), the reply printed for scripts: a pane id, a JSON array, or
//! nothing; errors on stderr with exit status 1.

use std::path::PathBuf;

use tern_core::ipc::{self, Activity, PaneInfo, Reply, Request, SplitDirection};

use crate::cli::{MsgAction, MsgArgs, SplitWay, WaitFor};

/// The request for an action (`--pane` of `send-text` defaults to `$TERN_PANE_ID`).
pub fn request(action: MsgAction) -> Result<Request, String> {
    Ok(match action {
        MsgAction::NewTab {
            cwd,
            title,
            command,
        } => Request::NewTab {
            cwd: cwd.map(absolute),
            title,
            command,
        },
        MsgAction::Split {
            pane,
            direction,
            cwd,
            command,
        } => Request::Split {
            pane,
            direction: match direction {
                SplitWay::Right => SplitDirection::Right,
                SplitWay::Down => SplitDirection::Down,
            },
            cwd: cwd.map(absolute),
            command,
        },
        MsgAction::SendText { pane, text } => Request::SendText {
            pane: match pane {
                Some(p) => p,
                None => own_pane()?,
            },
            text,
        },
        MsgAction::Focus { pane } => Request::Focus { pane },
        MsgAction::Close { pane } => Request::Close { pane },
        MsgAction::GetText {
            pane,
            lines,
            scrollback,
        } => Request::GetText {
            pane: match pane {
                Some(p) => p,
                None => own_pane()?,
            },
            lines,
            scrollback,
        },
        MsgAction::List | MsgAction::Wait { .. } => Request::List,
    })
}

/// The pane this program runs in, from `$TERN_PANE_ID`.
fn own_pane() -> Result<u64, String> {
    let id = std::env::var(ipc::PANE_ENV)
        .map_err(|_| format!("give --pane ID (${} is not set)", ipc::PANE_ENV))?;
    id.trim()
        .parse()
        .map_err(|_| format!("${} is not a pane id: {id:?}", ipc::PANE_ENV))
}

/// A folder as the running tern should read it: relative to where `tern msg` runs.
fn absolute(dir: PathBuf) -> PathBuf {
    std::path::absolute(&dir).unwrap_or(dir)
}

/// What to print for a reply.
pub fn render(reply: &Reply) -> String {
    match reply {
        Reply::Pane { pane } => format!("{pane}\n"),
        Reply::Panes(panes) => {
            let mut text = serde_json::to_string_pretty(panes).unwrap_or_default();
            text.push('\n');
            text
        }
        Reply::Text { text } => text.clone(),
        Reply::Done {} => String::new(),
    }
}

/// Why `tern msg` failed: exit status 1, or 2 for a wait that ran out of time.
pub struct MsgError {
    pub message: String,
    pub code: u8,
}

impl From<String> for MsgError {
    fn from(message: String) -> MsgError {
        MsgError { message, code: 1 }
    }
}

/// How often `tern msg wait` asks (the server keeps no watchers: each ask is one
/// `list`; the pane's state is derived when asked).
const WAIT_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// Whether `pane` (absent: closed) has reached `state`.
pub fn reached(panes: &[PaneInfo], pane: u64, state: WaitFor) -> Result<bool, String> {
    let Some(info) = panes.iter().find(|p| p.id == pane) else {
        // A pane whose program exited closes (unless held): that is its exit.
        return match state {
            WaitFor::Exit => Ok(true),
            _ => Err(format!("pane {pane} is gone")),
        };
    };
    Ok(match state {
        WaitFor::Waiting => info.activity == Activity::Waiting,
        WaitFor::Idle => info.activity == Activity::Idle,
        WaitFor::Done => info.activity == Activity::Done,
        WaitFor::Exit => info.activity == Activity::Exited || info.exit_status.is_some(),
    })
}

/// Runs `tern msg`: the text to print, or the error.
pub fn run(args: MsgArgs) -> Result<String, MsgError> {
    let socket = args.socket.unwrap_or_else(ipc::default_client_socket);
    if let MsgAction::Wait {
        pane,
        state,
        timeout,
    } = args.action
    {
        let pane = match pane {
            Some(p) => p,
            None => own_pane()?,
        };
        let deadline = timeout
            .map(|s| std::time::Instant::now() + std::time::Duration::from_secs_f64(s.max(0.0)));
        loop {
            let Reply::Panes(panes) = ipc::client::send(&socket, Request::List)? else {
                return Err("the reply to list is not a pane list".to_owned().into());
            };
            if reached(&panes, pane, state)? {
                return Ok(String::new());
            }
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return Err(MsgError {
                    message: format!(
                        "pane {pane} was not {} within {} s",
                        match state {
                            WaitFor::Waiting => "waiting",
                            WaitFor::Idle => "idle",
                            WaitFor::Done => "done",
                            WaitFor::Exit => "exited",
                        },
                        timeout.unwrap_or_default()
                    ),
                    code: 2,
                });
            }
            std::thread::sleep(WAIT_POLL);
        }
    }
    let request = request(args.action)?;
    Ok(ipc::client::send(&socket, request).map(|r| render(&r))?)
}
