//! The eframe app: worktree groups, each with tabs, each tab a split tree of panes
//! (the model of that is `tern_core::workspace`). Panes that are not shown are parked:
//! their view is freed and the pipeline sends them nothing until they are revealed.
//! Keys bound in the command table are taken first; the rest go to the focused pane.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tern_core::layout::{Axis, Direction, Rect};
use tern_core::model::{ShellMark, TermEvent, TermSize};
use tern_core::pipeline::activity::ActivityState;
use tern_core::pipeline::delivery::PaneView;
use tern_core::pipeline::{PaneEvent, PaneId, Pipeline, PipelineConfig, SpawnSpec};
use tern_core::workspace::{Badges, Closed, Workspace};

use super::chrome;
use super::commands::{COMMANDS, Command, KeyMap};
use super::palette::{Entry, Picked, Picker};
use super::pane::{PaneUi, Shared};
use super::settings::{ConfigChange, ConfigSource, SessionFile, Settings};
use super::trace::Trace;

pub use super::fonts::{
    BOLD_FAMILY, BOLD_ITALIC_FAMILY, DEFAULT_FONT_SIZE, ITALIC_FAMILY, ime_configured,
    install_fonts,
};

/// Points between split panes (the divider you drag).
pub const DIVIDER: f32 = 4.0;
/// How far one keyboard resize moves a pane edge (share of the split).
const RESIZE_STEP: f32 = 0.05;
/// How often the running program of each pane is looked up (for titles).
const PROCESS_REFRESH: Duration = Duration::from_secs(1);

/// What the app was asked to start.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// The first pane's program, folder and size (when there is no session to restore).
    pub spec: SpawnSpec,
    pub config: ConfigSource,
    /// The session file to restore from and save to (`None`: no session).
    pub session: Option<PathBuf>,
}

impl Launch {
    /// One pane running `spec`, built-in settings, no session (tests).
    pub fn new(spec: SpawnSpec) -> Launch {
        Launch {
            spec,
            ..Launch::default()
        }
    }
}

/// A picker or dialog over the panes.
enum Overlay {
    Palette(Picker<Command>),
    Switcher(Picker<PaneId>),
    Rename {
        tab: tern_core::workspace::TabId,
        text: String,
    },
    ConfirmClose {
        pane: PaneId,
        program: String,
    },
    /// A program asked to set (write) or read the clipboard and the policy is "ask".
    Clipboard {
        pane: PaneId,
        write: Option<String>,
    },
}

pub struct TernApp {
    pub(crate) sh: Shared,
    pub(crate) ws: Workspace<PaneId>,
    pub(crate) panes: HashMap<PaneId, PaneUi>,
    keymap: KeyMap,
    launch: Launch,
    overlay: Option<Overlay>,
    pub(crate) sidebar_open: bool,
    /// Panes shown last frame (the rest are parked).
    shown: HashSet<PaneId>,
    focused_last: Option<PaneId>,
    /// A message for the user (spawn errors, refused actions).
    pub(crate) status: Option<String>,
    window_title: String,
    processes_at: Instant,
    /// The diagnostics panel (Ctrl+Shift+G) and the frame time histogram.
    diagnostics: super::diagnostics::Diagnostics,
    pub(crate) settings: Settings,
    session: Option<SessionFile>,
    pub sidebar: super::sidebar::Sidebar,
    /// A save in progress (dialog and write on their own thread).
    saving: Option<std::sync::mpsc::Receiver<Result<PathBuf, String>>>,
    /// Activity, desktop notifications, send_text (`agents.rs`).
    pub(crate) agents: super::agents::Agents,
    send_text: Vec<(super::commands::Chord, String)>,
}

impl TernApp {
    pub fn new(ctx: &egui::Context, launch: Launch) -> TernApp {
        install_fonts(ctx);
        // Zoom and quit keys are tern's to handle (Ctrl+=/-/0), or the program's.
        ctx.options_mut(|o| {
            o.zoom_with_keyboard = false;
            o.quit_shortcuts.clear();
        });
        let mut trace = Trace::from_env();
        trace.event("window_created", "");
        let repaint = ctx.clone();
        let settings = Settings::load(
            &launch.config,
            Arc::new({
                let ctx = ctx.clone();
                move || ctx.request_repaint()
            }),
        );
        let config = PipelineConfig {
            default_size: launch.spec.size.unwrap_or(TermSize::new(80, 24)),
            ..settings.config.pipeline_config()
        };
        let pipeline = Pipeline::start(config, Arc::new(move || repaint.request_repaint()))
            .map(Arc::new)
            .unwrap_or_else(|e| panic!("cannot start the pipeline: {e}"));
        let settings_notify = settings.config.notify.clone();
        let mut app = TernApp {
            sh: Shared::new(pipeline, trace),
            ws: Workspace::default(),
            panes: HashMap::new(),
            keymap: KeyMap::default(),
            launch,
            overlay: None,
            sidebar_open: false,
            shown: HashSet::new(),
            focused_last: None,
            status: None,
            window_title: String::new(),
            processes_at: Instant::now(),
            diagnostics: super::diagnostics::Diagnostics::new(
                &font_description(&settings.config),
                settings.path.clone(),
            ),
            settings,
            session: None,
            sidebar: super::sidebar::Sidebar::default(),
            saving: None,
            agents: super::agents::Agents::new(ctx, &settings_notify),
            send_text: Vec::new(),
        };
        app.apply_config(ctx, None);
        if let Some(path) = app.launch.session.clone() {
            app.restore_session(path);
            if !app.ws.groups.is_empty() {
                let repos: Vec<PathBuf> = app
                    .ws
                    .groups
                    .iter()
                    .filter_map(|g| g.repo.clone())
                    .collect();
                for repo in repos {
                    app.sidebar.add_repository(ctx, repo, true);
                }
                app.sidebar_open = app.ws.groups.len() > 1;
                return app;
            }
        }
        let dir = app
            .launch
            .spec
            .cwd
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        let group = app.ws.add_group(dir_name(&dir), dir.clone(), None);
        // If the folder is in a repository, its worktrees show in the sidebar.
        app.sidebar.add_repository(ctx, dir, true);
        let spec = app.launch.spec.clone();
        if let Some(pane) = app.spawn(&spec) {
            app.ws.add_tab(group, pane);
        }
        app
    }

    /// Starts a pane (hidden until it is shown).
    fn spawn(&mut self, spec: &SpawnSpec) -> Option<PaneId> {
        match self.sh.pipeline.spawn(spec) {
            Ok(id) => {
                self.panes
                    .insert(id, PaneUi::new(id, self.sh.pipeline.clone()));
                Some(id)
            }
            Err(e) => {
                self.status = Some(format!("cannot start a shell: {e}"));
                None
            }
        }
    }

    /// A new shell in `dir` (the configured shell, not the `-e` program).
    fn spawn_shell(&mut self, dir: &Path) -> Option<PaneId> {
        let mut spec = self.settings.config.spawn_spec(Some(dir.to_path_buf()));
        spec.size = self.focused_ui().and_then(PaneUi::grid);
        self.spawn(&spec)
    }

    /// Applies the settings in force (at start, `old` is `None`; on reload, the
    /// previous ones, so only what changed is redone: a reload does not undo zoom).
    fn apply_config(&mut self, ctx: &egui::Context, old: Option<&tern_core::config::Config>) {
        let new = self.settings.config.clone();
        let mut problems: Vec<String> = Vec::new();
        if old.is_none_or(|o| o.font.family != new.font.family)
            && let Err(e) = super::fonts::install_fonts_with(ctx, new.font.family.as_deref())
        {
            problems.push(e);
        }
        if old.is_none_or(|o| o.font.size != new.font.size) {
            self.set_font_size(new.font.size);
        }
        let theme = new.theme.palette_defaults();
        self.sh.palette = tern_core::model::Palette::new(theme);
        if old.is_some_and(|o| o.theme != new.theme) {
            self.sh.pipeline.set_theme(theme);
        }
        self.sh.theme = super::theme::Theme::from_config(&new.theme);
        let overrides: Vec<(String, Vec<String>)> = new
            .key_bindings
            .iter()
            .map(|(action, binding)| {
                let chords = match binding {
                    tern_core::config::KeyBinding::Chord(c) => vec![c.to_string()],
                    tern_core::config::KeyBinding::Unbound => Vec::new(),
                };
                (action.clone(), chords)
            })
            .collect();
        let (keymap, errors) =
            KeyMap::with_overrides(overrides.iter().map(|(a, c)| (a.as_str(), c.as_slice())));
        self.keymap = keymap;
        problems.extend(errors.into_iter().map(|e| format!("key_bindings: {e}")));
        self.sh
            .pipeline
            .set_new_pane_settings(new.term_config(), new.flow_control_window_bytes);
        self.sh.confirm_multiline_paste = new.confirm_multiline_paste;
        let (send_text, errors) = super::agents::send_text_chords(&new.send_text);
        self.send_text = send_text;
        problems.extend(errors);
        if old.is_some_and(|o| o.notify != new.notify) {
            self.agents.set_config(&new.notify);
        }
        if !problems.is_empty() {
            self.status = Some(problems.join("; "));
        }
    }

    /// Reloads the config when its file changed.
    fn poll_config(&mut self, ctx: &egui::Context) {
        let mut in_force = self.settings.config.clone();
        while let Some(change) = self.settings.poll() {
            match change {
                ConfigChange::Reloaded => {
                    self.apply_config(ctx, Some(&in_force));
                    in_force = self.settings.config.clone();
                    self.sh.pipeline.breadcrumb(None, "config reloaded");
                    self.status = Some("config reloaded".into());
                }
                ConfigChange::Failed => {
                    let e = self.settings.error.clone().unwrap_or_default();
                    self.sh
                        .pipeline
                        .breadcrumb(None, format!("config error: {e}"));
                }
                ConfigChange::Removed => {
                    self.status =
                        Some("the config file is gone; keeping the settings in force".into());
                }
            }
        }
    }

    /// Restores the saved session (a corrupt file is kept aside and reported).
    fn restore_session(&mut self, path: PathBuf) {
        let mut file = SessionFile::new(path);
        match file.load() {
            tern_core::session::LoadOutcome::Restored(state) => {
                let ws = Workspace::from_session(&state, |p| {
                    let dir = if p.cwd.is_dir() {
                        p.cwd.clone()
                    } else {
                        std::env::var_os("HOME")
                            .map(PathBuf::from)
                            .unwrap_or_else(|| "/".into())
                    };
                    let pane = self.spawn_shell(&dir)?;
                    if let (Some(screen), true) = (
                        &p.last_screen,
                        self.settings.config.session.restore_last_screen,
                    ) {
                        // The old screen, as history above the new prompt.
                        let mut text = String::new();
                        for line in screen {
                            text.push_str(line);
                            text.push_str("\r\n");
                        }
                        self.sh.pipeline.feed(pane, text.as_bytes());
                    }
                    Some(pane)
                });
                self.ws = ws;
            }
            tern_core::session::LoadOutcome::Corrupt { kept_aside, error } => {
                self.status = Some(format!(
                    "the saved session could not be read ({error}); it was kept as {}",
                    kept_aside.display()
                ));
            }
            tern_core::session::LoadOutcome::Fresh => {}
        }
        self.session = Some(file);
    }

    /// What a restart would need, from what the window has now.
    pub fn session_state(&self) -> tern_core::session::SessionState {
        let keep_screen = self.settings.config.session.restore_last_screen;
        self.ws.to_session(|p| tern_core::session::SavedPane {
            cwd: self
                .panes
                .get(&p)
                .and_then(|u| u.cwd.clone())
                .or_else(|| {
                    self.ws
                        .locate(p)
                        .map(|at| self.ws.groups[at.group].path.clone())
                })
                .unwrap_or_default(),
            last_screen: keep_screen
                .then(|| self.sh.pipeline.dump_screen(p).map(|d| d.rows))
                .flatten(),
        })
    }

    pub fn pipeline(&self) -> &Arc<Pipeline> {
        &self.sh.pipeline
    }

    /// The diagnostics panel (the command palette toggles it).
    pub fn diagnostics_mut(&mut self) -> &mut super::diagnostics::Diagnostics {
        &mut self.diagnostics
    }

    pub fn diagnostics(&self) -> &super::diagnostics::Diagnostics {
        &self.diagnostics
    }

    /// Where a pane sits, for the diagnostics table: worktree / tab / pane title.
    pub fn pane_label(&self, pane: PaneId) -> tern_core::diagnostics::PaneLabel {
        let Some(at) = self.ws.locate(pane) else {
            return tern_core::diagnostics::PaneLabel::unplaced(pane);
        };
        let group = &self.ws.groups[at.group];
        let tab = &group.tabs[at.tab];
        tern_core::diagnostics::PaneLabel {
            worktree: group.name.clone(),
            tab: format!("{} {}", at.tab + 1, self.tab_title(tab)),
            pane: self.pane_title(pane),
            id: None,
        }
    }

    pub fn workspace(&self) -> &Workspace<PaneId> {
        &self.ws
    }

    /// The focused pane.
    pub fn pane(&self) -> Option<PaneId> {
        self.ws.focused_pane()
    }

    pub fn pane_ui(&self, pane: PaneId) -> Option<&PaneUi> {
        self.panes.get(&pane)
    }

    fn focused_ui(&self) -> Option<&PaneUi> {
        self.panes.get(&self.ws.focused_pane()?)
    }

    fn focused_ui_mut(&mut self) -> Option<&mut PaneUi> {
        let id = self.ws.focused_pane()?;
        self.panes.get_mut(&id)
    }

    pub fn font_size(&self) -> f32 {
        self.sh.font_size
    }

    pub fn set_font_size(&mut self, size: f32) {
        self.sh.font_size = size.clamp(6.0, 72.0);
    }

    pub fn view(&self) -> Option<&PaneView> {
        self.focused_ui()?.view()
    }

    pub fn scroll_offset(&self) -> usize {
        self.focused_ui().map_or(0, PaneUi::scroll_offset)
    }

    pub fn scroll_position(&self) -> f32 {
        self.focused_ui().map_or(0.0, PaneUi::scroll_position)
    }

    pub fn shown_rows(&mut self) -> Vec<String> {
        self.focused_ui_mut()
            .map(PaneUi::shown_rows)
            .unwrap_or_default()
    }

    pub fn selection_text(&self) -> Option<String> {
        self.focused_ui()?.selection_text()
    }

    pub fn exited(&self) -> Option<&str> {
        self.focused_ui()?.exited.as_deref()
    }

    pub fn metrics(&self, ctx: &egui::Context) -> super::render::Metrics {
        self.sh.metrics(ctx)
    }

    pub fn link_at_cell(
        &mut self,
        row: usize,
        col: usize,
    ) -> Option<(std::ops::Range<usize>, String)> {
        self.focused_ui_mut()?.link_at_cell(row, col)
    }

    pub fn search(&self) -> Option<&super::search::SearchBar> {
        self.focused_ui()?.search()
    }

    pub fn paste_pending(&self) -> bool {
        self.focused_ui().is_some_and(PaneUi::paste_pending)
    }

    /// The message shown to the user, if any.
    pub fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }

    /// Why the config file on disk is not in force, if it is not.
    pub fn config_error(&self) -> Option<&str> {
        self.settings.error.as_deref()
    }

    /// The settings in force.
    pub fn config(&self) -> &tern_core::config::Config {
        &self.settings.config
    }

    /// Which picker is open: "palette", "switcher", or `None`.
    pub fn overlay(&self) -> Option<&'static str> {
        match self.overlay {
            Some(Overlay::Palette(_)) => Some("palette"),
            Some(Overlay::Switcher(_)) => Some("switcher"),
            Some(Overlay::Rename { .. }) => Some("rename"),
            Some(Overlay::ConfirmClose { .. }) => Some("confirm-close"),
            Some(Overlay::Clipboard { .. }) => Some("clipboard"),
            None => None,
        }
    }

    /// A tab's title: the name the user gave it, else its focused pane's.
    pub fn tab_title(&self, tab: &tern_core::workspace::Tab<PaneId>) -> String {
        if let Some(t) = &tab.custom_title {
            return t.clone();
        }
        self.pane_title(tab.focused)
    }

    /// A pane's title: the program's (OSC 0/2), else the running program, else the
    /// directory.
    pub fn pane_title(&self, pane: PaneId) -> String {
        let Some(p) = self.panes.get(&pane) else {
            return "—".into();
        };
        if !p.title.is_empty() {
            return p.title.clone();
        }
        if let Some(c) = &p.command {
            return c.clone();
        }
        match self.pane_cwd(pane) {
            Some(dir) => dir_name(&dir),
            None => "shell".into(),
        }
    }

    /// The pane's working directory: OSC 7 when the shell reports it, else the
    /// shell's own (from the process table).
    pub fn pane_cwd(&self, pane: PaneId) -> Option<PathBuf> {
        let p = self.panes.get(&pane)?;
        // OSC 7 as the model decoded it (a plain path).
        if let Some(c) = &p.cwd_reported {
            return Some(PathBuf::from(c));
        }
        // Looked up once a second (`refresh_processes`), not per frame.
        p.cwd.clone()
    }

    /// The pane's badges and its live activity (state, progress).
    pub fn pane_badges(&self, pane: PaneId) -> Badges {
        let mut b = self.panes.get(&pane).map(|p| p.badges).unwrap_or_default();
        b.activity = self.agents.state(pane);
        b.progress = self.agents.progress(pane);
        b
    }

    /// "worktree · tab" for a notification's title.
    fn pane_place(&self, pane: PaneId) -> String {
        let label = self.pane_label(pane);
        format!("{} · {}", label.worktree, label.tab)
    }

    /// Routes the pipeline's facts to their panes; hidden panes collect badges.
    fn route_events(&mut self, ctx: &egui::Context) {
        let mut clipboard_requests = Vec::new();
        let mut notes = Vec::new();
        for event in self.sh.pipeline.poll_events() {
            let pane = match &event {
                PaneEvent::Fact { pane, .. }
                | PaneEvent::Exited { pane, .. }
                | PaneEvent::Error { pane, .. }
                | PaneEvent::UnseenOutput { pane } => *pane,
            };
            let hidden = !self.shown.contains(&pane);
            let Some(p) = self.panes.get_mut(&pane) else {
                continue;
            };
            match event {
                PaneEvent::Fact { event, .. } => match event {
                    TermEvent::Title(t) => p.title = t,
                    TermEvent::Cwd(c) => p.cwd_reported = Some(c),
                    TermEvent::Bell => {
                        p.badges.bell |= hidden;
                        notes.push((pane, None, hidden));
                    }
                    TermEvent::Notification(n) => {
                        p.badges.notification |= hidden;
                        self.status = Some(format!("{}: {}", n.title, n.body));
                        notes.push((pane, Some(n), hidden));
                    }
                    TermEvent::Shell {
                        mark: ShellMark::CommandFinished { exit_code },
                        ..
                    } if hidden => {
                        p.badges.finished = Some(exit_code.is_none_or(|c| c == 0));
                    }
                    TermEvent::Clipboard(request) => clipboard_requests.push((pane, request)),
                    _ => {}
                },
                PaneEvent::Exited { exit, .. } => {
                    p.exited = Some(format!("[process exited with {exit}]"));
                    if hidden {
                        p.badges.finished = Some(exit.code == 0);
                    }
                }
                PaneEvent::Error { message, .. } => p.exited = Some(format!("[error: {message}]")),
                PaneEvent::UnseenOutput { .. } => p.badges.unseen_output |= hidden,
            }
        }
        for (pane, request) in clipboard_requests {
            self.clipboard_request(ctx, pane, request);
        }
        let focused = self.sh.window_focused;
        for (pane, note, hidden) in notes {
            let place = self.pane_place(pane);
            let config = self.settings.config.notify.clone();
            self.agents.on_notification(
                ctx,
                &config,
                pane,
                note.as_ref(),
                &place,
                focused,
                !hidden,
            );
        }
        let (clicked, crumbs) = self.agents.poll();
        for crumb in crumbs {
            self.sh.pipeline.breadcrumb(None, crumb);
        }
        if let Some(pane) = clicked.last() {
            self.ws.focus_pane(*pane);
            ctx.send_viewport_cmd(egui::ViewportCommand::Focus);
        }
        self.agents.refresh(ctx, &self.sh.pipeline);
    }

    /// OSC 52: a program sets or reads the clipboard, as the config's policy says
    /// (write allowed, read denied by default).
    fn clipboard_request(
        &mut self,
        ctx: &egui::Context,
        pane: PaneId,
        request: tern_core::model::ClipboardRequest,
    ) {
        use tern_core::config::ClipboardPolicy;
        use tern_core::model::ClipboardRequest;
        let policy = self.settings.config.clipboard.clone();
        let name = self.pane_title(pane);
        match request {
            ClipboardRequest::Write { base64, .. } => {
                let Some(text) = decode_base64(&base64) else {
                    self.status = Some(format!(
                        "{name}: a clipboard write that is not base64 text was ignored"
                    ));
                    return;
                };
                match policy.osc52_write {
                    ClipboardPolicy::Allow => ctx.copy_text(text),
                    ClipboardPolicy::Ask => {
                        self.overlay = Some(Overlay::Clipboard {
                            pane,
                            write: Some(text),
                        })
                    }
                    ClipboardPolicy::Deny => {
                        self.status = Some(format!(
                            "{name} tried to set the clipboard (refused by config)"
                        ))
                    }
                }
            }
            ClipboardRequest::Read { .. } => match policy.osc52_read {
                ClipboardPolicy::Allow => self.answer_clipboard_read(pane),
                ClipboardPolicy::Ask => {
                    self.overlay = Some(Overlay::Clipboard { pane, write: None })
                }
                ClipboardPolicy::Deny => {
                    self.status = Some(format!(
                        "{name} tried to read the clipboard (refused; see clipboard.osc52_read in the config)"
                    ))
                }
            },
        }
    }

    fn answer_clipboard_read(&mut self, pane: PaneId) {
        let text = arboard::Clipboard::new()
            .and_then(|mut c| c.get_text())
            .unwrap_or_default();
        let reply = format!("\x1b]52;c;{}\x07", encode_base64(text.as_bytes()));
        self.sh.pipeline.write(pane, reply.as_bytes());
    }

    /// Looks up what each pane runs (for titles, the switcher and close confirmation).
    fn refresh_processes(&mut self, ctx: &egui::Context) {
        let new_pane = self.panes.values().any(|p| !p.looked_up);
        if self.processes_at.elapsed() < PROCESS_REFRESH && !new_pane {
            return;
        }
        self.processes_at = Instant::now();
        for (id, p) in self.panes.iter_mut() {
            p.looked_up = true;
            let Some(info) = self.sh.pipeline.process_info(*id) else {
                continue;
            };
            p.command = info
                .runs_other_program()
                .then(|| info.foreground_name.clone())
                .flatten();
            if info.cwd.is_some() {
                p.cwd = info.cwd.clone();
            }
            if p.command.is_some() {
                p.last_command = p.command.clone();
            }
        }
        ctx.request_repaint_after(PROCESS_REFRESH);
    }

    /// Parks panes that left the screen and reveals the ones that came on it.
    fn sync_visibility(&mut self) {
        let now: HashSet<PaneId> = self.ws.visible_panes().into_iter().collect();
        for gone in self.shown.difference(&now) {
            self.sh.pipeline.set_visible(*gone, false);
            if let Some(p) = self.panes.get_mut(gone) {
                p.park();
            }
        }
        for new in now.difference(&self.shown) {
            self.sh.pipeline.set_visible(*new, true);
            if let Some(p) = self.panes.get_mut(new) {
                p.badges = Badges::default();
                p.revealed_at = Some(Instant::now());
            }
        }
        self.shown = now;
        let focused = self.ws.focused_pane();
        if focused != self.focused_last {
            self.sh.pipeline.set_focus(focused);
            self.focused_last = focused;
            if self.sh.trace.enabled()
                && let Some(p) = focused
            {
                // Which pane has the keys now, and where its shell runs.
                let cwd = self
                    .sh
                    .pipeline
                    .process_info(p)
                    .and_then(|i| i.cwd)
                    .map(|d| d.display().to_string())
                    .unwrap_or_default();
                let cwd = cwd.replace('\\', "\\\\").replace('"', "\\\"");
                self.sh
                    .trace
                    .event("focus", &format!("\"pane\":{},\"cwd\":\"{cwd}\"", p.0));
            }
        }
        // Revealed panes: trace when the frame showing their snapshot is drawn.
        for p in &self.shown {
            if let Some(u) = self.panes.get_mut(p) {
                u.trace_reveal(&mut self.sh);
            }
        }
    }

    /// Carries out one command.
    pub fn run(&mut self, ctx: &egui::Context, command: Command) {
        let focused = self.ws.focused_pane();
        match command {
            Command::NewTab => {
                let group = self.ws.active;
                let dir = self
                    .ws
                    .active_group()
                    .map(|g| g.path.clone())
                    .unwrap_or_else(|| PathBuf::from("/"));
                if let Some(pane) = self.spawn_shell(&dir) {
                    self.ws.add_tab(group, pane);
                }
            }
            Command::ClosePane => {
                if let Some(pane) = focused {
                    self.request_close(pane);
                }
            }
            Command::CloseTab => {
                if let Some(tab) = self.ws.active_tab() {
                    for pane in tab.layout.panes() {
                        self.close_pane(pane);
                    }
                }
            }
            Command::NextTab => self.ws.cycle_tab(1),
            Command::PreviousTab => self.ws.cycle_tab(-1),
            Command::Tab(n) => {
                self.ws.select_tab(n as usize);
            }
            Command::MoveTabLeft | Command::MoveTabRight => {
                if let Some(g) = self.ws.active_group() {
                    let from = g.active_tab;
                    let to = if command == Command::MoveTabLeft {
                        from.checked_sub(1)
                    } else {
                        Some(from + 1)
                    };
                    if let Some(to) = to {
                        self.ws.move_tab(self.ws.active, from, to);
                    }
                }
            }
            Command::RenameTab => {
                if let Some(tab) = self.ws.active_tab() {
                    let text = self.tab_title(tab);
                    self.overlay = Some(Overlay::Rename { tab: tab.id, text });
                }
            }
            Command::SplitRight | Command::SplitDown => {
                let dir = focused
                    .and_then(|p| self.pane_cwd(p))
                    .or_else(|| self.ws.active_group().map(|g| g.path.clone()))
                    .unwrap_or_else(|| PathBuf::from("/"));
                if let Some(pane) = self.spawn_shell(&dir) {
                    let axis = if command == Command::SplitRight {
                        Axis::Horizontal
                    } else {
                        Axis::Vertical
                    };
                    if !self.ws.split_focused(axis, pane) {
                        self.close_pane(pane);
                    }
                }
            }
            Command::FocusLeft => {
                self.ws.focus_direction(Direction::Left);
            }
            Command::FocusRight => {
                self.ws.focus_direction(Direction::Right);
            }
            Command::FocusUp => {
                self.ws.focus_direction(Direction::Up);
            }
            Command::FocusDown => {
                self.ws.focus_direction(Direction::Down);
            }
            Command::ResizeLeft => {
                self.ws.resize_focused(Direction::Left, RESIZE_STEP);
            }
            Command::ResizeRight => {
                self.ws.resize_focused(Direction::Right, RESIZE_STEP);
            }
            Command::ResizeUp => {
                self.ws.resize_focused(Direction::Up, RESIZE_STEP);
            }
            Command::ResizeDown => {
                self.ws.resize_focused(Direction::Down, RESIZE_STEP);
            }
            Command::ZoomPane => self.ws.toggle_zoom(),
            Command::Equalize => self.ws.equalize(),
            Command::NextWorktree => {
                self.ws.cycle_group(1);
            }
            Command::PreviousWorktree => {
                self.ws.cycle_group(-1);
            }
            Command::QuickSwitcher => self.open_switcher(),
            Command::CommandPalette => self.open_palette(),
            Command::ToggleSidebar => self.sidebar_open = !self.sidebar_open,
            Command::AddRepository => {
                self.sidebar_open = true;
                self.status = Some("type a repository's path in the sidebar, or Browse…".into());
            }
            Command::NewWorktree => match self.ws.active_group().and_then(|g| g.repo.clone()) {
                Some(root) => {
                    self.sidebar_open = true;
                    self.sidebar.start_new_worktree(root);
                }
                None => {
                    self.status = Some(
                        "this tab's folder is not a git repository: add one in the sidebar".into(),
                    )
                }
            },
            Command::Copy => {
                if let Some(text) = self.selection_text() {
                    ctx.copy_text(text);
                }
            }
            Command::Paste => ctx.send_viewport_cmd(egui::ViewportCommand::RequestPaste),
            Command::Search => {
                if let Some(p) = self.focused_ui_mut() {
                    p.open_search();
                }
            }
            Command::ScrollPageUp | Command::ScrollPageDown => {
                let pages = if command == Command::ScrollPageUp {
                    1
                } else {
                    -1
                };
                if let Some(p) = self.focused_ui_mut() {
                    p.scroll_pages(pages);
                }
            }
            Command::ScrollToTop => {
                if let Some(p) = self.focused_ui_mut() {
                    p.scroll_to_top();
                }
            }
            Command::ScrollToBottom => {
                if let Some(p) = self.focused_ui_mut() {
                    p.scroll_to_bottom();
                }
            }
            Command::FontBigger => self.set_font_size(self.sh.font_size + 1.0),
            Command::FontSmaller => self.set_font_size(self.sh.font_size - 1.0),
            Command::FontReset => self.sh.font_size = DEFAULT_FONT_SIZE,
            Command::SaveScrollback => {
                if let Some(pane) = focused {
                    match self.scrollback_text(pane) {
                        Ok(text) => {
                            self.save_text(text, &format!("tern-scrollback-{}.txt", pane.0))
                        }
                        Err(e) => self.status = Some(format!("cannot save the scrollback: {e}")),
                    }
                }
            }
            Command::Diagnostics => self.diagnostics.toggle(),
            Command::NextWaitingPane => {
                if self.next_waiting_pane().is_none() {
                    self.status = Some("no pane is waiting".into());
                }
            }
        }
    }

    /// The pane's whole history and screen as text, oldest line first.
    pub fn scrollback_text(&self, pane: PaneId) -> Result<String, String> {
        let view = self
            .panes
            .get(&pane)
            .and_then(PaneUi::view)
            .ok_or("the pane is not shown")?;
        let total = view.scrollback_lines as usize;
        let mut out = String::new();
        const PAGE: usize = 4096;
        let mut done = 0;
        while done < total {
            let count = PAGE.min(total - done);
            // `start` counts back from the newest line; a page comes oldest first.
            let page = self
                .sh
                .pipeline
                .history(pane, total - done - count, count)
                .ok_or("the pane is gone")?;
            for row in &page.rows {
                out.push_str(row.text().trim_end());
                out.push('\n');
            }
            done += count;
        }
        for row in &view.rows {
            out.push_str(row.text().trim_end());
            out.push('\n');
        }
        Ok(out)
    }

    /// Saves `text` where the user says (rfd's save dialog on its own thread), or in
    /// tern's state folder when no dialog can be shown; the status line says where.
    fn save_text(&mut self, text: String, name: &str) {
        let (tx, rx) = std::sync::mpsc::channel();
        let name = name.to_owned();
        let fallback = tern_core::diagnostics::default_report_dir().join(&name);
        let use_dialog = super::diagnostics::dialog_possible();
        let spawned = std::thread::Builder::new()
            .name("tern-save".into())
            .spawn(move || {
                let path = if use_dialog {
                    rfd::FileDialog::new().set_file_name(&name).save_file()
                } else {
                    Some(fallback)
                };
                let result = match path {
                    None => Err("not saved (cancelled)".to_owned()),
                    Some(p) => tern_core::diagnostics::write_atomic(&p, &text)
                        .map(|()| p.clone())
                        .map_err(|e| format!("cannot write {}: {e}", p.display())),
                };
                let _ = tx.send(result);
            });
        match spawned {
            Ok(_) => self.saving = Some(rx),
            Err(e) => self.status = Some(format!("cannot save: {e}")),
        }
    }

    /// Closes a pane, asking first when a program other than the shell runs in it.
    fn request_close(&mut self, pane: PaneId) {
        let info = self.sh.pipeline.process_info(pane);
        let exited = self.panes.get(&pane).is_some_and(|p| p.exited.is_some());
        match info {
            Some(i)
                if i.runs_other_program() && !exited && self.settings.config.confirm_on_close =>
            {
                let program = i.foreground_name.unwrap_or_else(|| "a program".into());
                self.overlay = Some(Overlay::ConfirmClose { pane, program });
            }
            _ => self.close_pane(pane),
        }
    }

    fn close_pane(&mut self, pane: PaneId) {
        if let Closed::Tab = self.ws.close_pane(pane) {
            // A worktree group with no tabs stays in the sidebar.
        }
        self.sh.pipeline.close(pane);
        self.panes.remove(&pane);
        self.shown.remove(&pane);
        self.agents.forget(pane);
    }

    fn open_palette(&mut self) {
        let entries = COMMANDS
            .iter()
            .map(|c| Entry {
                text: c.title.to_owned(),
                hint: self
                    .keymap
                    .chord_of(c.command)
                    .map(|k| k.label())
                    .unwrap_or_default(),
                value: c.command,
            })
            .collect();
        self.overlay = Some(Overlay::Palette(Picker::new("Command palette", entries)));
    }

    /// Every pane of every worktree: "worktree · title · cwd · last command".
    pub fn switcher_entries(&self) -> Vec<Entry<PaneId>> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let mut out = Vec::new();
        for g in &self.ws.groups {
            for tab in &g.tabs {
                for pane in tab.layout.panes() {
                    let cwd = self
                        .pane_cwd(pane)
                        .map(|d| tilde(&d, home.as_deref()))
                        .unwrap_or_default();
                    let last = self
                        .panes
                        .get(&pane)
                        .and_then(|p| p.last_command.clone())
                        .unwrap_or_default();
                    let state = self.agents.state(pane);
                    let activity = super::agents::activity_suffix(self.pane_badges(pane));
                    out.push((
                        state,
                        Entry {
                            text: format!("{} · {}{activity}", g.name, self.pane_title(pane)),
                            hint: format!("{cwd} {last}").trim().to_owned(),
                            value: pane,
                        },
                    ));
                }
            }
        }
        // Waiting first, then running, done, idle (a stable sort keeps the order
        // within each).
        out.sort_by_key(|(state, _)| state.unwrap_or(ActivityState::Idle));
        out.into_iter().map(|(_, e)| e).collect()
    }

    /// Focuses the pane, in any worktree, that has waited longest for the user.
    pub fn next_waiting_pane(&mut self) -> Option<PaneId> {
        self.agents.refresh_now(&self.sh.pipeline);
        let panes: Vec<PaneId> = self.panes.keys().copied().collect();
        let pane = self.agents.longest_waiting(panes)?;
        self.ws.focus_pane(pane);
        Some(pane)
    }

    fn open_switcher(&mut self) {
        let entries = self.switcher_entries();
        self.overlay = Some(Overlay::Switcher(Picker::new("Go to pane", entries)));
    }

    fn overlay_ui(&mut self, ctx: &egui::Context) {
        let Some(overlay) = self.overlay.take() else {
            return;
        };
        match overlay {
            Overlay::Palette(mut picker) => match picker.ui(ctx) {
                Picked::None => self.overlay = Some(Overlay::Palette(picker)),
                Picked::Cancelled => {}
                Picked::Chosen(c) => self.run(ctx, c),
            },
            Overlay::Switcher(mut picker) => match picker.ui(ctx) {
                Picked::None => self.overlay = Some(Overlay::Switcher(picker)),
                Picked::Cancelled => {}
                Picked::Chosen(pane) => {
                    self.ws.focus_pane(pane);
                }
            },
            Overlay::Rename { tab, mut text } => match chrome::rename_dialog(ctx, &mut text) {
                None => self.overlay = Some(Overlay::Rename { tab, text }),
                Some(false) => {}
                Some(true) => {
                    if let Some(t) = self
                        .ws
                        .groups
                        .iter_mut()
                        .flat_map(|g| g.tabs.iter_mut())
                        .find(|t| t.id == tab)
                    {
                        let name = text.trim();
                        t.custom_title = (!name.is_empty()).then(|| name.to_owned());
                    }
                }
            },
            Overlay::Clipboard { pane, write } => {
                let name = self.pane_title(pane);
                let question = match &write {
                    Some(text) => format!(
                        "{name} wants to set the clipboard to {} characters:\n{}",
                        text.chars().count(),
                        text.chars().take(200).collect::<String>()
                    ),
                    None => format!("{name} wants to read the clipboard."),
                };
                match chrome::confirm_dialog(ctx, "Clipboard", &question, "Allow") {
                    None => self.overlay = Some(Overlay::Clipboard { pane, write }),
                    Some(false) => {}
                    Some(true) => match write {
                        Some(text) => ctx.copy_text(text),
                        None => self.answer_clipboard_read(pane),
                    },
                }
            }
            Overlay::ConfirmClose { pane, program } => {
                match chrome::confirm_close_dialog(ctx, &program) {
                    None => self.overlay = Some(Overlay::ConfirmClose { pane, program }),
                    Some(false) => {}
                    Some(true) => self.close_pane(pane),
                }
            }
        }
    }

    /// The panes of the active tab, each in its rectangle, and the dividers to drag.
    fn panes_ui(&mut self, ui: &mut egui::Ui) {
        let area = ui.available_rect_before_wrap();
        let Some(tab) = self.ws.active_tab().cloned() else {
            let painter = ui.painter_at(area);
            painter.rect_filled(area, 0.0, super::theme::rgb(self.sh.palette.background()));
            let msg = self
                .status
                .clone()
                .unwrap_or_else(|| "No tabs here: Ctrl+Shift+T opens one.".into());
            painter.text(
                area.center(),
                egui::Align2::CENTER_CENTER,
                msg,
                egui::FontId::proportional(15.0),
                egui::Color32::GRAY,
            );
            return;
        };
        let area_c = Rect::new(area.left(), area.top(), area.width(), area.height());
        let rects = if tab.zoomed {
            vec![(tab.focused, area_c)]
        } else {
            tab.layout.rects(area_c, DIVIDER)
        };
        let overlay_open = self.overlay.is_some();
        let mut clicked = None;
        for (pane, r) in rects {
            let rect = egui::Rect::from_min_size(egui::pos2(r.x, r.y), egui::vec2(r.w, r.h));
            let Some(p) = self.panes.get_mut(&pane) else {
                continue;
            };
            let keyboard = pane == tab.focused && !overlay_open;
            let response = p.frame(ui, rect, &mut self.sh, keyboard);
            if response.clicked {
                clicked = Some(pane);
            }
            if pane == tab.focused && tab.layout.len() > 1 && !tab.zoomed {
                ui.painter().rect_stroke(
                    rect,
                    0.0,
                    egui::Stroke::new(1.0, self.sh.theme.focus_ring),
                    egui::StrokeKind::Inside,
                );
            }
        }
        if let Some(pane) = clicked {
            self.ws.focus_pane(pane);
        }
        if !tab.zoomed {
            chrome::dividers(ui, &mut self.ws, area_c);
        }
    }

    /// One frame of the window.
    pub fn frame(&mut self, ui: &mut egui::Ui) {
        let frame_started = Instant::now();
        let ctx = ui.ctx().clone();
        if let Some(focused) = ctx.input(|i| {
            i.events.iter().rev().find_map(|e| match e {
                egui::Event::WindowFocused(f) => Some(*f),
                _ => None,
            })
        }) {
            self.sh.window_focused = focused;
        }
        self.poll_config(&ctx);
        self.route_events(&ctx);
        self.refresh_processes(&ctx);
        if let Some(rx) = &self.saving
            && let Ok(result) = rx.try_recv()
        {
            self.saving = None;
            self.status = Some(match result {
                Ok(p) => format!("saved to {}", p.display()),
                Err(e) => e,
            });
        }
        let actions = self.sidebar.poll(&ctx);
        self.sidebar_actions(actions);
        self.adopt_groups();
        if self.overlay.is_none() && !self.sidebar.dialog_open() {
            for command in self.keymap.take_commands(&ctx) {
                self.run(&ctx, command);
            }
            if let Some(text) = super::agents::take_send_text(&ctx, &self.send_text)
                && let Some(pane) = self.ws.focused_pane()
            {
                self.sh.pipeline.write(pane, text.as_bytes());
            }
        }
        self.overlay_ui(&ctx);
        self.sidebar.dialogs(&ctx);
        self.sync_visibility();
        if self.sidebar_open {
            chrome::sidebar(ui, self);
        }
        chrome::tab_bar(ui, self);
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| self.panes_ui(ui));
        // Panes closed or revealed by this frame's clicks are parked / shown next frame.
        self.sync_visibility();
        let title = self
            .ws
            .focused_pane()
            .map(|p| self.pane_title(p))
            .unwrap_or_else(|| "tern".into());
        if title != self.window_title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.window_title = title;
        }
        self.sh.trace_first_frame();
        if self.session.is_some() {
            let state = self.session_state();
            if let Some(file) = self.session.as_mut() {
                file.save_if_changed(state);
            }
        }
        if let Some(e) = &self.settings.error {
            // A broken config stays on screen until it is fixed.
            egui::Area::new(egui::Id::unique("tern-config-error"))
                .anchor(egui::Align2::RIGHT_BOTTOM, egui::vec2(-8.0, -8.0))
                .order(egui::Order::Foreground)
                .show(&ctx, |ui| {
                    egui::Frame::popup(ui.style()).show(ui, |ui| {
                        ui.colored_label(egui::Color32::from_rgb(240, 120, 100), e);
                    });
                });
        }
        // The diagnostics panel: frame time, the panel itself, jump to a clicked pane.
        self.diagnostics.record_frame(frame_started.elapsed());
        if self.diagnostics.is_open() {
            // Labels are looked up only while the panel is open.
            let names: HashMap<PaneId, tern_core::diagnostics::PaneLabel> = self
                .panes
                .keys()
                .map(|p| (*p, self.pane_label(*p)))
                .collect();
            let labels = |p: PaneId| {
                names
                    .get(&p)
                    .cloned()
                    .unwrap_or_else(|| tern_core::diagnostics::PaneLabel::unplaced(p))
            };
            if let Some(jump) = self.diagnostics.show(&ctx, &self.sh.pipeline, &labels) {
                self.ws.focus_pane(jump);
            }
        }
    }

    /// Runs `command` as if its key was pressed (for tests and the palette).
    pub fn run_command(&mut self, ctx: &egui::Context, command: Command) {
        self.run(ctx, command);
    }

    /// What the sidebar asked for.
    pub(crate) fn sidebar_actions(&mut self, actions: Vec<super::sidebar::SidebarAction>) {
        use super::sidebar::SidebarAction;
        for action in actions {
            match action {
                SidebarAction::Open { name, path, repo } => {
                    self.open_group(name, path, repo);
                }
                SidebarAction::Removed { path } => {
                    if let Some(gi) = self.ws.groups.iter().position(|g| g.path == path) {
                        let panes: Vec<PaneId> = self.ws.groups[gi]
                            .tabs
                            .iter()
                            .flat_map(|t| t.layout.panes())
                            .collect();
                        for p in panes {
                            self.close_pane(p);
                        }
                        self.ws.remove_group(gi);
                    }
                }
                SidebarAction::Identified { path, repo, .. } => {
                    // The repository's own folder; linked worktrees are matched when
                    // their list arrives (`adopt_groups`).
                    if let Some(g) = self.ws.groups.iter_mut().find(|g| g.path == path)
                        && path == repo
                    {
                        g.repo = Some(repo);
                    }
                }
                SidebarAction::Status(s) => self.status = Some(s),
                SidebarAction::Listed { root, worktrees } => {
                    if self.sh.trace.enabled() {
                        let root = root.display().to_string().replace(['"', '\\'], "_");
                        self.sh.trace.event(
                            "worktrees",
                            &format!("\"repo\":\"{root}\",\"count\":{worktrees}"),
                        );
                    }
                }
            }
        }
    }

    /// Groups opened in a folder that turns out to be a listed worktree belong to its
    /// repository (so Ctrl+Shift+N knows where to add one).
    fn adopt_groups(&mut self) {
        for g in self.ws.groups.iter_mut().filter(|g| g.repo.is_none()) {
            if let Some(r) = self
                .sidebar
                .repos
                .iter()
                .find(|r| r.worktrees.iter().any(|w| w.path == g.path))
            {
                g.repo = Some(r.repo.root().to_path_buf());
            }
        }
    }

    /// What the sidebar shows of the open groups.
    pub(crate) fn group_infos(&self) -> Vec<super::sidebar::GroupInfo> {
        self.ws
            .groups
            .iter()
            .enumerate()
            .map(|(gi, g)| super::sidebar::GroupInfo {
                name: g.name.clone(),
                path: g.path.clone(),
                repo: g.repo.clone(),
                badges: self.ws.group_badges(gi, |p| self.pane_badges(p)),
                tabs: g.tabs.len(),
                active: gi == self.ws.active,
            })
            .collect()
    }

    /// Starts a tab in a new worktree group at `dir` (used by the sidebar).
    pub fn open_group(&mut self, name: String, dir: PathBuf, repo: Option<PathBuf>) -> usize {
        let group = self.ws.add_group(name, dir.clone(), repo);
        if self.ws.groups[group].tabs.is_empty()
            && let Some(pane) = self.spawn_shell(&dir)
        {
            self.ws.add_tab(group, pane);
        }
        self.ws.active = group;
        group
    }
}

impl eframe::App for TernApp {
    fn on_exit(&mut self) {
        if self.session.is_some() {
            let state = self.session_state();
            if let Some(file) = self.session.as_mut()
                && let Err(e) = file.save_now(state)
            {
                eprintln!(
                    "tern: cannot save the session to {}: {e}",
                    file.path().display()
                );
            }
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        self.diagnostics.note_frame(frame);
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| self.frame(ui));
    }
}

/// The last part of a path, for names ("/home/me/src/tern" → "tern").
pub fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
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

fn decode_base64(text: &str) -> Option<String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .ok()?;
    String::from_utf8(bytes).ok()
}

fn encode_base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
