//! Who may do what over `tern msg` (`docs/SECURITY.md`, "Remote control"). The socket
//! already admits only the user's own processes; among them, a program running in a
//! pane is told apart from the user's own tools by its process: a caller whose process
//! descends from a pane's program (SO_PEERCRED's pid, its parents read from
//! `/proc/PID/stat`) is that pane's.
//!
//! - From outside any pane (the user's scripts, another terminal): everything.
//! - From a pane's program: list the panes, open tabs and splits, show (focus) a pane
//!   (a second `tern` started in a pane opens a tab and shows it), and read, type into,
//!   close and report the state of (an agent's hook, `set-status`) its own pane. Reading, typing into or closing *another* pane needs the
//!   config's consent
//!   (`pane_remote_control: AllPanes`): otherwise an agent told by a web page to read
//!   `get-text --pane 3 --scrollback` or to type `rm -rf ~\r` into the shell beside it
//!   is refused, with an error that names the setting.
//!
//! A program that leaves its pane's process tree (a double fork to init) is taken for
//! an outside caller: this keeps honest programs in their lane, it does not contain a
//! hostile one running as the user (which can reach the socket's folder anyway).

use super::core::WorkspaceCore;
use super::requests::{self, WorktreeName};
use crate::config::PaneRemoteControl;
use crate::ipc::server::IpcCall;
use crate::ipc::{Reply, Request, Response};
use crate::pipeline::PaneId;

/// Parents looked at, at most, from the caller's process up.
const MAX_ANCESTORS: usize = 64;

/// Who sent a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    /// A process that descends from no pane's program.
    Outside,
    /// A process in this pane (its program or one of its descendants).
    Pane(PaneId),
}

/// The parent of process `pid` (`/proc/PID/stat`'s fourth field; the command name in
/// parentheses may hold spaces and parentheses, so it is read after the last `)`).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

impl WorkspaceCore {
    /// The pane whose program `pid` (a caller's process) descends from, if any.
    pub fn caller(&self, pid: Option<u32>) -> Caller {
        let panes: Vec<(u32, PaneId)> = self
            .ws
            .all_panes()
            .into_iter()
            .filter_map(|p| Some((self.pipeline().pid(p)?, p)))
            .collect();
        let mut at = pid;
        for _ in 0..MAX_ANCESTORS {
            let Some(pid) = at.filter(|p| *p > 1) else {
                break;
            };
            if let Some((_, pane)) = panes.iter().find(|(program, _)| *program == pid) {
                return Caller::Pane(*pane);
            }
            at = parent_of(pid);
        }
        Caller::Outside
    }

    /// Why `caller` may not make `request`, if it may not.
    pub fn refusal(&self, caller: Caller, request: &Request) -> Option<String> {
        let Caller::Pane(own) = caller else {
            return None;
        };
        if self.config().pane_remote_control == PaneRemoteControl::AllPanes {
            return None;
        }
        let (target, what) = match request {
            Request::NewTab { .. } | Request::List | Request::Focus { .. } => return None,
            // A split of the focused pane (none named) or its own only adds a pane.
            Request::Split { pane, .. } => (*pane, "split"),
            Request::SendText { pane, .. } => (Some(*pane), "type into"),
            Request::GetText { pane, .. } => (Some(*pane), "read"),
            Request::Close { pane } => (Some(*pane), "close"),
            // An agent's hook speaks for the pane it runs in.
            Request::Report { pane, .. } => (Some(*pane), "report the state of"),
            // Reading other panes' text, as `get-text` of another pane.
            Request::Search {
                pane: Some(pane), ..
            } => (Some(*pane), "search"),
            Request::Search { pane: None, .. } => {
                return Some(format!(
                    "a program in pane {0} may not search other panes (only its own: \
                     --pane {0}); `pane_remote_control: AllPanes` in config.ron allows it",
                    own.0
                ));
            }
        };
        let target = target?;
        (target != own.0).then(|| {
            format!(
                "a program in pane {} may not {what} pane {target} (only its own); \
                 `pane_remote_control: AllPanes` in config.ron allows it",
                own.0
            )
        })
    }
}

/// Answers `call` as [`requests::answer`] does, after the policy: a refused request is
/// answered with the reason and changes nothing; a new pane starts at `size` (the
/// face's focused pane's). Both faces call this.
pub fn answer(
    core: &mut WorkspaceCore,
    call: IpcCall,
    size: Option<crate::model::TermSize>,
    worktree: impl Fn(&std::path::Path) -> Option<WorktreeName>,
) -> Option<Result<Reply, String>> {
    let caller = core.caller(call.caller_pid);
    if let Some(why) = core.refusal(caller, &call.request) {
        core.pipeline().breadcrumb(
            match caller {
                Caller::Pane(p) => Some(p),
                Caller::Outside => None,
            },
            format!("tern msg refused: {why}"),
        );
        call.answer(Response::error(why.clone()));
        return Some(Err(why));
    }
    requests::answer(core, call, size, worktree)
}
