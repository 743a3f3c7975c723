//! Search everywhere for either face: which panes a search covers (every pane, one
//! pane, one worktree), what each is called (worktree, tab), and `tern msg search`'s
//! answer, read off the face's thread (the search runs on the model thread in slices;
//! the face never waits for it).

use std::sync::Arc;

use super::core::WorkspaceCore;
use crate::ipc::server::IpcCall;
use crate::ipc::{Reply, Response, SearchHit};
use crate::pipeline::search_all::{PaneEnd, PaneFound, PanesQuery, PanesSearch};
use crate::pipeline::{PaneId, Pipeline};

/// The longest `tern msg search` waits for every pane to answer.
pub const MSG_SEARCH_TIMEOUT: std::time::Duration = crate::ipc::SEARCH_TIMEOUT;
/// Most bytes of matching text one `tern msg search` reply carries (past it the reply
/// says it stopped).
pub const MAX_REPLY_TEXT_BYTES: usize = 16 << 20;

/// Which panes a search covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchScope {
    Everywhere,
    Pane(PaneId),
    /// A worktree by the name `list` gives it, its branch or its folder.
    Worktree(String),
}

/// A pane a search covers, as the person knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchTarget {
    pub pane: PaneId,
    /// The worktree's name as the sidebar and `list` give it.
    pub worktree: String,
    /// The group's index in the sidebar, and the tab's in its group (0 first).
    pub group: usize,
    pub tab: usize,
    /// The tab's title.
    pub title: String,
    /// A remote (tmux) pane: only the history held here is searched.
    pub remote: bool,
}

impl WorkspaceCore {
    /// The panes `scope` covers, in the sidebar's order (worktree, tab, pane), each
    /// named as `list` names it. An unknown pane or worktree is an error.
    pub fn search_targets(
        &self,
        scope: &SearchScope,
        // A worktree's name and branch as the face names it (`requests::WorktreeName`).
        worktree: impl Fn(&std::path::Path) -> Option<(String, Option<String>)>,
    ) -> Result<Vec<SearchTarget>, String> {
        let mut out = Vec::new();
        for (gi, g) in self.ws.groups.iter().enumerate() {
            let (name, branch) = worktree(&g.path).unwrap_or_else(|| (g.name.clone(), None));
            if let SearchScope::Worktree(w) = scope {
                let by_path = std::path::Path::new(w) == g.path;
                if *w != name && Some(w) != branch.as_ref() && !by_path {
                    continue;
                }
            }
            for (ti, tab) in g.tabs.iter().enumerate() {
                for pane in tab.layout.panes() {
                    if matches!(scope, SearchScope::Pane(p) if *p != pane) {
                        continue;
                    }
                    let Some(record) = self.record(pane) else {
                        continue;
                    };
                    out.push(SearchTarget {
                        pane,
                        worktree: name.clone(),
                        group: gi,
                        tab: ti,
                        title: self.tab_title(tab),
                        remote: record.remote,
                    });
                }
            }
        }
        if out.is_empty() {
            return Err(match scope {
                SearchScope::Everywhere => "there are no panes to search".to_owned(),
                SearchScope::Pane(p) => format!("no pane {}", p.0),
                SearchScope::Worktree(w) => format!("no worktree {w:?} (see `tern msg list`)"),
            });
        }
        Ok(out)
    }
}

/// What a remote pane's answer says: its history here is all that was searched.
pub fn remote_note(target: &SearchTarget, found: &PaneFound) -> String {
    format!(
        "pane {} is remote (tmux): searched as far as the history held here goes ({} lines)",
        target.pane.0, found.lines_searched
    )
}

/// `tern msg search`: the search started (on the model thread), and the thread that
/// waits for it and answers the call.
pub struct MsgSearch {
    search: PanesSearch,
    targets: Vec<SearchTarget>,
}

impl MsgSearch {
    /// Starts the search of `targets`; a query that does not compile is refused here.
    pub fn start(
        pipeline: &Arc<Pipeline>,
        targets: Vec<SearchTarget>,
        query: &PanesQuery,
    ) -> Result<MsgSearch, String> {
        let panes: Vec<PaneId> = targets.iter().map(|t| t.pane).collect();
        let search = pipeline
            .start_search_panes(&panes, query)
            .map_err(|e| e.to_string())?;
        Ok(MsgSearch { search, targets })
    }

    /// Waits for every pane and builds the reply.
    pub fn run(self) -> Result<Reply, String> {
        let found = self.search.wait_all(MSG_SEARCH_TIMEOUT)?;
        let mut matches = Vec::new();
        let mut notes = Vec::new();
        let mut bytes = 0usize;
        let mut stopped_after = self.search.stopped_after();
        'panes: for f in &found {
            let Some(target) = self.targets.iter().find(|t| t.pane == f.pane) else {
                continue;
            };
            if f.end == PaneEnd::Closed {
                notes.push(format!("pane {} closed before it was searched", f.pane.0));
                continue;
            }
            if target.remote {
                notes.push(remote_note(target, f));
            }
            if f.dropped > 0 {
                notes.push(format!(
                    "pane {}: its {} oldest lines were dropped from its history; line numbers count them",
                    f.pane.0, f.dropped
                ));
            }
            for h in &f.hits {
                bytes += h.text.len();
                if bytes > MAX_REPLY_TEXT_BYTES {
                    stopped_after = Some(matches.len());
                    break 'panes;
                }
                matches.push(SearchHit {
                    pane: f.pane.0,
                    worktree: target.worktree.clone(),
                    tab: target.tab,
                    line: h.line,
                    text: h.text.clone(),
                });
            }
        }
        Ok(Reply::Matches {
            matches,
            notes,
            stopped_after,
        })
    }

    /// Waits and answers `call` on a thread of its own (the face never waits).
    pub fn answer_off_thread(self, call: IpcCall) -> std::io::Result<()> {
        std::thread::Builder::new()
            .name("tern-search".into())
            .spawn(move || {
                call.answer(match self.run() {
                    Ok(reply) => Response::ok(reply),
                    Err(e) => Response::error(e),
                })
            })
            .map(|_| ())
    }
}
