//! Credit flow control, pty → model.
//!
//! ```text
//!   reader (model thread, `reader.rs`)         parser (model thread)
//!   read_total += n   ── chunk (n bytes) ──▶ parse; parsed_total = max(parsed_total, seq)
//!        ▲                                        │
//!        └──── room = window - (read - parsed) ◀──┘ (looked at before each read)
//! ```
//!
//! Both totals are cumulative and monotonic. The model max-merges its processed total,
//! so a duplicated or late credit notification cannot double-count, and a lost one is
//! healed by the next. The reader never reads more than `room`, so bytes in flight never
//! exceed the window; when the room is zero it stops reading, the kernel buffer fills and
//! the child blocks in write. Nothing is dropped. Reader and parser are usually the same
//! thread (the model thread reads its ptys itself), so the room needs no wake-up: the
//! reader looks at it again after each parse slice. While a pty floods, the reader is
//! `tern-read` (`ahead.rs`): it reads within the same room and, when the room is zero,
//! waits to be rung by the model thread once parsing made some. The totals stay atomic
//! for both readers, the delivery table and `Pipeline::feed`.
//!
//! While a person types, a hidden pane's window is smaller ([`Credit::set_limit`],
//! `throttle.rs`): the reader reads less ahead of the parser and the child blocks
//! sooner. Bytes already in flight over the smaller window stay and are parsed (the
//! room is zero until they are): the limit never drops or un-reads anything.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Per-pty credit state shared by the reader and the model thread.
#[derive(Debug)]
pub struct Credit {
    window_bytes: AtomicU64,
    /// A smaller window in force now (0: none), see [`Credit::set_limit`].
    limit_bytes: AtomicU64,
    read_total: AtomicU64,
    parsed_total: AtomicU64,
    paused: AtomicBool,
    times_paused: AtomicU64,
}

impl Credit {
    pub fn new(window_bytes: u64) -> Credit {
        Credit {
            window_bytes: AtomicU64::new(window_bytes.max(1)),
            limit_bytes: AtomicU64::new(0),
            read_total: AtomicU64::new(0),
            parsed_total: AtomicU64::new(0),
            paused: AtomicBool::new(false),
            times_paused: AtomicU64::new(0),
        }
    }

    /// The window in force now: the configured one, or the limit while one is set.
    pub fn window_bytes(&self) -> u64 {
        let window = self.window_bytes.load(Ordering::Acquire);
        match self.limit_bytes.load(Ordering::Acquire) {
            0 => window,
            limit => window.min(limit),
        }
    }

    /// The configured window, whatever the limit.
    pub fn full_window_bytes(&self) -> u64 {
        self.window_bytes.load(Ordering::Acquire)
    }

    /// Limits the window to `limit_bytes` (at least 1) until `None` gives the whole
    /// window back. Returns whether that changed anything.
    pub fn set_limit(&self, limit_bytes: Option<u64>) -> bool {
        let new = limit_bytes.map_or(0, |b| b.max(1));
        self.limit_bytes.swap(new, Ordering::AcqRel) != new
    }

    /// A smaller window is in force (the pane is throttled).
    pub fn is_limited(&self) -> bool {
        self.limit_bytes.load(Ordering::Acquire) != 0
    }

    pub fn read_total(&self) -> u64 {
        self.read_total.load(Ordering::Acquire)
    }

    pub fn parsed_total(&self) -> u64 {
        self.parsed_total.load(Ordering::Acquire)
    }

    /// Bytes read but not yet parsed.
    pub fn in_flight(&self) -> u64 {
        self.read_total().saturating_sub(self.parsed_total())
    }

    /// How many bytes the reader may read now.
    pub fn room(&self) -> u64 {
        self.window_bytes().saturating_sub(self.in_flight())
    }

    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::Acquire)
    }

    pub fn times_paused(&self) -> u64 {
        self.times_paused.load(Ordering::Acquire)
    }

    /// The reader read `n` bytes (`n <= room()`).
    pub fn on_read(&self, n: u64) {
        self.read_total.fetch_add(n, Ordering::AcqRel);
    }

    /// The model has parsed everything up to `total` (cumulative). Max-merged.
    pub fn on_parsed(&self, total: u64) {
        self.parsed_total.fetch_max(total, Ordering::AcqRel);
    }

    /// The reader found the pty readable and the room zero (`paused`), or found room
    /// again (`!paused`). Returns whether that changed the state; each pause counts once.
    pub fn set_paused(&self, paused: bool) -> bool {
        let changed = self.paused.swap(paused, Ordering::AcqRel) != paused;
        if changed && paused {
            self.times_paused.fetch_add(1, Ordering::AcqRel);
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    #[derive(Clone, Debug)]
    enum Op {
        /// The reader reads up to this many bytes (if there is room).
        Read(u64),
        /// The model parses the next queued chunk of pty `i`.
        Parse,
        /// A credit notification is delivered again (duplicate) or late (stale).
        Replay(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (1u64..5000).prop_map(Op::Read),
            3 => Just(Op::Parse),
            1 => (0usize..8).prop_map(Op::Replay),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0xc0ffee),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Every chunk is credited exactly once, in-flight never exceeds the window, and
        /// the totals are monotonic, under any interleaving and with duplicated or stale
        /// notifications.
        #[test]
        fn credit_is_exact_and_bounded(window in 1u64..20_000, ops in proptest::collection::vec(op(), 1..400)) {
            let credit = Credit::new(window);
            let mut queue: VecDeque<u64> = VecDeque::new();
            let mut parsed_seq = 0u64;
            let mut sent_credits: Vec<u64> = Vec::new();
            let mut chunks_read = 0u64;
            let mut chunks_credited = 0u64;
            let (mut last_read, mut last_parsed) = (0, 0);
            for op in ops {
                match op {
                    Op::Read(want) => {
                        let n = want.min(credit.room());
                        if n > 0 {
                            credit.on_read(n);
                            queue.push_back(n);
                            chunks_read += 1;
                        }
                    }
                    Op::Parse => {
                        if let Some(n) = queue.pop_front() {
                            parsed_seq += n;
                            credit.on_parsed(parsed_seq);
                            sent_credits.push(parsed_seq);
                            chunks_credited += 1;
                        }
                    }
                    Op::Replay(back) => {
                        if let Some(old) = sent_credits.iter().rev().nth(back) {
                            credit.on_parsed(*old);
                        }
                    }
                }
                prop_assert!(credit.in_flight() <= window, "in flight {} > window {window}", credit.in_flight());
                prop_assert!(credit.read_total() >= last_read && credit.parsed_total() >= last_parsed);
                last_read = credit.read_total();
                last_parsed = credit.parsed_total();
                prop_assert_eq!(credit.in_flight(), queue.iter().sum::<u64>());
            }
            while let Some(n) = queue.pop_front() {
                parsed_seq += n;
                credit.on_parsed(parsed_seq);
                chunks_credited += 1;
            }
            prop_assert_eq!(chunks_read, chunks_credited);
            prop_assert_eq!(credit.read_total(), credit.parsed_total());
            prop_assert_eq!(credit.room(), window);
        }
    }

    /// A limit shrinks the room at once, never below what is in flight (nothing is
    /// taken back), and lifting it gives the whole window back.
    #[test]
    fn a_limit_shrinks_the_room_and_lifting_it_gives_it_back() {
        let credit = Credit::new(1000);
        credit.on_read(300);
        assert!(credit.set_limit(Some(100)));
        assert!(!credit.set_limit(Some(100)), "the same limit again");
        assert!(credit.is_limited());
        assert_eq!(
            (credit.window_bytes(), credit.full_window_bytes()),
            (100, 1000)
        );
        assert_eq!(credit.room(), 0, "300 in flight over a 100-byte window");
        assert_eq!(credit.in_flight(), 300, "the limit drops nothing");
        credit.on_parsed(250);
        assert_eq!(credit.room(), 50);
        assert!(credit.set_limit(None));
        assert!(!credit.is_limited());
        assert_eq!(credit.room(), 950);
    }

    #[test]
    fn a_pause_counts_once_until_room_returns() {
        let credit = Credit::new(100);
        credit.on_read(100);
        assert_eq!(credit.room(), 0);
        assert!(credit.set_paused(true));
        assert!(!credit.set_paused(true), "the same pause, seen again");
        credit.on_parsed(40);
        assert_eq!(credit.room(), 40);
        assert!(credit.set_paused(false));
        assert_eq!(credit.times_paused(), 1);
        assert!(!credit.is_paused());
    }
}
