//! What the pipeline tells about itself (diagnostics, `tern --diagnose`, the benchmarks):
//! per-pane credits and counters, breadcrumbs, the model thread's busy time and reply
//! polls, the last minute of samples, and the report of every pty.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::credit::Credit;
use super::diag::{self, APP_CRUMB, PtyReport, PtyStats, Sample};
use super::{PaneId, Pipeline};

impl Pipeline {
    pub fn credit(&self, pane: PaneId) -> Option<Arc<Credit>> {
        self.with_pane(pane, |p| p.credit.clone())
    }

    pub fn stats(&self, pane: PaneId) -> Option<Arc<PtyStats>> {
        self.with_pane(pane, |p| p.stats.clone())
    }

    pub fn breadcrumbs(&self) -> Vec<diag::Breadcrumb> {
        self.crumbs.snapshot()
    }

    /// Adds the app's own rare transition (config reload, an error) to the breadcrumb
    /// ring, for a pane or (`None`) for the app.
    pub fn breadcrumb(&self, pane: Option<PaneId>, what: impl Into<String>) {
        self.crumbs.push(pane.map_or(APP_CRUMB, |p| p.0), what);
    }

    /// The model thread's busy time (ns) and rounds, cumulative.
    pub fn model_busy(&self) -> (u64, u64) {
        let s = &self.model_diag.stats;
        (
            s.busy_ns.load(Ordering::Relaxed),
            s.rounds.load(Ordering::Relaxed),
        )
    }

    /// The model thread's polls after replies ([`reply_poll`](super::reply_poll)), cumulative.
    pub fn model_reply_polls(&self) -> diag::ReplyPolls {
        self.model_diag.stats.reply_polls()
    }

    /// The last minute of counter samples, oldest first.
    pub fn samples(&self) -> Vec<Sample> {
        self.model_diag.samples.snapshot()
    }

    /// Time since the pipeline started (the clock of breadcrumbs and samples).
    pub fn uptime(&self) -> Duration {
        self.epoch.elapsed()
    }

    /// The delivery table, built now from the counters.
    pub fn report(&self) -> Vec<PtyReport> {
        let now_ns = self.epoch.elapsed().as_nanos() as u64;
        let age = |ns: u64| {
            if ns == 0 {
                None
            } else {
                Some(now_ns.saturating_sub(ns) / 1_000_000)
            }
        };
        let Ok(panes) = self.panes.lock() else {
            return Vec::new();
        };
        let mut rows: Vec<PtyReport> = panes
            .iter()
            .map(|(id, p)| {
                let s = &p.stats;
                // Parsed first: read can only have grown since, so the row holds
                // read = parsed + in flight exactly.
                let bytes_parsed = p.credit.parsed_total();
                let bytes_read = p.credit.read_total();
                PtyReport {
                    pane: id.0,
                    visible: p.visible,
                    bytes_read,
                    bytes_parsed,
                    in_flight: bytes_read.saturating_sub(bytes_parsed),
                    window_bytes: p.credit.window_bytes(),
                    throttled: p.credit.is_limited(),
                    slices_rested: s.slices_rested.load(Ordering::Relaxed),
                    paused_now: p.credit.is_paused(),
                    times_paused: p.credit.times_paused(),
                    frames_built: s.frames_built.load(Ordering::Relaxed),
                    frames_taken: s.frames_taken.load(Ordering::Relaxed),
                    snapshots_built: s.snapshots_built.load(Ordering::Relaxed),
                    replies_sent: s.replies_sent.load(Ordering::Relaxed),
                    reply_p50_us: s.reply_latency.quantile_us(0.5),
                    reply_p99_us: s.reply_latency.quantile_us(0.99),
                    last_read_age_ms: age(s.last_read_ns.load(Ordering::Relaxed)),
                    last_parse_age_ms: age(s.last_parse_ns.load(Ordering::Relaxed)),
                    last_frame_age_ms: age(s.last_frame_ns.load(Ordering::Relaxed)),
                    reply_latency_buckets: s.reply_latency.buckets(),
                    heap_bytes: s.heap_bytes.load(Ordering::Relaxed),
                    image_bytes: s.image_bytes.load(Ordering::Relaxed),
                    scrollback_lines: s.scrollback_lines.load(Ordering::Relaxed),
                }
            })
            .collect();
        rows.sort_by_key(|r| r.pane);
        rows
    }
}
