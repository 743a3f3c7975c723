//! One row of the diagnostics report's delivery table: the pipeline's report of one pty
//! ([`PtyReport`]) and where its pane lives, and the flat record it is exported as.

use serde::{Deserialize, Serialize};

use crate::pipeline::diag::PtyReport;

/// One row of the delivery table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "PaneRecord", from = "PaneRecord")]
pub struct PaneRow {
    /// The pane's id (shortened to a suffix in a redacted report).
    pub id: String,
    pub worktree: String,
    pub tab: String,
    pub label: String,
    /// The pty's counters. Exported flat, beside the id and place; `pane` (meaningless
    /// outside this process), `last_parse_age_ms` and `reply_latency_buckets` (summed
    /// over all panes in `DiagnosticsReport::reply_latency_us`) stay in the process and
    /// read back as zero and empty.
    pub pty: PtyReport,
}

/// How a [`PaneRow`] is written and read: one flat record, the format reports have
/// always had (pinned by `an_exported_pane_row_keeps_its_format`). Both conversions
/// name every field of [`PtyReport`] (no `..`), so a field added there does not compile
/// until it is exported here or left out on purpose.
#[derive(Serialize, Deserialize)]
#[serde(rename = "PaneRow")]
struct PaneRecord {
    id: String,
    worktree: String,
    tab: String,
    label: String,
    visible: bool,
    bytes_read: u64,
    bytes_parsed: u64,
    in_flight: u64,
    window_bytes: u64,
    /// Added in round 4 of issue 32: older reports read as not throttled.
    #[serde(default)]
    throttled: bool,
    #[serde(default)]
    slices_rested: u64,
    paused_now: bool,
    times_paused: u64,
    frames_built: u64,
    frames_taken: u64,
    snapshots_built: u64,
    replies_sent: u64,
    reply_p50_us: u64,
    reply_p99_us: u64,
    last_read_age_ms: Option<u64>,
    last_frame_age_ms: Option<u64>,
    scrollback_lines: u64,
    heap_bytes: u64,
    /// Added with images (issue 49): older reports read as none.
    #[serde(default)]
    image_bytes: u64,
}

impl From<PaneRow> for PaneRecord {
    fn from(row: PaneRow) -> PaneRecord {
        let PaneRow {
            id,
            worktree,
            tab,
            label,
            pty,
        } = row;
        let PtyReport {
            pane: _,
            visible,
            bytes_read,
            bytes_parsed,
            in_flight,
            window_bytes,
            throttled,
            slices_rested,
            paused_now,
            times_paused,
            frames_built,
            frames_taken,
            snapshots_built,
            replies_sent,
            reply_p50_us,
            reply_p99_us,
            last_read_age_ms,
            last_parse_age_ms: _,
            last_frame_age_ms,
            reply_latency_buckets: _,
            scrollback_lines,
            heap_bytes,
            image_bytes,
        } = pty;
        PaneRecord {
            id,
            worktree,
            tab,
            label,
            visible,
            bytes_read,
            bytes_parsed,
            in_flight,
            window_bytes,
            throttled,
            slices_rested,
            paused_now,
            times_paused,
            frames_built,
            frames_taken,
            snapshots_built,
            replies_sent,
            reply_p50_us,
            reply_p99_us,
            last_read_age_ms,
            last_frame_age_ms,
            scrollback_lines,
            heap_bytes,
            image_bytes,
        }
    }
}

impl From<PaneRecord> for PaneRow {
    fn from(r: PaneRecord) -> PaneRow {
        PaneRow {
            id: r.id,
            worktree: r.worktree,
            tab: r.tab,
            label: r.label,
            pty: PtyReport {
                pane: 0,
                visible: r.visible,
                bytes_read: r.bytes_read,
                bytes_parsed: r.bytes_parsed,
                in_flight: r.in_flight,
                window_bytes: r.window_bytes,
                throttled: r.throttled,
                slices_rested: r.slices_rested,
                paused_now: r.paused_now,
                times_paused: r.times_paused,
                frames_built: r.frames_built,
                frames_taken: r.frames_taken,
                snapshots_built: r.snapshots_built,
                replies_sent: r.replies_sent,
                reply_p50_us: r.reply_p50_us,
                reply_p99_us: r.reply_p99_us,
                last_read_age_ms: r.last_read_age_ms,
                last_parse_age_ms: None,
                last_frame_age_ms: r.last_frame_age_ms,
                reply_latency_buckets: Vec::new(),
                scrollback_lines: r.scrollback_lines,
                heap_bytes: r.heap_bytes,
                image_bytes: r.image_bytes,
            },
        }
    }
}
