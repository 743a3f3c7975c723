//! Polling after a reply. A program that asked a question (`ESC[6n`, DA, a colour
//! query) waits for the answer and usually writes again soon after it: its next query,
//! or the output the answer unlocked. If the model thread sleeps in `epoll_wait`
//! meanwhile, that input costs a wake-up, and where idle cores halt (a VM's vCPU, a
//! deep C-state) waking the core the thread slept on is most of the round trip: ~30 µs
//! of a ~60 µs answer on the 2-vCPU test machines, where the floor's reader (which
//! parses nothing) is seldom left on the other core. So after a reply the model thread
//! polls its ptys and messages (`epoll_wait` with a zero timeout) for up to a window
//! before it sleeps; input seen then is handled at once, as if it had woken the thread.
//!
//! ```text
//!   reply ──▶ idle: poll, poll, poll … input ─▶ read, parse, reply   (no wake-up)
//!                   └──── window ────┘ nothing: sleep in epoll_wait
//! ```
//!
//! The window adapts, as the kernel's `haltpoll` cpuidle governor does for a vCPU:
//! - the first wake-up from sleep after a reply, within [`ReplyPoll::MAX`] of it: a
//!   longer poll would have caught it, so the window doubles (from [`ReplyPoll::START`])
//!   up to `MAX`;
//! - a wake-up later than `MAX` after the reply: the poll was wasted, so the window
//!   halves, and under `START` it is 0 (no poll) until quick answers come back;
//! - input caught while polling leaves it as it is.
//!
//! Nothing is held back to batch it: the poll ends at the first input (invariant 7).
//! A program that never asks is never polled for; one that asks now and then costs at
//! most one window per reply while the window shrinks to 0 (1 + ½ + ¼ + ⅛ ms). One that
//! asks again and again within a millisecond keeps the thread polling while it does.

use std::time::{Duration, Instant};

/// When the model thread polls instead of sleeping, and how the window adapts.
#[derive(Debug, Clone)]
pub struct ReplyPoll {
    /// How long after a reply the thread polls (0: it sleeps at once).
    window: Duration,
    /// The last reply not yet judged by a wake-up from sleep.
    replied_at: Option<Instant>,
    /// Polling ends here (the last reply plus the window then).
    until: Option<Instant>,
    /// The longest window ([`ReplyPoll::MAX`] unless configured).
    max: Duration,
}

impl Default for ReplyPoll {
    fn default() -> Self {
        ReplyPoll::with_max(Self::MAX)
    }
}

impl ReplyPoll {
    /// The longest window, and the longest wait after a reply that still counts as
    /// an answer to it.
    pub const MAX: Duration = Duration::from_millis(1);
    /// The window the first doubling starts from; a halving under it ends polling.
    pub const START: Duration = Duration::from_micros(100);

    /// A poll whose window grows up to `max` (and a wake-up within `max` of a reply
    /// counts as an answer to it). `max` under [`ReplyPoll::START`] never polls.
    pub fn with_max(max: Duration) -> Self {
        ReplyPoll {
            window: Duration::ZERO,
            replied_at: None,
            until: None,
            max,
        }
    }

    /// The current window.
    pub fn window(&self) -> Duration {
        self.window
    }

    /// A reply was written at `now`.
    pub fn replied(&mut self, now: Instant) {
        self.replied_at = Some(now);
        self.until = (!self.window.is_zero()).then(|| now + self.window);
    }

    /// Until when the thread, idle at `now`, polls before it sleeps (`None`: sleep).
    pub fn poll_until(&mut self, now: Instant) -> Option<Instant> {
        match self.until {
            Some(until) if until > now => Some(until),
            _ => {
                self.until = None;
                None
            }
        }
    }

    /// Input came while polling: the window was long enough. The reply is judged (a
    /// later wake-up from sleep, with no reply since, says nothing about it).
    pub fn caught(&mut self) {
        self.replied_at = None;
    }

    /// The thread woke from sleep at `now` (input or a message): judges the window by
    /// how long after the last reply that came.
    pub fn woke(&mut self, now: Instant) {
        let Some(replied_at) = self.replied_at.take() else {
            return;
        };
        if self.max < Self::START {
            return;
        }
        if now.saturating_duration_since(replied_at) <= self.max {
            self.window = (self.window * 2).clamp(Self::START, self.max);
        } else {
            self.window /= 2;
            if self.window < Self::START {
                self.window = Duration::ZERO;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    #[test]
    fn quick_answers_grow_the_window_from_start_to_max_and_late_ones_shrink_it_to_zero() {
        let t0 = Instant::now();
        let mut p = ReplyPoll::default();
        let mut t = t0;
        let mut windows = Vec::new();
        // A program that writes again 600 µs after each reply.
        for _ in 0..6 {
            p.replied(t);
            assert!(p.poll_until(t).is_none() || !p.window().is_zero());
            t += us(600);
            if p.poll_until(t).is_none() {
                p.woke(t);
            } else {
                p.caught();
            }
            windows.push(p.window().as_micros());
        }
        // Slept through the first four (window under 600 µs), caught from then on.
        assert_eq!(windows, [100, 200, 400, 800, 800, 800]);
        // Then one that writes 50 ms after each reply.
        let mut wasted = Duration::ZERO;
        for _ in 0..6 {
            p.replied(t);
            if let Some(until) = p.poll_until(t) {
                wasted += until - t;
            }
            t += Duration::from_millis(50);
            assert!(p.poll_until(t).is_none());
            p.woke(t);
        }
        assert_eq!(p.window(), Duration::ZERO);
        assert_eq!(wasted, us(800 + 400 + 200 + 100));
    }

    #[test]
    fn the_poll_ends_at_the_window_after_the_last_reply_whatever_came_between() {
        let t0 = Instant::now();
        let mut p = ReplyPoll {
            window: ReplyPoll::MAX,
            ..ReplyPoll::default()
        };
        assert_eq!(p.poll_until(t0), None, "no reply, no poll");
        p.replied(t0);
        // Other input parsed meanwhile does not end it.
        assert_eq!(p.poll_until(t0 + us(300)), Some(t0 + ReplyPoll::MAX));
        assert_eq!(p.poll_until(t0 + ReplyPoll::MAX), None);
        assert_eq!(p.poll_until(t0 + us(300)), None, "ended for good");
        // Input caught while polling leaves the window alone, and so does the next
        // wake from sleep with no reply since (a prompt's query answered, then the
        // user's next key seconds later).
        p.replied(t0 + us(2000));
        assert!(p.poll_until(t0 + us(2100)).is_some());
        p.caught();
        p.woke(t0 + us(900_000));
        assert_eq!(p.window(), ReplyPoll::MAX);
        // A wake from sleep judges the last reply, once.
        p.replied(t0 + us(1_000_000));
        p.woke(t0 + us(1_003_000));
        assert_eq!(p.window(), us(500));
        p.woke(t0 + us(9000));
        assert_eq!(p.window(), us(500), "judged once");
    }

    #[test]
    fn a_zero_window_never_polls_but_still_learns() {
        let t0 = Instant::now();
        let mut p = ReplyPoll::default();
        p.replied(t0);
        assert_eq!(p.poll_until(t0), None);
        p.woke(t0 + us(40));
        assert_eq!(p.window(), ReplyPoll::START);
    }
}
