//! [`WorkspaceCore`]: the workspace tree, the pane registry and the rules that change
//! them, GUI-free. Both faces — the window and `tern --headless` — hold one and change
//! the workspace only through [`WorkspaceCore::apply`]; what the core cannot do itself
//! comes back as [`Effect`]s.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::command::{Applied, Command, Effect, Outcome, Source};
use super::record::Notices;
pub use super::record::PaneRecord;
use super::tree::Workspace;
use crate::config::{Config, ExitBehavior};
use crate::model::TermEvent;
use crate::model::TermSize;
use crate::pipeline::{ExitInfo, PaneEvent, PaneId, Pipeline, Waker};

/// How many applied commands the journal keeps.
const JOURNAL_LEN: usize = 256;
/// How often the running program of each pane is looked up (for titles).
pub const PROCESS_REFRESH: Duration = Duration::from_secs(1);

/// The workspace, its panes, and the rules that change them.
pub struct WorkspaceCore {
    /// The tree: read through [`WorkspaceCore::ws`], changed only by [`Self::apply`]
    /// (and the core's own rules), so the compiler keeps invariant 10.
    pub(super) ws: Workspace<PaneId>,
    pub(super) pipeline: Arc<Pipeline>,
    pub(super) panes: HashMap<PaneId, PaneRecord>,
    pub(super) config: Config,
    /// Environment every program gets on top of the config's (`TERN_SOCKET`).
    pub(super) env: Vec<(String, String)>,
    /// `--hold`: every pane is held, whatever the config says.
    hold: bool,
    journal: VecDeque<Applied>,
    pub(super) effects: Vec<Effect>,
    pub(super) processes_at: Option<Instant>,
    /// Remote worktrees (tmux over ssh), each a group of the workspace (`remote/`).
    pub(super) remotes: Vec<super::remote_group::RemoteGroup>,
    /// The face's pane area in cells (a remote client's size).
    pub(super) area_cells: Option<(u16, u16)>,
    /// Wakes the face (remote connections' events, the desktop's answers).
    pub(super) waker: Waker,
    /// Bells and notifications to the desktop (`notices.rs`).
    pub(super) notices: Notices,
    /// Panes taken back from the keeper, by key, until restore places them.
    pub(super) reattach: HashMap<u64, crate::pipeline::Reattach>,
    /// The saved pane's key while restore starts its program again (its history).
    pub(super) resume_key: Option<u64>,
    /// Panes closed during this session, as last known (`search.rs`).
    pub(super) closed: VecDeque<super::record::ClosedPane>,
}

impl WorkspaceCore {
    pub fn new(pipeline: Arc<Pipeline>, config: Config) -> WorkspaceCore {
        WorkspaceCore {
            ws: Workspace::default(),
            pipeline,
            panes: HashMap::new(),
            config,
            env: Vec::new(),
            hold: false,
            journal: VecDeque::new(),
            effects: Vec::new(),
            processes_at: None,
            remotes: Vec::new(),
            area_cells: None,
            waker: Arc::new(|| {}),
            notices: Default::default(),
            reattach: HashMap::new(),
            resume_key: None,
            closed: Default::default(),
        }
    }

    /// What wakes the face when a remote connection has news.
    pub fn set_waker(&mut self, waker: Waker) {
        self.waker = waker;
    }

    /// Environment for every program started from now on.
    pub fn set_child_env(&mut self, env: Vec<(String, String)>) {
        self.env = env;
    }

    /// `--hold`: every pane stays when its program exits.
    pub fn set_hold(&mut self, hold: bool) {
        self.hold = hold;
    }

    /// The settings new panes and the exit policy follow (a reload).
    pub fn set_config(&mut self, config: Config) {
        self.config = config;
        self.notices_config_changed();
    }

    /// The workspace as it is (groups, tabs, splits, focus): to read. It changes only
    /// through [`Self::apply`].
    pub fn ws(&self) -> &Workspace<PaneId> {
        &self.ws
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn pipeline(&self) -> &Arc<Pipeline> {
        &self.pipeline
    }

    pub fn exit_behavior(&self) -> ExitBehavior {
        if self.hold {
            ExitBehavior::Hold
        } else {
            self.config.exit_behavior
        }
    }

    pub fn record(&self, pane: PaneId) -> Option<&PaneRecord> {
        self.panes.get(&pane)
    }

    pub(crate) fn record_mut(&mut self, pane: PaneId) -> Option<&mut PaneRecord> {
        self.panes.get_mut(&pane)
    }

    /// Panes the core knows (started and not closed).
    pub fn panes(&self) -> impl Iterator<Item = PaneId> + '_ {
        self.panes.keys().copied()
    }

    /// The commands applied, oldest first (the last [`JOURNAL_LEN`]).
    pub fn journal(&self) -> impl Iterator<Item = &Applied> {
        self.journal.iter()
    }

    /// What the face has to do since it last asked.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// Applies one command: the one place the workspace changes.
    pub fn apply(&mut self, source: Source, command: Command) -> Result<Outcome, String> {
        let name = command.name();
        let change = command.for_journal();
        let result = self.run(command);
        if let Err(e) = &result {
            self.effects.push(Effect::Status(e.clone()));
        }
        if self.journal.len() == JOURNAL_LEN {
            self.journal.pop_front();
        }
        self.journal.push_back(Applied {
            source,
            command: name,
            change,
            result: result.as_ref().map(|_| ()).map_err(Clone::clone),
        });
        result
    }

    /// Runs a command without journalling it (part of one that is).
    pub(super) fn run(&mut self, command: Command) -> Result<Outcome, String> {
        // A tab, a split or a group in a remote worktree is tmux's to make (the pane
        // comes with its layout).
        match &command {
            Command::NewTab {
                group: None,
                cwd: None,
                ..
            } if self.remote_new_tab() => return Ok(Outcome::Done),
            Command::Split { pane, axis, .. } => {
                if let Some(p) = pane.or(self.ws.focused_pane())
                    && self.remote_split(p, (*axis).into())
                {
                    return Ok(Outcome::Done);
                }
            }
            Command::OpenGroup { path, .. } => {
                if let Some(g) = self.ws.groups.iter().position(|g| &g.path == path)
                    && self.remote_of_group(g).is_some()
                {
                    self.ws.active = g;
                    return Ok(Outcome::Done);
                }
            }
            _ => {}
        }
        match command {
            Command::NewTab {
                group,
                cwd,
                title,
                program,
                size,
            } => self.new_tab(group, cwd, title, (program, size)),
            Command::Split {
                pane,
                axis,
                cwd,
                program,
                size,
            } => {
                let target = match pane {
                    Some(p) => self.known(p)?,
                    None => self.ws.focused_pane().ok_or("there is no pane to split")?,
                };
                let dir = cwd
                    .or_else(|| self.pane_cwd(target))
                    .or_else(|| self.group_path_of(target))
                    .unwrap_or_else(fallback_dir);
                let new = self.spawn_in(&dir, &program, size)?;
                self.ws.focus_pane(target);
                if !self.ws.split_focused(axis, new) {
                    self.close(new);
                    return Err(format!("cannot split pane {}", target.0));
                }
                Ok(Outcome::Pane(new))
            }
            Command::SendText { pane, text } => {
                let pane = self.known(pane)?;
                self.pipeline.write(pane, text.as_bytes());
                Ok(Outcome::Done)
            }
            Command::Focus(pane) => {
                let pane = self.known(pane)?;
                self.ws.focus_pane(pane);
                Ok(Outcome::Done)
            }
            Command::FocusNextWaiting => {
                let pane = self.longest_waiting().ok_or("no pane is waiting")?;
                self.ws.focus_pane(pane);
                Ok(Outcome::Pane(pane))
            }
            Command::Close(pane) => {
                // Any registered pane, placed or not (a remote pane tmux has not laid
                // out yet).
                if !self.panes.contains_key(&pane) {
                    return Err(format!("no pane {}", pane.0));
                }
                self.close(pane);
                Ok(Outcome::Done)
            }
            Command::CloseTab => {
                let panes = self
                    .ws
                    .active_tab()
                    .ok_or("there is no tab")?
                    .layout
                    .panes();
                for pane in panes {
                    self.close(pane);
                }
                Ok(Outcome::Done)
            }
            Command::CycleTab(step) => {
                self.ws.cycle_tab(step);
                Ok(Outcome::Done)
            }
            Command::SelectTab(n) => {
                done_if(self.ws.select_tab(n), || format!("there is no tab {n}"))
            }
            Command::MoveTab(step) => {
                let group = self.ws.active;
                let from = self.ws.active_group().ok_or("there is no tab")?.active_tab;
                let to = from
                    .checked_add_signed(step)
                    .ok_or("the tab is first already")?;
                done_if(self.ws.move_tab(group, from, to), || {
                    "the tab cannot move there".into()
                })
            }
            Command::MoveTabTo { group, from, to } => {
                done_if(self.ws.move_tab(group, from, to), || {
                    "the tab cannot move there".into()
                })
            }
            Command::RenameTab { tab, name } => {
                let t = self
                    .ws
                    .groups
                    .iter_mut()
                    .flat_map(|g| g.tabs.iter_mut())
                    .find(|t| t.id == tab)
                    .ok_or("no such tab")?;
                t.custom_title = name;
                Ok(Outcome::Done)
            }
            Command::SetRatio { at, path, ratio } => {
                let tab = self.ws.tab_mut(at).ok_or("no such tab")?;
                done_if(tab.layout.set_ratio(&path, ratio), || {
                    "no split there".into()
                })
            }
            Command::FocusDirection(d) => {
                self.ws.focus_direction(d);
                Ok(Outcome::Done)
            }
            Command::Resize(d, share) => {
                self.ws.resize_focused(d, share);
                Ok(Outcome::Done)
            }
            Command::ToggleZoom => {
                self.ws.toggle_zoom();
                Ok(Outcome::Done)
            }
            Command::Equalize => {
                self.ws.equalize();
                Ok(Outcome::Done)
            }
            Command::CycleGroup(step) => {
                self.ws.cycle_group(step);
                Ok(Outcome::Done)
            }
            Command::OpenGroup {
                name,
                path,
                repo,
                start,
                size,
            } => {
                let (name, repo) = match repo {
                    Some(repo) => (name, Some(repo)),
                    None => match group_identity(&path) {
                        (branch, Some(repo)) => (branch, Some(repo)),
                        (_, None) => (name, None),
                    },
                };
                let group = self.ws.add_group(name, path.clone(), repo);
                self.ws.active = group;
                if self.ws.groups[group].tabs.is_empty() {
                    let pane = self.spawn_in(&path, start.as_deref().unwrap_or_default(), size)?;
                    self.ws.add_tab(group, pane);
                    return Ok(Outcome::Pane(pane));
                }
                Ok(Outcome::Done)
            }
            Command::Adopt {
                pane,
                path,
                launched,
            } => {
                if self.ws.locate(pane).is_some() {
                    return Err(format!("pane {} is in the workspace already", pane.0));
                }
                if !self.panes.contains_key(&pane) {
                    self.adopt(pane, launched);
                }
                if let Some(r) = self.panes.get_mut(&pane) {
                    r.started_in.get_or_insert_with(|| path.clone());
                }
                let (name, repo) = group_identity(&path);
                let group = self.ws.add_group(name, path, repo);
                self.ws.active = group;
                self.ws.add_tab(group, pane);
                self.ws.focus_pane(pane);
                Ok(Outcome::Pane(pane))
            }
            Command::Report { pane, report } => {
                let pane = self.known(pane)?;
                self.report(pane, report);
                Ok(Outcome::Done)
            }
            Command::SetRepo { path, repo } => {
                let g = self
                    .ws
                    .groups
                    .iter_mut()
                    .find(|g| g.path == path)
                    .ok_or_else(|| format!("no worktree at {}", path.display()))?;
                g.repo = Some(repo);
                Ok(Outcome::Done)
            }
            Command::AddRemote(target) => {
                self.add_remote(&target)?;
                Ok(Outcome::Done)
            }
            Command::ForgetRemote(key) => {
                self.forget_remote(&key);
                Ok(Outcome::Done)
            }
            Command::Tmux { remote, event } => {
                let i = self
                    .remotes
                    .iter()
                    .position(|r| r.key == remote)
                    .ok_or_else(|| format!("no remote worktree {}", remote.display()))?;
                self.remote_event(i, event);
                Ok(Outcome::Done)
            }
            Command::Start(start) => self.start(*start),
            Command::RemoveGroup(path) => {
                let gi = self
                    .ws
                    .groups
                    .iter()
                    .position(|g| g.path == path)
                    .ok_or_else(|| format!("no worktree at {}", path.display()))?;
                let panes: Vec<PaneId> = self.ws.groups[gi]
                    .tabs
                    .iter()
                    .flat_map(|t| t.layout.panes())
                    .collect();
                for p in panes {
                    self.close(p);
                }
                self.ws.remove_group(gi);
                Ok(Outcome::Done)
            }
        }
    }

    fn new_tab(
        &mut self,
        group: Option<usize>,
        cwd: Option<PathBuf>,
        title: Option<String>,
        (program, size): (Vec<String>, Option<TermSize>),
    ) -> Result<Outcome, String> {
        let group = match (group, &cwd) {
            (Some(g), _) if g < self.ws.groups.len() => g,
            (Some(g), _) => return Err(format!("there is no worktree group {g}")),
            (None, Some(dir)) => self.group_for(dir),
            (None, None) => self.ws.active,
        };
        let dir = cwd
            .or_else(|| self.ws.groups.get(group).map(|g| g.path.clone()))
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(fallback_dir);
        let pane = self.spawn_in(&dir, &program, size)?;
        let group = if self.ws.groups.get(group).is_some() {
            group
        } else {
            let (name, repo) = group_identity(&dir);
            self.ws.add_group(name, dir, repo)
        };
        let tab = self.ws.add_tab(group, pane);
        if let (Some(title), Some(tab)) = (title, tab)
            && let Some(at) = self.ws.locate(pane)
            && let Some(t) = self.ws.tab_mut(at)
            && t.id == tab
        {
            t.custom_title = Some(title);
        }
        self.ws.focus_pane(pane);
        Ok(Outcome::Pane(pane))
    }

    fn close(&mut self, pane: PaneId) {
        let last = self.last_known(pane);
        self.ws.close_pane(pane);
        self.pipeline.close(pane);
        self.remember_closed(last);
        if self.panes.remove(&pane).is_some() {
            self.forget_notices(pane);
            self.effects.push(Effect::Closed(pane));
        }
    }

    fn known(&self, pane: PaneId) -> Result<PaneId, String> {
        if self.panes.contains_key(&pane) && self.ws.locate(pane).is_some() {
            Ok(pane)
        } else {
            Err(format!("no pane {}", pane.0))
        }
    }

    /// A pipeline event: titles and folders are kept; bells and notifications go to
    /// the desktop as the config says (`notices.rs`); an exit follows the exit policy
    /// (the pane stays held, or closes — and with the last pane, [`Effect::LastExited`]).
    pub fn on_event(&mut self, event: &PaneEvent) {
        self.badge(event);
        if let PaneEvent::Fact {
            pane,
            event: TermEvent::Clipboard(request),
        } = event
        {
            self.clipboard(*pane, request);
        }
        match event {
            PaneEvent::Fact { pane, event } => {
                let Some(r) = self.panes.get_mut(pane) else {
                    return;
                };
                match event {
                    TermEvent::Title(t) => r.title = t.clone(),
                    TermEvent::Cwd(c) => {
                        let real = self
                            .pipeline
                            .pid(*pane)
                            .and_then(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).ok());
                        if names_real_folder(c, real.as_deref()) {
                            r.cwd_reported = Some(c.clone());
                        } else {
                            // A folder the program named, not the one it is in: shown
                            // nowhere, used for nothing (splits, hints, the session).
                            r.cwd_reported = None;
                            self.pipeline.breadcrumb(
                                Some(*pane),
                                "OSC 7 ignored: not the shell's own folder",
                            );
                        }
                    }
                    TermEvent::Bell => self.on_notice(*pane, None),
                    TermEvent::Notification(n) => self.on_notice(*pane, Some(n)),
                    _ => {}
                }
            }
            PaneEvent::Exited { pane, exit } => self.on_exit(*pane, exit.clone()),
            _ => {}
        }
    }

    fn on_exit(&mut self, pane: PaneId, exit: ExitInfo) {
        let Some(r) = self.panes.get_mut(&pane).filter(|r| !r.remote) else {
            return;
        };
        r.explicit = false;
        r.exit = Some(exit.clone());
        if self.exit_behavior().holds(exit.code, exit.signal.is_some()) {
            return;
        }
        let last = self.ws.all_panes() == [pane];
        let _ = self.apply(Source::Exit, Command::Close(pane));
        if last {
            self.effects.push(Effect::LastExited { code: exit.code });
        }
    }
}

fn done_if(ok: bool, err: impl FnOnce() -> String) -> Result<Outcome, String> {
    if ok { Ok(Outcome::Done) } else { Err(err()) }
}

/// Whether an OSC 7 folder is the one the pane's shell is really in (`real`, from
/// `/proc/PID/cwd`): the same path, component by component. A program (an agent, a
/// file being `cat`, the far side of `ssh` with an empty host) cannot name another
/// folder for new splits, hints or the session this way. The named path is never
/// touched (no `stat` or `canonicalize` of a path a program chose, which could hang
/// on a dead network mount or trigger an automount), so a logical path through a
/// symbolic link is not taken either: the physical one from `/proc` is used instead.
fn names_real_folder(reported: &str, real: Option<&Path>) -> bool {
    real.is_some_and(|real| Path::new(reported) == real)
}

fn fallback_dir() -> PathBuf {
    PathBuf::from("/")
}

/// A new group's one name and its repository, from git's files in `dir`: the branch
/// checked out there, else the folder's name (issue 51: the sidebar said `fix-login`
/// where `tern msg list`, the switcher and notifications said `app-fix-login`).
pub fn group_identity(dir: &Path) -> (String, Option<PathBuf>) {
    match crate::worktree::git_place(dir) {
        Some(place) => (
            place.branch.unwrap_or_else(|| dir_name(dir)),
            Some(place.repo),
        ),
        None => (dir_name(dir), None),
    }
}

/// The last part of a path, for names ("/home/me/src/tern" → "tern").
pub fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}
