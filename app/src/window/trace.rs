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

/// Events kept by parts that draw without the app's [`Trace`] (the sidebar's rows,
/// the status line): (event, key, fields), written with the next `frame` event when
/// their fields changed for that key. At most [`NOTES_MAX`] wait; only while tracing.
static NOTES: std::sync::Mutex<Vec<(&'static str, String, String)>> =
    std::sync::Mutex::new(Vec::new());
const NOTES_MAX: usize = 256;

/// Keeps `{"event": event, "key": key, fields}` for the trace, written when `fields`
/// differ from what this event and key last wrote (a row drawn every frame is written
/// when it changes). Nothing while not tracing.
pub fn note_if_changed(event: &'static str, key: &str, fields: impl FnOnce() -> String) {
    if !tracing() {
        return;
    }
    if let Ok(mut notes) = NOTES.lock()
        && notes.len() < NOTES_MAX
    {
        notes.push((event, key.to_owned(), fields()));
    }
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
    /// The last fields written for each event (and key) written only when they change.
    last_changed: std::collections::HashMap<(&'static str, String), String>,
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
            // One write a line: `writeln!` on a `File` writes each piece of the format
            // by itself (seven system calls for a line, ~0.3 ms in a key's frame).
            let line = format!(
                "{{\"event\":\"{event}\",\"t_us\":{}{sep}{extra}}}\n",
                since_start_us(at)
            );
            let _ = f.write_all(line.as_bytes());
        }
    }

    pub fn event(&mut self, event: &str, extra: &str) {
        self.event_at(event, Instant::now(), extra);
    }

    /// [`Trace::event`], only when `extra` differs from what this event last wrote (a
    /// tooltip shown frame after frame is written once).
    pub fn event_if_changed(&mut self, event: &'static str, extra: &str) {
        self.keyed_if_changed(event, String::new(), extra);
    }

    fn keyed_if_changed(&mut self, event: &'static str, key: String, extra: &str) {
        if self.file.is_none() {
            return;
        }
        let slot = (event, key);
        if self.last_changed.get(&slot).is_some_and(|l| l == extra) {
            return;
        }
        self.event(event, extra);
        self.last_changed.insert(slot, extra.to_owned());
    }

    /// The `frame` event (`extra`: its fields), then the events parts noted while it
    /// was drawn ([`note_if_changed`]) whose fields changed.
    pub fn frame(&mut self, extra: &str) {
        self.event("frame", extra);
        let notes = NOTES
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default();
        for (event, key, fields) in notes {
            let key_json = serde_json::Value::from(key.as_str()).to_string();
            self.keyed_if_changed(event, key, &format!("\"key\":{key_json},{fields}"));
        }
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
