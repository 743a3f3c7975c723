//! Invariant 8, bounded memory under any input, through the whole pipeline: a pty, the
//! reading threads, the credit window, the model thread and the facts sent upward. One
//! test in this binary: its allocator counts every thread's heap together, so nothing
//! else may run beside it.

use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use tern_core::model::{MAX_OSC_BYTES, TermConfig, TermSize};
use tern_core::pipeline::{Pipeline, PipelineConfig, SpawnSpec};

/// Counts the bytes live on the heap across all threads, and the highest count since
/// the last [`reset_peak`].
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator unchanged; the counters are plain atomics,
// so counting never allocates.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let live =
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed) + layout.size() as isize;
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Starts a new peak from the live count now; returns that count.
fn reset_peak() -> isize {
    let live = LIVE.load(Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    live
}

/// How long a wait for an event may take before the test fails with a message (not a
/// pass/fail threshold: the flood is parsed in well under a second).
const EVENT_BOUND: Duration = Duration::from_secs(120);

/// Bytes in flight per pty: the credit window the reader must honour.
const WINDOW_BYTES: u64 = 64 * 1024;

/// One kind of hostile output, `scale` times over (about 512 KiB a unit).
fn flood(kind: &str, scale: usize) -> Vec<u8> {
    let unit = 512 * 1024;
    match kind {
        "lines" => (0..scale * unit / 32)
            .flat_map(|i| format!("line of text that scrolls {i:>5}\r\n").into_bytes())
            .collect(),
        "one long line" => vec![b'x'; scale * unit],
        "an endless title" => [b"\x1b]2;".as_slice(), &vec![b't'; scale * unit], b"\x07"].concat(),
        "an unterminated OSC" => [b"\x1b]0;".as_slice(), &vec![b'o'; scale * unit]].concat(),
        "new links" => (0..scale * unit / 40)
            .flat_map(|i| format!("\x1b]8;;http://h/{i:>8}\x07x\x1b]8;;\x07\r\n").into_bytes())
            .collect(),
        "combining marks" => [
            b"e".as_slice(),
            &"\u{301}".repeat(scale * unit / 2).into_bytes(),
        ]
        .concat(),
        "title pushes" => b"\x1b[22t".repeat(scale * unit / 5),
        "a DCS string" => [b"\x1bP".as_slice(), &vec![b'd'; scale * unit], b"\x1b\\"].concat(),
        "CSI parameters" => [b"\x1b[".as_slice(), &b"1;".repeat(scale * unit / 2), b"m"].concat(),
        "bells and notifications" => (0..scale * unit / 32)
            .flat_map(|i| format!("\x07\x1b]9;note {i:>14}\x07").into_bytes())
            .collect(),
        _ => unreachable!("no flood {kind}"),
    }
}

const KINDS: [&str; 10] = [
    "lines",
    "one long line",
    "an endless title",
    "an unterminated OSC",
    "new links",
    "combining marks",
    "title pushes",
    "a DCS string",
    "CSI parameters",
    "bells and notifications",
];

/// The peak heap growth while a hidden pane's program prints `bytes` and the model
/// parses them all (the test drains the facts as a UI would), then closes the pane.
fn peak_growth(p: &Pipeline, dir: &std::path::Path, bytes: &[u8]) -> isize {
    let file = dir.join("flood");
    std::fs::write(&file, bytes).expect("write the flood");
    // -opost: the bytes pass the line discipline unchanged, so read = the file's size.
    let script = format!(
        "stty -opost -echo; cat '{}'; exec sleep 600",
        file.display()
    );
    let base = reset_peak();
    let pane = p
        .spawn(&SpawnSpec::command("sh", &["-c", &script]).size(TermSize::new(80, 24)))
        .expect("spawn");
    let credit = p.credit(pane).expect("credit");
    let deadline = Instant::now() + EVENT_BOUND;
    while credit.parsed_total() < bytes.len() as u64 {
        assert!(
            Instant::now() < deadline,
            "the flood was not parsed within {EVENT_BOUND:?}: {} of {}",
            credit.parsed_total(),
            bytes.len()
        );
        drop(p.poll_events());
        std::thread::sleep(Duration::from_millis(1));
    }
    drop(p.poll_events());
    let peak = PEAK.load(Ordering::Relaxed) - base;
    p.close(pane);
    drop(p.poll_events());
    peak
}

/// Invariant 8: a flood of any kind keeps memory flat. For each of ten hostile kinds of
/// output (scrolling lines, one endless line, an endless title, an OSC that never
/// ends, a new hyperlink per line, combining marks on one cell, title pushes, a DCS
/// string, thousands of CSI parameters, bells and notifications), a hidden pane's
/// program prints ~512 KiB and then ~2 MiB of it through a real pty; the peak heap of
/// the whole process (every thread: reader, model thread, facts upward) during the
/// larger flood is within 256 KiB of the smaller one's. Bytes, not time. Catches: the
/// reader not honouring the credit window (`has_room` always true: the queued chunks
/// grow with the flood), the OSC cap removed (`MAX_OSC_BYTES` unbounded: the buffered
/// string grows) and the scrollback line limit ignored (history grows with the lines).
/// How far the larger flood's peak may sit above the smaller's: twelve read buffers
/// ([`READ_CHUNK`](tern_core::pipeline::io::READ_CHUNK), 64 KiB each). The peak moves
/// by whole buffers with how many reads wait at once (the pool grows to the most ever
/// in use), and on a loaded machine four or five more were seen for either flood
/// (27 against 307 KiB, 306 against 563). What the test catches grows with the floods'
/// 1.5 MiB difference (seen: the window ignored, 369 → 2101 KiB; the OSC cap removed,
/// 2099 → 8243 KiB).
const SPREAD: isize = 12 * 64 * 1024;

#[test]
fn invariant_8_every_kind_of_flood_keeps_the_peak_heap_flat() {
    let config = PipelineConfig {
        window_bytes: WINDOW_BYTES,
        term: TermConfig {
            scrollback_lines: 500,
            scrollback_bytes: 1024 * 1024,
            ..TermConfig::default()
        },
        ..PipelineConfig::default()
    };
    let p = Pipeline::start(config, Arc::new(|| {})).expect("pipeline");
    let dir = tempfile::tempdir().expect("dir");
    // A first pane warms the pools and the model thread's tables up.
    peak_growth(&p, dir.path(), &flood("lines", 1));
    let mut grown = Vec::new();
    for kind in KINDS {
        let small = peak_growth(&p, dir.path(), &flood(kind, 1));
        let large = peak_growth(&p, dir.path(), &flood(kind, 4));
        println!(
            "{kind}: peak heap +{} KiB for ~512 KiB, +{} KiB for ~2 MiB",
            small / 1024,
            large / 1024
        );
        if large > small + SPREAD {
            grown.push(format!(
                "{kind} ({} KiB → {} KiB)",
                small / 1024,
                large / 1024
            ));
        }
    }
    assert!(
        grown.is_empty(),
        "the peak heap grew with the flood (cap {MAX_OSC_BYTES} B per OSC, window \
         {WINDOW_BYTES} B): {grown:?}"
    );
}
