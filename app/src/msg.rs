//! `tern msg ACTION`: one request to a running tern over its socket
//! (`tern_core::ipc`), the reply printed for scripts: a pane id, a JSON array, or
//! nothing; errors on stderr with exit status 1.

use std::path::PathBuf;

use tern_core::agent::{AgentReport, SessionNews};
use tern_core::ipc::{self, Activity, PaneInfo, Reply, Request, SplitDirection};
use tern_core::pipeline::activity::{ActivitySource, ActivityState};

use crate::cli::{AgentArg, MsgAction, MsgArgs, SplitWay, StatusArg, WaitFor};

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
        MsgAction::Search {
            pattern,
            regex,
            pane,
            worktree,
            limit,
        } => Request::Search {
            pattern,
            regex,
            pane,
            worktree: worktree.map(|w| {
                // A folder given as a relative path means the one under `tern msg`'s.
                let path = PathBuf::from(&w);
                if path.components().count() > 1 || w == "." {
                    absolute(path).to_string_lossy().into_owned()
                } else {
                    w
                }
            }),
            limit,
        },
        MsgAction::SetStatus {
            pane,
            state,
            reason,
        } => Request::Report {
            pane: match pane {
                Some(p) => p,
                None => own_pane()?,
            },
            report: AgentReport {
                state: match state {
                    StatusArg::Running => Some(ActivityState::Running),
                    StatusArg::Waiting => Some(ActivityState::Waiting),
                    StatusArg::Idle => Some(ActivityState::Idle),
                    StatusArg::Done => Some(ActivityState::Done),
                    StatusArg::Clear => None,
                },
                reason,
                via: ActivitySource::SetStatus,
                session: SessionNews::None,
            },
        },
        MsgAction::AgentEvent { .. } => {
            return Err("agent-event reads its hook's input (see agent_event)".to_owned());
        }
        MsgAction::List | MsgAction::Wait { .. } => Request::List,
    })
}

/// How long a report waits for tern: a hook must never hold its agent up.
const REPORT_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(1500);

/// The socket a report goes to: `--socket`, else `$TERN_SOCKET`. `None` outside tern
/// (a report then does nothing).
fn report_socket(socket: Option<PathBuf>) -> Option<PathBuf> {
    socket.or_else(|| {
        std::env::var_os(ipc::SOCKET_ENV)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
    })
}

/// `tern msg set-status`: outside tern (no socket, no pane) or with tern gone it does
/// nothing; what tern itself refuses (no such pane) is said.
fn set_status(socket: Option<PathBuf>, action: MsgAction) -> Result<String, MsgError> {
    let Some(socket) = report_socket(socket) else {
        return Ok(String::new());
    };
    let pane_given = matches!(action, MsgAction::SetStatus { pane: Some(_), .. });
    if !pane_given && std::env::var_os(ipc::PANE_ENV).is_none() {
        return Ok(String::new());
    }
    let request = request(action)?;
    match ipc::client::send_within(&socket, request, REPORT_TIMEOUT) {
        Ok(_) => Ok(String::new()),
        Err(ipc::client::SendError::NoServer(_)) => Ok(String::new()),
        Err(e) => Err(e.to_string().into()),
    }
}

/// `tern msg agent-event [--agent claude|codex] [JSON]`, read straight from the
/// process's arguments (`rest`: what follows `msg agent-event`) before anything else
/// runs: the hook is on the agent's path, so it is quick, prints nothing and exits 0
/// whatever happens (Claude Code reads a hook's exit status 2 as "block this").
pub fn agent_event(rest: &[std::ffi::OsString]) -> std::process::ExitCode {
    let _ = try_agent_event(rest);
    std::process::ExitCode::SUCCESS
}

fn try_agent_event(rest: &[std::ffi::OsString]) -> Option<()> {
    let mut agent = None;
    let mut json: Option<String> = None;
    let mut socket: Option<PathBuf> = None;
    let mut args = rest.iter();
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--agent") => agent = args.next().and_then(|a| a.to_str()),
            Some("--socket") => socket = args.next().map(PathBuf::from),
            // Codex passes its JSON as the last argument.
            Some(text) if text.trim_start().starts_with('{') => json = Some(text.to_owned()),
            _ => {}
        }
    }
    let input = match json {
        Some(text) => text.into_bytes(),
        None => read_hook_stdin()?,
    };
    let socket = report_socket(socket)?;
    let pane: u64 = std::env::var(ipc::PANE_ENV).ok()?.trim().parse().ok()?;
    let kind = match agent {
        Some("claude") => Some(AgentArg::Claude.kind()),
        Some("codex") => Some(AgentArg::Codex.kind()),
        _ => None,
    };
    let report = tern_core::agent::hooks::read(kind, &input).ok()??;
    let request = Request::Report { pane, report };
    ipc::client::send_within(&socket, request, REPORT_TIMEOUT).ok()?;
    Some(())
}

/// The hook's JSON on stdin, at most the cap (more is not a hook's input); nothing
/// when stdin is a terminal (someone ran it by hand).
fn read_hook_stdin() -> Option<Vec<u8>> {
    use std::io::Read as _;
    let stdin = std::io::stdin();
    if rustix::termios::isatty(&stdin) {
        return None;
    }
    let cap = tern_core::agent::hooks::MAX_HOOK_INPUT_BYTES as u64;
    let mut input = Vec::new();
    stdin.lock().take(cap + 1).read_to_end(&mut input).ok()?;
    // What is left is drained (up to 64 times the cap: a stream that never ends is
    // not drained forever), so the agent does not write into a closed pipe.
    if input.len() as u64 > cap {
        let _ = std::io::copy(&mut stdin.lock().take(64 * cap), &mut std::io::sink());
        return None;
    }
    Some(input)
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
        Reply::Matches { matches, .. } => {
            let mut text = String::new();
            for m in matches {
                text.push_str(&serde_json::to_string(m).unwrap_or_default());
                text.push('\n');
            }
            text
        }
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
    match args.action {
        MsgAction::SetStatus { .. } => return set_status(args.socket, args.action),
        // Reached only when the fast path in `main` did not see it (it always does).
        MsgAction::AgentEvent { .. } => return Ok(String::new()),
        _ => {}
    }
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
    let timeout = request.answer_timeout() + std::time::Duration::from_secs(5);
    let reply =
        ipc::client::send_within(&socket, request, timeout.max(ipc::client::CLIENT_TIMEOUT))
            .map_err(|e| e.to_string())?;
    if let Reply::Matches {
        notes,
        stopped_after,
        ..
    } = &reply
    {
        for note in notes {
            eprintln!("tern msg search: {note}");
        }
        if let Some(n) = stopped_after {
            eprintln!("tern msg search: stopped after {n} matches (--limit N for more)");
        }
    }
    Ok(render(&reply))
}
