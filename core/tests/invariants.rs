//! Tests named after the design's invariants that had none of their own: 5 (the UI
//! never waits for the model thread) and 7 (no timer in the pipeline changes state).
//! Invariant 5's other half (an unchanged screen gets no delivery) is
//! `pipeline::pane::tests::invariant_5_an_unchanged_screen_gets_no_delivery`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tern_core::model::TermSize;
use tern_core::model::search::SearchQuery;
use tern_core::pipeline::{PaneId, Pipeline, PipelineConfig, SpawnSpec};

/// Far more than any of these calls takes when it does not wait (microseconds), far
/// less than the model thread stays busy below (seconds).
const UI_CALL_BOUND: Duration = Duration::from_millis(250);

fn parsed_behind(p: &Pipeline, pane: PaneId) -> u64 {
    p.report()
        .iter()
        .find(|r| r.pane == pane.0)
        .map_or(0, |r| r.bytes_read - r.bytes_parsed)
}

/// Invariant 5: the UI never waits for the model thread. With the model thread busy
/// parsing a 48 MiB backlog, every call the window makes on a frame returns within a
/// bound, and the backlog is still there afterwards (the model was busy throughout).
/// Broken, e.g. with the blocking `Pipeline::search` in place of `start_search` (the
/// model first parses the pane's whole backlog), the search call takes seconds.
#[test]
fn invariant_5_ui_calls_return_while_the_model_thread_is_busy() {
    let p = Pipeline::start(PipelineConfig::default(), Arc::new(|| {})).expect("pipeline");
    let size = TermSize::new(80, 24);
    let busy = p
        .spawn(&SpawnSpec::command("sh", &["-c", "exec sleep 600"]).size(size))
        .expect("spawn");
    let ui = p
        .spawn(&SpawnSpec::command("sh", &["-c", "exec cat"]).size(size))
        .expect("spawn");
    p.set_visible(ui, true);
    p.set_focus(Some(ui));
    let line = format!("{}\r\n", "busy ".repeat(15));
    let chunk = line.repeat((1 << 20) / line.len());
    for _ in 0..48 {
        p.feed(busy, chunk.as_bytes());
    }
    let query = SearchQuery {
        pattern: "needle".into(),
        regex: false,
        case_sensitive: false,
    };
    let mut slowest = (Duration::ZERO, "");
    let mut time = |what: &'static str, call: &mut dyn FnMut()| {
        let started = Instant::now();
        call();
        let took = started.elapsed();
        if took > slowest.0 {
            slowest = (took, what);
        }
    };
    let mut search = None;
    for _ in 0..20 {
        time("write", &mut || p.write(ui, b"k"));
        time("take", &mut || {
            let _ = p.take(ui);
        });
        time("poll_events", &mut || {
            let _ = p.poll_events();
        });
        time("resize", &mut || p.resize(ui, TermSize::new(81, 24)));
        time("set_visible", &mut || p.set_visible(busy, false));
        time("set_focus", &mut || p.set_focus(Some(ui)));
        time("start_search", &mut || {
            search = Some(p.start_search(busy, &query))
        });
        time("search poll", &mut || {
            let _ = search.as_ref().map(|s| (s.poll(), s.progress()));
        });
        time("report", &mut || {
            let _ = p.report();
        });
        time("breadcrumb", &mut || p.breadcrumb(Some(ui), "frame"));
    }
    assert!(
        slowest.0 < UI_CALL_BOUND,
        "{} took {:?} while the model thread was busy",
        slowest.1,
        slowest.0
    );
    assert!(
        parsed_behind(&p, busy) > 0,
        "the model thread finished its backlog: the calls were not timed against a busy model"
    );
}

/// Invariant 7: no timer in the pipeline changes state to unstick something. Every
/// timed wait in `core/src/pipeline/` is listed here with what it is for; a new one
/// fails this test until it is reviewed and listed.
#[test]
fn invariant_7_timers_in_the_pipeline_only_log_or_wait_for_an_answer() {
    // (file, the line's code, why it is not timer-driven recovery)
    let allowed: &[(&str, &str, &str)] = &[
        (
            "io.rs",
            "tokio::time::sleep(Duration::from_millis(20)).await;",
            "the reaper polls a closed child for its grace period, then ends it",
        ),
        (
            "delivery.rs",
            ".wait_timeout_while(guard, timeout, |s| s.delivery.is_none())",
            "a reveal waits at most a viewport's copy for its snapshot",
        ),
        (
            "io.rs",
            "let deadline = Instant::now() + grace;",
            "the reaper's grace period",
        ),
        (
            "io.rs",
            "tokio::time::sleep(pause).await;",
            "without a pidfd (Linux < 5.3) an exited pty's child is polled for its status",
        ),
        (
            "facts.rs",
            "b = self.arrived.wait_timeout(b, left).ok()?.0;",
            "a caller waits for the next fact",
        ),
        (
            "facts.rs",
            "pub fn recv_timeout(&self, timeout: Duration)",
            "a caller waits for the next fact",
        ),
        (
            "facts.rs",
            "let deadline = Instant::now() + timeout;",
            "a caller waits for the next fact",
        ),
        (
            "mod.rs",
            ".recv_timeout(timeout)",
            "blocking helpers for tools and tests wait for an answer",
        ),
        (
            "mod.rs",
            "rx.recv_timeout(Duration::from_secs(10)).ok()",
            "blocking helpers (dump_screen, history) wait for an answer",
        ),
    ];
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/pipeline");
    let timed = [
        "sleep(",
        "interval(",
        "timeout(",
        "sleep_until(",
        "Instant::now() +",
    ];
    let mut unlisted = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("pipeline sources") {
        let path = entry.expect("entry").path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let Some(name) = name.filter(|n| n.ends_with(".rs")) else {
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("readable");
        // Unit tests may sleep.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for line in code.lines().map(str::trim) {
            if line.starts_with("//") || !timed.iter().any(|t| line.contains(t)) {
                continue;
            }
            let listed = allowed
                .iter()
                .any(|(f, l, _)| *f == name && line.contains(l));
            if !listed {
                unlisted.push(format!("{name}: {line}"));
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "timed waits in the pipeline that are not reviewed: {unlisted:#?}"
    );
}
