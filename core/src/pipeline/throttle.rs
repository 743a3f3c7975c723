//! The visible pane first: while a person types or looks at a pane, hidden floods get a
//! smaller share, and get it back when the interaction pauses.
//!
//! On a machine with few cores a hidden pane that floods costs the window twice: the
//! model thread parses it, and its producer (a build, an agent) runs whenever tern
//! reads what it wrote. Both compete with the keystroke's path (the window's frame, the
//! program that echoes, the model thread parsing the echo). So while a person
//! interacts ([`Interaction`]: a key or a reveal within the last [`INTERACTION_MS`]):
//!
//! - a hidden pane's credit window is [`THROTTLED_WINDOW_BYTES`] ([`Credit::set_limit`]):
//!   less is read ahead of the parser, and the producer blocks on the full pty and
//!   sleeps sooner (lossless backpressure, invariant 1);
//! - hidden panes that flood (read ahead, or a streak of reads with no `EAGAIN`) get at
//!   most `1 / (1 + HIDDEN_REST_FACTOR)` of the model thread: once their slices took
//!   `d >=` [`HIDDEN_BURST`] together, hidden floods rest for `HIDDEN_REST_FACTOR * d`
//!   ([`HiddenPace`]), and the model thread sleeps through the rest unless other input
//!   comes. (A rest per burst, not per 16 KiB slice: each wake-up of the model thread,
//!   which asks for a short time slice, preempts the window's painting.)
//!
//! Nothing is dropped or reordered: a resting pane's bytes wait in its queue and its
//! producer waits in `write`. A hidden pane that does not flood (a query, a prompt) is
//! parsed and answered at once (invariants 2 and 3); a query behind a flood is answered
//! when the flood's bytes before it are parsed, as always, only more slowly. The rest
//! follows the work done (a share, not a fixed batching window), and the interaction's
//! end is a deadline that moves with each key (invariant 7).
//!
//! ```text
//!   key ──▶ Interaction::touch ── model thread, next round: throttling
//!            hidden pane: window 1 MiB → 16 KiB; flood slices for d ≥ 1 ms, rest 15·d
//!   500 ms without a key ──▶ the round at the deadline lifts both
//! ```
//!
//! [`Credit::set_limit`]: super::credit::Credit::set_limit

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long after a person's last key (or reveal) hidden floods stay throttled.
pub const INTERACTION_MS: u64 = 500;

/// A hidden pane's credit window while a person interacts.
pub const THROTTLED_WINDOW_BYTES: u64 = 16 * 1024;

/// After hidden floods' slices took `d`, they rest `HIDDEN_REST_FACTOR * d` while a
/// person interacts: they get at most a sixteenth of the model thread.
pub const HIDDEN_REST_FACTOR: u32 = 15;

/// Hidden floods' slices run this long (together) before they rest.
pub const HIDDEN_BURST: Duration = Duration::from_millis(1);

/// When a person last typed into a pane or revealed one, shared by the pipeline's
/// handle (which notes it) and the model thread (which throttles by it).
#[derive(Debug)]
pub struct Interaction {
    epoch: Instant,
    /// Nanoseconds since `epoch` of the last input, plus one (0: never).
    last_ns: AtomicU64,
    /// Inputs noted so far.
    count: AtomicU64,
}

impl Interaction {
    pub fn new(epoch: Instant) -> Interaction {
        Interaction {
            epoch,
            last_ns: AtomicU64::new(0),
            count: AtomicU64::new(0),
        }
    }

    /// A person typed or looked at a pane now.
    pub fn touch(&self) {
        let ns = self.epoch.elapsed().as_nanos() as u64;
        self.last_ns
            .fetch_max(ns.saturating_add(1), Ordering::AcqRel);
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    /// When the interaction ends if no other input comes (`None`: there was none).
    pub fn ends_at(&self) -> Option<Instant> {
        match self.last_ns.load(Ordering::Acquire) {
            0 => None,
            ns => Some(
                self.epoch + Duration::from_nanos(ns - 1) + Duration::from_millis(INTERACTION_MS),
            ),
        }
    }

    /// Whether a person interacts at `now`.
    pub fn active_at(&self, now: Instant) -> bool {
        self.ends_at().is_some_and(|end| now < end)
    }

    /// Inputs noted so far.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
}

/// The model thread's side: whether hidden floods are throttled this round, and until
/// when they rest.
#[derive(Debug)]
pub struct HiddenPace {
    interaction: std::sync::Arc<Interaction>,
    throttling: bool,
    rest_until: Option<Instant>,
    /// Hidden floods' slice time since their last rest.
    owed: Duration,
}

impl HiddenPace {
    pub fn new(interaction: std::sync::Arc<Interaction>) -> HiddenPace {
        HiddenPace {
            interaction,
            throttling: false,
            rest_until: None,
            owed: Duration::ZERO,
        }
    }

    /// Looks at the interaction at the start of a round; returns whether throttling
    /// began or ended (the caller then sets or lifts the hidden panes' limits).
    pub fn update(&mut self, now: Instant) -> bool {
        let throttling = self.interaction.active_at(now);
        if throttling == self.throttling {
            return false;
        }
        self.throttling = throttling;
        if !throttling {
            self.rest_until = None;
            self.owed = Duration::ZERO;
        }
        true
    }

    pub fn throttling(&self) -> bool {
        self.throttling
    }

    /// The credit window limit for a pane (`None` for a visible one, or when nobody
    /// interacts).
    pub fn limit_for(&self, visible: bool) -> Option<u64> {
        (self.throttling && !visible).then_some(THROTTLED_WINDOW_BYTES)
    }

    /// Hidden floods rest now: their slices wait.
    pub fn resting(&self, now: Instant) -> bool {
        self.throttling && self.rest_until.is_some_and(|until| now < until)
    }

    /// A hidden flood's slice ran from `started` to `ended`. Once such slices took
    /// [`HIDDEN_BURST`], hidden floods rest [`HIDDEN_REST_FACTOR`] times as long (only
    /// while throttling).
    pub fn ran(&mut self, started: Instant, ended: Instant) {
        if !self.throttling {
            return;
        }
        self.owed += ended.saturating_duration_since(started);
        if self.owed >= HIDDEN_BURST {
            self.rest_until = Some(ended + self.owed * HIDDEN_REST_FACTOR);
            self.owed = Duration::ZERO;
        }
    }

    /// When the model thread, idle at `now`, must look again though nothing comes: the
    /// end of a rest still to come (hidden floods' bytes wait) or of the interaction
    /// (limits to lift). A rest that is over is no reason to wake: the thread would
    /// wake at once, again and again, while it waits for the floods' next bytes.
    pub fn wake_at(&self, now: Instant) -> Option<Instant> {
        if !self.throttling {
            return None;
        }
        let end = self.interaction.ends_at();
        match (self.rest_until.filter(|until| *until > now), end) {
            (Some(rest), Some(end)) => Some(rest.min(end)),
            (rest, end) => rest.or(end),
        }
    }
}

/// A search thread's share while a person types (search everywhere's matcher, the
/// closed panes' search): the hidden floods' rule, [`HiddenPace`], on a thread of their
/// own. A thread of low priority is not enough on its own: whatever CPU it burns counts
/// against tern's share of the machine (its cgroup or autogroup), and the keystroke's
/// path then waits for other programs' slices (measured: key → frame p90 30–67x with a
/// nice-19 matcher running free, `docs/benchmarks.md`).
#[derive(Debug)]
pub struct SearchPace {
    pace: HiddenPace,
    since: Instant,
}

impl SearchPace {
    pub fn new(interaction: std::sync::Arc<Interaction>) -> SearchPace {
        SearchPace {
            pace: HiddenPace::new(interaction),
            since: Instant::now(),
        }
    }

    /// Between two pieces of work: counts the work since the last call and, while a
    /// person types, rests as hidden floods do (until `stop` says the work is over).
    pub fn between(&mut self, stop: impl Fn() -> bool) {
        let now = Instant::now();
        self.pace.update(now);
        self.pace.ran(self.since, now);
        loop {
            let now = Instant::now();
            self.pace.update(now);
            if !self.pace.resting(now) || stop() {
                break;
            }
            let until = self.pace.wake_at(now).unwrap_or(now);
            std::thread::sleep(
                until
                    .saturating_duration_since(now)
                    .min(Duration::from_millis(20)),
            );
        }
        self.since = Instant::now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn no_input_no_throttle() {
        let i = Arc::new(Interaction::new(Instant::now()));
        let mut pace = HiddenPace::new(i.clone());
        assert!(!pace.update(Instant::now()));
        assert!(!pace.throttling());
        assert_eq!(pace.limit_for(false), None);
        assert_eq!(pace.wake_at(Instant::now()), None);
    }

    /// A key starts throttling (hidden panes only); the interaction's end, which
    /// follows the last key, lifts it and ends any rest.
    #[test]
    fn a_key_throttles_hidden_panes_until_the_interaction_ends() {
        let i = Arc::new(Interaction::new(Instant::now()));
        let mut pace = HiddenPace::new(i.clone());
        i.touch();
        let now = Instant::now();
        assert!(pace.update(now));
        assert_eq!(pace.limit_for(false), Some(THROTTLED_WINDOW_BYTES));
        assert_eq!(
            pace.limit_for(true),
            None,
            "the visible pane keeps its window"
        );
        let ms = Duration::from_millis;
        pace.ran(now, now + HIDDEN_BURST / 2);
        assert!(!pace.resting(now + ms(1)), "half a burst: no rest yet");
        pace.ran(now + ms(1), now + ms(1) + HIDDEN_BURST / 2);
        let rest_from = now + ms(1) + HIDDEN_BURST / 2;
        assert!(pace.resting(rest_from), "a whole burst: rest");
        let rest = HIDDEN_BURST * HIDDEN_REST_FACTOR;
        assert!(pace.resting(rest_from + rest - ms(1)));
        assert!(!pace.resting(rest_from + rest), "rests 15x the burst");
        let end = i.ends_at().expect("an input");
        assert_eq!(
            pace.wake_at(rest_from),
            Some(rest_from + rest),
            "the rest's end"
        );
        assert_eq!(
            pace.wake_at(rest_from + rest),
            Some(end),
            "a rest that is over wakes nothing: the interaction's end"
        );
        assert!(pace.update(end), "the deadline ends it");
        assert!(!pace.throttling() && !pace.resting(end));
        assert_eq!(pace.limit_for(false), None);
    }
}
