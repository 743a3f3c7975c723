//! The window's desktop duties: what happens when a pane's program exits (close it,
//! its tab, the window; or hold it), the `tern msg` requests (carried out here, on the
//! UI thread, between frames), and asking before a tab or the window closes over
//! running programs (the window's close request is cancelled until answered).

use tern_core::config::OnClose;
use tern_core::ipc::Request;
use tern_core::ipc::server::IpcCall;
use tern_core::pipeline::PaneId;
use tern_core::workspace::remote_policy;
use tern_core::workspace::{Command as WsCommand, Source};

use super::TernApp;
use super::apply::Change;
use crate::window::action::Action;
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
    /// The whole window, with a keeper to hold the programs: keep them or end them.
    KeepOrEnd { programs: Vec<String> },
}

/// The desktop side's state in the app.
#[derive(Default)]
pub struct DesktopState {
    /// The last pane closed because its program exited, with this status: the window
    /// closes (and `tern -e` exits with it).
    pub(super) last_exited: Option<i32>,
    /// A close waiting for the user's answer.
    pub(crate) asking: Option<CloseAsk>,
    /// The user agreed to close the window: the next close request goes through.
    window_close_confirmed: bool,
    /// Closing the window keeps the programs running (the keeper holds them).
    pub(super) keep_running: bool,
}

impl TernApp {
    /// Once per frame, after events are routed: exits, `tern msg` requests, the
    /// window's close request.
    pub(crate) fn desktop_frame(&mut self, ctx: &egui::Context) {
        self.apply_exits(ctx);
        if let Some(remote) = self.launch.desktop.ipc.clone() {
            for call in remote.take_calls() {
                self.msg_call(ctx, call);
            }
        }
        self.window_close_request(ctx);
        self.close_dialog(ctx);
        // What the diagnostics panel says of desktop notifications (two counters).
        let (handed, calls) = (
            self.core.notifications_sent(),
            self.core.notification_calls(),
        );
        self.frames.diagnostics.set_notifications(handed, calls);
    }

    /// The window goes with its last pane when that pane's program exited.
    fn apply_exits(&mut self, ctx: &egui::Context) {
        if let Some(code) = self.desk.last_exited.take() {
            self.launch.desktop.set_exit_status(code);
            self.desk.window_close_confirmed = true;
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }

    /// Closes the active tab, asking first when programs run in it: the close, when
    /// nothing is to be asked.
    #[must_use = "the workspace change happens only when dispatched"]
    pub(crate) fn request_close_tab(&mut self) -> Option<Change> {
        let panes = self.core.ws().active_tab()?.layout.panes();
        // Closing a remote tab ends its tmux window on the host.
        let programs = self.core.programs_to_confirm(&panes, true);
        if programs.is_empty() {
            Some((Source::Key, WsCommand::CloseTab))
        } else {
            self.desk.asking = Some(CloseAsk::Tab { panes, programs });
            None
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
        let keeper = self.core.pipeline().has_keeper();
        if keeper && self.settings.config.session.on_close == OnClose::KeepRunning {
            // Decided for good: every program stays with the keeper, nothing is asked.
            self.desk.keep_running = true;
            return;
        }
        // Closing the window only detaches remote worktrees: their panes ask nothing.
        let programs = self
            .core
            .programs_to_confirm(&self.core.ws().all_panes(), false);
        if programs.is_empty() {
            return;
        }
        match self.settings.config.session.on_close {
            OnClose::Ask if keeper => {
                ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
                self.desk.asking = Some(CloseAsk::KeepOrEnd { programs });
                return;
            }
            _ => {}
        }
        ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
        self.desk.asking = Some(CloseAsk::Window { programs });
    }

    fn close_dialog(&mut self, ctx: &egui::Context) {
        let Some(ask) = self.desk.asking.take() else {
            return;
        };
        if let CloseAsk::KeepOrEnd { programs } = &ask {
            match dialogs::keep_or_end_dialog(ctx, programs) {
                None => self.desk.asking = Some(ask),
                Some(dialogs::KeepOrEnd::Cancel) => {}
                Some(choice) => {
                    self.desk.keep_running = choice == dialogs::KeepOrEnd::Keep;
                    self.desk.window_close_confirmed = true;
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                }
            }
            return;
        }
        let (title, programs) = match &ask {
            CloseAsk::Tab { programs, .. } => ("Close this tab?", programs),
            CloseAsk::Window { programs } | CloseAsk::KeepOrEnd { programs } => {
                ("Close the window?", programs)
            }
        };
        match dialogs::confirm_close_many_dialog(ctx, title, programs) {
            None => self.desk.asking = Some(ask),
            Some(false) => {}
            Some(true) => match ask {
                CloseAsk::Tab { panes, .. } => {
                    let closes = panes.into_iter().map(|pane| Action::Workspace {
                        source: Source::Key,
                        command: WsCommand::Close(pane),
                    });
                    self.queue(ctx, closes.collect());
                }
                CloseAsk::Window { .. } | CloseAsk::KeepOrEnd { .. } => {
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
            Some(CloseAsk::KeepOrEnd { .. }) => Some("keep-or-end"),
            None => None,
        }
    }

    /// Carries out one `tern msg` request through the core, as headless does (a change
    /// is applied as a key's is; a pane's text is read on a thread of its own).
    fn msg_call(&mut self, ctx: &egui::Context, call: IpcCall) {
        let focus = matches!(call.request, Request::Focus { .. });
        let size = self.spawn_size();
        let sidebar = &self.chrome.sidebar;
        let reply = remote_policy::answer(&mut self.core, call, size, |path| {
            sidebar
                .worktree_at(path)
                .map(|w| (w.name(), w.branch.clone()))
        });
        self.take_effects();
        if focus && matches!(reply, Some(Ok(_))) {
            // "Show a pane" raises the window too (a second plain start asks for its
            // new tab this way); where the window manager refuses focus, the urgency
            // hint asks for attention instead.
            ctx.send_viewport_cmd(egui::ViewportCommand::Focus);
            ctx.send_viewport_cmd(egui::ViewportCommand::RequestUserAttention(
                egui::UserAttentionType::Informational,
            ));
        }
        ctx.request_repaint();
    }
}
