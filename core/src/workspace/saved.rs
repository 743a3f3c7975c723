//! Saving and restoring the workspace through [`crate::session::SessionState`].

use std::path::PathBuf;

use super::{Group, Workspace};
use crate::session::{SavedLayout, SavedPane, SavedTab, SavedWorktree, SessionState, SplitDir};
use crate::workspace::split_tree::{Axis, Layout};

impl<P: Copy + PartialEq> Workspace<P> {
    /// The session to save: every group (a group with no repository is saved
    /// with an empty `repo`), its tabs and split trees, and what is active.
    /// `pane` says what to keep of each pane (its folder, maybe its screen).
    pub fn to_session(&self, pane: impl Fn(P) -> SavedPane) -> SessionState {
        let worktrees = self
            .groups
            .iter()
            .map(|g| SavedWorktree {
                repo: g.repo.clone().unwrap_or_default(),
                path: g.path.clone(),
                name: g.name.clone(),
                tabs: g
                    .tabs
                    .iter()
                    .map(|t| SavedTab {
                        title: t.custom_title.clone(),
                        custom_title: t.custom_title.is_some(),
                        layout: save_layout(&t.layout, &pane),
                        focused_pane: t
                            .layout
                            .panes()
                            .iter()
                            .position(|p| *p == t.focused)
                            .unwrap_or(0),
                    })
                    .collect(),
                active_tab: g.active_tab,
            })
            .collect();
        SessionState {
            worktrees,
            active_worktree: (!self.groups.is_empty()).then_some(self.active),
            ..SessionState::default()
        }
    }

    /// Rebuilds a workspace from a saved session; `spawn` starts each pane (in its
    /// folder) and may fail, in which case the pane is left out (a tab whose panes
    /// all failed is left out too). Loose tabs go to a group at their first pane's
    /// folder.
    pub fn from_session(
        state: &SessionState,
        mut spawn: impl FnMut(&SavedPane) -> Option<P>,
    ) -> Workspace<P> {
        Workspace::from_session_sized(state, None, |p, _| spawn(p))
    }

    /// [`Workspace::from_session`], with each pane's size in cells when the panes'
    /// area (`area`: columns, rows) is known: its share of the area by the saved
    /// split ratios, so that a program starts at the size it will have (issue 51: a
    /// narrow split pane started at 80 columns showed its prompt cut, twice).
    pub fn from_session_sized(
        state: &SessionState,
        area: Option<(u16, u16)>,
        mut spawn: impl FnMut(&SavedPane, Option<(u16, u16)>) -> Option<P>,
    ) -> Workspace<P> {
        let state = state.clone().sanitized();
        let mut ws = Workspace::default();
        let mut restore_group = |ws: &mut Workspace<P>,
                                 name: String,
                                 path: PathBuf,
                                 repo: Option<PathBuf>,
                                 tabs: &[SavedTab],
                                 active_tab: usize| {
            let g = ws.add_group(name, path, repo);
            for tab in tabs {
                let panes: Vec<&SavedPane> = tab.layout.panes();
                let mut sizes = Vec::with_capacity(panes.len());
                if let Some(area) = area {
                    leaf_sizes(&tab.layout, area, &mut sizes);
                }
                let mut started: Vec<Option<P>> = Vec::with_capacity(panes.len());
                for (i, p) in panes.iter().enumerate() {
                    started.push(spawn(p, sizes.get(i).copied()));
                }
                let mut next = started.iter().copied();
                let Some(layout) = restore_layout(&tab.layout, &mut next) else {
                    continue;
                };
                let focused = started
                    .get(tab.focused_pane)
                    .copied()
                    .flatten()
                    .unwrap_or_else(|| layout.panes()[0]);
                if let Some(id) = ws.push_tab(g, layout, focused)
                    && let Some(t) = ws.groups[g].tabs.iter_mut().find(|t| t.id == id)
                {
                    t.custom_title = tab.title.clone().filter(|_| tab.custom_title);
                }
            }
            let group: &mut Group<P> = &mut ws.groups[g];
            group.active_tab = active_tab.min(group.tabs.len().saturating_sub(1));
        };
        for w in &state.worktrees {
            let repo = (!w.repo.as_os_str().is_empty()).then(|| w.repo.clone());
            // The branch checked out now names it (a session saved before it was
            // switched, or by a tern that named worktrees by folder).
            let name = match super::core::group_identity(&w.path) {
                (branch, Some(_)) => branch,
                (_, None) => w.name.clone(),
            };
            restore_group(&mut ws, name, w.path.clone(), repo, &w.tabs, w.active_tab);
        }
        if let Some(first) = state
            .loose_tabs
            .first()
            .and_then(|t| t.layout.panes().first().map(|p| p.cwd.clone()))
        {
            let name = first
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| first.display().to_string());
            restore_group(
                &mut ws,
                name,
                first,
                None,
                &state.loose_tabs,
                state.active_loose_tab,
            );
        }
        // Groups may not come back in the saved order (a repository's worktrees are
        // kept in the sidebar's order): the active one is found by its folder.
        let active_path = state
            .active_worktree
            .and_then(|i| state.worktrees.get(i))
            .map(|w| w.path.clone());
        ws.active = active_path
            .and_then(|p| ws.groups.iter().position(|g| g.path == p))
            .unwrap_or_else(|| {
                state
                    .active_worktree
                    .unwrap_or(0)
                    .min(ws.groups.len().saturating_sub(1))
            });
        if ws.groups.get(ws.active).is_some_and(|g| g.tabs.is_empty()) {
            ws.cycle_group(1);
        }
        ws
    }
}

fn save_layout<P: Copy + PartialEq>(l: &Layout<P>, pane: &impl Fn(P) -> SavedPane) -> SavedLayout {
    match l {
        Layout::Leaf(p) => SavedLayout::Leaf(pane(*p)),
        Layout::Split {
            axis,
            ratio,
            first,
            second,
        } => SavedLayout::Split {
            dir: match axis {
                Axis::Horizontal => SplitDir::Horizontal,
                Axis::Vertical => SplitDir::Vertical,
            },
            ratios: vec![*ratio, 1.0 - *ratio],
            children: vec![save_layout(first, pane), save_layout(second, pane)],
        },
    }
}

/// A saved tree (splits may have any number of children) as a binary tree, taking
/// started panes in depth-first order; panes that did not start are left out.
/// Each leaf's share of `area` (columns, rows), depth first: a split divides its
/// axis by its ratios (a divider is narrower than a cell and is not counted).
fn leaf_sizes(l: &SavedLayout, area: (u16, u16), out: &mut Vec<(u16, u16)>) {
    match l {
        SavedLayout::Leaf(_) => out.push((area.0.max(2), area.1.max(1))),
        SavedLayout::Split {
            dir,
            ratios,
            children,
        } => {
            let total: f32 = ratios
                .iter()
                .take(children.len())
                .sum::<f32>()
                .max(f32::EPSILON);
            for (i, child) in children.iter().enumerate() {
                let share = ratios.get(i).copied().unwrap_or(0.0).max(0.0) / total;
                let part = |n: u16| ((f32::from(n) * share).floor() as u16).max(1);
                let sub = match dir {
                    SplitDir::Horizontal => (part(area.0), area.1),
                    SplitDir::Vertical => (area.0, part(area.1)),
                };
                leaf_sizes(child, sub, out);
            }
        }
    }
}

fn restore_layout<P: Copy + PartialEq>(
    l: &SavedLayout,
    started: &mut impl Iterator<Item = Option<P>>,
) -> Option<Layout<P>> {
    match l {
        SavedLayout::Leaf(_) => started.next().flatten().map(Layout::Leaf),
        SavedLayout::Split {
            dir,
            ratios,
            children,
        } => {
            let axis = match dir {
                SplitDir::Horizontal => Axis::Horizontal,
                SplitDir::Vertical => Axis::Vertical,
            };
            // Restore every child first (keeps the depth-first order), then fold
            // from the right: a | (b | c) with each ratio its share of what is left.
            let parts: Vec<(f32, Layout<P>)> = children
                .iter()
                .zip(ratios.iter().copied().chain(std::iter::repeat(0.0)))
                .filter_map(|(c, r)| restore_layout(c, started).map(|l| (r.max(0.0), l)))
                .collect();
            let mut iter = parts.into_iter().rev();
            let (mut share, mut acc) = iter.next()?;
            for (r, l) in iter {
                let total = r + share;
                let ratio = if total > 0.0 { r / total } else { 0.5 };
                acc = Layout::Split {
                    axis,
                    ratio: ratio.clamp(
                        crate::workspace::split_tree::MIN_RATIO,
                        1.0 - crate::workspace::split_tree::MIN_RATIO,
                    ),
                    first: Box::new(l),
                    second: Box::new(acc),
                };
                share = total;
            }
            Some(acc)
        }
    }
}
