//! The eframe app: worktree groups, each with tabs, each tab a split tree of panes
//! (the model of that is `tern_core::workspace`). Panes that are not shown are parked:
//! their view is freed and the pipeline sends them nothing until they are revealed.
//! Keys bound in the command table are taken first; the rest go to the focused pane.
//!
//! `TernApp` coordinates: each frame it takes the pipeline's facts, lets the chrome,
//! the sidebar, the panes, the pickers and the diagnostics panel draw from its state,
//! and queues the [`Action`]s they return: one intent type in one queue, carried out at
//! one point of the frame (`apply.rs`, whose `dispatch` is the window's only call of
//! `WorkspaceCore::apply`). Its parts live in the child modules: `config`, `session`,
//! `facts`, `panes`, `run` (key-map commands), `overlay`, `apply` and `queries` (what
//! the window shows, for the chrome); tests read it through `TestView`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use tern_core::pipeline::{PaneId, Pipeline, SpawnSpec, Waker};
use tern_core::workspace::WorkspaceCore;

use super::action::Action;
use super::activity::Agents;
use super::chrome;
use super::diagnostics::Diagnostics;
use super::settings::{ConfigSource, Settings};
use super::sidebar::SidebarAction;
use super::trace::Trace;

pub use super::chrome::DIVIDER;
pub use super::glyphs::fonts::{
    BOLD_FAMILY, BOLD_ITALIC_FAMILY, DEFAULT_FONT_SIZE, ITALIC_FAMILY, ime_configured,
    install_fonts,
};

mod apply;
mod config;
mod desktop;
mod facts;
mod keeper;
mod overlay;
mod page;
mod panes;
mod parts;
mod queries;
mod run;
mod session;
mod test_view;
pub use test_view::TestView;

/// How far one keyboard resize moves a pane edge (share of the split).
const RESIZE_STEP: f32 = 0.05;

/// What the app was asked to start.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// The first pane's program, folder and size (when there is no session to restore).
    pub spec: SpawnSpec,
    pub config: ConfigSource,
    /// The session file to restore from and save to (`None`: no session).
    pub session: Option<PathBuf>,
    /// `--title`: the window's title, fixed (`None`: the focused pane's).
    pub title: Option<String>,
    /// Overrides, exit behaviour, the `tern msg` socket (see `crate::desktop`).
    pub desktop: crate::desktop::Desktop,
}

impl Launch {
    /// One pane running `spec`, built-in settings, no session (tests). Panes are held
    /// when their program exits (`--hold`), so a test can read the last screen; a test
    /// of the exit behaviour sets `desktop.hold` back to `false`.
    pub fn new(spec: SpawnSpec) -> Launch {
        Launch {
            spec,
            desktop: crate::desktop::Desktop {
                hold: true,
                ..Default::default()
            },
            ..Launch::default()
        }
    }
}

/// What `main` starts before it asks for a window: the settings, the pipeline and the
/// first pane's program, so the shell starts while the window and the GPU device are
/// being created (creating the device is most of a window's start-up).
pub struct Early {
    settings: Settings,
    pipeline: Arc<Pipeline>,
    /// The first pane, when no session is to be restored (a restore spawns its own).
    first: Option<Result<PaneId, String>>,
    /// When the first pane's program was started (for the trace).
    spawned_at: Instant,
    /// Panes the keeper held for the last tern, for the restore.
    reattach: Vec<tern_core::pipeline::Reattach>,
}

impl Early {
    /// Loads the config and starts the pipeline and, unless `launch` restores a session
    /// that exists, the first pane. `waker` wakes the window once it exists (wake-ups
    /// before that are not needed: the first frame takes everything waiting).
    pub fn start(launch: &Launch, waker: Waker) -> Result<Early, String> {
        let settings = Settings::load(&launch.config, waker.clone())
            .with_overrides(launch.desktop.overrides.clone());
        let pipeline = keeper::start_pipeline(launch, &settings, waker)?;
        let reattach = keeper::start_keeper(launch, &settings, &pipeline);
        let restores = launch.session.as_ref().is_some_and(|p| p.exists());
        let first = (!restores).then(|| {
            let mut spec = launch.spec.clone();
            spec.env.extend(launch.desktop.child_env());
            pipeline.spawn(&spec).map_err(|e| e.to_string())
        });
        Ok(Early {
            settings,
            pipeline,
            first,
            spawned_at: Instant::now(),
            reattach,
        })
    }
}

pub struct TernApp {
    /// The window's egui context (effects that ask the window for something).
    ctx: egui::Context,
    /// The workspace, its panes' facts and its rules (GUI-free); every change to it
    /// goes through `dispatch` (`apply.rs`).
    core: WorkspaceCore,
    launch: Launch,
    /// Exit behaviour, `tern msg`, close questions (`desktop.rs`).
    desk: desktop::DesktopState,
    settings: Settings,
    /// Activity marks and progress as the chrome shows them (`activity.rs`).
    agents: Agents,
    keys: parts::Keys,
    panes: parts::PaneSet,
    chrome: parts::Chrome,
    look: parts::Look,
    saving: parts::Saving,
    frames: parts::Frames,
}

impl TernApp {
    pub fn new(ctx: &egui::Context, launch: Launch) -> TernApp {
        TernApp::with_early(ctx, launch, None)
    }

    /// The app, with what `main` started before the window ([`Early`]) or, without
    /// it, starting all of that now.
    pub fn with_early(ctx: &egui::Context, launch: Launch, early: Option<Early>) -> TernApp {
        install_fonts(ctx);
        // Zoom and quit keys are tern's to handle (Ctrl+=/-/0), or the program's.
        ctx.options_mut(|o| {
            o.zoom_with_keyboard = false;
            o.quit_shortcuts.clear();
        });
        let mut trace = Trace::from_env();
        trace.event("window_created", "");
        let (settings, pipeline, first, reattach) = match early {
            Some(e) => {
                if matches!(e.first, Some(Ok(_))) {
                    trace.event_at("first_pane_spawned", e.spawned_at, "");
                }
                (e.settings, e.pipeline, e.first, e.reattach)
            }
            None => {
                let waker: Waker = Arc::new({
                    let ctx = ctx.clone();
                    move || ctx.request_repaint()
                });
                let settings = Settings::load(&launch.config, waker.clone())
                    .with_overrides(launch.desktop.overrides.clone());
                let pipeline = keeper::start_pipeline(&launch, &settings, waker)
                    .unwrap_or_else(|e| panic!("{e}"));
                (settings, pipeline, None, Vec::new())
            }
        };
        let repaint: Waker = Arc::new({
            let ctx = ctx.clone();
            move || ctx.request_repaint()
        });
        // The window's thread: calls on it that wait for the model are counted
        // (invariant 5 says none).
        pipeline.mark_ui_thread();
        let mut core = WorkspaceCore::new(pipeline.clone(), settings.config.clone());
        core.set_hold(launch.desktop.hold);
        core.set_child_env(launch.desktop.child_env());
        core.set_waker(repaint);
        let diagnostics =
            Diagnostics::new(&font_description(&settings.config), settings.path.clone());
        let mut app = TernApp {
            ctx: ctx.clone(),
            core,
            launch,
            desk: Default::default(),
            settings,
            agents: Agents::default(),
            keys: Default::default(),
            panes: Default::default(),
            chrome: Default::default(),
            look: parts::Look::new(DEFAULT_FONT_SIZE),
            saving: Default::default(),
            frames: parts::Frames {
                diagnostics,
                trace,
                last_cpu: None,
                searching_last: None,
            },
        };
        app.apply_config(ctx, None);
        app.core.set_reattach(reattach);
        app.start(ctx, first);
        app.take_effects();
        app
    }

    /// A dialog (a close question, the sidebar's forms) or a picker has the keys: no
    /// pane takes any and no key-map command runs, whatever egui's focus says.
    fn modal_open(&self) -> bool {
        self.chrome.overlay.is_some()
            || self.chrome.sidebar.dialog_open()
            || self.close_question().is_some()
    }

    /// One frame of the window: the work of [`Self::logic`], then the drawing.
    pub fn frame(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.logic(&ctx);
        self.draw(ui);
    }

    /// The work of a wake-up that needs no drawing: the pipeline's facts (titles,
    /// badges, notifications, exits), config reloads, process lookups, finished saves
    /// and the sidebar's git news (queued as intents). eframe calls it before every
    /// frame and also while the window is minimized or hidden, so badges stay live and
    /// the facts channel is drained.
    pub fn logic(&mut self, ctx: &egui::Context) {
        self.poll_config(ctx);
        self.route_events(ctx);
        if let Some(at) = self.core.poll_remotes() {
            ctx.request_repaint_after(at.saturating_duration_since(Instant::now()));
        }
        self.take_effects();
        self.core.refresh_processes();
        self.desktop_frame(ctx);
        self.poll_saving();
        // The sidebar's git news join the intents. The workspace follows the
        // repositories even while no frame is drawn (a minimized window): news that
        // change it ask for a frame painted while hidden, whose one point carries
        // them out.
        let news = self.chrome.sidebar.poll(ctx, self.chrome.sidebar_open);
        if news
            .iter()
            .any(|n| !matches!(n, SidebarAction::Listed { .. } | SidebarAction::Status(_)))
        {
            ctx.send_viewport_cmd(egui::ViewportCommand::RequestPaintWhileHidden);
        }
        self.queue(ctx, news.into_iter().map(Action::Sidebar).collect());
        // A page size refused between frames goes to the pty now.
        self.apply_pane_output(ctx);
    }

    /// Carries out what each pane's input asked (see `PaneUi::apply_output`), and
    /// puts what the panes copied on the clipboard and PRIMARY.
    fn apply_pane_output(&mut self, ctx: &egui::Context) {
        for p in self.panes.ui.values_mut() {
            p.apply_output();
            for (text, to) in p.take_copied() {
                if to.primary {
                    self.panes.primary.set(&text);
                }
                if to.clipboard {
                    ctx.copy_text(text);
                }
            }
        }
    }

    /// Draws the window; the panels' actions are applied after they are drawn.
    fn draw(&mut self, ui: &mut egui::Ui) {
        let frame_started = Instant::now();
        self.frames.trace.frame_started = Some(frame_started);
        let ctx = ui.ctx().clone();
        if let Some(focused) = ctx.input(|i| {
            i.events.iter().rev().find_map(|e| match e {
                egui::Event::WindowFocused(f) => Some(*f),
                _ => None,
            })
        }) {
            self.chrome.window_focused = focused;
        }
        // Input held back last frame (it came after a command that followed typing).
        let held = std::mem::take(&mut self.keys.held);
        if !held.is_empty() {
            ctx.input_mut(|i| {
                let now = std::mem::take(&mut i.events);
                i.events = held;
                i.events.extend(now);
            });
        }
        if !self.modal_open() {
            let (commands, later) = self.keys.map.take_commands(&ctx);
            if !later.is_empty() {
                self.keys.held = later;
                ctx.request_repaint();
            }
            self.keys
                .intents
                .extend(commands.into_iter().map(Action::Run));
            if let Some(text) = super::activity::take_send_text(&ctx, &self.keys.send_text)
                && let Some(pane) = self.core.ws().focused_pane()
            {
                self.keys.intents.push_back(Action::SendText { pane, text });
            }
        }
        let overlay = self.overlay_ui(&ctx);
        self.keys.intents.extend(overlay);
        self.chrome.sidebar.dialogs(&ctx, &self.look.theme);
        // The frame's one point where intents are carried out: this frame's keys and
        // overlay picks, the sidebar's news, and what the chrome, panes, close
        // questions and diagnostics asked last frame.
        self.carry_out(&ctx);
        self.sync_visibility();
        let mut actions = Vec::new();
        if self.chrome.sidebar_open {
            let groups = self.group_infos();
            actions.extend(chrome::sidebar(
                ui,
                &mut self.chrome.sidebar,
                &groups,
                &self.look.theme,
            ));
        }
        if let Some(strip) = self.tab_strip() {
            let on_dark = self.look.palette.background().is_dark();
            let look = &mut self.look;
            let (gpu, clear, theme) = (look.grid.get(), look.window_clear, &look.theme);
            actions.extend(look.tab_bar.show(ui, gpu, clear, |ui| {
                chrome::tab_bar(ui, &strip, theme, on_dark)
            }));
        }
        // A form or picker that just closed leaves egui's keyboard focus on its text
        // field for one more frame, which would swallow the first keys typed into the
        // pane that opens next (a new worktree's tab, the switcher's pick).
        let modal = self.modal_open();
        if self.panes.modal_last && !modal {
            ctx.memory_mut(|m| m.stop_text_input());
        }
        self.panes.modal_last = modal;
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| actions.extend(self.panes_ui(ui)));
        // What the panes' input asked while they were drawn: typed bytes, new sizes.
        self.apply_pane_output(&ctx);
        // The chrome's and panes' clicks: carried out at the next frame's start.
        self.queue(&ctx, actions);
        let title = match &self.launch.title {
            Some(t) => t.clone(),
            None => self
                .core
                .ws()
                .focused_pane()
                .map(|p| self.core.pane_title(p))
                .unwrap_or_else(|| "tern".into()),
        };
        if title != self.chrome.window_title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.chrome.window_title = title;
        }
        self.frames.trace.first_frame();
        if self.frames.trace.enabled() {
            self.trace_frame(frame_started);
        }
        self.save_session_if_due(&ctx);
        if let Some(e) = &self.settings.error {
            // A broken config stays on screen until it is fixed.
            egui::Area::new(egui::Id::unique("tern-config-error"))
                .anchor(egui::Align2::RIGHT_BOTTOM, egui::vec2(-8.0, -8.0))
                .order(egui::Order::Foreground)
                .show(&ctx, |ui| {
                    egui::Frame::popup(ui.style()).show(ui, |ui| {
                        ui.colored_label(self.look.theme.chrome.error, e);
                    });
                });
        }
        // The diagnostics panel: frame time, the panel itself, jump to a clicked pane.
        self.frames
            .diagnostics
            .record_frame(frame_started.elapsed());
        if self.frames.diagnostics.is_open() {
            // Labels are looked up only while the panel is open.
            let names: HashMap<PaneId, tern_core::diagnostics::PaneLabel> = self
                .panes
                .ui
                .keys()
                .map(|p| (*p, self.core.pane_label(*p)))
                .collect();
            let labels = |p: PaneId| {
                names
                    .get(&p)
                    .cloned()
                    .unwrap_or_else(|| tern_core::diagnostics::PaneLabel::unplaced(p))
            };
            if let Some(jump) = self
                .frames
                .diagnostics
                .show(&ctx, self.core.pipeline(), &labels)
            {
                self.queue(&ctx, vec![Action::FocusPane(jump)]);
            }
        }
    }

    /// Queues intents for the next frame's one point where intents are carried out,
    /// and asks for that frame now.
    fn queue(&mut self, ctx: &egui::Context, intents: Vec<Action>) {
        if !intents.is_empty() {
            self.keys.intents.extend(intents);
            ctx.request_repaint();
        }
    }

    /// Trace events of a frame: `frame` each frame drawn, with this frame's UI time and
    /// eframe's time for the whole previous frame (painting included), and `search`
    /// when the focused pane's search starts or ends (scripts/repaint-cost.sh counts
    /// frames; scripts/search-frames.sh reads the times while a search runs).
    fn trace_frame(&mut self, started: Instant) {
        let ui_us = started.elapsed().as_micros();
        let prev = self
            .frames
            .last_cpu
            .map_or(-1, |s| (f64::from(s) * 1e6) as i64);
        // Rows the shown panes drew into their textures, of those in view, and the
        // panes drawn directly (app/tests/grid_xvfb.rs).
        let (mut drawn, mut in_view, mut direct) = (0, 0, 0);
        for p in self.panes.shown.iter().filter_map(|p| self.panes.ui.get(p)) {
            match p.rows_drawn() {
                Some((d, n)) => (drawn, in_view) = (drawn + d, in_view + n),
                None => direct += 1,
            }
        }
        // How the tab bar was drawn (`grid/kept.rs`), if it was.
        let bar = self.look.tab_bar.last.take().map_or("none", |d| d.label());
        self.frames.trace.frame(&format!(
            "\"ui_us\":{ui_us},\"prev_frame_us\":{prev},\"rows_drawn\":{drawn},\"rows_in_view\":{in_view},\"panes_direct\":{direct},\"bar\":\"{bar}\""
        ));
        let search = self.search();
        let progress = search.and_then(|s| s.progress());
        let searching = progress.is_some();
        if searching != self.frames.searching_last.is_some() {
            // At the end: the lines the running search had to read, as it last said.
            let (done, total) = progress.or(self.frames.searching_last).unwrap_or((0, 0));
            self.frames.trace.event(
                "search",
                &format!("\"running\":{searching},\"lines\":{done},\"of\":{total}"),
            );
        }
        self.frames.searching_last = progress;
    }
}
impl eframe::App for TernApp {
    fn on_exit(&mut self) {
        if self.saving.file.is_some() {
            let state = self.session_state();
            if let Some(file) = self.saving.file.as_mut()
                && let Err(e) = file.save_now(state)
            {
                eprintln!(
                    "tern: cannot save the session to {}: {e}",
                    file.path().display()
                );
            }
        }
        // Remote worktrees detach: their programs run on in tmux.
        self.core.detach_remotes();
        self.keep_or_end();
    }

    /// The terminal's background, so a pane on it needs no full-size rectangle (a
    /// software renderer fills every pixel of one each frame).
    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        self.look
            .window_clear
            .unwrap_or(visuals.panel_fill)
            .to_normalized_gamma_f32()
    }

    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        TernApp::logic(self, ctx);
    }

    /// A pane's keys are held out of egui's pass, or typed before it (`run.rs`,
    /// `hold_pane_keys`).
    fn raw_input_hook(&mut self, ctx: &egui::Context, raw: &mut egui::RawInput) {
        self.hold_pane_keys(ctx, raw);
    }

    /// The releases of typed keys ask for no frame (`run.rs`, `needs_pass_for_input`).
    #[cfg(feature = "egui-patches")]
    fn needs_pass_for_input(&mut self, ctx: &egui::Context, pending: &egui::RawInput) -> bool {
        TernApp::needs_pass_for_input(self, ctx, pending)
    }

    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        self.frames.diagnostics.note_frame(frame);
        self.frames.last_cpu = frame.info().cpu_usage;
        self.look.window_clear = Some(super::theme::rgb(self.look.palette.background()));
        self.look.grid.refresh(ui.ctx(), frame);
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| self.draw(ui));
    }
}

pub use tern_core::workspace::dir_name;

/// `(program, args)` as one command line.
fn command_line((program, args): &(String, Vec<String>)) -> Vec<String> {
    std::iter::once(program.clone())
        .chain(args.iter().cloned())
        .collect()
}

/// `~/src/x` for paths under the home directory.
pub fn tilde(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".into(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

/// "DejaVu Sans Mono (bundled), 15 pt" or the configured family.
fn font_description(config: &tern_core::config::Config) -> String {
    match &config.font.family {
        Some(f) => format!("{f}, {} pt", config.font.size),
        None => format!("DejaVu Sans Mono (bundled), {} pt", config.font.size),
    }
}
