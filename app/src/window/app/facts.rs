//! The pipeline's facts (titles, directories, bells, notifications, exits, clipboard
//! requests) routed to their panes; hidden panes collect badges. The core keeps the
//! facts it needs and sends notifications to the desktop.

use tern_core::model::{ShellMark, TermEvent};
use tern_core::pipeline::{PaneEvent, PaneId};

use super::TernApp;
use super::overlay::Overlay;
use super::page::PageSize;

impl TernApp {
    /// Routes the pipeline's facts to their panes; hidden panes collect badges.
    pub(super) fn route_events(&mut self, ctx: &egui::Context) {
        let mut clipboard_requests = Vec::new();
        let mut page_sizes = Vec::new();
        self.core
            .set_seen(self.window_focused, self.shown.iter().copied());
        for event in self.core.pipeline().poll_events() {
            // The core keeps titles and folders, sends notifications to the desktop
            // and applies the exit policy.
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
                    TermEvent::Bell => p.badges.bell |= hidden,
                    // The badge, the desktop notification (the core's) and the
                    // pane's reason (while it waits) say it; not the status line,
                    // which an empty worktree shows until something replaces it
                    // (issue 51: ": askagent needs your permission" long after).
                    TermEvent::Notification(_) => p.badges.notification |= hidden,
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
        // Clicked desktop notifications focus their pane (the core applies it).
        self.core.poll_notices();
        self.take_effects();
        let traced = self.trace.enabled();
        if let Some(marks) = self.agents.refresh(ctx, &self.core, traced) {
            self.trace.event("marks", &marks);
        }
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
        let name = self.core.pane_title(pane);
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
        self.core.pipeline().write(pane, reply.as_bytes());
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
