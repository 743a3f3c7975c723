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
//!   most `1 / (1 + HIDDEN_REST_FACTOR)` of the model thread: after a slice that took
//!   `d`, hidden floods rest for `HIDDEN_REST_FACTOR * d` ([`HiddenPace`]), and the model
//!   thread sleeps through the rest unless other input comes.
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
//!            hidden pane: window 1 MiB → 16 KiB; flood slice d, then rest 7·d
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

/// After a hidden flood's slice that took `d`, hidden floods rest `HIDDEN_REST_FACTOR *
/// d` while a person interacts: they get at most an eighth of the model thread.
pub const HIDDEN_REST_FACTOR: u32 = 7;

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
}

impl HiddenPace {
    pub fn new(interaction: std::sync::Arc<Interaction>) -> HiddenPace {
        HiddenPace {
            interaction,
            throttling: false,
            rest_until: None,
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

    /// A hidden flood's slice ran from `started` to `ended`: the others rest for
    /// [`HIDDEN_REST_FACTOR`] times as long (only while throttling).
    pub fn ran(&mut self, started: Instant, ended: Instant) {
        if self.throttling {
            let took = ended.saturating_duration_since(started);
            self.rest_until = Some(ended + took * HIDDEN_REST_FACTOR);
        }
    }

    /// When the model thread must look again though nothing comes: the end of a rest
    /// (hidden floods' bytes wait) or of the interaction (limits to lift).
    pub fn wake_at(&self) -> Option<Instant> {
        if !self.throttling {
            return None;
        }
        let end = self.interaction.ends_at();
        match (self.rest_until, end) {
            (Some(rest), Some(end)) => Some(rest.min(end)),
            (rest, end) => rest.or(end),
        }
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
        assert_eq!(pace.wake_at(), None);
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
        pace.ran(now, now + Duration::from_millis(1));
        assert!(pace.resting(now + Duration::from_millis(2)));
        assert!(
            !pace.resting(now + Duration::from_millis(9)),
            "rests 7x its slice"
        );
        let end = i.ends_at().expect("an input");
        assert!(pace.wake_at().is_some_and(|w| w <= end));
        assert!(pace.update(end), "the deadline ends it");
        assert!(!pace.throttling() && !pace.resting(end));
        assert_eq!(pace.limit_for(false), None);
    }
}
