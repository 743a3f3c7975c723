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
        let counts: Vec<u64> = self
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
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

    pub fn buckets(&self) -> Vec<u64> {
        self.buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect()
    }
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
    pub heap_bytes: AtomicU64,
    pub scrollback_lines: AtomicU64,
}

/// One rare transition, for the breadcrumb ring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breadcrumb {
    pub at_ns: u64,
    pub pane: u64,
    pub what: String,
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

/// A report row for one pty, built on demand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtyReport {
    pub pane: u64,
    pub visible: bool,
    pub bytes_read: u64,
    pub bytes_parsed: u64,
    pub in_flight: u64,
    pub window: u64,
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
    pub heap_bytes: u64,
    pub scrollback_lines: u64,
}
