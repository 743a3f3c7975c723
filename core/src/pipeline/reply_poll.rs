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
//! - input caught while polling leaves it as it is;
//! - a program that writes again after about the same time each reply (a probe asking
//!   every 500 µs, a TUI's timer) is not polled for from the reply on: the thread
//!   sleeps until [`ReplyPoll::LEAD`] before the input is due (the last gap from a
//!   reply to the input after it, [`ReplyPoll::sleep_first`]) and polls from there
//!   until [`ReplyPoll::SLACK`] after it. The core is awake when the input comes, as
//!   with a poll from the reply, for a fraction of the CPU (issue 32: 1,000 queries
//!   500 µs apart cost the window 0.62 s of CPU, nearly all of it this poll; now
//!   0.03–0.04 s, xterm's; the round trip's p50 went from ~35 to ~45 µs, xterm's
//!   ~50). Input that comes while it sleeps wakes it at once, as any input does.
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
    /// From the last judged reply to the input after it, when that came within `max`.
    gap: Option<Duration>,
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
    /// How long before input is due a thread that slept until then wakes: a timer
    /// fires up to 50 µs late (Linux's default timer slack), a halted core takes ~30 µs
    /// to run the thread, and a program's own timer jitters (80 µs measured a p50 round
    /// trip ~5 µs slower than 150 for the same CPU).
    pub const LEAD: Duration = Duration::from_micros(150);
    /// How long after input was due the poll goes on.
    pub const SLACK: Duration = Duration::from_micros(40);

    /// A poll whose window grows up to `max` (and a wake-up within `max` of a reply
    /// counts as an answer to it). `max` under [`ReplyPoll::START`] never polls.
    pub fn with_max(max: Duration) -> Self {
        ReplyPoll {
            window: Duration::ZERO,
            replied_at: None,
            until: None,
            max,
            gap: None,
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

    /// When input is due after the last reply, if the gaps say so and it is far enough
    /// off to sleep first (`None`: poll from the reply on).
    fn due(&self) -> Option<Instant> {
        let gap = self.gap.filter(|g| *g >= 2 * Self::LEAD)?;
        Some(self.replied_at? + gap)
    }

    /// Until when the thread, idle at `now`, polls before it sleeps (`None`: sleep).
    /// With input due ([`ReplyPoll::sleep_first`]), the poll ends [`ReplyPoll::SLACK`]
    /// after it.
    pub fn poll_until(&mut self, now: Instant) -> Option<Instant> {
        match self.until {
            Some(until) if until > now => {
                Some(self.due().map_or(until, |due| until.min(due + Self::SLACK)))
            }
            _ => {
                self.until = None;
                None
            }
        }
    }

    /// Until when the thread, idle at `now` and about to poll, sleeps first (input
    /// wakes it sooner): [`ReplyPoll::LEAD`] before the input is due.
    pub fn sleep_first(&self, now: Instant) -> Option<Instant> {
        self.until?;
        let wake = self.due()?.checked_sub(Self::LEAD)?;
        (wake > now).then_some(wake)
    }

    /// Input came at `now` while polling: the window was long enough. The reply is
    /// judged (a later wake-up from sleep, with no reply since, says nothing about it).
    pub fn caught(&mut self, now: Instant) {
        if let Some(replied_at) = self.replied_at.take() {
            self.gap = Some(now.saturating_duration_since(replied_at));
        }
    }

    /// The thread woke from sleep at `now` (input or a message): judges the window by
    /// how long after the last reply that came.
    pub fn woke(&mut self, now: Instant) {
        let Some(replied_at) = self.replied_at.take() else {
            return;
        };
        let gap = now.saturating_duration_since(replied_at);
        self.gap = (gap <= self.max).then_some(gap);
        if self.max < Self::START {
            return;
        }
        if gap <= self.max {
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
                p.caught(t);
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
        // The first poll ends SLACK after the input the last gap (600 µs) said was due;
        // the 50 ms gap is no gap to predict from (over MAX), so the rest poll from the
        // reply as the window shrinks.
        assert_eq!(wasted, us(640 + 400 + 200 + 100));
    }

    /// A program asking every 500 µs (issue 32's probe): from the first gap learnt on,
    /// the thread sleeps until LEAD before the next query is due and polls until SLACK
    /// after it, instead of polling the whole 500 µs after each reply.
    #[test]
    fn a_steady_cadence_is_slept_through_until_just_before_the_input_is_due() {
        let t0 = Instant::now();
        let mut p = ReplyPoll {
            window: ReplyPoll::MAX,
            ..ReplyPoll::default()
        };
        p.replied(t0);
        assert_eq!(
            p.sleep_first(t0),
            None,
            "no gap known yet: poll from the reply"
        );
        assert_eq!(p.poll_until(t0), Some(t0 + ReplyPoll::MAX));
        p.caught(t0 + us(500));
        let mut t = t0 + us(520);
        for _ in 0..5 {
            p.replied(t);
            let wake = p.sleep_first(t).expect("sleeps first");
            assert_eq!(wake, t + us(500) - ReplyPoll::LEAD);
            let until = p.poll_until(wake).expect("then polls");
            assert_eq!(until, t + us(500) + ReplyPoll::SLACK);
            assert!(
                until - wake <= ReplyPoll::LEAD + ReplyPoll::SLACK,
                "polls at most LEAD + SLACK"
            );
            t += us(500);
            p.caught(t);
            assert_eq!(
                p.window(),
                ReplyPoll::MAX,
                "catching leaves the window as it is"
            );
            t += us(20);
        }
        // Input sooner than due, while the thread sleeps, wakes it: it is judged as a
        // wake-up, and the next plan follows the new gap.
        p.replied(t);
        p.woke(t + us(300));
        p.replied(t + us(320));
        assert_eq!(
            p.sleep_first(t + us(320)),
            Some(t + us(320 + 300) - ReplyPoll::LEAD)
        );
        // A gap too short to sleep in is polled for from the reply, as before.
        p.caught(t + us(420));
        p.replied(t + us(440));
        assert_eq!(p.sleep_first(t + us(440)), None);
        assert_eq!(
            p.poll_until(t + us(440)),
            Some(t + us(440) + ReplyPoll::MAX)
        );
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
        p.caught(t0 + us(2100));
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
