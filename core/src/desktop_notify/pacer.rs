//! How often the sender thread may call the notification server: one update per pane
//! per interval (`notify.min_interval_ms`; what arrives in between waits, merged: the
//! newest text, the count of all), and at most [`GLOBAL_CALLS_PER_SECOND`] calls for
//! all panes together. A pane printing OSC 9 in a loop costs one call per interval,
//! not one per round trip to the bus (about 1,270 calls a second before, each one
//! redrawn by the desktop's notification daemon).
//!
//! A held notification goes out when its time comes: the sender thread waits for the
//! earliest one (a deadline set by the last call, the rule `docs/ARCHITECTURE.md`
//! gives rate limits), or for a new request.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Calls to the notification server per second at most, all panes together.
pub const GLOBAL_CALLS_PER_SECOND: u32 = 10;
const SECOND: Duration = Duration::from_secs(1);
/// Panes remembered at most (entries older than the interval are dropped past it).
const MAX_PANES: usize = 1024;

#[derive(Debug, Default)]
pub struct Pacer {
    /// When each pane's notification was last sent.
    last: HashMap<u64, Instant>,
    /// The current one-second window and the calls made in it.
    second: Option<(Instant, u32)>,
}

impl Pacer {
    /// When `pane` may be sent next (`None`: now), with `interval` between a pane's
    /// updates.
    pub fn due(&self, pane: u64, interval: Duration, now: Instant) -> Option<Instant> {
        let per_pane = self
            .last
            .get(&pane)
            .map(|at| *at + interval)
            .filter(|at| *at > now);
        let global = match self.second {
            Some((began, calls)) if calls >= GLOBAL_CALLS_PER_SECOND && now < began + SECOND => {
                Some(began + SECOND)
            }
            _ => None,
        };
        per_pane.max(global)
    }

    /// A call was made for `pane` at `now`.
    pub fn called(&mut self, pane: u64, interval: Duration, now: Instant) {
        if self.last.len() >= MAX_PANES {
            self.last
                .retain(|_, at| now.saturating_duration_since(*at) < interval);
        }
        self.last.insert(pane, now);
        self.second = match self.second {
            Some((began, calls)) if now < began + SECOND => Some((began, calls + 1)),
            _ => Some((now, 1)),
        };
    }

    /// A closed pane's entry goes.
    pub fn forget(&mut self, pane: u64) {
        self.last.remove(&pane);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Catches a pane's updates sent on every round trip (1,270 calls a second from
    /// one OSC 9 loop) and a flood of panes together past the global cap.
    #[test]
    fn one_update_per_pane_per_interval_and_a_global_cap() {
        let mut p = Pacer::default();
        let interval = Duration::from_secs(5);
        let t = Instant::now();
        assert_eq!(p.due(1, interval, t), None);
        p.called(1, interval, t);
        let later = t + Duration::from_millis(10);
        assert_eq!(p.due(1, interval, later), Some(t + interval));
        assert_eq!(p.due(2, interval, later), None, "panes apart");
        assert_eq!(p.due(1, interval, t + interval), None);
        for pane in 2..=GLOBAL_CALLS_PER_SECOND as u64 {
            p.called(pane, interval, later);
        }
        assert_eq!(
            p.due(99, interval, later),
            Some(t + SECOND),
            "the global cap holds a new pane to the next second"
        );
        assert_eq!(p.due(99, interval, t + SECOND), None);
    }
}
