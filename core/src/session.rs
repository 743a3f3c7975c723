//! Session persistence: which worktrees were open, their tabs, each tab's split tree
//! and each pane's folder (and, if the user wants it, its last screen of text). A
//! GUI-free data model: the app converts its own layout into [`SessionState`] and back.
//!
//! The file (`session.ron`) is replaced atomically ([`crate::atomic_file`]), so a crash
//! or a full disk during a save leaves the previous session intact. A file that does not
//! load is renamed aside (`session.ron.corrupt-<unix seconds>`) and reported, and the
//! app starts clean: a bad session never stops tern from starting, and never gets
//! overwritten before someone could look at it.
//!
//! Saving and loading touch the disk (a save `fsync`s): call them off the UI thread.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The format version this build writes. Files with a higher version are set aside
/// like corrupt ones (a newer tern wrote them).
pub const SESSION_VERSION: u32 = 1;

/// Everything a restart needs to rebuild the window's layout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionState {
    pub version: u32,
    pub worktrees: Vec<SavedWorktree>,
    /// Index into `worktrees`; `None`: the loose tabs are in front.
    pub active_worktree: Option<usize>,
    /// Tabs that belong to no worktree (a shell opened outside any repository).
    pub loose_tabs: Vec<SavedTab>,
    pub active_loose_tab: usize,
    /// Remote worktrees, reconnected at start (their tabs come back from tmux).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remotes: Vec<SavedRemote>,
    /// The window's size and place (the window face's; none for headless).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<SavedWindow>,
}

/// The window as it was: its inner size in points, whether it was maximized, and its
/// outer position where the platform tells it (X11 does; Wayland does not).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedWindow {
    pub width: f32,
    pub height: f32,
    #[serde(default)]
    pub maximized: bool,
    #[serde(default)]
    pub position: Option<(f32, f32)>,
}

impl SavedWindow {
    /// Whether the numbers make a window (a hand-edited file may say anything).
    pub fn is_sane(&self) -> bool {
        let size = |v: f32| v.is_finite() && (100.0..=20_000.0).contains(&v);
        let place = |v: f32| v.is_finite() && v.abs() <= 100_000.0;
        size(self.width)
            && size(self.height)
            && self.position.is_none_or(|(x, y)| place(x) && place(y))
    }
}

impl Default for SessionState {
    fn default() -> Self {
        SessionState {
            version: SESSION_VERSION,
            worktrees: Vec::new(),
            active_worktree: None,
            loose_tabs: Vec::new(),
            active_loose_tab: 0,
            remotes: Vec::new(),
            window: None,
        }
    }
}

/// A remote worktree: the target as typed (`ssh://host/path`, `host:path`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedRemote {
    pub target: String,
    /// Whether it was the group in front.
    #[serde(default)]
    pub active: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedWorktree {
    /// The repository's main worktree folder.
    pub repo: PathBuf,
    /// This worktree's folder.
    pub path: PathBuf,
    /// The label shown in the sidebar (usually the branch).
    pub name: String,
    pub tabs: Vec<SavedTab>,
    /// Index into `tabs`.
    #[serde(default)]
    pub active_tab: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedTab {
    /// The tab's title when saved.
    #[serde(default)]
    pub title: Option<String>,
    /// The user named the tab (keep `title`, do not follow the program's title).
    #[serde(default)]
    pub custom_title: bool,
    pub layout: SavedLayout,
    /// Index of the focused pane in the layout's depth-first order
    /// ([`SavedLayout::panes`]).
    #[serde(default)]
    pub focused_pane: usize,
}

/// A tab's split tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SavedLayout {
    Leaf(SavedPane),
    /// Children side by side (`Horizontal`: left to right) or stacked (`Vertical`: top
    /// to bottom). `ratios[i]` is child `i`'s share of the space; they add up to 1.
    Split {
        dir: SplitDir,
        ratios: Vec<f32>,
        children: Vec<SavedLayout>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SplitDir {
    /// Children left to right.
    Horizontal,
    /// Children top to bottom.
    Vertical,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedPane {
    /// The folder the pane's program was in (from OSC 7, else where it started).
    pub cwd: PathBuf,
    /// The screen's text rows when saved, when the user turned that on.
    #[serde(default)]
    pub last_screen: Option<Vec<String>>,
    /// The program and arguments the pane was opened to run (not the shell), for
    /// resuming it (`crate::resume`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// The agent conversation that ran there (its hooks said which): resumed exactly
    /// (`claude --resume ID`, `codex resume ID`) instead of by `session.resume`'s rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<crate::agent::AgentSession>,
    /// The key the keeper holds the pane's program under: a start that finds it there
    /// takes the running program back instead of starting a new one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keeper: Option<u64>,
}

impl SavedLayout {
    pub fn leaf(cwd: impl Into<PathBuf>) -> SavedLayout {
        SavedLayout::Leaf(SavedPane {
            cwd: cwd.into(),
            last_screen: None,
            command: None,
            agent: None,
            keeper: None,
        })
    }

    /// Splits into `children` with equal shares.
    pub fn split(dir: SplitDir, children: Vec<SavedLayout>) -> SavedLayout {
        let n = children.len().max(1);
        SavedLayout::Split {
            dir,
            ratios: vec![1.0 / n as f32; children.len()],
            children,
        }
    }

    /// The panes in depth-first order (the order `focused_pane` counts in).
    pub fn panes(&self) -> Vec<&SavedPane> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a SavedPane>) {
        match self {
            SavedLayout::Leaf(p) => out.push(p),
            SavedLayout::Split { children, .. } => {
                for c in children {
                    c.collect(out);
                }
            }
        }
    }

    /// Repairs what a hand edit or an older build could leave: a split with one child
    /// becomes that child, an empty split is dropped, ratios that are missing, not
    /// finite, not positive, or do not match the children become equal shares, and
    /// shares are scaled to add up to 1. `None` when no pane is left.
    pub fn sanitized(self) -> Option<SavedLayout> {
        match self {
            leaf @ SavedLayout::Leaf(_) => Some(leaf),
            SavedLayout::Split {
                dir,
                ratios,
                children,
            } => {
                let keep_ratios = ratios.len() == children.len()
                    && ratios.iter().all(|r| r.is_finite() && *r > 0.0);
                let mut kept = Vec::with_capacity(children.len());
                let mut kept_ratios = Vec::with_capacity(children.len());
                for (i, child) in children.into_iter().enumerate() {
                    if let Some(c) = child.sanitized() {
                        kept.push(c);
                        kept_ratios.push(if keep_ratios { ratios[i] } else { 1.0 });
                    }
                }
                match kept.len() {
                    0 => None,
                    1 => kept.pop(),
                    _ => {
                        let sum: f32 = kept_ratios.iter().sum();
                        Some(SavedLayout::Split {
                            dir,
                            ratios: kept_ratios.iter().map(|r| r / sum).collect(),
                            children: kept,
                        })
                    }
                }
            }
        }
    }
}

impl SavedTab {
    fn sanitized(mut self) -> Option<SavedTab> {
        self.layout = self.layout.sanitized()?;
        let panes = self.layout.panes().len();
        self.focused_pane = self.focused_pane.min(panes.saturating_sub(1));
        Some(self)
    }
}

fn sanitize_tabs(tabs: Vec<SavedTab>, active: &mut usize) -> Vec<SavedTab> {
    let tabs: Vec<SavedTab> = tabs.into_iter().filter_map(SavedTab::sanitized).collect();
    *active = (*active).min(tabs.len().saturating_sub(1));
    tabs
}

impl SessionState {
    /// [`SavedLayout::sanitized`] for every tab, tabs without panes dropped, and every
    /// index clamped into range. [`SessionStore::load`] returns sanitized states.
    pub fn sanitized(mut self) -> SessionState {
        for w in &mut self.worktrees {
            w.tabs = sanitize_tabs(std::mem::take(&mut w.tabs), &mut w.active_tab);
        }
        self.loose_tabs = sanitize_tabs(
            std::mem::take(&mut self.loose_tabs),
            &mut self.active_loose_tab,
        );
        if self
            .active_worktree
            .is_some_and(|i| i >= self.worktrees.len())
        {
            self.active_worktree = None;
        }
        self
    }
}

/// What [`SessionStore::load`] found.
#[derive(Clone, Debug, PartialEq)]
pub enum LoadOutcome {
    Restored(SessionState),
    /// No session file: start with the default layout.
    Fresh,
    /// The file did not load; it was moved to `kept_aside` (or, if even that failed,
    /// left where it was: `kept_aside` is then the session path) and the app starts
    /// clean. Show `error` once.
    Corrupt {
        kept_aside: PathBuf,
        error: String,
    },
    /// The file is there but could not be read (permissions, a folder in its place, an
    /// I/O error): it is left alone, and the app should neither restore nor save over
    /// it this run. Show `error` once.
    Unreadable {
        error: String,
    },
}

/// The session file.
#[derive(Clone, Debug)]
pub struct SessionStore {
    path: PathBuf,
}

impl SessionStore {
    pub fn new(path: impl Into<PathBuf>) -> SessionStore {
        SessionStore { path: path.into() }
    }

    /// `<state dir>/tern/session.ron`: `$XDG_STATE_HOME` or `~/.local/state` on Linux,
    /// the local data folder elsewhere. `None` when no home folder is known.
    pub fn default_path() -> Option<PathBuf> {
        dirs::state_dir()
            .or_else(dirs::data_local_dir)
            .map(|d| d.join("tern").join("session.ron"))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the file atomically; on any error the previous file is unchanged.
    pub fn save(&self, state: &SessionState) -> io::Result<()> {
        self.save_via(state, |w, bytes| w.write_all(bytes))
    }

    /// [`SessionStore::save`] with the step that writes the bytes into the temporary
    /// file given by the caller: `write(file, bytes)`. Lets tests put a failing writer
    /// (a full disk) in the way.
    pub fn save_via(
        &self,
        state: &SessionState,
        write: impl FnOnce(&mut dyn Write, &[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let pretty = ron::ser::PrettyConfig::new().struct_names(false);
        let text = ron::ser::to_string_pretty(state, pretty).map_err(io::Error::other)?;
        crate::atomic_file::write_atomic_with(&self.path, |w| write(w, text.as_bytes()))
    }

    /// The window the session file remembers, read without changing the file (the
    /// window is sized before the session is loaded for real); `None` when there is
    /// none or the file does not load.
    pub fn peek_window(&self) -> Option<SavedWindow> {
        let text = std::fs::read_to_string(&self.path).ok()?;
        let state = ron::from_str::<SessionState>(&text).ok()?;
        state.window.filter(SavedWindow::is_sane)
    }

    /// Reads the session. Never fails: a missing file is `Fresh`, one that does not
    /// load is moved aside and reported as `Corrupt`.
    pub fn load(&self) -> LoadOutcome {
        let error = match std::fs::read_to_string(&self.path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return LoadOutcome::Fresh,
            // Not UTF-8: the contents are bad, like a parse error.
            Err(e) if e.kind() == io::ErrorKind::InvalidData => e.to_string(),
            // Nothing says the contents are bad: leave the file for the user.
            Err(e) => {
                return LoadOutcome::Unreadable {
                    error: format!("cannot read {}: {e}", self.path.display()),
                };
            }
            Ok(text) => match ron::from_str::<SessionState>(&text) {
                Ok(state) if state.version <= SESSION_VERSION => {
                    return LoadOutcome::Restored(state.sanitized());
                }
                Ok(state) => format!(
                    "written by a newer tern (format {}, this one reads up to {SESSION_VERSION})",
                    state.version
                ),
                Err(e) => e.to_string(),
            },
        };
        match self.set_aside() {
            Ok(kept_aside) => LoadOutcome::Corrupt { kept_aside, error },
            Err(e) => LoadOutcome::Corrupt {
                kept_aside: self.path.clone(),
                error: format!("{error} (and it could not be moved aside: {e})"),
            },
        }
    }

    /// Renames the file to `<name>.corrupt-<unix seconds>[-n]` next to it.
    fn set_aside(&self) -> io::Result<PathBuf> {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "session.ron".into());
        for n in 0..1000 {
            let suffix = if n == 0 {
                format!("{name}.corrupt-{secs}")
            } else {
                format!("{name}.corrupt-{secs}-{n}")
            };
            let aside = self.path.with_file_name(suffix);
            if aside.exists() {
                continue;
            }
            std::fs::rename(&self.path, &aside)?;
            return Ok(aside);
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "too many set-aside session files",
        ))
    }
}
