//! What a pane has to tell the user while they look elsewhere, and what a program may
//! do with the clipboard: the rules both faces share. A hidden pane collects badges
//! (a bell, a notification, a finished command, output not seen) until a face shows
//! it; headless, no pane is ever shown, so `tern msg list` tells what each has. An
//! OSC 52 request is decided here, as the config's `clipboard` says, and what is
//! allowed goes to the face as an [`Effect`] (the window owns the clipboard).

use crate::config::ClipboardPolicy;
use crate::model::{ClipboardRequest, ShellMark, TermEvent};
use crate::pipeline::{PaneEvent, PaneId};

use super::command::Effect;
use super::core::WorkspaceCore;

impl WorkspaceCore {
    /// A pipeline event's badge on its pane, when no face shows the pane.
    pub(super) fn badge(&mut self, event: &PaneEvent) {
        let pane = match event {
            PaneEvent::Fact { pane, .. }
            | PaneEvent::Exited { pane, .. }
            | PaneEvent::UnseenOutput { pane } => *pane,
            _ => return,
        };
        if self.notices.seen.shown.contains(&pane) {
            return;
        }
        let Some(b) = self.panes.get_mut(&pane).map(|r| &mut r.badges) else {
            return;
        };
        match event {
            PaneEvent::Fact { event, .. } => match event {
                TermEvent::Bell => b.bell = true,
                TermEvent::Notification(_) => b.notification = true,
                TermEvent::Shell {
                    mark: ShellMark::CommandFinished { exit_code },
                    ..
                } => b.finished = Some(exit_code.is_none_or(|c| c == 0)),
                _ => {}
            },
            PaneEvent::Exited { exit, .. } => b.finished = Some(exit.code == 0),
            PaneEvent::UnseenOutput { .. } => b.unseen_output = true,
            _ => {}
        }
    }

    /// Panes a face shows now lose their badges (the user sees them).
    pub(super) fn clear_badges_of_shown(&mut self) {
        for pane in &self.notices.seen.shown {
            if let Some(r) = self.panes.get_mut(pane) {
                r.badges = Default::default();
            }
        }
    }

    /// OSC 52 from `pane`, as the config's policy says (writes allowed, reads refused by
    /// default): allowed or asked requests go to the face, refusals are said.
    pub(super) fn clipboard(&mut self, pane: PaneId, request: &ClipboardRequest) {
        let policy = self.config.clipboard.policy_for(request);
        let name = self.pane_title(pane);
        let effect = match (request, policy) {
            (
                ClipboardRequest::Write { base64, .. },
                ClipboardPolicy::Allow | ClipboardPolicy::Ask,
            ) => match decode_base64(base64) {
                Some(text) => Effect::SetClipboard {
                    pane,
                    text,
                    ask: policy == ClipboardPolicy::Ask,
                },
                None => Effect::Status(format!(
                    "{name}: a clipboard write that is not base64 text was ignored"
                )),
            },
            (ClipboardRequest::Write { .. }, ClipboardPolicy::Deny) => Effect::Status(format!(
                "{name} tried to set the clipboard (refused by config)"
            )),
            (ClipboardRequest::Read { .. }, ClipboardPolicy::Allow | ClipboardPolicy::Ask) => {
                Effect::ReadClipboard {
                    pane,
                    ask: policy == ClipboardPolicy::Ask,
                }
            }
            (ClipboardRequest::Read { .. }, ClipboardPolicy::Deny) => Effect::Status(format!(
                "{name} tried to read the clipboard (refused; see clipboard.osc52_read in the config)"
            )),
        };
        self.effects.push(effect);
    }
}

fn decode_base64(text: &str) -> Option<String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .ok()?;
    String::from_utf8(bytes).ok()
}
