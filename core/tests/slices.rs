//! The model thread's slices are bounded in time as well as in bytes: a hidden pane
//! flooding REP (`CSI 65535 b`, 65535 cells per 8 bytes) must not hold up the focused
//! pane. A measurement, not a timed assertion (run it by name, `--ignored`; it prints
//! the echo latency of the focused pane with and without the flood). Rectangle
//! operations count toward a slice by the cells they touch
//! (`a_rectangle_flood_yields_between_sequences`).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tern_core::model::TermSize;
use tern_core::pipeline::model_thread::SLICE_WORK_CELLS;
use tern_core::pipeline::{Pipeline, PipelineConfig, SpawnSpec};

/// Keystrokes per measurement (`TERN_SLICE_KEYS` overrides).
fn keys() -> usize {
    std::env::var("TERN_SLICE_KEYS")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(100)
}

/// Times from writing a key to the focused pane until the model shows its echo.
fn echo_latencies(hidden_floods: usize, keys: usize) -> Vec<Duration> {
    let p =
        Pipeline::start(PipelineConfig::default(), std::sync::Arc::new(|| {})).expect("pipeline");
    let size = TermSize::new(200, 50);
    // Each line: a character, then REP of it 65535 times, 100 times over.
    let flood = "r=$(i=0; while [ $i -lt 100 ]; do printf 'x\\033[65535b'; i=$((i+1)); done); \
                 while :; do printf '%s' \"$r\"; done";
    let floods: Vec<_> = (0..hidden_floods)
        .map(|_| {
            p.spawn(&SpawnSpec::command("sh", &["-c", flood]).size(size))
                .expect("spawn flood")
        })
        .collect();
    let echo = p
        .spawn(
            &SpawnSpec::command("sh", &["-c", "stty raw -echo; echo ready; exec cat"]).size(size),
        )
        .expect("spawn echo");
    p.set_visible(echo, true);
    p.set_focus(Some(echo));
    let count = |p: &Pipeline| {
        p.dump_screen(echo)
            .map(|d| d.rows.iter().map(|r| r.matches('k').count()).sum::<usize>())
            .unwrap_or(0)
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !p
        .dump_screen(echo)
        .is_some_and(|d| d.rows.iter().any(|r| r.contains("ready")))
    {
        assert!(Instant::now() < deadline, "the echo pane never started");
        p.poll_events();
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(500));
    let mut out = Vec::with_capacity(keys);
    for i in 0..keys {
        let started = Instant::now();
        p.write(echo, b"k");
        while count(&p) < i + 1 {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "key {i} never echoed"
            );
            p.poll_events();
        }
        out.push(started.elapsed());
        p.poll_events();
        std::thread::sleep(Duration::from_millis(5));
    }
    for f in floods {
        p.close(f);
    }
    p.close(echo);
    out
}

fn summary(mut v: Vec<Duration>) -> (f64, f64, f64) {
    v.sort();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    (at(0.5), at(0.99), at(1.0))
}

#[test]
#[ignore = "a measurement: cargo test --release -p tern-core --test slices -- --ignored --nocapture"]
fn focused_echo_latency_with_a_hidden_rep_flood() {
    let keys = keys();
    let quiet = summary(echo_latencies(0, keys));
    let flooded = summary(echo_latencies(1, keys));
    println!("echo latency of the focused pane, ms (p50 / p99 / max), {keys} keys");
    println!(
        "  no flood:          {:.2} / {:.2} / {:.2}",
        quiet.0, quiet.1, quiet.2
    );
    println!(
        "  hidden REP flood:  {:.2} / {:.2} / {:.2}",
        flooded.0, flooded.1, flooded.2
    );
    println!(
        "  ratio p50 {:.1}x, p99 {:.1}x",
        flooded.0 / quiet.0.max(1e-6),
        flooded.1 / quiet.1.max(1e-6)
    );
}

/// Waits (bounded) until `done` holds, polling the pipeline's events.
fn wait_until(p: &Pipeline, what: &str, done: impl Fn(&Pipeline) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done(p) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        p.poll_events();
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// One pane floods DECFRA over its whole 400x200 screen (80,000 cells per 20 bytes)
/// while the focused pane asks DSR: the query is answered, and no slice of the flood
/// did more than [`SLICE_WORK_CELLS`] plus one sequence's cells. Catches rectangle
/// operations not counted toward the slice (before, a 2 KB piece of them, a hundred
/// full-screen fills, ran between two looks at the other panes: 8 M cells, and a remote
/// 2000x1000 pane's made a local DSR wait 1.5 s).
#[test]
fn a_rectangle_flood_yields_between_sequences() {
    let p =
        Pipeline::start(PipelineConfig::default(), std::sync::Arc::new(|| {})).expect("pipeline");
    let (cols, rows) = (400u16, 200u16);
    let area = u64::from(cols) * u64::from(rows);
    let fills: String = (0..2000)
        .map(|i| format!("\x1b[{};1;1;{rows};{cols}$x", 65 + i % 26))
        .collect();
    let flood = p
        .spawn(
            &SpawnSpec::command(
                "sh",
                &[
                    "-c",
                    "read x; while :; do printf '%s' \"$1\"; done",
                    "sh",
                    &fills,
                ],
            )
            .size(TermSize::new(cols as usize, rows as usize)),
        )
        .expect("spawn flood");
    let asker = p
        .spawn(
            &SpawnSpec::command("sh", &["-c", "stty raw -echo; echo ready; exec cat"])
                .size(TermSize::new(80, 24)),
        )
        .expect("spawn asker");
    p.set_visible(asker, true);
    p.set_focus(Some(asker));
    wait_until(&p, "the asking pane to start", |p| {
        p.dump_screen(asker)
            .is_some_and(|d| d.rows.iter().any(|r| r.contains("ready")))
    });
    let flood_stats = p.stats(flood).expect("flood stats");
    let asker_stats = p.stats(asker).expect("asker stats");
    p.write(flood, b"go\n");
    wait_until(&p, "the flood to start", |_| {
        flood_stats.slice_work_cells_max.load(Ordering::Relaxed) > 0
    });
    // cat echoes the query; the model answers it.
    p.write(asker, b"\x1b[6n");
    wait_until(&p, "the DSR reply", |_| {
        asker_stats.replies_sent.load(Ordering::Relaxed) > 0
    });
    let most = flood_stats.slice_work_cells_max.load(Ordering::Relaxed);
    p.close(flood);
    p.close(asker);
    assert!(
        most <= SLICE_WORK_CELLS + area,
        "a slice of the rectangle flood touched {most} cells (at most {} + {area} expected)",
        SLICE_WORK_CELLS
    );
}
