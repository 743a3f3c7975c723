//! Bells and notifications (OSC 9 / 777 / 99, BEL) from panes to the desktop, as the
//! config's `notify` says, for either face: the window tells the core what the person
//! sees ([`WorkspaceCore::set_seen`]); `tern --headless` sees nothing, so a pane's
//! notification counts as unseen. A clicked desktop notification focuses its pane
//! through [`WorkspaceCore::apply`] (`Source::Notification`).

use std::time::{Duration, Instant};

use super::command::{Command, Effect, Source};
use super::core::WorkspaceCore;
use crate::config::NotifyWhen;
use crate::desktop_notify::{DesktopEvent, DesktopNotifier, DesktopRequest};
use crate::model::notify::{Notification, Urgency};
use crate::pipeline::PaneId;

/// Whether a notification from a pane goes to the desktop.
pub fn should_notify(when: NotifyWhen, window_focused: bool, pane_shown: bool) -> bool {
    match when {
        NotifyWhen::Always => true,
        NotifyWhen::Never => false,
        NotifyWhen::Unfocused => !window_focused || !pane_shown,
    }
}

/// The body of a desktop notification: "title: body", or whichever is set.
fn notification_text(n: &Notification) -> String {
    match (n.title.is_empty(), n.body.is_empty()) {
        (true, _) => n.body.clone(),
        (_, true) => n.title.clone(),
        _ => format!("{}: {}", n.title, n.body),
    }
}

impl WorkspaceCore {
    /// What the person sees now: whether the face's window has keyboard focus and the
    /// panes on screen (the window says so every frame; the headless face never).
    pub fn set_seen(&mut self, window_focused: bool, shown: impl IntoIterator<Item = PaneId>) {
        self.notices.seen.window_focused = window_focused;
        self.notices.seen.shown.clear();
        self.notices.seen.shown.extend(shown);
        self.clear_badges_of_shown();
    }

    /// A bell (`note` is `None`) or a notification from `pane`: to the desktop if the
    /// config says so for what the person sees; sent while the window is unfocused, it
    /// asks the face for the user's attention ([`Effect::Attention`]).
    pub(super) fn on_notice(&mut self, pane: PaneId, note: Option<&Notification>) {
        let config = &self.config.notify;
        let when = note.map_or(config.bell, |n| config.when(n.source));
        let seen = &self.notices.seen;
        let window_focused = seen.window_focused;
        if !should_notify(when, window_focused, seen.shown.contains(&pane)) {
            return;
        }
        let (body, urgency, count) = match note {
            Some(n) => (notification_text(n), n.urgency, n.count),
            None => ("bell".to_owned(), Urgency::Normal, 1),
        };
        let place = self.pane_place(pane);
        let interval = Duration::from_millis(self.config.notify.min_interval_ms);
        let waker = self.waker.clone();
        let notifier = self
            .notices
            .notifier
            .get_or_insert_with(|| DesktopNotifier::new("tern", interval, waker));
        let request = DesktopRequest {
            pane: pane.0,
            summary: format!("tern · {place}"),
            body,
            urgency,
        };
        if !notifier.notify_count(request, count, Instant::now()) {
            return;
        }
        self.notices.sent += u64::from(count.max(1));
        if !window_focused {
            self.effects.push(Effect::Attention {
                critical: urgency == Urgency::Critical,
            });
        }
    }

    /// How many bells and notifications went to the desktop notifier.
    pub fn notifications_sent(&self) -> u64 {
        self.notices.sent
    }

    /// How many calls the desktop notifier made to the notification server (each
    /// shows or replaces one notification; far fewer than [`Self::notifications_sent`]
    /// under a flood).
    pub fn notification_calls(&self) -> u64 {
        self.notices
            .notifier
            .as_ref()
            .map_or(0, DesktopNotifier::calls)
    }

    /// "worktree · n title" of the tab that holds `pane`.
    fn pane_place(&self, pane: PaneId) -> String {
        let label = self.pane_label(pane);
        format!("{} · {}", label.worktree, label.tab)
    }

    /// What the desktop said since last asked: a clicked notification focuses its
    /// pane ([`Effect::Raise`] asks the face to come to the front); a notifier that
    /// cannot reach the desktop leaves one breadcrumb. Call on every wake-up (the
    /// notifier wakes the face).
    pub fn poll_notices(&mut self) {
        let events = self
            .notices
            .notifier
            .as_ref()
            .map(DesktopNotifier::poll)
            .unwrap_or_default();
        let mut clicked = None;
        for e in events {
            match e {
                DesktopEvent::Clicked { pane } => clicked = Some(PaneId(pane)),
                DesktopEvent::Unavailable(why) | DesktopEvent::Failed(why) => {
                    if self.notices.unavailable.as_deref() != Some(why.as_str()) {
                        self.pipeline
                            .breadcrumb(None, format!("desktop notifications: {why}"));
                        self.notices.unavailable = Some(why);
                    }
                }
                DesktopEvent::Sent { .. } => {}
            }
        }
        if let Some(pane) = clicked
            && self
                .apply(Source::Notification, Command::Focus(pane))
                .is_ok()
        {
            self.effects.push(Effect::Raise);
        }
    }

    /// The interval within which a pane's notifications replace each other (the
    /// config changed).
    pub(super) fn notices_config_changed(&mut self) {
        if let Some(n) = &self.notices.notifier {
            n.set_interval(Duration::from_millis(self.config.notify.min_interval_ms));
        }
    }

    /// A closed pane's waiting notification goes.
    pub(super) fn forget_notices(&mut self, pane: PaneId) {
        if let Some(n) = &self.notices.notifier {
            n.forget(pane.0);
        }
        self.notices.seen.shown.remove(&pane);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unfocused_means_window_or_pane_out_of_sight() {
        assert!(should_notify(NotifyWhen::Unfocused, false, true));
        assert!(should_notify(NotifyWhen::Unfocused, true, false));
        assert!(!should_notify(NotifyWhen::Unfocused, true, true));
        assert!(should_notify(NotifyWhen::Always, true, true));
        assert!(!should_notify(NotifyWhen::Never, false, false));
    }
}
