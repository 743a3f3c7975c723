//! What a pane has to tell the user while they look elsewhere (a bell, a notification,
//! a finished command, output not seen) and its live marks: a leaf the workspace core
//! (which sets them, `workspace/badges.rs`), `tern msg list` and the faces share.

use serde::{Deserialize, Serialize};

/// What a pane has to tell the user while they are looking elsewhere. Badges roll up:
/// a tab shows the union of its panes', a group the union of its tabs'.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Badges {
    pub bell: bool,
    /// A command finished (OSC 133 D): `Some(true)` succeeded, `Some(false)` failed.
    pub finished: Option<bool>,
    pub notification: bool,
    pub unseen_output: bool,
    /// What the pane is doing (live, from the pipeline; never saved). Rolls up to the
    /// most urgent: waiting, then running, done, idle.
    #[serde(skip)]
    pub activity: Option<crate::pipeline::activity::ActivityState>,
    /// OSC 9;4 percent while a progress report is showing (live).
    #[serde(skip)]
    pub progress: Option<u8>,
    /// The colour the agent asked its mark to be (OSC 21337 `indicator=`; live).
    #[serde(skip)]
    pub indicator: Option<crate::model::Rgb>,
}

impl Badges {
    /// No badge to show (the live activity and progress are not badges).
    pub fn is_empty(&self) -> bool {
        Badges {
            activity: None,
            progress: None,
            indicator: None,
            ..*self
        } == Badges::default()
    }

    /// The union; a failure outranks a success.
    pub fn merge(self, other: Badges) -> Badges {
        Badges {
            bell: self.bell || other.bell,
            finished: match (self.finished, other.finished) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), _) | (_, Some(true)) => Some(true),
                _ => None,
            },
            notification: self.notification || other.notification,
            unseen_output: self.unseen_output || other.unseen_output,
            activity: match (self.activity, other.activity) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            progress: self.progress.or(other.progress),
            // The mark shown is the most urgent pane's: so is its colour.
            indicator: match (self.activity, other.activity) {
                (Some(a), Some(b)) if b < a => other.indicator,
                (None, Some(_)) => other.indicator,
                _ => self.indicator.or(other.indicator),
            },
        }
    }
}
