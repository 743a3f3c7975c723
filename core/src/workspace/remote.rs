//! Remote worktrees in the workspace core: each is a group whose tabs are the windows
//! of a tmux session reached through ssh (`crate::tmux::Connection`). tmux's events
//! make and change the tabs and their split trees (panes come and go as commands from
//! [`Source::Tmux`]); tern's focus, new tabs, splits and size go back to tmux as
//! commands. Dropping the connection detaches: the programs run on, and a restored
//! session attaches again. `remote_group.rs` holds one group's state and the pure mapping
//! of a tmux layout to a split tree.

pub use super::remote_group::{
    LinkState, RemoteGroup, RemoteWindow, group_name, parse_target, retries, split_tree,
};

use std::collections::HashMap;
use std::time::Instant;

use crate::pipeline::PaneId;
use crate::tmux::{Connection, RemoteCommand, RemoteEvent, SplitDirection, TmuxPaneId, WindowId};

use super::command::{Command, Effect, Source};
use super::core::WorkspaceCore;
use super::remote_group as remote;

/// The client's size before the window has drawn its pane area.
const FIRST_SIZE: (u16, u16) = (80, 24);

impl WorkspaceCore {
    /// Adds the remote worktree `text` names (`ssh://host/path`, `host:path`) as a
    /// group and connects it; one already open is shown (and reconnected now if it is
    /// down). What the sidebar's "Add repository" field does with such text.
    pub(super) fn add_remote(&mut self, text: &str) -> Result<(), String> {
        let target = match remote::parse_target(text) {
            Some(Ok(t)) => t,
            Some(Err(e)) => return Err(e),
            None => {
                return Err(format!(
                    "{text}: not a remote target (ssh://host/path or host:path)"
                ));
            }
        };
        let key = std::path::PathBuf::from(remote::group_name(&target));
        if let Some(i) = self.remotes.iter().position(|r| r.key == key) {
            if let Some(g) = self.ws.groups.iter().position(|g| g.path == key) {
                self.ws.active = g;
            }
            if self.remotes[i].conn.is_none() {
                self.connect_remote(i);
            }
            return Ok(());
        }
        let group = self.ws.add_group(remote::group_name(&target), key, None);
        self.ws.active = group;
        self.remotes
            .push(RemoteGroup::new(text.trim().to_owned(), target));
        self.connect_remote(self.remotes.len() - 1);
        Ok(())
    }

    /// Detaches from the remote worktree keyed `key` (`host:path`) and drops its group:
    /// its programs run on in tmux, and the session no longer lists it.
    pub(super) fn forget_remote(&mut self, key: &std::path::Path) {
        let Some(i) = self.remotes.iter().position(|r| r.key == key) else {
            return;
        };
        let mut r = self.remotes.remove(i);
        // Detached first: the panes' stand-ins then have no connection to send
        // `kill-pane` through when they are closed below.
        drop(r.conn.take());
        for pane in r.panes.keys().copied().collect::<Vec<_>>() {
            let _ = self.run(Command::Close(pane));
        }
        let _ = self.run(Command::RemoveGroup(key.to_path_buf()));
    }

    fn connect_remote(&mut self, i: usize) {
        let size = self.area_cells.unwrap_or(FIRST_SIZE);
        let r = &mut self.remotes[i];
        let spec = r.spec(&self.config.remote, size);
        r.windows.clear();
        r.panes.clear();
        r.selected = None;
        r.sent_size = None;
        r.connect_size = size;
        match Connection::start(spec, self.pipeline.clone(), self.waker.clone()) {
            Ok(conn) => {
                r.conn = Some(conn);
                r.state = LinkState::Connecting;
            }
            Err(e) => {
                let wait = r.backoff.disconnected(Instant::now());
                r.state = LinkState::Down {
                    reason: format!("cannot start: {e}"),
                    retry_at: Some(Instant::now() + wait),
                };
            }
        }
    }

    /// The remote group of workspace group `group`, if it is one.
    pub fn remote_of_group(&self, group: usize) -> Option<usize> {
        let key = &self.ws.groups.get(group)?.path;
        self.remotes.iter().position(|r| &r.key == key)
    }

    /// The remote group and tmux pane of a tern pane.
    fn remote_pane(&self, pane: PaneId) -> Option<(usize, TmuxPaneId)> {
        self.remotes
            .iter()
            .enumerate()
            .find_map(|(i, r)| r.panes.get(&pane).map(|(t, _)| (i, *t)))
    }

    /// What a close question names for a remote pane: its tmux pane and host.
    pub fn remote_program(&self, pane: PaneId) -> Option<String> {
        let (group, tmux) = self.remote_pane(pane)?;
        Some(format!(
            "tmux pane %{} on {}",
            tmux.0, self.remotes[group].target_text
        ))
    }

    /// The note of a remote group that is not connected (for the sidebar and its tab
    /// area).
    pub fn remote_note(&self, group: usize) -> Option<String> {
        self.remote_of_group(group)
            .and_then(|i| self.remotes[i].note())
    }

    /// Detaches every remote worktree (the face is closing): their programs run on in
    /// tmux.
    pub fn detach_remotes(&mut self) {
        self.remotes.clear();
    }

    /// Each connected remote pane's flow counters (kept bytes, pauses, drops).
    pub fn remote_pane_stats(&self) -> Vec<crate::tmux::RemotePaneStats> {
        self.remotes
            .iter()
            .filter_map(|r| r.conn.as_ref())
            .flat_map(Connection::pane_stats)
            .collect()
    }

    /// What each remote connection went past lately (bad lines, unknown panes).
    pub fn remote_problems(&self) -> Vec<String> {
        self.remotes
            .iter()
            .flat_map(|r| r.problems.clone())
            .collect()
    }

    /// The pane area in cells as last drawn: what a remote client is sized to.
    pub fn area_cells(&self) -> Option<(u16, u16)> {
        self.area_cells
    }

    /// The face's pane area in cells (sent to each connected tmux when it changes).
    pub fn set_area_cells(&mut self, cells: (u16, u16)) {
        self.area_cells = Some(cells);
    }

    /// The remote targets, for the session.
    pub fn saved_remotes(&self) -> Vec<crate::session::SavedRemote> {
        let active = self.ws.active_group().map(|g| g.path.clone());
        self.remotes
            .iter()
            .map(|r| crate::session::SavedRemote {
                target: r.target_text.clone(),
                active: active.as_ref() == Some(&r.key),
            })
            .collect()
    }

    /// A new tab in a remote group is a new tmux window (its tab comes with its
    /// layout). False when the active group is not remote.
    pub(super) fn remote_new_tab(&mut self) -> bool {
        let Some(i) = self.remote_of_group(self.ws.active) else {
            return false;
        };
        if let Some(conn) = &self.remotes[i].conn {
            conn.send(RemoteCommand::NewWindow { cwd: None });
        }
        true
    }

    /// A split of a remote pane is tmux's (the new pane comes with the layout).
    pub(super) fn remote_split(&mut self, pane: PaneId, direction: SplitDirection) -> bool {
        let Some((i, remote)) = self.remote_pane(pane) else {
            return false;
        };
        if let Some(conn) = &self.remotes[i].conn {
            conn.send(RemoteCommand::SplitPane {
                pane: remote,
                direction,
            });
        }
        true
    }

    /// Once per wake-up: each connection's events, the reconnections due, tern's
    /// focus and size sent to tmux. Returns when the next reconnection is due (the
    /// face wakes then: a backoff, the one timer here).
    pub fn poll_remotes(&mut self) -> Option<Instant> {
        // A remote pane's end (its tmux pane went, or the connection did) is tmux's
        // news, handled below; it never closes the window (the core registered it as
        // remote: no exit policy).
        let now = Instant::now();
        let mut next: Option<Instant> = None;
        for i in 0..self.remotes.len() {
            let events = self.remotes[i]
                .conn
                .as_ref()
                .map(Connection::poll_events)
                .unwrap_or_default();
            let remote = self.remotes[i].key.clone();
            for event in events {
                let event = Command::Tmux {
                    remote: remote.clone(),
                    event,
                };
                let _ = self.apply(Source::Tmux, event);
            }
            if let LinkState::Down {
                retry_at: Some(at), ..
            } = self.remotes[i].state
            {
                if at <= now {
                    self.connect_remote(i);
                } else {
                    next = Some(next.map_or(at, |n| n.min(at)));
                }
            }
        }
        self.sync_remotes();
        next
    }

    pub(super) fn remote_event(&mut self, i: usize, event: RemoteEvent) {
        let Some(group) = self
            .ws
            .groups
            .iter()
            .position(|g| g.path == self.remotes[i].key)
        else {
            return;
        };
        match event {
            RemoteEvent::Connected { .. } => {
                let r = &mut self.remotes[i];
                r.backoff.connected(Instant::now());
                r.state = LinkState::Connected;
                r.last_stderr = None;
                // The connection sized the client as it attached.
                r.sent_size = Some(r.connect_size);
            }
            RemoteEvent::WindowAdded {
                window,
                index,
                name,
            } => {
                let w = self.remotes[i].windows.entry(window).or_default();
                w.index = index;
                w.name = name;
            }
            RemoteEvent::WindowRenamed { window, name } => {
                if let Some(w) = self.remotes[i].windows.get_mut(&window) {
                    w.name = name.clone();
                    if let Some(tab) = w.tab
                        && let Some(t) = self.ws.groups[group].tabs.iter_mut().find(|t| t.id == tab)
                    {
                        t.custom_title = Some(name);
                    }
                }
            }
            RemoteEvent::WindowClosed(window) => {
                if let Some(w) = self.remotes[i].windows.remove(&window)
                    && let Some(tab) = w.tab
                {
                    let panes: Vec<PaneId> = self.ws.groups[group]
                        .tabs
                        .iter()
                        .filter(|t| t.id == tab)
                        .flat_map(|t| t.layout.panes())
                        .collect();
                    for p in panes {
                        self.forget_remote_pane(i, p);
                    }
                }
            }
            RemoteEvent::Layout {
                window,
                index,
                layout,
                panes,
            } => self.remote_layout(i, group, window, index, &layout.root, panes),
            RemoteEvent::PaneAttached {
                remote,
                pane,
                window,
            } => {
                self.remotes[i].panes.insert(pane, (remote, window));
                self.adopt_remote_pane(pane);
            }
            RemoteEvent::PaneGone { pane, .. } => self.forget_remote_pane(i, pane),
            RemoteEvent::ActiveWindow(window) => {
                let tab = self.remotes[i].windows.get(&window).and_then(|w| w.tab);
                let g = &mut self.ws.groups[group];
                match g.tabs.iter().position(|t| Some(t.id) == tab) {
                    Some(ti) => {
                        g.active_tab = ti;
                        let focused = g.tabs[ti].focused;
                        let r = &mut self.remotes[i];
                        r.pending_window = None;
                        if let Some((remote, _)) = r.panes.get(&focused) {
                            r.selected = Some((window, *remote));
                        }
                    }
                    None => self.remotes[i].pending_window = Some(window),
                }
            }
            RemoteEvent::ActivePane {
                window,
                remote,
                pane,
            } => {
                let r = &mut self.remotes[i];
                if r.selected.is_none_or(|(w, _)| w == window) {
                    r.selected = Some((window, remote));
                }
                let at = pane
                    .and_then(|p| self.ws.locate(p))
                    .filter(|at| at.group == group);
                match (pane, at) {
                    (Some(pane), Some(at)) => {
                        if let Some(tab) = self.ws.tab_mut(at) {
                            tab.focused = pane;
                        }
                        self.remotes[i].pending_pane = None;
                    }
                    _ => self.remotes[i].pending_pane = Some(remote),
                }
            }
            RemoteEvent::Problem(p) => {
                let problems = &mut self.remotes[i].problems;
                if problems.len() >= 8 {
                    problems.remove(0);
                }
                problems.push(p);
            }
            RemoteEvent::Stderr(line) => self.remotes[i].last_stderr = Some(line),
            RemoteEvent::CommandFailed { command, message } => {
                // A pane closed in tern may be gone in tmux already.
                if !command.starts_with("kill-pane") {
                    self.effects
                        .push(Effect::Status(format!("tmux: {command}: {message}")));
                }
            }
            RemoteEvent::Disconnected(reason) => {
                let panes: Vec<PaneId> = self.remotes[i].panes.keys().copied().collect();
                for p in panes {
                    self.forget_remote_pane(i, p);
                }
                let r = &mut self.remotes[i];
                r.conn = None;
                r.windows.clear();
                let retry_at = remote::retries(&reason)
                    .then(|| Instant::now() + r.backoff.disconnected(Instant::now()));
                r.state = LinkState::Down {
                    reason: reason.to_string(),
                    retry_at,
                };
            }
        }
    }

    /// A window's layout: its tab's split tree (the tab is made with its first layout),
    /// the panes that left it forgotten.
    fn remote_layout(
        &mut self,
        i: usize,
        group: usize,
        window: WindowId,
        index: Option<u32>,
        root: &crate::tmux::LayoutCell,
        panes: Vec<(TmuxPaneId, PaneId)>,
    ) {
        for (remote, pane) in &panes {
            self.remotes[i].panes.insert(*pane, (*remote, window));
            self.adopt_remote_pane(*pane);
        }
        let map: HashMap<TmuxPaneId, PaneId> = panes.iter().copied().collect();
        let Some(tree) = remote::split_tree(root, &map) else {
            return;
        };
        let w = self.remotes[i]
            .windows
            .entry(window)
            .or_insert_with(|| RemoteWindow {
                index,
                ..Default::default()
            });
        if index.is_some() {
            w.index = index;
        }
        let name = w.name.clone();
        let existing = w.tab;
        let g = &mut self.ws.groups[group];
        let tab_at = existing.and_then(|id| g.tabs.iter().position(|t| t.id == id));
        if tab_at.is_some()
            && let Some(conn) = &self.remotes[i].conn
        {
            // The core resized the panes' models to their new cells; output parsed
            // around that change may have been laid out at the other size (and tmux
            // reflows differently): each pane's screen is read and written in again.
            for (remote, _) in &panes {
                conn.send(RemoteCommand::Repaint(*remote));
            }
        }
        let left = match tab_at {
            Some(ti) => {
                let tab = &mut g.tabs[ti];
                let left: Vec<PaneId> = tab
                    .layout
                    .panes()
                    .into_iter()
                    .filter(|p| !tree.contains(*p))
                    .collect();
                if !tree.contains(tab.focused) {
                    tab.focused = tree.panes()[0];
                }
                tab.layout = tree;
                left
            }
            None => {
                let first = tree.panes()[0];
                let id = self.ws.push_tab(group, tree, first);
                if let Some(t) = self.ws.groups[group]
                    .tabs
                    .iter_mut()
                    .find(|t| Some(t.id) == id)
                {
                    t.custom_title = Some(name);
                }
                if let Some(w) = self.remotes[i].windows.get_mut(&window) {
                    w.tab = id;
                }
                self.sort_remote_tabs(i, group);
                Vec::new()
            }
        };
        for p in left {
            // Gone from tmux's layout: the tab no longer shows it.
            self.forget_remote_pane(i, p);
        }
        self.follow_pending(i, group, window, &map);
    }

    /// tmux's active window or pane that came before its tab or pane, now there.
    fn follow_pending(
        &mut self,
        i: usize,
        group: usize,
        window: WindowId,
        map: &HashMap<TmuxPaneId, PaneId>,
    ) {
        let r = &mut self.remotes[i];
        let tab = r.windows.get(&window).and_then(|w| w.tab);
        let g = &mut self.ws.groups[group];
        let Some(ti) = g.tabs.iter().position(|t| Some(t.id) == tab) else {
            return;
        };
        if r.pending_window == Some(window) {
            g.active_tab = ti;
            r.pending_window = None;
        }
        if let Some(pane) = r.pending_pane.and_then(|p| map.get(&p))
            && g.tabs[ti].layout.contains(*pane)
        {
            g.tabs[ti].focused = *pane;
            r.pending_pane = None;
        }
    }

    /// A remote group's tabs in tmux's window order; the active tab stays active.
    fn sort_remote_tabs(&mut self, i: usize, group: usize) {
        let order: HashMap<crate::workspace::TabId, u32> = self.remotes[i]
            .windows
            .values()
            .filter_map(|w| Some((w.tab?, w.index.unwrap_or(u32::MAX))))
            .collect();
        let g = &mut self.ws.groups[group];
        let active = g.tabs.get(g.active_tab).map(|t| t.id);
        g.tabs
            .sort_by_key(|t| order.get(&t.id).copied().unwrap_or(u32::MAX));
        g.active_tab = g
            .tabs
            .iter()
            .position(|t| Some(t.id) == active)
            .unwrap_or(0);
    }

    /// A pane showing a tmux pane: registered as remote (its end is tmux's news).
    fn adopt_remote_pane(&mut self, pane: PaneId) {
        self.adopt_remote(pane);
    }

    /// Drops a remote pane (tmux closed it, or the connection ended).
    fn forget_remote_pane(&mut self, i: usize, pane: PaneId) {
        self.remotes[i].panes.remove(&pane);
        if self.record(pane).is_some() {
            let _ = self.run(Command::Close(pane));
        }
    }

    /// tern's focus and pane area, sent to each connected tmux when they changed.
    fn sync_remotes(&mut self) {
        let area = self.area_cells;
        for r in self.remotes.iter_mut() {
            let Some(conn) = &r.conn else { continue };
            if r.state != LinkState::Connected {
                continue;
            }
            let following = r.pending_window.is_some() || r.pending_pane.is_some();
            if let Some(size) = area
                && r.sent_size != Some(size)
            {
                conn.send(RemoteCommand::ResizeClient {
                    cols: size.0,
                    rows: size.1,
                });
                r.sent_size = Some(size);
            }
            let Some(g) = self.ws.groups.iter().find(|g| g.path == r.key) else {
                continue;
            };
            if following {
                continue;
            }
            let Some(tab) = g.tabs.get(g.active_tab) else {
                continue;
            };
            let (Some(window), Some((remote, _))) =
                (r.window_of_tab(tab.id), r.panes.get(&tab.focused))
            else {
                continue;
            };
            let want = (window, *remote);
            if r.selected != Some(want) {
                if r.selected.map(|(w, _)| w) != Some(window) {
                    conn.send(RemoteCommand::SelectWindow(window));
                }
                conn.send(RemoteCommand::SelectPane(*remote));
                r.selected = Some(want);
            }
        }
    }
}
