//! `TERN_TRACE=PATH`: JSON lines with monotonic timestamps (µs since process start) for
//! startup and typing latency measured in the real window.

use std::fs::File;
use std::io::Write;
use std::sync::OnceLock;
use std::time::Instant;

static START: OnceLock<Instant> = OnceLock::new();

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
        let mut t = Trace {
            file,
            first_frame_traced: false,
            first_output_traced: false,
        };
        if let Some(start) = START.get() {
            t.event_at("process_start", *start, "");
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
