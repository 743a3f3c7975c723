//! The pipeline's facts (titles, directories, bells, notifications, exits, clipboard
//! requests) routed to their panes; hidden panes collect badges.

use tern_core::model::{ShellMark, TermEvent};
use tern_core::pipeline::{PaneEvent, PaneId};

use super::TernApp;
use super::overlay::Overlay;
use super::page::PageSize;

impl TernApp {
    /// Routes the pipeline's facts to their panes; hidden panes collect badges.
    pub(super) fn route_events(&mut self, ctx: &egui::Context) {
        let mut clipboard_requests = Vec::new();
        let mut notes = Vec::new();
        let mut page_sizes = Vec::new();
        for event in self.pipeline.poll_events() {
            // The core keeps titles and folders and applies the exit policy.
            self.core.on_event(&event);
            let pane = match &event {
                PaneEvent::Fact { pane, .. }
                | PaneEvent::Exited { pane, .. }
                | PaneEvent::Error { pane, .. }
                | PaneEvent::UnseenOutput { pane }
                | PaneEvent::Resized { pane, .. }
                | PaneEvent::ResizeRequested { pane, .. } => *pane,
            };
            let hidden = !self.shown.contains(&pane);
            let Some(p) = self.panes.get_mut(&pane) else {
                continue;
            };
            match event {
                PaneEvent::Fact { event, .. } => match event {
                    TermEvent::Bell => {
                        p.badges.bell |= hidden;
                        notes.push((pane, None, hidden));
                    }
                    TermEvent::Notification(n) => {
                        p.badges.notification |= hidden;
                        self.status = Some(format!("{}: {}", n.title, n.body));
                        notes.push((pane, Some(n), hidden));
                    }
                    TermEvent::Shell { mark, line } => {
                        p.marks.record(mark, line);
                        if let ShellMark::CommandFinished { exit_code } = mark
                            && hidden
                        {
                            p.badges.finished = Some(exit_code.is_none_or(|c| c == 0));
                        }
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
                PaneEvent::Resized { size, .. } => page_sizes.push((pane, size, PageSize::Set)),
                PaneEvent::ResizeRequested { size, .. } => {
                    page_sizes.push((pane, size, PageSize::Asked))
                }
            }
        }
        self.take_effects();
        for (pane, size, how) in page_sizes {
            self.follow_page_size(ctx, pane, size, how);
        }
        for (pane, request) in clipboard_requests {
            self.clipboard_request(ctx, pane, request);
        }
        self.notify(ctx, notes);
    }

    /// Bells and notifications to the desktop (as the config's `notify` says), clicked
    /// desktop notifications to their pane, and the panes' activity refreshed.
    fn notify(
        &mut self,
        ctx: &egui::Context,
        notes: Vec<(PaneId, Option<tern_core::model::notify::Notification>, bool)>,
    ) {
        let focused = self.window_focused;
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
            self.pipeline.breadcrumb(None, crumb);
        }
        if let Some(pane) = clicked.last()
            && self
                .exec(
                    tern_core::workspace::Source::Notification,
                    tern_core::workspace::Command::Focus(*pane),
                )
                .is_ok()
        {
            ctx.send_viewport_cmd(egui::ViewportCommand::Focus);
        }
        self.agents.refresh(ctx, &self.pipeline);
    }

    /// OSC 52: a program sets or reads the clipboard, as the config's policy says
    /// (write allowed, read denied by default).
    pub(super) fn clipboard_request(
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

    pub(super) fn answer_clipboard_read(&mut self, pane: PaneId) {
        let text = arboard::Clipboard::new()
            .and_then(|mut c| c.get_text())
            .unwrap_or_default();
        let reply = format!("\x1b]52;c;{}\x07", encode_base64(text.as_bytes()));
        self.pipeline.write(pane, reply.as_bytes());
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
