//! `tern msg` requests against the workspace core: each request that changes the
//! workspace becomes the same [`Command`] a key sends; `list` and `get-text` read.
//!
//! Reading a pane's text waits on the model thread, so it is a [`TextJob`] the face
//! runs off its own thread (the window never waits on the model).

use std::sync::Arc;

use super::command::{Command, Source};
use super::core::WorkspaceCore;
use crate::ipc::server::IpcCall;
use crate::ipc::{PaneInfo, ProgressInfo, Reply, Request, Response};
use crate::model::TermSize;
use crate::pipeline::activity::ActivityState;
use crate::pipeline::search_all::{DEFAULT_LIMIT, MAX_LIMIT, PanesQuery};
use crate::pipeline::{PaneId, Pipeline};

use super::search::{MsgSearch, SearchScope};

/// What a request asks of the face.
pub enum Routed {
    /// A change: apply it (with [`Source::Msg`]) where keys are applied, sized as a
    /// key's would be ([`Command::sized`]).
    Command(Command),
    /// Every pane ([`WorkspaceCore::list`]).
    List,
    /// A pane's text: run the job off the face's thread and answer with its result.
    Text(TextJob),
    /// A search: its panes are named with the face's worktree names
    /// ([`WorkspaceCore::search_targets`]), then it runs off the face's thread.
    Search {
        scope: SearchScope,
        query: PanesQuery,
    },
}

/// Turns a request into what the face does with it. A request naming a pane the core
/// does not know is refused here, before anything changes.
pub fn route(core: &WorkspaceCore, request: Request) -> Result<Routed, String> {
    let known = |id: u64| {
        let pane = PaneId(id);
        match core.record(pane) {
            Some(_) if core.ws.locate(pane).is_some() => Ok(pane),
            _ => Err(format!("no pane {id}")),
        }
    };
    Ok(match request {
        Request::NewTab {
            cwd,
            title,
            command,
        } => Routed::Command(Command::NewTab {
            group: None,
            cwd,
            title,
            program: command,
            size: None,
        }),
        Request::Split {
            pane,
            direction,
            cwd,
            command,
        } => Routed::Command(Command::Split {
            pane: pane.map(known).transpose()?,
            axis: direction.into(),
            cwd,
            program: command,
            size: None,
        }),
        Request::SendText { pane, text } => Routed::Command(Command::SendText {
            pane: known(pane)?,
            text,
        }),
        Request::Focus { pane } => Routed::Command(Command::Focus(known(pane)?)),
        Request::Close { pane } => Routed::Command(Command::Close(known(pane)?)),
        Request::List => Routed::List,
        Request::Report { pane, report } => Routed::Command(Command::Report {
            pane: known(pane)?,
            report: report.validated()?,
        }),
        Request::GetText {
            pane,
            lines,
            scrollback,
        } => Routed::Text(TextJob {
            pipeline: core.pipeline().clone(),
            pane: known(pane)?,
            lines,
            scrollback,
        }),
        Request::Search {
            pattern,
            regex,
            pane,
            worktree,
            limit,
        } => Routed::Search {
            scope: match (pane, worktree) {
                (Some(_), Some(_)) => return Err("give --pane or --worktree, not both".into()),
                (Some(p), None) => SearchScope::Pane(known(p)?),
                (None, Some(w)) => SearchScope::Worktree(w),
                (None, None) => SearchScope::Everywhere,
            },
            query: PanesQuery {
                limit: match limit {
                    Some(0) => return Err("--limit must be at least 1".into()),
                    Some(n) if n > MAX_LIMIT => {
                        return Err(format!("--limit is at most {MAX_LIMIT}"));
                    }
                    Some(n) => n,
                    None => DEFAULT_LIMIT,
                },
                context_lines: 0,
                ..PanesQuery::new(&pattern, regex)
            },
        },
    })
}

/// Carries out one request against the core, for either face: a change through
/// [`WorkspaceCore::apply`] from [`Source::Msg`] (as a key's; a new pane at `size`,
/// the face's focused pane's), `list` with worktrees named by `worktree`, and a pane's
/// text read here (this waits on the model thread: a face answers socket calls with
/// [`answer`], which reads it off its thread).
pub fn serve(
    core: &mut WorkspaceCore,
    request: Request,
    size: Option<TermSize>,
    worktree: impl Fn(&std::path::Path) -> Option<WorktreeName>,
) -> Result<Reply, String> {
    match route(core, request)? {
        Routed::Command(c) => core.apply(Source::Msg, c.sized(size)).map(outcome_reply),
        Routed::List => Ok(Reply::Panes(core.list(worktree))),
        Routed::Text(job) => job.run(),
        Routed::Search { scope, query } => {
            let targets = core.search_targets(&scope, worktree)?;
            MsgSearch::start(core.pipeline(), targets, &query)?.run()
        }
    }
}

/// Answers one socket call as [`serve`] does, a pane's text on a thread of its own
/// (the face never waits on the model). Returns the reply when one was given here
/// (`None`: the text thread answers, or could not start — said as an
/// [`Effect::Status`](super::Effect)), so the face can act on it (a shown pane raises
/// the window).
pub fn answer(
    core: &mut WorkspaceCore,
    call: IpcCall,
    size: Option<TermSize>,
    worktree: impl Fn(&std::path::Path) -> Option<WorktreeName>,
) -> Option<Result<Reply, String>> {
    let reply = match route(core, call.request.clone()) {
        Ok(Routed::Text(job)) => {
            let pane = job.pane;
            if let Err(e) = job.answer_off_thread(call) {
                let message = format!("cannot read pane {}'s text: {e}", pane.0);
                core.effects.push(super::Effect::Status(message));
            }
            return None;
        }
        Ok(Routed::Search { scope, query }) => {
            let started = core
                .search_targets(&scope, worktree)
                .and_then(|targets| MsgSearch::start(core.pipeline(), targets, &query));
            match started {
                Ok(search) => {
                    if let Err(e) = search.answer_off_thread(call) {
                        core.effects
                            .push(super::Effect::Status(format!("cannot search: {e}")));
                    }
                    return None;
                }
                Err(e) => Err(e),
            }
        }
        Ok(Routed::Command(c)) => core.apply(Source::Msg, c.sized(size)).map(outcome_reply),
        Ok(Routed::List) => Ok(Reply::Panes(core.list(worktree))),
        Err(e) => Err(e),
    };
    call.answer(match &reply {
        Ok(r) => Response::ok(r.clone()),
        Err(e) => Response::error(e.clone()),
    });
    Some(reply)
}

/// The reply for an applied command: the new pane, or done.
pub fn outcome_reply(outcome: super::Outcome) -> Reply {
    match outcome {
        super::Outcome::Pane(p) => Reply::Pane { pane: p.0 },
        super::Outcome::Done => Reply::Done {},
    }
}

pub use super::names::WorktreeName;

impl WorkspaceCore {
    /// Every pane for `tern msg list`. `worktree` names a group's folder when the face
    /// knows better than the group's name.
    pub fn list(
        &self,
        worktree: impl Fn(&std::path::Path) -> Option<WorktreeName>,
    ) -> Vec<PaneInfo> {
        let focused = self.ws.focused_pane();
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let mut out = Vec::new();
        for g in &self.ws.groups {
            let (name, branch) = worktree(&g.path).unwrap_or_else(|| {
                let branch = crate::worktree::git_place(&g.path).and_then(|p| p.branch);
                (g.name.clone(), branch)
            });
            for (ti, tab) in g.tabs.iter().enumerate() {
                for pane in tab.layout.panes() {
                    let Some(r) = self.record(pane) else {
                        continue;
                    };
                    // Read now, not from a frame's table: a script asks between frames.
                    // The one rule every face reads (`WorkspaceCore::activity`).
                    let report = self.activity(pane);
                    let activity = report.as_ref().map_or(ActivityState::Idle, |r| r.state);
                    let report = report.as_ref();
                    out.push(PaneInfo {
                        id: pane.0,
                        worktree: name.clone(),
                        worktree_path: Some(g.path.clone()),
                        branch: branch.clone(),
                        tab: ti,
                        title: self.tab_title(tab),
                        cwd: self.pane_cwd(pane).or_else(|| Some(g.path.clone())),
                        pid: self.pipeline().pid(pane),
                        // A tab opened with a program runs it as the pane's own
                        // child (never "in front of the shell"): that is its command.
                        command: r.foreground.clone().or_else(|| {
                            let program = r.launched.as_ref()?.first()?;
                            let name = std::path::Path::new(program).file_name()?;
                            Some(name.to_string_lossy().into_owned())
                        }),
                        last_command: report.and_then(|r| r.last_command.clone()),
                        activity,
                        activity_source: report.map(|r| r.source),
                        activity_since: report.map(|r| now_ms.saturating_sub(r.since_ms)),
                        wait_reason: report.and_then(|r| r.wait_text.clone()),
                        notification: report.and_then(|r| r.last_notification.clone()),
                        progress: report
                            .and_then(|r| r.progress)
                            .map(ProgressInfo::from_progress),
                        exit_status: r.exit.as_ref().map(|e| e.code),
                        agent_session: r.agent.clone(),
                        focused: focused == Some(pane),
                        badges: r.badges,
                        ran_detached: r.ran_detached,
                    });
                }
            }
        }
        out
    }
}

/// Reading a pane's text: its screen, its last `lines` lines, or its history and
/// screen. It waits on the model thread (a round trip per 4,096 history lines), so it
/// runs on a thread of its own; it holds the pipeline, not the workspace.
pub struct TextJob {
    pipeline: Arc<Pipeline>,
    pane: PaneId,
    lines: Option<usize>,
    scrollback: bool,
}

impl std::fmt::Debug for TextJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextJob")
            .field("pane", &self.pane)
            .field("lines", &self.lines)
            .field("scrollback", &self.scrollback)
            .finish()
    }
}

impl TextJob {
    /// A job for `pane` outside a request (the window's "save scrollback").
    pub fn new(pipeline: Arc<Pipeline>, pane: PaneId, scrollback: bool) -> TextJob {
        TextJob {
            pipeline,
            pane,
            lines: None,
            scrollback,
        }
    }

    pub fn run(self) -> Result<Reply, String> {
        self.text().map(|text| Reply::Text { text })
    }

    /// Reads the text on a thread of its own and answers `call` from there (the face
    /// never waits on the model).
    fn answer_off_thread(self, call: IpcCall) -> std::io::Result<()> {
        std::thread::Builder::new()
            .name("tern-get-text".into())
            .spawn(move || {
                call.answer(match self.run() {
                    Ok(reply) => Response::ok(reply),
                    Err(e) => Response::error(e),
                })
            })
            .map(|_| ())
    }

    /// The text, one line per row with trailing blanks trimmed, oldest first.
    pub fn text(&self) -> Result<String, String> {
        let gone = || format!("pane {} did not answer (it closed)", self.pane.0);
        let mut rows: Vec<String> = Vec::new();
        // History is read when asked for, or when `lines` reaches above the screen.
        let screen = self.pipeline.dump_screen(self.pane).ok_or_else(gone)?;
        let want_history = self.scrollback || self.lines.is_some_and(|n| n > screen.rows.len());
        if want_history {
            // `n` lines of history cover the screen's blank rows trimmed below.
            rows = self.history(self.lines)?;
        }
        rows.extend(screen.rows.iter().map(|r| r.trim_end().to_owned()));
        // The screen's blank rows below the last written one are not text.
        while rows.last().is_some_and(String::is_empty) {
            rows.pop();
        }
        if let Some(n) = self.lines {
            let skip = rows.len().saturating_sub(n);
            rows.drain(..skip);
        }
        let mut out = rows.join("\n");
        out.push('\n');
        Ok(out)
    }

    /// History lines, oldest first: all, or the newest `last`.
    fn history(&self, last: Option<usize>) -> Result<Vec<String>, String> {
        const PAGE: usize = 4096;
        let gone = || format!("pane {} did not answer (it closed)", self.pane.0);
        let probe = self.pipeline.history(self.pane, 0, 0).ok_or_else(gone)?;
        let end = probe.dropped + probe.total as u64;
        let mut next = match last {
            Some(n) => end.saturating_sub(n as u64).max(probe.dropped),
            None => probe.dropped,
        };
        let mut out = Vec::new();
        while next < end {
            let count = PAGE.min((end - next) as usize);
            let page = self
                .pipeline
                .history(self.pane, next, count)
                .ok_or_else(gone)?;
            if page.rows.is_empty() {
                break;
            }
            out.extend(page.rows.iter().map(|r| r.text().trim_end().to_owned()));
            // Lines dropped meanwhile are gone; the page starts where the model says.
            next = page.first + page.rows.len() as u64;
        }
        Ok(out)
    }
}
