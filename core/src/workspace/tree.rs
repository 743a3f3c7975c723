//! The workspace tree: worktree groups, each owning its tabs, each tab a split
//! [`Layout`] of panes with one focused, and which panes are visible (the rest are
//! parked). Plain data with its rules; [`super::WorkspaceCore`] owns one and changes it
//! only through commands.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use crate::badges::Badges;
use crate::workspace::split_tree::{Axis, Direction, Layout};

/// Identifies a tab for the life of the app (stable across reorders).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TabId(pub u64);

/// One tab: a split tree of panes, the focused one, and whether it is zoomed.
#[derive(Clone, Debug, PartialEq)]
pub struct Tab<P> {
    pub id: TabId,
    /// A name the user gave the tab (otherwise it shows its pane's title).
    pub custom_title: Option<String>,
    pub layout: Layout<P>,
    pub focused: P,
    /// The focused pane fills the tab.
    pub zoomed: bool,
}

impl<P: Copy + PartialEq> Tab<P> {
    /// The panes shown when this tab is the active one.
    pub fn shown_panes(&self) -> Vec<P> {
        if self.zoomed {
            vec![self.focused]
        } else {
            self.layout.panes()
        }
    }
}

/// A worktree (or any directory) with its tabs.
#[derive(Clone, Debug, PartialEq)]
pub struct Group<P> {
    /// The worktree's one name, everywhere (sidebar, tabs, switcher, notifications,
    /// `tern msg list`): the branch checked out, or the folder's name.
    pub name: String,
    /// Where new tabs start.
    pub path: PathBuf,
    /// The repository this worktree belongs to (its main worktree's root), if any.
    pub repo: Option<PathBuf>,
    pub tabs: Vec<Tab<P>>,
    pub active_tab: usize,
}

/// Where a pane lives: group index, tab index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub group: usize,
    pub tab: usize,
}

/// What closing a pane did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closed<P> {
    /// The pane was one of several in its tab; focus moved to this one.
    Pane {
        focus: P,
    },
    /// The pane was its tab's last; the tab is gone.
    Tab,
    NotFound,
}

/// All groups, the active one, and the tab id counter.
#[derive(Clone, Debug, PartialEq)]
pub struct Workspace<P> {
    pub groups: Vec<Group<P>>,
    pub active: usize,
    next_tab: u64,
}

impl<P> Default for Workspace<P> {
    fn default() -> Self {
        Workspace {
            groups: Vec::new(),
            active: 0,
            next_tab: 1,
        }
    }
}

impl<P: Copy + PartialEq> Workspace<P> {
    /// Adds a group (or returns the one already at `path`). A worktree of a repository
    /// that has groups goes among them in the sidebar's order (git's: the main
    /// worktree first, then by path), so the worktree keys walk them as it lists them;
    /// any other group goes last.
    pub fn add_group(&mut self, name: String, path: PathBuf, repo: Option<PathBuf>) -> usize {
        if let Some(i) = self.groups.iter().position(|g| g.path == path) {
            return i;
        }
        let at = self.place_for(&path, repo.as_deref());
        self.groups.insert(
            at,
            Group {
                name,
                path,
                repo,
                tabs: Vec::new(),
                active_tab: 0,
            },
        );
        if at <= self.active && self.groups.len() > 1 {
            self.active += 1;
        }
        at
    }

    /// Where a group at `path` in `repo` goes (see [`Workspace::add_group`]).
    fn place_for(&self, path: &std::path::Path, repo: Option<&std::path::Path>) -> usize {
        let Some(repo) = repo else {
            return self.groups.len();
        };
        let key = |p: &std::path::Path| (p != repo, p.to_path_buf());
        let mine = key(path);
        let same: Vec<usize> = (0..self.groups.len())
            .filter(|&i| self.groups[i].repo.as_deref() == Some(repo))
            .collect();
        match same.last() {
            None => self.groups.len(),
            Some(&last) => same
                .iter()
                .copied()
                .find(|&i| key(&self.groups[i].path) > mine)
                .unwrap_or(last + 1),
        }
    }

    /// Removes a group that has no tabs left; returns false otherwise.
    pub fn remove_group(&mut self, group: usize) -> bool {
        if self.groups.get(group).is_none_or(|g| !g.tabs.is_empty()) {
            return false;
        }
        self.groups.remove(group);
        if self.active > group || self.active >= self.groups.len() {
            self.active = self.active.saturating_sub(1);
        }
        true
    }

    /// Opens a tab holding `pane` in `group`, after its active tab, and activates it.
    pub fn add_tab(&mut self, group: usize, pane: P) -> Option<TabId> {
        let id = TabId(self.next_tab);
        let g = self.groups.get_mut(group)?;
        self.next_tab += 1;
        let at = if g.tabs.is_empty() {
            0
        } else {
            g.active_tab + 1
        };
        g.tabs.insert(
            at,
            Tab {
                id,
                custom_title: None,
                layout: Layout::leaf(pane),
                focused: pane,
                zoomed: false,
            },
        );
        g.active_tab = at;
        self.active = group;
        Some(id)
    }

    /// Adds a tab restored from a session, without changing what is active.
    pub fn push_tab(&mut self, group: usize, layout: Layout<P>, focused: P) -> Option<TabId> {
        let id = TabId(self.next_tab);
        let g = self.groups.get_mut(group)?;
        self.next_tab += 1;
        let focused = if layout.contains(focused) {
            focused
        } else {
            layout.panes()[0]
        };
        g.tabs.push(Tab {
            id,
            custom_title: None,
            layout,
            focused,
            zoomed: false,
        });
        Some(id)
    }

    pub fn active_group(&self) -> Option<&Group<P>> {
        self.groups.get(self.active)
    }

    pub fn active_tab(&self) -> Option<&Tab<P>> {
        let g = self.active_group()?;
        g.tabs.get(g.active_tab)
    }

    fn active_tab_mut(&mut self) -> Option<&mut Tab<P>> {
        let g = self.groups.get_mut(self.active)?;
        g.tabs.get_mut(g.active_tab)
    }

    /// The pane that gets keys.
    pub fn focused_pane(&self) -> Option<P> {
        self.active_tab().map(|t| t.focused)
    }

    /// The panes drawn now; every other pane is parked.
    pub fn visible_panes(&self) -> Vec<P> {
        self.active_tab().map(Tab::shown_panes).unwrap_or_default()
    }

    /// Every pane, in sidebar order.
    pub fn all_panes(&self) -> Vec<P> {
        self.groups
            .iter()
            .flat_map(|g| g.tabs.iter())
            .flat_map(|t| t.layout.panes())
            .collect()
    }

    pub fn locate(&self, pane: P) -> Option<Location> {
        self.groups.iter().enumerate().find_map(|(gi, g)| {
            g.tabs
                .iter()
                .position(|t| t.layout.contains(pane))
                .map(|ti| Location { group: gi, tab: ti })
        })
    }

    pub fn tab(&self, at: Location) -> Option<&Tab<P>> {
        self.groups.get(at.group)?.tabs.get(at.tab)
    }

    pub fn tab_mut(&mut self, at: Location) -> Option<&mut Tab<P>> {
        self.groups.get_mut(at.group)?.tabs.get_mut(at.tab)
    }

    /// Shows `pane`: its group and tab become active and it takes focus. A zoomed tab
    /// unzooms when another of its panes is chosen.
    pub fn focus_pane(&mut self, pane: P) -> bool {
        let Some(at) = self.locate(pane) else {
            return false;
        };
        self.active = at.group;
        self.groups[at.group].active_tab = at.tab;
        let tab = &mut self.groups[at.group].tabs[at.tab];
        if tab.focused != pane {
            tab.zoomed = false;
        }
        tab.focused = pane;
        true
    }

    /// Splits the focused pane; `new` takes the second half and the focus.
    pub fn split_focused(&mut self, axis: Axis, new: P) -> bool {
        let Some(tab) = self.active_tab_mut() else {
            return false;
        };
        let ok = tab.layout.split(tab.focused, axis, new);
        if ok {
            tab.focused = new;
            tab.zoomed = false;
        }
        ok
    }

    /// Removes a pane from its tab (the tab goes when it was the last pane).
    pub fn close_pane(&mut self, pane: P) -> Closed<P> {
        let Some(at) = self.locate(pane) else {
            return Closed::NotFound;
        };
        let g = &mut self.groups[at.group];
        let tab = &mut g.tabs[at.tab];
        match tab.layout.remove(pane) {
            Some(next) => {
                if tab.focused == pane {
                    tab.focused = next;
                }
                tab.zoomed = false;
                Closed::Pane { focus: tab.focused }
            }
            None => {
                g.tabs.remove(at.tab);
                if g.active_tab > at.tab || g.active_tab >= g.tabs.len() {
                    g.active_tab = g.active_tab.saturating_sub(1);
                }
                Closed::Tab
            }
        }
    }

    /// Moves focus to the pane in direction `dir` within the active tab.
    pub fn focus_direction(&mut self, dir: Direction) -> bool {
        let Some(tab) = self.active_tab_mut() else {
            return false;
        };
        if tab.zoomed {
            return false;
        }
        match tab.layout.neighbour(tab.focused, dir) {
            Some(p) => {
                tab.focused = p;
                true
            }
            None => false,
        }
    }

    /// Next (`+1`) or previous (`-1`) tab of the active group, wrapping.
    pub fn cycle_tab(&mut self, step: isize) {
        if let Some(g) = self.groups.get_mut(self.active)
            && !g.tabs.is_empty()
        {
            let n = g.tabs.len() as isize;
            g.active_tab = (g.active_tab as isize + step).rem_euclid(n) as usize;
        }
    }

    /// The `n`th tab (0-based) of the active group, if it exists.
    pub fn select_tab(&mut self, n: usize) -> bool {
        match self.groups.get_mut(self.active) {
            Some(g) if n < g.tabs.len() => {
                g.active_tab = n;
                true
            }
            _ => false,
        }
    }

    /// Next (`+1`) or previous (`-1`) group that has tabs, wrapping.
    pub fn cycle_group(&mut self, step: isize) -> bool {
        let n = self.groups.len() as isize;
        for k in 1..=n {
            let i = (self.active as isize + step * k).rem_euclid(n) as usize;
            if !self.groups[i].tabs.is_empty() {
                self.active = i;
                return true;
            }
        }
        false
    }

    /// Moves a tab within its group (drag to reorder); the moved tab stays active.
    pub fn move_tab(&mut self, group: usize, from: usize, to: usize) -> bool {
        let Some(g) = self.groups.get_mut(group) else {
            return false;
        };
        if from >= g.tabs.len() || to >= g.tabs.len() {
            return false;
        }
        let tab = g.tabs.remove(from);
        g.tabs.insert(to, tab);
        g.active_tab = to;
        true
    }

    pub fn toggle_zoom(&mut self) {
        if let Some(tab) = self.active_tab_mut()
            && tab.layout.len() > 1
        {
            tab.zoomed = !tab.zoomed;
        }
    }

    pub fn resize_focused(&mut self, toward: Direction, delta: f32) -> bool {
        match self.active_tab_mut() {
            Some(tab) => tab.layout.resize(tab.focused, toward, delta),
            None => false,
        }
    }

    pub fn equalize(&mut self) {
        if let Some(tab) = self.active_tab_mut() {
            tab.layout.equalize();
        }
    }
}

impl<P: Copy + PartialEq> Workspace<P> {
    /// A tab's badges: the union of its panes'.
    pub fn tab_badges(&self, tab: &Tab<P>, pane: impl Fn(P) -> Badges) -> Badges {
        tab.layout
            .panes()
            .into_iter()
            .fold(Badges::default(), |acc, p| acc.merge(pane(p)))
    }

    /// A group's badges: the union of its tabs'.
    pub fn group_badges(&self, group: usize, pane: impl Fn(P) -> Badges) -> Badges {
        self.groups.get(group).map_or(Badges::default(), |g| {
            g.tabs.iter().fold(Badges::default(), |acc, t| {
                acc.merge(self.tab_badges(t, &pane))
            })
        })
    }
}

/// Ranks `candidates` against a fuzzy `query` (fzf-style: words match independently,
/// smart case) for the quick switcher and the command palette. Returns the indices of
/// the candidates that match, best first; an empty query keeps every candidate in order.
pub fn fuzzy_rank(query: &str, candidates: &[String]) -> Vec<usize> {
    use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
    use nucleo_matcher::{Config, Matcher, Utf32Str};
    if query.trim().is_empty() {
        return (0..candidates.len()).collect();
    }
    let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let mut buf = Vec::new();
    let mut scored: Vec<(u32, usize)> = candidates
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            pattern
                .score(Utf32Str::new(c, &mut buf), &mut matcher)
                .map(|s| (s, i))
        })
        .collect();
    // Best score first; ties keep the candidates' order.
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, i)| i).collect()
}
