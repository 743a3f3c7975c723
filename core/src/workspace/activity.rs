//! What each pane is doing, by one rule for every face (invariant 12): the activity
//! tracker's report (`crate::pipeline::activity`: the agent's own word first), `exited`
//! for a held pane, and the agent's reports applied as [`super::Command::Report`].

use super::core::WorkspaceCore;
use crate::agent::{AgentReport, SessionNews};
use crate::model::notify::{Notification, NotifySource};
use crate::pipeline::PaneId;
use crate::pipeline::activity::{ActivityReport, ActivitySource, ActivityState};

impl WorkspaceCore {
    /// What the pane is doing, by the one rule every face reads (the tab mark, the
    /// sidebar, the switcher, next-waiting, `tern msg list` and `wait`): the activity
    /// tracker's report (the agent's own word first, see
    /// [`crate::pipeline::activity`]), and `exited` for a held pane.
    pub fn activity(&self, pane: PaneId) -> Option<ActivityReport> {
        self.held(pane, self.pipeline.activity(pane)?)
    }

    /// [`Self::activity`] of every pane the core knows, by pane id.
    pub fn activities(&self) -> Vec<(PaneId, ActivityReport)> {
        self.pipeline
            .activities()
            .into_iter()
            .filter_map(|(pane, report)| Some((pane, self.held(pane, report)?)))
            .collect()
    }

    /// The waiting pane, in any worktree, that has waited longest (ties: the lower
    /// pane id).
    pub fn longest_waiting(&self) -> Option<PaneId> {
        self.activities()
            .into_iter()
            .filter(|(p, r)| r.state == ActivityState::Waiting && self.ws.locate(*p).is_some())
            .max_by_key(|(p, r)| (r.since_ms, std::cmp::Reverse(p.0)))
            .map(|(p, _)| p)
    }

    /// The tracker's report as the core says it: `exited` for a held pane; `None` for a
    /// pane the core does not know.
    fn held(&self, pane: PaneId, mut report: ActivityReport) -> Option<ActivityReport> {
        if self.panes.get(&pane)?.exit.is_some() {
            report.state = ActivityState::Exited;
            report.source = ActivitySource::Exit;
        }
        Some(report)
    }

    /// The agent in `pane` (a known one) said what it does: the tracker takes its state,
    /// the record its conversation, and a new wait goes to the desktop as the config
    /// says (once per wait: a permission dialog is reported twice, at once and after 6 s).
    pub(super) fn report(&mut self, pane: PaneId, report: AgentReport) {
        let was_waiting = self.activity(pane).map(|r| r.state) == Some(ActivityState::Waiting);
        self.pipeline.report_activity(pane, report.activity());
        // "It waits for you" reaches the desktop as the config says, once per
        // wait (a permission dialog is reported twice: at once, then after 6 s).
        if report.state == Some(ActivityState::Waiting) && !was_waiting {
            let body = report.reason.as_deref().unwrap_or("waiting for you");
            let note = Notification::new(NotifySource::Agent, "", body);
            self.on_notice(pane, Some(&note));
        }
        if let Some(r) = self.panes.get_mut(&pane) {
            match report.session {
                SessionNews::Current(s) => r.agent = Some(s),
                SessionNews::Ended => r.agent = None,
                SessionNews::None => {}
            }
        }
    }
}
