//! Agents in the window: each pane's activity (running / waiting / done / idle, from
//! the workspace core's one rule, `WorkspaceCore::activities`) on the tab bar, the
//! sidebar and the quick switcher, the progress bar, and the `send_text` bindings'
//! text. The rules are the core's: desktop notifications and the next waiting pane
//! (`Command::FocusNextWaiting`) live in `tern_core::workspace`.

use std::collections::HashMap;
use std::time::Duration;

use egui::Color32;
use tern_core::config::SendText;
use tern_core::model::notify::{Progress, ProgressState};
use tern_core::pipeline::PaneId;
use tern_core::pipeline::activity::{ActivityReport, ActivityState};
use tern_core::workspace::{Badges, WorkspaceCore};

use super::theme::Theme;

/// The activity as a mark before the badges.
/// The agent's `indicator` colour, when it asked for one, draws the mark.
pub fn activity_marks(b: Badges) -> Vec<(&'static str, Color32)> {
    let colour = |default: Color32| {
        b.indicator
            .map_or(default, |c| Color32::from_rgb(c.r, c.g, c.b))
    };
    match b.activity {
        Some(ActivityState::Waiting) => vec![("◆", colour(Color32::from_rgb(250, 170, 40)))],
        Some(ActivityState::Running) => vec![("▶", colour(Color32::from_rgb(90, 170, 250)))],
        // A held pane whose program ended shows as done.
        Some(ActivityState::Done | ActivityState::Exited) => {
            vec![("■", colour(Color32::from_rgb(150, 150, 150)))]
        }
        Some(ActivityState::Idle) | None => Vec::new(),
    }
}

/// " · waiting" (with the progress percent) for accessibility labels.
pub fn activity_suffix(b: Badges) -> String {
    match (b.activity, b.progress) {
        (Some(s), Some(p)) => format!(" · {} {p}%", s.label()),
        (Some(s), None) => format!(" · {}", s.label()),
        (None, _) => String::new(),
    }
}

/// Why a tab or worktree wants the user, and how far its work is: drawn as a tooltip
/// line and a thin bar under its title.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attention {
    /// The waiting pane's reason: the notification's text or the question's line.
    pub why: Option<String>,
    /// OSC 9;4 progress of the first pane that reports one.
    pub progress: Option<Progress>,
}

impl Attention {
    /// " — why" for accessibility labels and tooltips ("" when nothing waits).
    pub fn suffix(&self) -> String {
        self.why
            .as_deref()
            .map_or_else(String::new, |w| format!(" — {w}"))
    }
}

/// Draws OSC 9;4 progress as a thin bar along the bottom of `rect`: its percent in the
/// accent colour, error and paused in the theme's error and warning colours, a dim full
/// bar while indeterminate.
pub fn progress_bar(painter: &egui::Painter, rect: egui::Rect, p: Progress, theme: &Theme) {
    let c = &theme.chrome;
    let (color, fraction) = match p.state {
        ProgressState::Hidden => return,
        ProgressState::Error => (c.error, p.percent.map_or(1.0, |v| v as f32 / 100.0)),
        ProgressState::Paused => (c.warning, p.percent.map_or(1.0, |v| v as f32 / 100.0)),
        ProgressState::Indeterminate => (c.text_dim, 1.0),
        ProgressState::Normal => (
            c.badges.notification,
            p.percent.map_or(0.0, |v| v.min(100) as f32 / 100.0),
        ),
    };
    let height = 2.0;
    let bar = egui::Rect::from_min_size(
        egui::pos2(rect.left(), rect.bottom() - height),
        egui::vec2(rect.width() * fraction, height),
    );
    painter.rect_filled(bar, 0.0, color);
}

/// "2m" / "45s" / "3h": a short age for the switcher.
pub fn short_age(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        _ => format!("{}h", s / 3600),
    }
}

/// When the first of `reports` may change with time alone (ms from when they were
/// read), if any can.
pub fn next_change_ms<'a>(reports: impl IntoIterator<Item = &'a ActivityReport>) -> Option<u64> {
    reports.into_iter().filter_map(|r| r.changes_in_ms).min()
}

/// The window's activity table (each pane's state, read from the workspace core).
#[derive(Default)]
pub struct Agents {
    pub activity: HashMap<PaneId, ActivityReport>,
    /// Each pane's state as last traced, sorted by pane (the trace's `marks`).
    drawn: Vec<(PaneId, ActivityState)>,
}

impl Agents {
    /// Reads every pane's activity (each frame; cheap: a lock per pane) and asks for
    /// a repaint at the moment a state changes with time alone (output going quiet):
    /// no timer repaints an idle window. (The switcher's "45s" ages are read when it
    /// opens; nothing on screen counts seconds.)
    ///
    /// With `traced` (the window's trace is on), returns the marks as JSON fields
    /// (`"marks":{"3":"waiting",..}`) when any changed: what the tab bar and the
    /// sidebar draw, so a test can hold it against `tern msg list`.
    pub fn refresh(
        &mut self,
        ctx: &egui::Context,
        core: &WorkspaceCore,
        traced: bool,
    ) -> Option<String> {
        self.activity = core.activities().into_iter().collect();
        if let Some(ms) = next_change_ms(self.activity.values()) {
            ctx.request_repaint_after(Duration::from_millis(ms));
        }
        if !traced {
            return None;
        }
        let mut drawn: Vec<(PaneId, ActivityState)> =
            self.activity.iter().map(|(p, r)| (*p, r.state)).collect();
        drawn.sort_by_key(|(p, _)| *p);
        if drawn == self.drawn {
            return None;
        }
        self.drawn = drawn;
        let marks: Vec<String> = self
            .drawn
            .iter()
            .map(|(p, s)| format!("\"{}\":\"{}\"", p.0, s.label()))
            .collect();
        Some(format!("\"marks\":{{{}}}", marks.join(",")))
    }

    /// Reads the table now, whatever the frame (a command acting on it).
    pub fn refresh_now(&mut self, core: &WorkspaceCore) {
        self.activity = core.activities().into_iter().collect();
    }

    /// The colour the pane's agent asked its mark to be (OSC 21337 `indicator=`).
    pub fn indicator(&self, pane: PaneId) -> Option<tern_core::model::Rgb> {
        self.activity.get(&pane).and_then(|r| r.indicator)
    }

    pub fn state(&self, pane: PaneId) -> Option<ActivityState> {
        self.activity.get(&pane).map(|r| r.state)
    }

    pub fn progress(&self, pane: PaneId) -> Option<u8> {
        self.activity
            .get(&pane)
            .and_then(|r| r.progress)
            .and_then(|p| p.percent)
    }

    /// What `panes` have to say: the reason of the one waiting longest, and the first
    /// progress report.
    pub fn attention(&self, panes: impl IntoIterator<Item = PaneId>) -> Attention {
        let reports: Vec<&ActivityReport> = panes
            .into_iter()
            .filter_map(|p| self.activity.get(&p))
            .collect();
        Attention {
            why: reports
                .iter()
                .filter(|r| r.state == ActivityState::Waiting)
                .max_by_key(|r| r.since_ms)
                .and_then(|r| r.wait_text.clone()),
            progress: reports.iter().find_map(|r| r.progress),
        }
    }

    pub fn forget(&mut self, pane: PaneId) {
        self.activity.remove(&pane);
    }
}

/// The `send_text` bindings as the key map matches them: (chord, text).
pub fn send_text_chords(
    bindings: &[SendText],
) -> (Vec<(super::commands::Chord, String)>, Vec<String>) {
    let mut chords = Vec::new();
    let mut errors = Vec::new();
    for b in bindings {
        for key in &b.keys {
            match super::commands::Chord::parse(&key.to_string()) {
                Ok(c) => chords.push((c, b.text.clone())),
                Err(e) => errors.push(format!("send_text: {e}")),
            }
        }
    }
    (chords, errors)
}

/// Takes the first `send_text` chord pressed this frame out of egui's input.
pub fn take_send_text(
    ctx: &egui::Context,
    chords: &[(super::commands::Chord, String)],
) -> Option<String> {
    if chords.is_empty() {
        return None;
    }
    ctx.input_mut(|i| {
        let mut found = None;
        i.events.retain(|e| {
            if found.is_some() {
                return true;
            }
            if let egui::Event::Key {
                key,
                pressed: true,
                modifiers,
                ..
            } = e
                && let Some((_, text)) = chords.iter().find(|(c, _)| c.matches(*key, *modifiers))
            {
                found = Some(text.clone());
                return false;
            }
            true
        });
        found
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activity_shows_as_a_mark_and_words() {
        let b = Badges {
            activity: Some(ActivityState::Waiting),
            progress: Some(40),
            ..Badges::default()
        };
        assert_eq!(activity_marks(b).len(), 1);
        assert_eq!(activity_suffix(b), " · waiting 40%");
        assert_eq!(activity_suffix(Badges::default()), "");
    }
}
