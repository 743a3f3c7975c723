//! The pipeline's facts routed to the window's panes (shell marks, exits, page sizes).
//! The core keeps the rest: titles, folders, badges, notifications, OSC 52 decisions.

use tern_core::model::TermEvent;
use tern_core::pipeline::{PaneEvent, PaneId};

use super::TernApp;
use super::page::PageSize;

impl TernApp {
    /// Routes the pipeline's facts to the core, then to the window's panes.
    pub(super) fn route_events(&mut self, ctx: &egui::Context) {
        let mut page_sizes = Vec::new();
        self.core
            .set_seen(self.chrome.window_focused, self.panes.shown.iter().copied());
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
            let Some(p) = self.panes.ui.get_mut(&pane) else {
                continue;
            };
            // Badges, notifications and OSC 52 are the core's (a notification is said
            // by the badge, the desktop and the pane's reason, not the status line).
            match event {
                PaneEvent::Fact {
                    event: TermEvent::Shell { mark, line },
                    ..
                } => p.program.marks.record(mark, line),
                PaneEvent::Fact { .. } | PaneEvent::UnseenOutput { .. } => {}
                PaneEvent::Exited { exit, .. } => {
                    p.program.exited = Some(format!("[process exited with {exit}]"));
                }
                PaneEvent::Error { message, .. } => {
                    p.program.exited = Some(format!("[error: {message}]"))
                }
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
        // Clicked desktop notifications focus their pane (the core applies it).
        self.core.poll_notices();
        self.take_effects();
        let traced = self.frames.trace.enabled();
        if let Some(marks) = self.agents.refresh(ctx, &self.core, traced) {
            self.frames.trace.event("marks", &marks);
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

fn encode_base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
