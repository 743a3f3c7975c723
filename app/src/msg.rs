//! `tern msg ACTION`: one request to a running tern over its socket
//! (`tern_core::remote`), the reply printed for scripts: a pane id, a JSON array, or
//! nothing; errors on stderr with exit status 1.

use std::path::PathBuf;

use tern_core::remote::{self, Reply, Request, SplitDirection};

use crate::cli::{MsgAction, MsgArgs, SplitWay};

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
        MsgAction::List => Request::List,
    })
}

/// The pane this program runs in, from `$TERN_PANE_ID`.
fn own_pane() -> Result<u64, String> {
    let id = std::env::var(remote::PANE_ENV)
        .map_err(|_| format!("give --pane ID (${} is not set)", remote::PANE_ENV))?;
    id.trim()
        .parse()
        .map_err(|_| format!("${} is not a pane id: {id:?}", remote::PANE_ENV))
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
        Reply::Done {} => String::new(),
    }
}

/// Runs `tern msg`: the text to print, or the error.
pub fn run(args: MsgArgs) -> Result<String, String> {
    let socket = args.socket.unwrap_or_else(remote::default_client_socket);
    let request = request(args.action)?;
    remote::client::send(&socket, request).map(|r| render(&r))
}
