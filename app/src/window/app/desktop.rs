//! The window's desktop duties: what happens when a pane's program exits (close it,
//! its tab, the window; or hold it), the `tern msg` requests (carried out here, on the
//! UI thread, between frames), and asking before a tab or the window closes over
//! running programs (the window's close request is cancelled until answered).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use tern_core::layout::Axis;
use tern_core::pipeline::activity::ActivityState;
use tern_core::pipeline::{ExitInfo, PaneId, SpawnSpec};
use tern_core::remote::server::RemoteCall;
use tern_core::remote::{Activity, PaneInfo, Reply, Request, Response, SplitDirection};

use super::{TernApp, dir_name};
use crate::window::dialogs;

/// What the user is asked before closing more than one pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CloseAsk {
    /// The active tab (its panes).
    Tab {
        panes: Vec<PaneId>,
        programs: Vec<String>,
    },
    /// The whole window.
    Window { programs: Vec<String> },
}

/// The desktop side's state in the app.
#[derive(Default)]
pub struct DesktopState {
    /// Panes whose program exited since the last frame, and how.
    pub(super) exits: Vec<(PaneId, ExitInfo)>,
    /// Exit statuses of held panes (for `tern msg list`).
    pub(crate) statuses: std::collections::HashMap<PaneId, i32>,
    /// Panes started with an explicit program (not a shell): running until they exit.
    commands: HashSet<PaneId>,
    /// A close waiting for the user's answer.
    pub(crate) asking: Option<CloseAsk>,
    /// The user agreed to close the window: the next close request goes through.
    window_close_confirmed: bool,
}

impl TernApp {
    /// Marks `pane` as running an explicit program.
    pub(crate) fn note_command_pane(&mut self, pane: PaneId) {
        self.desk.commands.insert(pane);
    }

    /// Once per frame, after events are routed: exits, `tern msg` requests, the
    /// window's close request.
    pub(crate) fn desktop_frame(&mut self, ctx: &egui::Context) {
        self.apply_exits(ctx);
        if let Some(remote) = self.launch.desktop.remote.clone() {
            for call in remote.take_calls() {
                self.remote_call(ctx, call);
            }
        }
        self.window_close_request(ctx);
        self.close_dialog(ctx);
    }

    fn apply_exits(&mut self, ctx: &egui::Context) {
        let behavior = self.launch.desktop.exit_behavior(&self.settings.config);
        for (pane, exit) in std::mem::take(&mut self.desk.exits) {
            self.desk.statuses.insert(pane, exit.code);
            self.desk.commands.remove(&pane);
            if behavior.holds(exit.code, exit.signal.is_some()) {
                continue;
            }
            let last = self.ws.all_panes() == [pane];
            self.close_pane(pane);
            if last {
                // The window goes with its last pane; `tern -e` exits with its status.
                self.launch.desktop.set_exit_status(exit.code);
                self.desk.window_close_confirmed = true;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
    }

    /// The programs running in `panes` in front of their shells (the same test as
    /// closing one pane: a shell at its prompt, or `tern -e`'s own program waiting for
    /// input, is not asked about).
    fn running_programs(&self, panes: &[PaneId]) -> Vec<String> {
        panes
            .iter()
            .filter(|p| self.panes.get(p).is_some_and(|u| u.exited.is_none()))
            .filter_map(|p| self.pipeline.process_info(*p))
            .filter(|info| info.runs_other_program())
            .map(|info| info.foreground_name.unwrap_or_else(|| "a program".into()))
            .collect()
    }

    /// Closes the active tab, asking first when programs run in it.
    pub(crate) fn request_close_tab(&mut self) {
        let Some(tab) = self.ws.active_tab() else {
            return;
        };
        let panes = tab.layout.panes();
        let mut programs = self.running_programs(&panes);
        // Closing a remote tab ends its tmux window on the host (closing the window only
        // detaches, so the window's question leaves them out).
        programs.extend(
            panes
                .iter()
                .filter(|p| self.panes.get(p).is_some_and(|u| u.exited.is_none()))
                .filter_map(|p| self.remote_program(*p)),
        );
        if programs.is_empty() || !self.settings.config.confirm_on_close {
            for pane in panes {
                self.close_pane(pane);
            }
        } else {
            self.desk.asking = Some(CloseAsk::Tab { panes, programs });
        }
    }

    /// The window's close button (or the window manager): cancelled and asked about
    /// when programs run and the config asks.
    fn window_close_request(&mut self, ctx: &egui::Context) {
        // SIGTERM/SIGHUP (logout, `kill`) close without asking: nobody is there to answer.
        if !ctx.input(|i| i.viewport().close_requested())
            || self.desk.window_close_confirmed
            || crate::signals::termination_requested()
        {
            return;
        }
        let programs = self.running_programs(&self.ws.all_panes());
        if programs.is_empty() || !self.settings.config.confirm_on_close {
            return;
        }
        ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
        self.desk.asking = Some(CloseAsk::Window { programs });
    }

    fn close_dialog(&mut self, ctx: &egui::Context) {
        let Some(ask) = self.desk.asking.take() else {
            return;
        };
        let (title, programs) = match &ask {
            CloseAsk::Tab { programs, .. } => ("Close this tab?", programs),
            CloseAsk::Window { programs } => ("Close the window?", programs),
        };
        match dialogs::confirm_close_many_dialog(ctx, title, programs) {
            None => self.desk.asking = Some(ask),
            Some(false) => {}
            Some(true) => match ask {
                CloseAsk::Tab { panes, .. } => {
                    for pane in panes {
                        self.close_pane(pane);
                    }
                }
                CloseAsk::Window { .. } => {
                    self.desk.window_close_confirmed = true;
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                }
            },
        }
    }

    /// Which close question is open (`"close-tab"`, `"close-window"`), for tests.
    pub fn close_question(&self) -> Option<&'static str> {
        match self.desk.asking {
            Some(CloseAsk::Tab { .. }) => Some("close-tab"),
            Some(CloseAsk::Window { .. }) => Some("close-window"),
            None => None,
        }
    }

    fn remote_call(&mut self, ctx: &egui::Context, call: RemoteCall) {
        let focus = matches!(call.request, Request::Focus { .. });
        let response = match self.remote_request(call.request.clone()) {
            Ok(reply) => {
                if focus {
                    // "Show a pane" raises the window too (a second plain start asks
                    // for its new tab this way); where the window manager refuses
                    // focus, the urgency hint asks for attention instead.
                    ctx.send_viewport_cmd(egui::ViewportCommand::Focus);
                    ctx.send_viewport_cmd(egui::ViewportCommand::RequestUserAttention(
                        egui::UserAttentionType::Informational,
                    ));
                }
                Response::ok(reply)
            }
            Err(e) => Response::error(e),
        };
        call.answer(response);
        ctx.request_repaint();
    }

    fn known_pane(&self, id: u64) -> Result<PaneId, String> {
        let pane = PaneId(id);
        if self.panes.contains_key(&pane) && self.ws.locate(pane).is_some() {
            Ok(pane)
        } else {
            Err(format!("no pane {id}"))
        }
    }

    /// What a spawn for a remote request runs: `command`, else the configured shell.
    fn remote_spec(&self, cwd: PathBuf, command: Vec<String>) -> Result<SpawnSpec, String> {
        if !cwd.is_dir() {
            return Err(format!("{} is not a folder", cwd.display()));
        }
        let mut spec = self.settings.config.spawn_spec(Some(cwd));
        if let Some((program, args)) = command.split_first() {
            spec.command = Some((program.clone(), args.to_vec()));
        }
        spec.size = self
            .focused_ui()
            .and_then(crate::window::pane::PaneUi::grid);
        Ok(spec)
    }

    fn spawn_for_remote(&mut self, spec: &SpawnSpec) -> Result<PaneId, String> {
        let pane = self
            .spawn(spec)
            .ok_or_else(|| self.status.clone().unwrap_or_else(|| "cannot start".into()))?;
        if spec.command != self.settings.config.spawn_spec(None).command {
            self.note_command_pane(pane);
        }
        Ok(pane)
    }

    /// Carries out one `tern msg` request.
    pub fn remote_request(&mut self, request: Request) -> Result<Reply, String> {
        match request {
            Request::NewTab {
                cwd,
                title,
                command,
            } => {
                let group = match &cwd {
                    Some(dir) => self.group_for(dir),
                    None => self.ws.active,
                };
                let dir = cwd
                    .or_else(|| self.ws.groups.get(group).map(|g| g.path.clone()))
                    .or_else(|| std::env::current_dir().ok())
                    .unwrap_or_else(|| PathBuf::from("/"));
                let spec = self.remote_spec(dir.clone(), command)?;
                let pane = self.spawn_for_remote(&spec)?;
                let group = if self.ws.groups.get(group).is_some() {
                    group
                } else {
                    self.ws.add_group(dir_name(&dir), dir, None)
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
                Ok(Reply::Pane { pane: pane.0 })
            }
            Request::Split {
                pane,
                direction,
                cwd,
                command,
            } => {
                let target = match pane {
                    Some(id) => self.known_pane(id)?,
                    None => self.ws.focused_pane().ok_or("there is no pane to split")?,
                };
                let dir = cwd
                    .or_else(|| self.pane_cwd(target))
                    .or_else(|| std::env::current_dir().ok())
                    .unwrap_or_else(|| PathBuf::from("/"));
                let spec = self.remote_spec(dir, command)?;
                let new = self.spawn_for_remote(&spec)?;
                self.ws.focus_pane(target);
                let axis = match direction {
                    SplitDirection::Right => Axis::Horizontal,
                    SplitDirection::Down => Axis::Vertical,
                };
                if !self.ws.split_focused(axis, new) {
                    self.close_pane(new);
                    return Err(format!("cannot split pane {}", target.0));
                }
                Ok(Reply::Pane { pane: new.0 })
            }
            Request::SendText { pane, text } => {
                let pane = self.known_pane(pane)?;
                self.pipeline.write(pane, text.as_bytes());
                Ok(Reply::Done {})
            }
            Request::Focus { pane } => {
                let pane = self.known_pane(pane)?;
                self.ws.focus_pane(pane);
                Ok(Reply::Done {})
            }
            Request::Close { pane } => {
                let pane = self.known_pane(pane)?;
                self.close_pane(pane);
                Ok(Reply::Done {})
            }
            Request::List => {
                self.agents.refresh_now(&self.pipeline);
                Ok(Reply::Panes(self.pane_infos()))
            }
        }
    }

    /// The group whose folder holds `dir` (the deepest), or an index past the end when
    /// none does (the caller makes one).
    fn group_for(&self, dir: &Path) -> usize {
        self.ws
            .groups
            .iter()
            .enumerate()
            .filter(|(_, g)| dir.starts_with(&g.path))
            .max_by_key(|(_, g)| g.path.components().count())
            .map(|(i, _)| i)
            .unwrap_or(self.ws.groups.len())
    }

    /// Every pane for `tern msg list`.
    pub fn pane_infos(&self) -> Vec<PaneInfo> {
        let focused = self.ws.focused_pane();
        let mut out = Vec::new();
        for g in &self.ws.groups {
            for (ti, tab) in g.tabs.iter().enumerate() {
                for pane in tab.layout.panes() {
                    let Some(ui) = self.panes.get(&pane) else {
                        continue;
                    };
                    let exit_status = self.desk.statuses.get(&pane).copied();
                    // The activity tracker's state (agents.rs), else what the pane
                    // shows: a program in front of the shell runs.
                    // Read now, not from the frame's table: a script asks between frames.
                    let report = self.pipeline.activity(pane);
                    let activity = if ui.exited.is_some() || exit_status.is_some() {
                        Activity::Exited
                    } else {
                        match report.as_ref().map(|r| r.state) {
                            Some(ActivityState::Waiting) => Activity::Waiting,
                            Some(ActivityState::Running) => Activity::Running,
                            Some(ActivityState::Done) => Activity::Done,
                            _ if ui.command.is_some() || self.desk.commands.contains(&pane) => {
                                Activity::Running
                            }
                            _ => Activity::Idle,
                        }
                    };
                    let report = report.as_ref();
                    let worktree = self.sidebar.worktree_at(&g.path);
                    let now_ms = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_millis() as u64);
                    out.push(PaneInfo {
                        id: pane.0,
                        worktree: worktree.map_or_else(|| g.name.clone(), |w| w.name()),
                        worktree_path: Some(g.path.clone()),
                        branch: worktree.and_then(|w| w.branch.clone()),
                        tab: ti,
                        title: self.tab_title(tab),
                        cwd: self.pane_cwd(pane).or_else(|| Some(g.path.clone())),
                        pid: self.pipeline.pid(pane),
                        command: ui.command.clone(),
                        last_command: report.and_then(|r| r.last_command.clone()),
                        activity,
                        activity_since: report.map(|r| now_ms.saturating_sub(r.since_ms)),
                        wait_reason: report.and_then(|r| r.wait_text.clone()),
                        notification: report.and_then(|r| r.last_notification.clone()),
                        progress: report
                            .and_then(|r| r.progress)
                            .map(tern_core::remote::ProgressInfo::from_progress),
                        exit_status,
                        focused: focused == Some(pane),
                    });
                }
            }
        }
        out
    }
}
