//! When to connect again after a connection ended: [`Backoff`], driven by events.
//!
//! The app schedules the next attempt (it owns the clock of its frames); this only
//! says how long to wait. Each failure doubles the wait, from [`Backoff::MIN`] to
//! [`Backoff::MAX`]; a connection that stayed up at least [`Backoff::STABLE`] starts
//! the doubling over, so a laptop that sleeps for an hour reconnects at once on
//! waking, while a host that refuses every attempt is not hammered.

use std::time::{Duration, Instant};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backoff {
    next: Duration,
    connected_at: Option<Instant>,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff::new()
    }
}

impl Backoff {
    pub const MIN: Duration = Duration::from_millis(500);
    pub const MAX: Duration = Duration::from_secs(30);
    /// Up this long, a connection counts as having worked.
    pub const STABLE: Duration = Duration::from_secs(10);

    pub fn new() -> Backoff {
        Backoff {
            next: Backoff::MIN,
            connected_at: None,
        }
    }

    /// The connection is up (`RemoteEvent::Connected`).
    pub fn connected(&mut self, now: Instant) {
        self.connected_at = Some(now);
    }

    /// The connection ended or an attempt failed (`RemoteEvent::Disconnected`): how
    /// long to wait before the next attempt.
    pub fn disconnected(&mut self, now: Instant) -> Duration {
        if self
            .connected_at
            .take()
            .is_some_and(|at| now.saturating_duration_since(at) >= Backoff::STABLE)
        {
            self.next = Backoff::MIN;
        }
        let wait = self.next;
        self.next = (self.next * 2).min(Backoff::MAX);
        wait
    }

    /// What the next failure would wait (for a "reconnecting in …" label).
    pub fn peek(&self) -> Duration {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_to_the_cap_and_resets_after_a_stable_connection() {
        let t0 = Instant::now();
        let mut b = Backoff::new();
        let waits: Vec<u64> = (0..9)
            .map(|_| b.disconnected(t0).as_millis() as u64)
            .collect();
        assert_eq!(
            waits,
            [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]
        );
        b.connected(t0);
        assert_eq!(b.disconnected(t0 + Duration::from_secs(1)), Backoff::MAX);
        b.connected(t0);
        assert_eq!(b.disconnected(t0 + Backoff::STABLE), Backoff::MIN);
        assert_eq!(b.peek(), Duration::from_secs(1));
    }
}
