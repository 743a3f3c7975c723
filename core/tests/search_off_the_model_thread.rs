//! Search everywhere does not compete with the visible pane (issue 47): the model
//! thread, which parses every echo, only copies a search's lines (as stored); the
//! matching runs on the search's own thread at the lowest priority (nice 19). Measured
//! as CPU time of each thread (`/proc/self/task/*/stat`) in one run: the model thread's
//! share of a search is compared with what parsing the same lines cost it — a ratio of
//! the same thread's work, not a time. Alone in its binary, so the one `tern-model`
//! thread is this test's.
//!
//! Catches: the matching back on the model thread (each line decoded and matched in the
//! model thread's slices, as before: 150 ticks against 522 for parsing, 0.29x, in a
//! debug build; copying: 2 ticks), the matcher not lowering its priority.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tern_core::model::TermSize;
use tern_core::pipeline::search_all::PanesQuery;
use tern_core::pipeline::spawn::SpawnSpec;
use tern_core::pipeline::{Pipeline, PipelineConfig};

const BOUND: Duration = Duration::from_secs(120);

/// (name, CPU ticks, nice) of each thread of this process.
fn threads() -> Vec<(String, u64, i64)> {
    let mut out = Vec::new();
    for t in std::fs::read_dir("/proc/self/task")
        .expect("tasks")
        .flatten()
    {
        let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
        let stat = std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
        // After the name's closing parenthesis: field 3 on; utime 14, stime 15, nice 19.
        let Some((_, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let f: Vec<&str> = rest.split(' ').collect();
        let num = |i: usize| {
            f.get(i - 3)
                .and_then(|v| v.parse::<i64>().ok())
                .unwrap_or(0)
        };
        out.push((comm.trim().to_owned(), (num(14) + num(15)) as u64, num(19)));
    }
    out
}

fn model_ticks() -> u64 {
    threads()
        .iter()
        .filter(|t| t.0 == "tern-model")
        .map(|t| t.1)
        .sum()
}

#[test]
fn the_model_thread_only_copies_a_searchs_lines() {
    let mut config = PipelineConfig::default();
    config.term.scrollback_lines = 1_000_000;
    let p = Pipeline::start(config, Arc::new(|| {})).expect("pipeline");
    let pane = p
        .spawn(&SpawnSpec::command("sh", &["-c", "exec sleep 600"]).size(TermSize::new(100, 24)))
        .expect("spawn");
    let mut text = String::new();
    for i in 0..400_000 {
        text.push_str(&format!(
            "line {i} of a build log: compiling crate-{} ok\r\n",
            i % 97
        ));
    }
    let before_parse = model_ticks();
    p.feed(pane, text.as_bytes());
    let deadline = Instant::now() + BOUND;
    while p.dump_screen(pane).is_none() {
        assert!(Instant::now() < deadline, "never parsed");
    }
    let parse = model_ticks() - before_parse;

    let before_search = model_ticks();
    let query = PanesQuery::new(r"crate-\d+ (failed|error)", true);
    let s = p.start_search_panes(&[pane], &query).expect("compiles");
    // The matcher's priority, read while it works.
    let mut matcher_nice = None;
    while !s.is_finished() {
        assert!(Instant::now() < deadline, "the search never finished");
        if matcher_nice.is_none() {
            matcher_nice = threads()
                .iter()
                .find(|t| t.0 == "tern-search-mat")
                .map(|t| t.2);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let search = model_ticks() - before_search;
    let found = s.wait_all(BOUND).expect("answered");
    assert_eq!(found[0].lines_searched, 400_001, "every line searched");
    assert!(
        s.state().lines_searched.load(Ordering::Relaxed) >= 400_000,
        "counted"
    );
    println!(
        "model thread: parse {parse} ticks, search {search} ticks ({:.2}x); matcher nice {matcher_nice:?}",
        search as f64 / parse.max(1) as f64
    );
    assert!(parse >= 20, "too little work to compare ({parse} ticks)");
    assert!(
        search * 8 <= parse,
        "the model thread spent {search} ticks on the search, {parse} on parsing its lines"
    );
    if let Some(nice) = matcher_nice {
        assert_eq!(nice, 19, "the matcher runs at the lowest priority");
    }
}
