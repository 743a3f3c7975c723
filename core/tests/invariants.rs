//! Tests named after the design's invariants: 1 (credit exactly once), 5 (the UI
//! never waits for the model thread), 6 (reveal is O(viewport)) and 7 (no timer
//! drives the pipeline).
//! Invariant 9 is `slices.rs`.
//! Invariant 5's other half (an unchanged screen gets no delivery) is
//! `pipeline::pane::tests::invariant_5_an_unchanged_screen_gets_no_delivery`.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tern_core::model::TermSize;
use tern_core::model::search::SearchQuery;
use tern_core::pipeline::delivery::{Delivery, Snapshot};
use tern_core::pipeline::{PaneId, Pipeline, PipelineConfig, SpawnSpec};
use tern_testkit::eventually;

/// How long a wait for an event may take before the test fails with a message (not a
/// pass/fail threshold: the event is expected in milliseconds).
const EVENT_BOUND: Duration = Duration::from_secs(60);

/// Reveals `pane` and waits for the snapshot the reveal builds (`what` names the pane
/// in the failure message).
fn reveal_snapshot(p: &Pipeline, pane: PaneId, what: String) -> Box<Snapshot> {
    p.set_visible(pane, true);
    eventually(
        format!("a snapshot on reveal of {what}"),
        EVENT_BOUND,
        || match p.take(pane) {
            Some(Delivery::Snapshot(s)) => Some(s),
            _ => None,
        },
    )
}

/// The bytes the model's parser has consumed for `pane`: the seq of the snapshot a
/// reveal builds (the parser's own count, apart from the credit books).
fn parser_seq(p: &Pipeline, pane: PaneId) -> u64 {
    let seq = reveal_snapshot(p, pane, format!("pane {pane:?}")).seq;
    p.set_visible(pane, false);
    seq
}

/// Invariant 1: at every quiescent point, for every pane, the bytes its program
/// wrote == bytes read == bytes credited as parsed == the parser's seq. Four hidden
/// panes write phases of known sizes (one byte, 300 KB through a 4 KiB window, 3 MB
/// that the read-ahead thread takes over), each phase ending quiescent (the program
/// waits for a line of input), so the credit path is crossed thousands of times.
/// Catches: crediting with `fetch_add` instead of `fetch_max` in `Credit::on_parsed`
/// (seen: credited 1081121 for 300001 written) and a read counted twice in
/// `PtyInput::read` (seen: read 2 for 1 written).
#[test]
fn invariant_1_read_equals_parsed_equals_credited_at_every_quiescent_point() {
    const PHASES: [u64; 3] = [1, 300_000, 3_000_000];
    let config = PipelineConfig {
        window_bytes: 4096,
        ..PipelineConfig::default()
    };
    let p = Pipeline::start(config, Arc::new(|| {})).expect("pipeline");
    // -opost: the bytes pass through the line discipline unchanged (no CR before LF).
    let script = format!(
        "stty -opost -echo; for n in {}; do yes 'credit me exactly once' | head -c $n; \
         read go; done; exec sleep 600",
        PHASES.map(|n| n.to_string()).join(" ")
    );
    let panes: Vec<PaneId> = (0..4)
        .map(|_| {
            p.spawn(&SpawnSpec::command("sh", &["-c", &script]).size(TermSize::new(80, 24)))
                .expect("spawn")
        })
        .collect();
    let mut written = 0u64;
    for (phase, n) in PHASES.iter().enumerate() {
        written += n;
        for &pane in &panes {
            let credit = p.credit(pane).expect("credit");
            let books = || {
                format!(
                    "phase {phase}, pane {pane:?}: written {written}, read {}, credited {}",
                    credit.read_total(),
                    credit.parsed_total()
                )
            };
            eventually("the phase's bytes read and credited", EVENT_BOUND, || {
                let done = credit.read_total() >= written && credit.parsed_total() >= written;
                if done { Ok(()) } else { Err(books()) }
            });
            assert_eq!(credit.read_total(), written, "read != written: {}", books());
            assert_eq!(
                credit.parsed_total(),
                written,
                "credited != written: {}",
                books()
            );
            assert_eq!(
                parser_seq(&p, pane),
                written,
                "the parser's seq != credited: {}",
                books()
            );
            // Quiescent: nothing more arrived while the seq was taken.
            assert_eq!(credit.read_total(), written, "{}", books());
            assert_eq!(credit.parsed_total(), written, "{}", books());
        }
        for &pane in &panes {
            p.write(pane, b"\n");
        }
    }
    let read_ahead: u64 = panes
        .iter()
        .map(|&pane| {
            p.stats(pane)
                .expect("stats")
                .read_ahead_spells
                .load(Ordering::Relaxed)
        })
        .sum();
    println!("read-ahead spells over the four panes: {read_ahead}");
    for pane in panes {
        p.close(pane);
    }
}

fn parsed_behind(p: &Pipeline, pane: PaneId) -> u64 {
    p.report()
        .iter()
        .find(|r| r.pane == pane.0)
        .map_or(0, |r| r.bytes_read - r.bytes_parsed)
}

/// Invariant 5: the UI never waits for the model thread. With the model thread busy
/// parsing a 48 MiB backlog, every call the window makes on a frame returns while
/// that backlog is still unparsed (a count after each call, no clock): a call that
/// waited for the model to get through its work would find it done.
/// Catches: the blocking `Pipeline::search` in place of `start_search` (the model
/// first parses the pane's whole backlog; seen: "start_search returned after the
/// model thread finished its backlog"); a dump that waits (`dump_screen`'s
/// `recv_timeout` in `request_dump`: the model parses the pane's backlog before it
/// dumps; seen: "request_dump returned after…"). History pages are asked for the same
/// way (`request_history`), but a page needs no parse first, so a waiting one would
/// return early here too: the window's use of them is `viewport.rs`'s.
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
    let still_busy = |what: &str| {
        assert!(
            parsed_behind(&p, busy) > 0,
            "{what} returned after the model thread finished its backlog: it waited for the model"
        );
    };
    for _ in 0..20 {
        p.write(ui, b"k");
        still_busy("write");
        let _ = p.take(ui);
        still_busy("take");
        let _ = p.poll_events();
        still_busy("poll_events");
        p.resize(ui, TermSize::new(81, 24));
        still_busy("resize");
        p.set_visible(busy, false);
        still_busy("set_visible");
        p.set_focus(Some(ui));
        still_busy("set_focus");
        let search = p.start_search(busy, &query);
        still_busy("start_search");
        let _ = (search.poll(), search.progress());
        still_busy("search poll");
        let _ = p.report();
        still_busy("report");
        p.breadcrumb(Some(ui), "frame");
        still_busy("breadcrumb");
        // History pages for the view and the last screens for a session save: asked
        // for, never waited for (their answers wake the window).
        let page = p.request_history(busy, 0, 48);
        still_busy("request_history");
        let _ = page.poll();
        still_busy("history poll");
        let dump = p.request_dump(busy);
        still_busy("request_dump");
        let _ = dump.poll();
        still_busy("dump poll");
    }
}

/// The rows a reveal's snapshot carries (viewport, history) for a pane fed `lines`
/// lines of history.
fn snapshot_rows_after(lines: usize) -> (usize, usize, u64) {
    let p = Pipeline::start(PipelineConfig::default(), Arc::new(|| {})).expect("pipeline");
    let pane = p
        .spawn(&SpawnSpec::command("sh", &["-c", "exec sleep 600"]).size(TermSize::new(80, 24)))
        .expect("spawn");
    let history: String = (0..lines)
        .map(|i| format!("history line {i}\r\n"))
        .collect();
    p.feed(pane, history.as_bytes());
    let credit = p.credit(pane).expect("credit");
    eventually("the history parsed", EVENT_BOUND, || {
        let parsed = credit.parsed_total();
        if parsed == history.len() as u64 {
            Ok(())
        } else {
            Err(format!("{parsed} of {}", history.len()))
        }
    });
    let s = reveal_snapshot(&p, pane, format!("{lines} lines"));
    // The history the snapshot leaves out is still there, paged on demand.
    let oldest = p
        .history(pane, s.meta.scrollback_dropped, 1)
        .expect("a page");
    assert_eq!(
        oldest.rows.first().map(|r| r.text().trim_end().to_owned()),
        Some(format!("history line {}", s.meta.scrollback_dropped)),
        "the oldest line held is paged on demand"
    );
    p.close(pane);
    (s.rows.len(), s.history.len(), s.meta.scrollback_lines)
}

/// Invariant 6: reveal is O(viewport). The snapshot a reveal builds carries the same
/// number of rows (viewport and a bounded history window) after 1,000 lines of
/// history as after 50,000, through the real model thread; the rest is paged on
/// demand. Rows, not time. Catches: `delivery::snapshot` copying the whole
/// scrollback (`from = 0`; seen: 977 history rows, then 10000 with the default scrollback).
#[test]
fn invariant_6_a_reveal_snapshot_does_not_grow_with_history() {
    let (rows_short, history_short, held_short) = snapshot_rows_after(1_000);
    let (rows_long, history_long, held_long) = snapshot_rows_after(50_000);
    assert!(
        held_long > held_short,
        "the long history is held: {held_long}"
    );
    assert_eq!(rows_short, 24, "the viewport");
    assert_eq!(rows_long, 24, "the viewport");
    assert_eq!(
        history_short, history_long,
        "the snapshot's history grew with the pane's history ({history_short} rows after \
         1,000 lines, {history_long} after 50,000)"
    );
}

/// Invariant 7, the review list: every timed wait in `core/src/pipeline/` is listed
/// here with what it is for; a new one fails this test until it is reviewed and
/// listed. A text search (a busy-wait passes it); the behaviour is guarded by
/// `invariant_7_the_model_thread_runs_a_round_only_for_data`.
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
            "adopt.rs",
            "None => std::thread::sleep(std::time::Duration::from_millis(100)),",
            "without a pidfd (Linux < 5.3) an adopted program (not tern's child) is polled for its end",
        ),
        (
            "adopt.rs",
            "std::thread::sleep(Duration::from_millis(10));",
            "an adopted program that ended is waited for (1 s at most) until its new parent reaps it and the kernel keeps its status",
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
            "pane_api.rs",
            "self.events.recv_timeout(timeout)",
            "blocking helpers for tools and tests wait for the next event",
        ),
        (
            "requests.rs",
            ".recv_timeout(timeout)",
            "blocking helpers for tools and tests wait for an answer",
        ),
        (
            "requests.rs",
            "rx.recv_timeout(Duration::from_secs(10)).ok()",
            "blocking helpers (dump_screen, history) wait for an answer",
        ),
        (
            "search_all.rs",
            "let deadline = Instant::now() + timeout;",
            "`PanesSearch::wait_all` (tools, tests, `tern msg search` off the face's thread) waits for the panes' answers",
        ),
        (
            "search_all.rs",
            "match self.rx.recv_timeout(left) {",
            "`PanesSearch::wait_all` waits for the next pane's answer until its deadline",
        ),
        (
            "throttle.rs",
            "std::thread::sleep(",
            "`SearchPace`: a search thread (never the model thread) rests for its share while a person types; the rest follows the work done, as hidden floods' does, and changes no counter or state",
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

/// Invariant 7 by behaviour: every hop wakes on data, and nothing wakes without it.
/// A program asks 100 cursor reports one after another, each once the last was
/// answered and after 10 ms of quiet (its own `read -t`: no data for the model). The
/// model thread's rounds over that run are counted and must stay within a few per
/// query: a thread woken by a timer (a batching window, a periodic look for work)
/// adds rounds with the run's length (a second of quiet here), not with its data.
/// Catches: the model thread's `epoll_wait` given a 1 ms timeout in `Poller::wait`
/// (seen: 982 rounds for 100 queries; 104 without it).
#[test]
fn invariant_7_the_model_thread_runs_a_round_only_for_data() {
    const QUERIES: u64 = 100;
    let p = Pipeline::start(PipelineConfig::default(), Arc::new(|| {})).expect("pipeline");
    let idle = p
        .spawn(&SpawnSpec::command("sh", &["-c", "exec sleep 600"]).size(TermSize::new(80, 24)))
        .expect("spawn");
    let script = format!(
        "stty raw -echo; for i in $(seq {QUERIES}); do IFS= read -r -t 0.01 -d X quiet; \
         printf '\\033[6n'; IFS= read -r -d R answer; done; stty sane"
    );
    let (_, before) = p.model_busy();
    let asker = p
        .spawn(&SpawnSpec::command("bash", &["-c", &script]).size(TermSize::new(80, 24)))
        .expect("spawn");
    eventually("the asking program exits", EVENT_BOUND, || {
        matches!(
            p.wait_event(Duration::from_millis(100)),
            Some(tern_core::pipeline::PaneEvent::Exited { pane, .. }) if pane == asker
        )
    });
    let (_, after) = p.model_busy();
    let replies = p
        .stats(asker)
        .expect("stats")
        .replies_sent
        .load(Ordering::Relaxed);
    assert_eq!(replies, QUERIES, "every query answered");
    let rounds = after - before;
    println!("{rounds} model rounds for {QUERIES} queries");
    assert!(
        rounds <= 3 * QUERIES + 20,
        "{rounds} model rounds for {QUERIES} queries: the thread wakes without data"
    );
    p.close(idle);
}

/// Invariant 2: a hidden pane receives nothing and loses nothing. A pane that is never
/// shown prints a title, a cwd, a bell, a notification and a finished command's mark,
/// 20,000 lines, then asks for the cursor position and records the answer. With the
/// pane still hidden: every fact arrived, the program got the answer an always-visible
/// terminal gives (row 24 after the flood), the model parsed every byte read, and not
/// one frame or snapshot was built. Revealed: the screen holds the last lines and the
/// snapshot covers every byte read. Catches: facts sent only for visible panes (no
/// title, no bell …), deliveries built while hidden (`PaneCore::next_delivery` not
/// looking at visibility: frames built) and replies held back while hidden (the
/// program never gets its answer).
#[test]
fn invariant_2_a_hidden_pane_gets_no_frames_and_loses_no_byte_fact_or_reply() {
    use tern_core::model::{ShellMark, TermEvent};
    use tern_core::pipeline::PaneEvent;
    let dir = tempfile::tempdir().expect("dir");
    let answer = dir.path().join("answer");
    let script = format!(
        "stty -echo -icanon; \
         printf '\\033]2;hidden title\\007\\033]7;file://localhost/tmp/hidden\\007\\007'; \
         printf '\\033]9;hidden news\\007\\033]133;D;3\\007'; seq 1 20000; \
         printf '\\033[6n'; dd bs=1 count=7 of='{}' 2>/dev/null; printf 'end'; exec sleep 600",
        answer.display()
    );
    let p = Pipeline::start(PipelineConfig::default(), Arc::new(|| {})).expect("pipeline");
    let pane = p
        .spawn(&SpawnSpec::command("sh", &["-c", &script]).size(TermSize::new(80, 24)))
        .expect("spawn");
    let credit = p.credit(pane).expect("credit");
    let mut facts = Vec::new();
    eventually(
        "the program's answer and its last output",
        EVENT_BOUND,
        || {
            facts.extend(p.poll_events().into_iter().filter_map(|e| match e {
                PaneEvent::Fact { pane: from, event } if from == pane => Some(event),
                _ => None,
            }));
            let done = std::fs::metadata(&answer).is_ok_and(|m| m.len() == 7)
                && p.dump_screen(pane)
                    .is_some_and(|d| d.rows.iter().any(|r| r.trim_end() == "end"))
                && credit.parsed_total() == credit.read_total();
            if done {
                return Ok(());
            }
            Err(format!(
                "answer {:?}, read {} parsed {}",
                std::fs::read(&answer),
                credit.read_total(),
                credit.parsed_total()
            ))
        },
    );
    facts.extend(p.poll_events().into_iter().filter_map(|e| match e {
        PaneEvent::Fact { pane: from, event } if from == pane => Some(event),
        _ => None,
    }));
    let has = |want: &dyn Fn(&TermEvent) -> bool, what: &str| {
        assert!(
            facts.iter().any(want),
            "no {what} from the hidden pane: {facts:?}"
        );
    };
    has(&|e| *e == TermEvent::Title("hidden title".into()), "title");
    has(
        &|e| matches!(e, TermEvent::Cwd(c) if c.ends_with("/tmp/hidden")),
        "cwd",
    );
    has(&|e| *e == TermEvent::Bell, "bell");
    has(
        &|e| matches!(e, TermEvent::Notification(n) if n.body == "hidden news"),
        "notification",
    );
    has(
        &|e| {
            matches!(
                e,
                TermEvent::Shell {
                    mark: ShellMark::CommandFinished { exit_code: Some(3) },
                    ..
                }
            )
        },
        "finished command",
    );
    assert_eq!(
        std::fs::read(&answer).expect("the answer"),
        b"\x1b[24;1R",
        "the hidden pane's query is answered from its own state"
    );
    let stats = p.stats(pane).expect("stats");
    assert_eq!(
        stats.frames_built.load(Ordering::Relaxed),
        0,
        "no frames while hidden"
    );
    assert_eq!(
        stats.snapshots_built.load(Ordering::Relaxed),
        0,
        "no snapshots while hidden"
    );
    assert!(p.take(pane).is_none(), "nothing to take while hidden");
    // Revealed: one snapshot of everything read.
    let s = reveal_snapshot(&p, pane, format!("pane {pane:?}"));
    assert_eq!(
        s.seq,
        credit.read_total(),
        "the snapshot covers every byte read"
    );
    let rows: Vec<String> = s
        .rows
        .iter()
        .map(|r| r.text().trim_end().to_owned())
        .collect();
    let last = rows.iter().rposition(|r| !r.is_empty()).expect("text");
    assert_eq!(rows[last - 2..=last], ["19999", "20000", "end"], "{rows:?}");
    p.close(pane);
}
