//! Key-map commands (the keys', the palette's): a workspace change returned for the
//! one dispatch (`apply.rs`), or what only the window does, done here; and the core's
//! effects carried out.

use std::path::PathBuf;

use tern_core::workspace::requests::TextJob;
use tern_core::workspace::split_tree::{Axis, Direction};
use tern_core::workspace::{Command as WsCommand, Effect, Source};

use super::apply::Change;
use super::overlay::Overlay;
use super::{RESIZE_STEP, TernApp};
use crate::window::commands::Command;
use crate::window::pane::{CopyTo, PaneUi};

impl TernApp {
    /// What the core asks of the window after a change: views for new panes, nothing
    /// kept for closed ones, a message, the window closing with its last pane.
    pub(super) fn take_effects(&mut self) {
        for effect in self.core.take_effects() {
            match effect {
                Effect::Opened(pane) => {
                    let remote = self.core.record(pane).is_some_and(|r| r.remote);
                    self.panes
                        .ui
                        .entry(pane)
                        .or_insert_with(|| PaneUi::new(pane, self.core.pipeline().clone()))
                        .set_remote(remote);
                }
                Effect::Closed(pane) => {
                    self.panes.ui.remove(&pane);
                    self.panes.shown.remove(&pane);
                    self.agents.forget(pane);
                }
                Effect::Status(message) => self.chrome.status = Some(message),
                Effect::LastExited { code } => self.desk.last_exited = Some(code),
                Effect::Attention { critical } => {
                    let kind = if critical {
                        egui::UserAttentionType::Critical
                    } else {
                        egui::UserAttentionType::Informational
                    };
                    self.ctx
                        .send_viewport_cmd(egui::ViewportCommand::RequestUserAttention(kind));
                }
                Effect::Raise => self.ctx.send_viewport_cmd(egui::ViewportCommand::Focus),
                // OSC 52, as the core decided: the window owns the clipboard.
                Effect::SetClipboard { pane, text, ask } => {
                    if ask {
                        self.chrome.overlay = Some(super::overlay::Overlay::Clipboard {
                            pane,
                            write: Some(text),
                        });
                    } else {
                        self.ctx.copy_text(text);
                    }
                }
                Effect::ReadClipboard { pane, ask } => {
                    if ask {
                        self.chrome.overlay =
                            Some(super::overlay::Overlay::Clipboard { pane, write: None });
                    } else {
                        self.answer_clipboard_read(pane);
                    }
                }
            }
        }
    }

    /// Carries out one key-map command (`Action::Run`): the workspace change it asks
    /// for is returned, for the one dispatch.
    #[must_use = "the workspace change happens only when dispatched"]
    pub(super) fn run(&mut self, ctx: &egui::Context, command: Command) -> Option<Change> {
        let focused = self.core.ws().focused_pane();
        let ws = |c| Some((Source::Key, c));
        match command {
            Command::NewTab => ws(WsCommand::NewTab {
                group: None,
                cwd: None,
                title: None,
                program: Vec::new(),
                size: None,
            }),
            Command::ClosePane => focused.and_then(|pane| self.request_close(pane)),
            Command::CloseTab => self.request_close_tab(),
            Command::NextTab => ws(WsCommand::CycleTab(1)),
            Command::PreviousTab => ws(WsCommand::CycleTab(-1)),
            Command::Tab(n) => ws(WsCommand::SelectTab(n as usize)),
            Command::MoveTabLeft => ws(WsCommand::MoveTab(-1)),
            Command::MoveTabRight => ws(WsCommand::MoveTab(1)),
            Command::RenameTab => {
                if let Some(tab) = self.core.ws().active_tab() {
                    let text = self.core.tab_title(tab);
                    self.chrome.overlay = Some(Overlay::Rename { tab: tab.id, text });
                }
                None
            }
            Command::SplitRight | Command::SplitDown => ws(WsCommand::Split {
                pane: None,
                axis: if command == Command::SplitRight {
                    Axis::Horizontal
                } else {
                    Axis::Vertical
                },
                cwd: None,
                program: Vec::new(),
                size: None,
            }),
            Command::FocusLeft => ws(WsCommand::FocusDirection(Direction::Left)),
            Command::FocusRight => ws(WsCommand::FocusDirection(Direction::Right)),
            Command::FocusUp => ws(WsCommand::FocusDirection(Direction::Up)),
            Command::FocusDown => ws(WsCommand::FocusDirection(Direction::Down)),
            Command::ResizeLeft => ws(WsCommand::Resize(Direction::Left, RESIZE_STEP)),
            Command::ResizeRight => ws(WsCommand::Resize(Direction::Right, RESIZE_STEP)),
            Command::ResizeUp => ws(WsCommand::Resize(Direction::Up, RESIZE_STEP)),
            Command::ResizeDown => ws(WsCommand::Resize(Direction::Down, RESIZE_STEP)),
            Command::ZoomPane => ws(WsCommand::ToggleZoom),
            Command::Equalize => ws(WsCommand::Equalize),
            Command::NextWorktree => ws(WsCommand::CycleGroup(1)),
            Command::PreviousWorktree => ws(WsCommand::CycleGroup(-1)),
            // The next waiting pane is the core's to find ("no pane is waiting" when
            // none is, on the status line).
            Command::NextWaitingPane => ws(WsCommand::FocusNextWaiting),
            Command::ReviewChanges => {
                let g = self.core.ws().active_group()?;
                let (path, repo) = (g.path.clone(), g.repo.clone());
                self.review_changes(path, repo)
            }
            other => {
                self.run_window_command(ctx, other);
                None
            }
        }
    }

    /// The commands that change only the window (pickers, scrolling, fonts, the
    /// clipboard), not the workspace.
    fn run_window_command(&mut self, ctx: &egui::Context, command: Command) {
        let focused = self.core.ws().focused_pane();
        match command {
            Command::QuickSwitcher => self.open_switcher(),
            Command::CommandPalette => self.open_palette(),
            Command::ToggleSidebar => self.chrome.sidebar_open = !self.chrome.sidebar_open,
            Command::AddRepository => {
                self.chrome.sidebar_open = true;
                self.chrome.status =
                    Some("type a repository's path in the sidebar, or Browse…".into());
            }
            Command::NewWorktree => {
                match self.core.ws().active_group().and_then(|g| g.repo.clone()) {
                    Some(root) => {
                        self.chrome.sidebar_open = true;
                        self.chrome.sidebar.start_new_worktree(root);
                    }
                    None => {
                        self.chrome.status = Some(
                            "this tab's folder is not a git repository: add one in the sidebar"
                                .into(),
                        )
                    }
                }
            }
            Command::Copy => {
                if let Some(p) = self.focused_ui_mut() {
                    p.copy_selection(CopyTo::CLIPBOARD);
                }
            }
            Command::Paste => ctx.send_viewport_cmd(egui::ViewportCommand::RequestPaste),
            Command::SearchEverywhere => self.open_everywhere(String::new(), false),
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
            Command::FontBigger => self.set_font_size(self.look.font_size + 1.0),
            Command::FontSmaller => self.set_font_size(self.look.font_size - 1.0),
            // Back to the configured size (not the built-in one).
            Command::FontReset => self.look.font_size = self.settings.config.font.size,
            Command::SaveScrollback => {
                if let Some(pane) = focused {
                    // Read on the save's own thread: the window never waits on the model.
                    let job = TextJob::new(self.core.pipeline().clone(), pane, true);
                    self.save_text(
                        move || {
                            job.text()
                                .map_err(|e| format!("cannot save the scrollback: {e}"))
                        },
                        &format!("tern-scrollback-{}.txt", pane.0),
                    );
                }
            }
            Command::Diagnostics => self.frames.diagnostics.toggle(),
            Command::Theme(n) => {
                let Some(name) = tern_core::config::themes::built_in_names().nth(n as usize) else {
                    return;
                };
                let name = match name {
                    "Dark" => tern_core::config::ThemeName::DARK,
                    "Light" => tern_core::config::ThemeName::LIGHT,
                    other => tern_core::config::ThemeName::Named(other.to_owned()),
                };
                let old = self.settings.config.clone();
                self.settings.config.theme.name = name;
                self.apply_config(ctx, Some(&old));
                self.chrome.status = Some(format!(
                    "theme: {} (set theme.name in the config to keep it)",
                    tern_core::config::themes::built_in_names()
                        .nth(n as usize)
                        .unwrap_or_default()
                ));
            }
            Command::PreviousPrompt | Command::NextPrompt => {
                let forward = command == Command::NextPrompt;
                let found = self
                    .focused_ui_mut()
                    .is_some_and(|p| p.jump_to_prompt(forward));
                if !found {
                    self.chrome.status = Some(no_marks("prompt"));
                }
            }
            Command::SelectLastOutput | Command::CopyLastOutput => {
                let found = self
                    .focused_ui_mut()
                    .is_some_and(|p| p.select_last_output());
                if !found {
                    self.chrome.status = Some(no_marks("finished command with output"));
                } else if command == Command::CopyLastOutput
                    && let Some(p) = self.focused_ui_mut()
                {
                    p.copy_selection(CopyTo::CLIPBOARD);
                }
            }
            Command::CopyMode => {
                if let Some(p) = self.focused_ui_mut() {
                    p.toggle_copy_mode();
                }
            }
            Command::Hints => {
                if let Some(p) = self.focused_ui_mut() {
                    p.toggle_hints();
                }
            }
            // The workspace's own commands are returned by `run`.
            _ => {}
        }
    }

    /// Saves the text `text` makes where the user says (rfd's save dialog and the
    /// text itself on their own thread), or in tern's state folder when no dialog can
    /// be shown; the status line says where.
    pub(super) fn save_text(
        &mut self,
        text: impl FnOnce() -> Result<String, String> + Send + 'static,
        name: &str,
    ) {
        let (tx, rx) = std::sync::mpsc::channel();
        let name = name.to_owned();
        let fallback = tern_core::diagnostics::default_report_dir().join(&name);
        let use_dialog = crate::window::diagnostics::dialog_possible();
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
                    Some(p) => text().and_then(|text| {
                        tern_core::diagnostics::write_atomic(&p, &text)
                            .map(|()| p.clone())
                            .map_err(|e| format!("cannot write {}: {e}", p.display()))
                    }),
                };
                let _ = tx.send(result);
            });
        match spawned {
            Ok(_) => self.saving.dialog = Some(rx),
            Err(e) => self.chrome.status = Some(format!("cannot save: {e}")),
        }
    }

    /// The font size, within what can be read and drawn.
    pub(super) fn set_font_size(&mut self, size: f32) {
        self.look.font_size = size.clamp(6.0, 72.0);
    }

    /// The save in progress, if it finished: the status line says where it went.
    pub(super) fn poll_saving(&mut self) {
        if let Some(rx) = &self.saving.dialog
            && let Ok(result) = rx.try_recv()
        {
            self.saving.dialog = None;
            self.chrome.status = Some(match result {
                Ok(p) => format!("saved to {}", p.display()),
                Err(e) => e,
            });
        }
    }
}

/// The status line when the marks have nothing to go to.
fn no_marks(what: &str) -> String {
    format!("no {what} here (it needs shell integration: OSC 133 marks)")
}

impl TernApp {
    /// Keys and text for the terminal are held out of egui's pass and put back at the
    /// start of `draw` (`held_input`), where the key map and the pane read them as
    /// before. egui asks for two more frames after any frame whose input has events
    /// (issue 32: ~6 painted frames per key on lavapipe, and a key arriving while one
    /// of them paints waits for it); a pane's keys need none of them. Only while a pane
    /// has the keyboard: a form, picker or search bar gets egui's own handling.
    pub(super) fn hold_pane_keys(&mut self, ctx: &egui::Context, raw: &mut egui::RawInput) {
        if !self.pane_has_keyboard(ctx) {
            return;
        }
        let (keys, rest): (Vec<egui::Event>, Vec<egui::Event>) =
            std::mem::take(&mut raw.events).into_iter().partition(|e| {
                matches!(
                    e,
                    egui::Event::Key { .. }
                        | egui::Event::Text(_)
                        | egui::Event::ModifiersChanged(_)
                )
            });
        raw.events = rest;
        if !self.type_now(&keys) {
            self.keys.held.extend(keys);
        }
    }

    /// Whether the focused pane has the keyboard: no form, picker, close question or
    /// search bar takes the keys, and no other field has egui's focus.
    fn pane_has_keyboard(&self, ctx: &egui::Context) -> bool {
        let focus_in_pane = ctx
            .memory(|m| m.focused())
            .is_none_or(|id| self.panes.ids.contains(&id));
        let search_open = self.focused_ui().is_some_and(|p| p.search().is_some());
        !self.modal_open() && !search_open && focus_in_pane
    }

    /// Whether the input gathered for the next pass (`pending`) needs that pass and
    /// its painted frame (eframe asks when a window event's input would repaint:
    /// `App::needs_pass_for_input`, eframe patch 0003). Not when it is only the
    /// releases of keys typed into the focused pane: the frame would paint the same
    /// picture again, once more for every key (on a software renderer a whole window
    /// rendered and sent; where presents wait for vsync, the next key's echo could
    /// queue behind it). The releases wait for the next pass, whatever asks for it, and
    /// go through `raw_input_hook` as any key does, where they write nothing: the pane
    /// takes typing (`type_now`) in the legacy encoding, which sends no releases. A
    /// modifier's press or release may change what is shown (a link underlined under
    /// the pointer while Ctrl is down): those get their pass.
    #[cfg_attr(not(feature = "egui-patches"), allow(dead_code))]
    pub(super) fn needs_pass_for_input(
        &self,
        ctx: &egui::Context,
        pending: &egui::RawInput,
    ) -> bool {
        let releases = !pending.events.is_empty()
            && pending.events.iter().all(|e| {
                matches!(e, egui::Event::Key { key, pressed: false, .. }
                    if !crate::window::commands::is_modifier_key(*key))
            });
        let quiet = releases
            && pending.dropped_files.is_empty()
            && pending.hovered_files.is_empty()
            && self.pane_has_keyboard(ctx)
            && self.takes_typing_now()
            && self
                .focused_ui()
                .and_then(|p| p.view())
                .is_some_and(|v| v.meta.modes.keyboard_flags == 0);
        !quiet
    }

    /// Whether typed keys may go to the focused pane now (`type_now`), bindings aside.
    fn takes_typing_now(&self) -> bool {
        let Some(pane) = self.core.ws().focused_pane() else {
            return false;
        };
        self.keys.held.is_empty()
            && self.keys.intents.is_empty()
            && !self.panes.modal_last
            && self.panes.shown.contains(&pane)
            && self.panes.ui.get(&pane).is_some_and(|p| p.types_keys())
    }

    /// Types `keys` into the focused pane now, before egui's pass, when the frame would
    /// only have sent them to its program: no key of them is bound to a command or a
    /// text to send, nothing is held back or waiting to be carried out (a focus change
    /// the keys must follow), and the pane takes typing (`PaneUi::types_keys`). The
    /// program has the keys while the window still runs the pass's work before the
    /// panes (egui's input, `logic`, the chrome), and the frame shows the echo as one
    /// that typed them would (`take_echo`). Returns whether they were typed.
    fn type_now(&mut self, keys: &[egui::Event]) -> bool {
        let bound = keys.iter().any(|e| match e {
            egui::Event::Key { key, modifiers, .. } => {
                self.keys.map.command_for(*key, *modifiers).is_some()
                    || self
                        .keys
                        .send_text
                        .iter()
                        .any(|(c, _)| c.matches(*key, *modifiers))
            }
            _ => false,
        });
        if keys.is_empty() || bound || !self.takes_typing_now() {
            return false;
        }
        match self.focused_ui_mut() {
            Some(p) => {
                p.type_now(keys);
                true
            }
            None => false,
        }
    }

    /// A tab in the worktree at `path` running `review_command` (its changes against
    /// the repository's main branch, read from git's files: no git runs here).
    #[must_use = "the workspace change happens only when dispatched"]
    pub(super) fn review_changes(
        &mut self,
        path: PathBuf,
        repo: Option<PathBuf>,
    ) -> Option<Change> {
        let main = repo.unwrap_or_else(|| path.clone());
        let Some(base) = tern_core::worktree::git_place(&main).and_then(|p| p.branch) else {
            self.chrome.status = Some(format!(
                "{} is in no repository with a main branch to review against",
                path.display()
            ));
            return None;
        };
        let template = self
            .settings
            .config
            .review_command
            .clone()
            .unwrap_or_else(|| DEFAULT_REVIEW.to_owned());
        // Quoted for sh: a branch name may hold anything git allows.
        let quoted = format!("'{}'", base.replace('\'', "'\\''"));
        let command = template.replace("{base}", &quoted);
        Some((
            Source::Key,
            WsCommand::NewTab {
                group: None,
                cwd: Some(path),
                title: Some("review".to_owned()),
                program: vec!["sh".to_owned(), "-c".to_owned(), command],
                size: None,
            },
        ))
    }
}

/// What "Review changes" runs when the config names nothing: the diff in git's pager,
/// then a line that keeps the tab (git's `LESS=FRX` ends the pager at once when the
/// diff fits the screen, and the tab would close before it was seen).
const DEFAULT_REVIEW: &str = "git diff --merge-base {base}; \
     printf '\\n[tern] end of the changes; Enter closes this tab. '; read -r _";
