use super::*;
use crate::pipeline::diag::PtyReport;

#[test]
fn home_is_replaced_only_where_a_path_component_ends() {
    let r = Redactor::with_home(Some("/home/al/"));
    assert_eq!(r.text("/home/al/src/x"), "~/src/x");
    assert_eq!(r.text("cd /home/al"), "cd ~");
    assert_eq!(r.text("/home/alice/x"), "/home/alice/x");
}

#[test]
fn short_ids_keep_a_suffix() {
    assert_eq!(short_id("7"), "7");
    assert_eq!(short_id("0f3c9a7e-1b2d-4c5e"), "…d-4c5e");
}

#[test]
fn software_adapters_are_recognised() {
    assert!(AdapterInfo::is_software(
        "llvmpipe (LLVM 15.0.6, 256 bits)",
        "Cpu"
    ));
    assert!(AdapterInfo::is_software("lavapipe", "Other"));
    assert!(!AdapterInfo::is_software(
        "NVIDIA GeForce RTX 4090",
        "DiscreteGpu"
    ));
}

/// A pane row as exported, every field set apart. The exported format is what other
/// tools and older tern versions read: it must not change when the row's Rust shape
/// does (issue 31: `PaneRow` built on `PtyReport`). Catches: a field renamed, dropped,
/// reordered or nested, and the pipeline's pane number leaking into the export.
fn sample_row() -> PaneRow {
    PaneRow {
        id: "0f3c".into(),
        worktree: "main".into(),
        tab: "build".into(),
        label: "pane 1".into(),
        pty: PtyReport {
            pane: 7,
            visible: true,
            bytes_read: 1,
            bytes_parsed: 2,
            in_flight: 3,
            window_bytes: 4,
            throttled: true,
            slices_rested: 18,
            paused_now: true,
            times_paused: 5,
            frames_built: 6,
            frames_taken: 7,
            snapshots_built: 8,
            replies_sent: 9,
            reply_p50_us: 10,
            reply_p99_us: 11,
            last_read_age_ms: Some(12),
            last_parse_age_ms: Some(15),
            last_frame_age_ms: None,
            reply_latency_buckets: vec![16, 17],
            scrollback_lines: 13,
            heap_bytes: 14,
            image_bytes: 19,
        },
    }
}

const SAMPLE_ROW_RON: &str = r#"(
    id: "0f3c",
    worktree: "main",
    tab: "build",
    label: "pane 1",
    visible: true,
    bytes_read: 1,
    bytes_parsed: 2,
    in_flight: 3,
    window_bytes: 4,
    throttled: true,
    slices_rested: 18,
    paused_now: true,
    times_paused: 5,
    frames_built: 6,
    frames_taken: 7,
    snapshots_built: 8,
    replies_sent: 9,
    reply_p50_us: 10,
    reply_p99_us: 11,
    last_read_age_ms: Some(12),
    last_frame_age_ms: None,
    scrollback_lines: 13,
    heap_bytes: 14,
    image_bytes: 19,
)"#;

#[test]
fn an_exported_pane_row_keeps_its_format() {
    let text = ron::ser::to_string_pretty(&sample_row(), ron::ser::PrettyConfig::default())
        .expect("to ron");
    assert_eq!(text, SAMPLE_ROW_RON, "\n{text}");
    let back: PaneRow = ron::from_str(SAMPLE_ROW_RON).expect("from ron");
    let mut expected = sample_row();
    // Process-local, or exported summed over all panes.
    expected.pty = PtyReport {
        pane: 0,
        last_parse_age_ms: None,
        reply_latency_buckets: Vec::new(),
        ..expected.pty
    };
    assert_eq!(back, expected);
    // A report from before the throttle (issue 32, round 4) reads as not throttled.
    let older = SAMPLE_ROW_RON
        .replace("    throttled: true,\n", "")
        .replace("    slices_rested: 18,\n", "")
        .replace("    image_bytes: 19,\n", "");
    let back: PaneRow = ron::from_str(&older).expect("an older report");
    assert!(!back.pty.throttled && back.pty.slices_rested == 0);
    assert_eq!(
        back.pty.image_bytes, 0,
        "a report from before images has none"
    );
}
