//! Remote worktrees: a tmux session on another machine (or here) shown as a worktree
//! group whose tabs are tmux's windows. This module holds one group's connection state
//! and the pure mapping from tmux's layouts to tern's split trees; `mod.rs` applies
//! the events to the workspace.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Instant;

use crate::config::RemoteConfig;
use crate::pipeline::PaneId;
use crate::tmux::{
    Backoff, CellContent, ConnectSpec, Connection, DisconnectReason, LayoutCell, RemoteTarget,
    SshOptions, TmuxPaneId, Transport, WindowId, session_name,
};
use crate::workspace::TabId;
use crate::workspace::split_tree::{Axis, Layout, MIN_RATIO};

/// Text typed in "Add repository" that names a remote worktree rather than a local
/// folder: `ssh://…`, or `[user@]host:path` (a local path starts with `/`, `~` or `.`).
pub fn parse_target(text: &str) -> Option<Result<RemoteTarget, String>> {
    let text = text.trim();
    let local = text.starts_with(['/', '~', '.']) || !text.contains(':');
    if !text.starts_with("ssh://") && local {
        return None;
    }
    Some(RemoteTarget::parse(text).map_err(|e| format!("{text}: {e}")))
}

/// The group's name and its key in the workspace (`Group::path`): `host:path`.
pub fn group_name(target: &RemoteTarget) -> String {
    format!("{}:{}", target.destination(), target.path)
}

/// One tmux window shown as a tab.
#[derive(Clone, Debug, Default)]
pub struct RemoteWindow {
    pub index: Option<u32>,
    pub name: String,
    /// Its tab, once its first layout with attached panes came.
    pub tab: Option<TabId>,
}

/// Where a remote group's connection stands.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkState {
    Connecting,
    Connected,
    /// Ended: the reason, ssh's last word, and when the next attempt is due (`None`:
    /// no retry, as after a too old tmux).
    Down {
        reason: String,
        retry_at: Option<Instant>,
    },
}

/// A remote worktree group: its target, its connection, its windows and panes.
pub struct RemoteGroup {
    /// As typed (saved in the session).
    pub target_text: String,
    pub target: RemoteTarget,
    /// The group's key in the workspace.
    pub key: PathBuf,
    pub conn: Option<Connection>,
    pub backoff: Backoff,
    pub state: LinkState,
    /// The last line ssh or tmux wrote on stderr.
    pub last_stderr: Option<String>,
    pub windows: BTreeMap<WindowId, RemoteWindow>,
    /// Each tern pane's tmux pane and window.
    pub panes: HashMap<PaneId, (TmuxPaneId, WindowId)>,
    /// The client size last sent (`refresh-client -C`); the connection's own at
    /// attach is `connect_size`.
    pub sent_size: Option<(u16, u16)>,
    pub connect_size: (u16, u16),
    /// tmux's active window and pane as last known (said by tmux or sent by tern).
    pub selected: Option<(WindowId, TmuxPaneId)>,
    /// tmux made this window or pane active before tern had its tab or pane: tern
    /// follows once it has (and sends no focus of its own meanwhile).
    pub pending_window: Option<WindowId>,
    pub pending_pane: Option<TmuxPaneId>,
    /// The last few things the connection went past (`RemoteEvent::Problem`; also
    /// in the pipeline's breadcrumbs).
    pub problems: Vec<String>,
}

impl RemoteGroup {
    pub fn new(target_text: String, target: RemoteTarget) -> RemoteGroup {
        RemoteGroup {
            key: PathBuf::from(group_name(&target)),
            target_text,
            target,
            conn: None,
            backoff: Backoff::new(),
            state: LinkState::Connecting,
            last_stderr: None,
            windows: BTreeMap::new(),
            panes: HashMap::new(),
            sent_size: None,
            connect_size: (80, 24),
            selected: None,
            pending_window: None,
            pending_pane: None,
            problems: Vec::new(),
        }
    }

    /// What to connect with: ssh as configured, the session named after the path,
    /// the client as big as the pane area.
    pub fn spec(&self, config: &RemoteConfig, size: (u16, u16)) -> ConnectSpec {
        let transport = Transport::Ssh {
            target: self.target.clone(),
            ssh: SshOptions {
                program: config.ssh.clone(),
                extra_args: config.ssh_options.clone(),
                batch_mode: config.batch_mode,
            },
        };
        let mut spec = ConnectSpec::new(transport, session_name(&self.target.path));
        if !config.tmux.is_empty() {
            spec.tmux = config.tmux.clone();
        }
        spec.size = size;
        spec
    }

    /// The note shown on the group's row and in its empty tab area.
    pub fn note(&self) -> Option<String> {
        match &self.state {
            LinkState::Connecting => Some(format!("connecting to {}…", self.target.host)),
            LinkState::Connected => None,
            LinkState::Down { reason, retry_at } => {
                let mut text = format!("disconnected: {reason}");
                if let Some(line) = &self.last_stderr
                    && !reason.contains(line.as_str())
                {
                    text.push_str(&format!(" ({line})"));
                }
                match retry_at {
                    Some(at) => {
                        let secs = at.saturating_duration_since(Instant::now()).as_secs_f32();
                        text.push_str(&format!("; reconnecting in {secs:.0} s"));
                    }
                    None => text.push_str("; not retrying"),
                }
                Some(text)
            }
        }
    }

    /// The window whose tab is `tab`.
    pub fn window_of_tab(&self, tab: TabId) -> Option<WindowId> {
        self.windows
            .iter()
            .find_map(|(w, rw)| (rw.tab == Some(tab)).then_some(*w))
    }
}

/// Whether a disconnection is worth another attempt.
pub fn retries(reason: &DisconnectReason) -> bool {
    !matches!(
        reason,
        DisconnectReason::Version(_) | DisconnectReason::Detached
    )
}

/// tmux's layout as a tern split tree of the attached panes: an n-ary split becomes
/// nested binary splits (the first child against the rest), each ratio from the cells'
/// sizes. Panes not attached yet are left out; `None` when none is.
pub fn split_tree(
    cell: &LayoutCell,
    panes: &HashMap<TmuxPaneId, PaneId>,
) -> Option<Layout<PaneId>> {
    match &cell.content {
        CellContent::Pane(id) => id.and_then(|id| panes.get(&id)).map(|p| Layout::Leaf(*p)),
        CellContent::LeftRight(children) => chain(children, Axis::Horizontal, panes),
        CellContent::TopBottom(children) => chain(children, Axis::Vertical, panes),
    }
}

fn chain(
    children: &[LayoutCell],
    axis: Axis,
    panes: &HashMap<TmuxPaneId, PaneId>,
) -> Option<Layout<PaneId>> {
    let span = |c: &LayoutCell| match axis {
        Axis::Horizontal => c.width,
        Axis::Vertical => c.height,
    };
    let (first, rest) = children.split_first()?;
    let head = split_tree(first, panes);
    if rest.is_empty() {
        return head;
    }
    let tail = chain(rest, axis, panes);
    match (head, tail) {
        (Some(a), Some(b)) => {
            let first_span = span(first) as f32;
            let rest_span: f32 = rest.iter().map(|c| span(c) as f32).sum();
            let ratio =
                (first_span / (first_span + rest_span).max(1.0)).clamp(MIN_RATIO, 1.0 - MIN_RATIO);
            Some(Layout::Split {
                axis,
                ratio,
                first: Box::new(a),
                second: Box::new(b),
            })
        }
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::Layout as TmuxLayout;

    #[test]
    fn three_panes_side_by_side_become_nested_splits_with_their_shares() {
        // 80 columns: 20 | 39 | 19 (tmux's borders between).
        let body = "80x24,0,0{20x24,0,0,1,39x24,21,0,2,19x24,61,0,3}";
        let sum = crate::tmux::layout::checksum(body.as_bytes());
        let layout = TmuxLayout::parse(&format!("{sum:04x},{body}")).expect("layout");
        let panes: HashMap<TmuxPaneId, PaneId> = (1..=3)
            .map(|i| (TmuxPaneId(i), PaneId(i as u64 + 10)))
            .collect();
        let tree = split_tree(&layout.root, &panes).expect("a tree");
        assert_eq!(tree.panes(), vec![PaneId(11), PaneId(12), PaneId(13)]);
        let Layout::Split {
            axis,
            ratio,
            second,
            ..
        } = &tree
        else {
            panic!("a split: {tree:?}");
        };
        assert_eq!(*axis, Axis::Horizontal);
        assert!((ratio - 20.0 / 78.0).abs() < 1e-3, "{ratio}");
        let Layout::Split { ratio, .. } = second.as_ref() else {
            panic!("nested");
        };
        assert!((ratio - 39.0 / 58.0).abs() < 1e-3, "{ratio}");
        // A pane not attached yet is left out.
        let two: HashMap<TmuxPaneId, PaneId> =
            panes.into_iter().filter(|(t, _)| t.0 != 2).collect();
        assert_eq!(
            split_tree(&layout.root, &two).expect("tree").panes(),
            vec![PaneId(11), PaneId(13)]
        );
    }

    #[test]
    fn remote_text_is_told_from_a_local_path() {
        assert!(parse_target("/home/me/src").is_none());
        assert!(parse_target("~/src").is_none());
        assert!(parse_target("relative").is_none());
        assert!(matches!(parse_target("box:src/app"), Some(Ok(_))));
        assert!(matches!(
            parse_target("ssh://me@box:2222/~/app"),
            Some(Ok(_))
        ));
        let t = parse_target("box:/srv/app")
            .expect("remote")
            .expect("parses");
        assert_eq!(group_name(&t), "box:/srv/app");
    }
}
