//! Diagnostics data: cheap counters on the hot path, built into a report only when read.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A latency histogram with power-of-two microsecond buckets (lock-free to record).
#[derive(Debug)]
pub struct Histogram {
    /// Bucket `i` counts samples in `[2^(i-1), 2^i)` µs; bucket 0 is `< 1` µs.
    buckets: [AtomicU64; 32],
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

impl Histogram {
    pub fn record(&self, d: Duration) {
        let us = d.as_micros().min(u64::MAX as u128) as u64;
        let bucket = (64 - us.leading_zeros()) as usize;
        self.buckets[bucket.min(31)].fetch_add(1, Ordering::Relaxed);
    }

    pub fn count(&self) -> u64 {
        self.buckets.iter().map(|b| b.load(Ordering::Relaxed)).sum()
    }

    /// Upper bound (µs) of the bucket holding quantile `q` (0..=1); 0 when empty.
    pub fn quantile_us(&self, q: f64) -> u64 {
        bucket_quantile_us(&self.buckets(), q)
    }

    pub fn buckets(&self) -> Vec<u64> {
        self.buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect()
    }
}

/// Upper bound (µs) of the bucket holding quantile `q` (0..=1) in [`Histogram`] bucket
/// counts; 0 when empty.
pub fn bucket_quantile_us(counts: &[u64], q: f64) -> u64 {
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return 0;
    }
    let target = ((total as f64) * q).ceil().max(1.0) as u64;
    let mut seen = 0;
    for (i, c) in counts.iter().enumerate() {
        seen += c;
        if seen >= target {
            return 1u64 << i;
        }
    }
    1 << 31
}

/// Per-pty counters. Written by the reader and the model thread; read by reports.
#[derive(Debug, Default)]
pub struct PtyStats {
    pub frames_built: AtomicU64,
    pub frames_taken: AtomicU64,
    pub snapshots_built: AtomicU64,
    pub replies_sent: AtomicU64,
    pub reply_bytes: AtomicU64,
    /// Chunk read → reply written, for chunks that produced a reply.
    pub reply_latency: Histogram,
    /// Nanoseconds since the pipeline's epoch of the last read / parse (0 = never).
    pub last_read_ns: AtomicU64,
    pub last_parse_ns: AtomicU64,
    /// Nanoseconds since the pipeline's epoch of the last frame or snapshot built.
    pub last_frame_ns: AtomicU64,
    pub heap_bytes: AtomicU64,
    /// The images' part of `heap_bytes` (decoded pixels, uploads in progress).
    pub image_bytes: AtomicU64,
    pub scrollback_lines: AtomicU64,
    /// Times the screen was scanned for a question (the waiting state).
    pub question_scans: AtomicU64,
    /// Times a flood handed the pty to the reading thread (`ahead.rs`).
    pub read_ahead_spells: AtomicU64,
    /// The reading thread reads this pane now.
    pub reading_ahead: std::sync::atomic::AtomicBool,
    /// The most area work (cells, `Terminal::work_cells`) one parse call did: at most
    /// `SLICE_WORK_CELLS` plus one sequence's for a slice.
    pub slice_work_cells_max: AtomicU64,
    /// Slices this hidden flood waited while a person interacted (`throttle.rs`).
    pub slices_rested: AtomicU64,
}

/// One rare transition, for the breadcrumb ring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breadcrumb {
    pub at_ns: u64,
    /// The pane's id, or [`APP_CRUMB`] for the app's own (config reload, errors).
    pub pane: u64,
    pub what: String,
}

/// The `pane` of a breadcrumb that belongs to no pane (pane ids start at 1).
pub const APP_CRUMB: u64 = 0;

/// The model thread's own counters: written once per scheduling round.
#[derive(Debug, Default)]
pub struct ModelStats {
    /// Nanoseconds the model thread spent working (not blocked waiting for messages).
    pub busy_ns: AtomicU64,
    /// Times it woke up and worked.
    pub rounds: AtomicU64,
    /// Polls after a reply ([`super::reply_poll`]): how many, how many ended with
    /// input (a wake-up saved), and the time spent polling (not in `busy_ns`).
    pub polls: AtomicU64,
    pub polls_caught: AtomicU64,
    pub poll_ns: AtomicU64,
}

impl ModelStats {
    pub fn reply_polls(&self) -> ReplyPolls {
        ReplyPolls {
            polls: self.polls.load(Ordering::Relaxed),
            caught: self.polls_caught.load(Ordering::Relaxed),
            poll_ns: self.poll_ns.load(Ordering::Relaxed),
        }
    }
}

/// The model thread's polls after replies, cumulative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplyPolls {
    pub polls: u64,
    /// Polls that ended with input, not by sleeping.
    pub caught: u64,
    pub poll_ns: u64,
}

/// The cumulative counters of one pane at one instant (rates are differences).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaneSample {
    pub pane: u64,
    pub bytes_read: u64,
    pub bytes_parsed: u64,
    pub frames_built: u64,
}

/// Cumulative counters at one instant, kept for the last minute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    pub at_ns: u64,
    pub model_busy_ns: u64,
    pub panes: Vec<PaneSample>,
}

/// The last minute of [`Sample`]s. The model thread adds one at most once a second
/// while it works and once when it goes idle (at most every 250 ms), reading counters
/// it keeps anyway, so history exists before anyone looks and costs no timer.
///
/// ```text
///  oldest ─▶ [s][s][s] ... [s] ◀─ newest      samples older than 60 s are dropped
/// ```
#[derive(Debug, Default)]
pub struct SampleRing {
    ring: Mutex<VecDeque<Sample>>,
}

impl SampleRing {
    /// How long samples are kept.
    pub const KEEP_NS: u64 = 60_000_000_000;
    /// At most this many samples (idle samples can come every 250 ms).
    pub const CAPACITY: usize = 256;
    /// Least time between samples while the model works / when it goes idle.
    pub const BUSY_EVERY_NS: u64 = 1_000_000_000;
    pub const IDLE_EVERY_NS: u64 = 250_000_000;

    pub fn push(&self, sample: Sample) {
        if let Ok(mut ring) = self.ring.lock() {
            let cutoff = sample.at_ns.saturating_sub(Self::KEEP_NS);
            while ring
                .front()
                .is_some_and(|s| s.at_ns < cutoff || ring.len() >= Self::CAPACITY)
            {
                ring.pop_front();
            }
            ring.push_back(sample);
        }
    }

    pub fn snapshot(&self) -> Vec<Sample> {
        self.ring
            .lock()
            .map(|r| r.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// A bounded ring of rare transitions (pause/resume, hide/reveal, resize, exit, errors).
#[derive(Debug)]
pub struct Breadcrumbs {
    epoch: Instant,
    ring: Mutex<VecDeque<Breadcrumb>>,
    capacity: usize,
}

impl Breadcrumbs {
    pub fn new(epoch: Instant, capacity: usize) -> Breadcrumbs {
        Breadcrumbs {
            epoch,
            ring: Mutex::new(VecDeque::with_capacity(capacity)),
            capacity,
        }
    }

    pub fn push(&self, pane: u64, what: impl Into<String>) {
        let at_ns = self.epoch.elapsed().as_nanos() as u64;
        if let Ok(mut ring) = self.ring.lock() {
            if ring.len() == self.capacity {
                ring.pop_front();
            }
            ring.push_back(Breadcrumb {
                at_ns,
                pane,
                what: what.into(),
            });
        }
    }

    pub fn snapshot(&self) -> Vec<Breadcrumb> {
        self.ring
            .lock()
            .map(|r| r.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// A report row for one pty, built on demand; the diagnostics report's row
/// (`diagnostics::PaneRow`) is this plus where the pane lives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PtyReport {
    /// The pipeline's pane number.
    pub pane: u64,
    /// Visible (frames are built) or parked.
    pub visible: bool,
    pub bytes_read: u64,
    pub bytes_parsed: u64,
    /// Read but not yet parsed: `bytes_read - bytes_parsed`.
    pub in_flight: u64,
    /// The credit window in force now (smaller while `throttled`).
    pub window_bytes: u64,
    /// A hidden pane whose share is cut while a person interacts (`throttle.rs`).
    pub throttled: bool,
    /// Slices it waited for that so far.
    pub slices_rested: u64,
    pub paused_now: bool,
    pub times_paused: u64,
    pub frames_built: u64,
    pub frames_taken: u64,
    pub snapshots_built: u64,
    pub replies_sent: u64,
    pub reply_p50_us: u64,
    pub reply_p99_us: u64,
    pub last_read_age_ms: Option<u64>,
    pub last_parse_age_ms: Option<u64>,
    pub last_frame_age_ms: Option<u64>,
    /// Reply latency buckets (see [`Histogram`]).
    pub reply_latency_buckets: Vec<u64>,
    pub scrollback_lines: u64,
    pub heap_bytes: u64,
    /// The images' part of `heap_bytes`.
    pub image_bytes: u64,
}
