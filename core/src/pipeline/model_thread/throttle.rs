//! The model thread's side of the visible pane first (`pipeline/throttle.rs`): the
//! hidden panes' credit limits as an interaction begins and ends, and which panes' bytes
//! rest now.

use std::sync::Arc;
use std::time::Instant;

use crate::pipeline::throttle::{HiddenPace, Interaction};

use super::{ModelThread, PaneEntry};

impl ModelThread {
    /// Throttles hidden floods while `interaction` says a person types or looks at a
    /// pane.
    pub fn with_interaction(mut self, interaction: Arc<Interaction>) -> ModelThread {
        self.pace = HiddenPace::new(interaction);
        self
    }

    /// Starts or ends the throttle of hidden floods as the interaction begins or ends
    /// (at the start of each round).
    pub(super) fn update_throttle(&mut self, now: Instant) {
        if self.pace.update(now) {
            for p in self.panes.values() {
                p.credit.set_limit(self.pace.limit_for(p.core.is_visible()));
            }
        }
    }

    /// Whether the pane's bytes wait now: a hidden flood while hidden floods rest.
    pub(super) fn rests(&self, p: &PaneEntry, resting: bool) -> bool {
        resting && !p.core.is_visible() && p.floods(self.read_ahead_after)
    }
}
