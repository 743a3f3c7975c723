//! `TERN_TRACE=PATH`: JSON lines with monotonic timestamps (µs since process start) for
//! startup and typing latency measured in the real window.

use std::fs::File;
use std::io::Write;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

static START: OnceLock<Instant> = OnceLock::new();
/// Whether `TERN_TRACE` is set (the wake stamp below is kept only then).
static TRACING: AtomicBool = AtomicBool::new(false);
/// When the pipeline last woke the UI (µs since process start).
static WOKEN_US: AtomicU64 = AtomicU64::new(0);

/// The pipeline's waker calls this before asking for a repaint: the key trace's "UI
/// woken" step. One clock read and a store, only while tracing.
pub fn note_wake() {
    if TRACING.load(Ordering::Relaxed) {
        WOKEN_US.store(since_start_us(Instant::now()), Ordering::Relaxed);
    }
}

/// Whether `TERN_TRACE` is set: parts without the app's [`Trace`] (a pane's input)
/// keep a note for it only then.
pub fn tracing() -> bool {
    TRACING.load(Ordering::Relaxed)
}

/// When the UI was last woken by the pipeline (µs since process start; 0: never).
pub fn woken_us() -> u64 {
    WOKEN_US.load(Ordering::Relaxed)
}

/// Call first thing in `main`.
pub fn mark_process_start() {
    let _ = START.get_or_init(Instant::now);
}

pub fn since_start_us(at: Instant) -> u64 {
    at.saturating_duration_since(*START.get_or_init(Instant::now))
        .as_micros() as u64
}

pub struct Trace {
    file: Option<File>,
    /// The startup marks below are written once per window.
    first_frame_traced: bool,
    first_output_traced: bool,
    /// When the frame being drawn started (for the key trace).
    pub frame_started: Option<Instant>,
    /// The last fields written for each event written only when they change.
    last_changed: std::collections::HashMap<&'static str, String>,
}

impl Trace {
    pub fn from_env() -> Trace {
        let file = std::env::var_os("TERN_TRACE").and_then(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .ok()
        });
        TRACING.store(file.is_some(), Ordering::Relaxed);
        let mut t = Trace {
            file,
            first_frame_traced: false,
            first_output_traced: false,
            frame_started: None,
            last_changed: std::collections::HashMap::new(),
        };
        if let Some(start) = START.get() {
            // The start on CLOCK_MONOTONIC, so a script can put its own clock
            // readings (a key sent, the pixels changed) on the trace's time line.
            let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
            let now_us = now.tv_sec as i128 * 1_000_000 + now.tv_nsec as i128 / 1_000;
            let start_us = now_us - start.elapsed().as_micros() as i128;
            t.event_at(
                "process_start",
                *start,
                &format!("\"monotonic_us\":{start_us}"),
            );
        }
        t
    }

    pub fn enabled(&self) -> bool {
        self.file.is_some()
    }

    /// Writes `{"event": .., "t_us": .., extra}`; `extra` is more JSON fields or "".
    pub fn event_at(&mut self, event: &str, at: Instant, extra: &str) {
        if let Some(f) = self.file.as_mut() {
            let sep = if extra.is_empty() { "" } else { "," };
            let _ = writeln!(
                f,
                "{{\"event\":\"{event}\",\"t_us\":{}{sep}{extra}}}",
                since_start_us(at)
            );
        }
    }

    pub fn event(&mut self, event: &str, extra: &str) {
        self.event_at(event, Instant::now(), extra);
    }

    /// [`Trace::event`], only when `extra` differs from what this event last wrote (a
    /// tooltip shown frame after frame is written once).
    pub fn event_if_changed(&mut self, event: &'static str, extra: &str) {
        if self.file.is_none() || self.last_changed.get(event).is_some_and(|l| l == extra) {
            return;
        }
        self.last_changed.insert(event, extra.to_owned());
        self.event(event, extra);
    }

    /// Traces the first frame the window presents.
    pub fn first_frame(&mut self) {
        if !std::mem::replace(&mut self.first_frame_traced, true) {
            self.event_at("first_frame", Instant::now(), "");
        }
    }

    /// Traces the first delivery that shows program output: when it was read and when
    /// the model built it.
    pub fn first_output(&mut self, read_at: Option<Instant>, built_at: Instant) {
        if std::mem::replace(&mut self.first_output_traced, true) {
            return;
        }
        if let Some(read_at) = read_at {
            self.event_at("first_output_read", read_at, "");
        }
        self.event_at("first_output_frame_built", built_at, "");
    }
}
