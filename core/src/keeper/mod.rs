//! The keeper: a small process of tern's (`tern keeper --serve`) that holds a
//! duplicate of every pane's pty master and its program's pidfd, so that programs
//! outlive tern (a crash, `kill -9`, an upgrade, a window closed with its programs
//! kept). It is never on the data path: while a tern is attached it only holds; when
//! that tern's connection drops it reads each pty into a bounded ring so no program
//! blocks, and hands panes and bytes to the next tern. See
//! `docs/architecture/keeper.md`.
//!
//! ```text
//!  tern ──Hold(pane, master fd, pidfd)──▶ keeper     (tern reads and writes the pty)
//!  tern ✝                                 keeper reads each pty into its ring
//!  tern' ──Hello, Take(key)─────────────▶ keeper ──▶ fds + ring bytes ──▶ tern' replays
//! ```

pub mod client;
pub mod link;
pub mod protocol;
pub mod ring;
pub mod server;

use std::path::PathBuf;

/// The keeper's socket: one per user and runtime folder, beside the session socket.
pub fn socket_path() -> PathBuf {
    crate::ipc::socket_dir().join("keeper.sock")
}

/// `TERN_NO_KEEPER=1` runs tern with no keeper (programs end with tern, as before).
pub fn disabled_by_env() -> bool {
    std::env::var_os("TERN_NO_KEEPER").is_some_and(|v| !v.is_empty() && v != "0")
}

pub use crate::pipeline::new_pane_key as new_key;

/// A face's start with a keeper: attaches to the one running (taking back every pane
/// it holds: for [`crate::workspace::WorkspaceCore::set_reattach`]) or starts one on
/// the first pane, and hands the pipeline the link. With no keeper to be had (refused,
/// cannot start), tern runs as it would without one: a breadcrumb says why.
pub fn start(pipeline: &crate::pipeline::Pipeline, exe: Option<PathBuf>) -> Vec<Reattach> {
    let socket = socket_path();
    let note = pipeline.crumb_sink();
    let config = |note: link::Note| link::LinkConfig {
        socket: socket.clone(),
        exe: exe.clone(),
        note,
    };
    let mut taken = Vec::new();
    let attached = match client::attach(&socket) {
        Ok(a) => Some(a),
        Err(client::AttachError::NoKeeper) => None,
        Err(client::AttachError::Refused(why)) => {
            note(format!("keeper: not used ({why})"));
            eprintln!("tern: the keeper is not used: {why}");
            return taken;
        }
    };
    if let Some(a) = &attached {
        for state in &a.panes {
            match a.take(state.pane.key) {
                Ok(t) => taken.push(Reattach {
                    key: state.pane.key,
                    old_pane: state.pane.pane,
                    pid: state.pane.pid,
                    what: state.pane.what.clone(),
                    master: t.master,
                    pidfd: t.pidfd,
                    bytes: t.bytes,
                    ran_detached: state.ran_detached,
                    exited: state.exited,
                }),
                Err(e) => note(format!("keeper: {e}")),
            }
        }
        note(format!(
            "keeper: attached (tern {}, protocol {}), {} panes taken back",
            a.keeper,
            a.protocol,
            taken.len()
        ));
    }
    if let Some(top) = taken.iter().map(|r| r.old_pane).max() {
        pipeline.reserve_ids_below(top + 1);
    }
    match link::Link::start(config(note.clone()), attached) {
        Ok(l) => pipeline.set_keeper(Box::new(l)),
        Err(e) => note(format!("keeper: no link thread: {e}")),
    }
    taken
}

use crate::pipeline::Reattach;

/// What either face does at start when it owns the session file `session_file`: the
/// panes' history kept beside it in `history/` (when `session.persist_scrollback`),
/// then the keeper ([`start`], unless `TERN_NO_KEEPER=1`). The panes taken back from
/// the keeper.
pub fn start_face(
    pipeline: &crate::pipeline::Pipeline,
    session: &crate::config::SessionConfig,
    session_file: &std::path::Path,
) -> Vec<Reattach> {
    let history_dir = session_file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join("history"))
        .or_else(crate::history::default_dir);
    if session.persist_scrollback
        && let Some(dir) = history_dir
    {
        match crate::history::History::start(dir, pipeline.crumb_sink()) {
            Ok(h) => pipeline.set_history(h),
            Err(e) => {
                let why = format!("history: not kept ({e})");
                eprintln!("tern: {why}");
                pipeline.crumb_sink()(why);
            }
        }
    }
    if disabled_by_env() {
        return Vec::new();
    }
    start(pipeline, std::env::current_exe().ok())
}
