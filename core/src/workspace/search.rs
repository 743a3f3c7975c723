//! Search everywhere for either face: which panes a search covers (every pane, one
//! pane, one worktree), what each is called (worktree, tab), and `tern msg search`'s
//! answer, read off the face's thread (the search runs off the face's thread, in chunks;
//! the face never waits for it).

use std::sync::Arc;

use super::core::WorkspaceCore;
use super::record::ClosedPane;
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
    /// A pane closed during this session: its kept history is searched (`pane` is its
    /// old id; the worktree, tab and title as last known).
    pub closed: bool,
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
                        closed: false,
                    });
                }
            }
        }
        if !matches!(scope, SearchScope::Pane(_)) {
            out.extend(self.closed_targets(scope, &worktree));
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

impl WorkspaceCore {
    /// How `pane` is known before it closes (a local pane: its history may be kept).
    pub(super) fn last_known(&self, pane: PaneId) -> Option<ClosedPane> {
        let record = self.record(pane)?;
        if record.remote {
            return None;
        }
        let at = self.ws.locate(pane)?;
        let group = self.ws.groups.get(at.group)?;
        let tab = group.tabs.get(at.tab)?;
        Some(ClosedPane {
            pane,
            worktree: group.name.clone(),
            path: group.path.clone(),
            group: at.group,
            tab: at.tab,
            title: self.tab_title(tab),
        })
    }

    /// After a close: remembered when the pipeline kept the pane's history.
    pub(super) fn remember_closed(&mut self, last: Option<ClosedPane>) {
        let Some(last) = last else {
            return;
        };
        let kept = self.pipeline.closed_panes();
        if !kept.contains(&last.pane) {
            return;
        }
        self.closed
            .retain(|c| c.pane != last.pane && kept.contains(&c.pane));
        self.closed.push_back(last);
    }

    /// The closed panes `scope` covers whose history is still kept, oldest first.
    fn closed_targets(
        &self,
        scope: &SearchScope,
        worktree: &impl Fn(&std::path::Path) -> Option<(String, Option<String>)>,
    ) -> Vec<SearchTarget> {
        let kept = self.pipeline.closed_panes();
        self.closed
            .iter()
            .filter(|c| kept.contains(&c.pane))
            .filter_map(|c| {
                let (name, branch) =
                    worktree(&c.path).unwrap_or_else(|| (c.worktree.clone(), None));
                if let SearchScope::Worktree(w) = scope
                    && *w != name
                    && Some(w) != branch.as_ref()
                    && std::path::Path::new(w) != c.path
                {
                    return None;
                }
                Some(SearchTarget {
                    pane: c.pane,
                    worktree: name,
                    group: c.group,
                    tab: c.tab,
                    title: c.title.clone(),
                    remote: false,
                    closed: true,
                })
            })
            .collect()
    }
}

/// The open panes and the closed ones of `targets`, each in their order.
pub fn split_targets(targets: &[SearchTarget]) -> (Vec<PaneId>, Vec<PaneId>) {
    let pick = |closed: bool| {
        targets
            .iter()
            .filter(|t| t.closed == closed)
            .map(|t| t.pane)
            .collect()
    };
    (pick(false), pick(true))
}

/// What a remote pane's answer says: its history here is all that was searched.
pub fn remote_note(target: &SearchTarget, found: &PaneFound) -> String {
    format!(
        "pane {} is remote (tmux): searched as far as the history held here goes ({} lines)",
        target.pane.0, found.lines_searched
    )
}

/// `tern msg search`: the search started (`Pipeline::start_search_everywhere`), and the thread that
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
        let (panes, closed) = split_targets(&targets);
        let search = pipeline
            .start_search_everywhere(&panes, &closed, query)
            .map_err(|e| e.to_string())?;
        Ok(MsgSearch { search, targets })
    }

    /// Waits for every pane and builds the reply.
    pub fn run(self) -> Result<Reply, String> {
        let mut found = self.search.wait_all(MSG_SEARCH_TIMEOUT)?;
        // In the sidebar's order, the closed panes last (the two parts answer apart).
        found.sort_by_key(|f| {
            self.targets
                .iter()
                .position(|t| t.pane == f.pane && t.closed == f.closed)
        });
        let mut matches = Vec::new();
        let mut notes = Vec::new();
        let mut bytes = 0usize;
        let mut stopped_after = self.search.stopped_after();
        'panes: for f in &found {
            let Some(target) = self
                .targets
                .iter()
                .find(|t| t.pane == f.pane && t.closed == f.closed)
            else {
                continue;
            };
            if f.closed && !f.hits.is_empty() {
                notes.push(format!(
                    "pane {} was closed: its matches are from the history kept of it until tern ends",
                    f.pane.0
                ));
            }
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
                    title: target.title.clone(),
                    closed: f.closed,
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
