//! `tern-bench search`: search everywhere over many panes' history (issue 47).
//!
//! `panes` hidden panes each hold `lines` lines of build log (fed to their models), a
//! few of them errors; one visible pane runs the echo probe. Two figures:
//!
//! - **time to the first and to the last result** of a search of every pane (the
//!   first pane's answer, and the whole search), over several searches;
//! - **key → frame ready of the visible pane**, typed at a typist's pace, with no
//!   search running and with searches running back to back (the same rig, alternating
//!   rounds), and their ratio: the search must not be in the way.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tern_core::model::{TermConfig, TermSize};
use tern_core::pipeline::PaneId;
use tern_core::pipeline::search_all::PanesQuery;

use super::stats::{quantile, summarize};
use super::suites::{Opts, probe_argv, type_keys};
use super::systems::TernRig;

/// The panes' text: build-log lines, an error every 10,000 lines (`error[E0425]`).
fn history(pane: usize, lines: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines * 64);
    for i in 0..lines {
        let line = if i % 10_000 == 5_000 {
            format!("error[E0425]: cannot find value `x{i}` in pane {pane}\r\n")
        } else {
            format!(
                "[{i:>7}] Compiling crate-{} v0.{}.{} (/src/crate) {:>4}ms\r\n",
                (i * 7 + pane) % 97,
                i % 40,
                i % 20,
                (i * 13) % 9999
            )
        };
        out.extend_from_slice(line.as_bytes());
    }
    out
}

/// p50, p90, p99 of `samples` (ms or µs as given).
fn quantiles(samples: &[f64]) -> (f64, f64, f64) {
    let mut s = samples.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    (quantile(&s, 0.5), quantile(&s, 0.9), quantile(&s, 0.99))
}

pub fn search(opts: &Opts) -> Result<Value, String> {
    let (panes, lines, searches, keys) = if opts.quick {
        (10, 20_000, 3, 60)
    } else {
        (50, 100_000, 5, 200)
    };
    // `TERN_BENCH_SEARCH_KEYS=N`: more keys for a steadier p90 on a loaded machine.
    let keys = std::env::var("TERN_BENCH_SEARCH_KEYS")
        .ok()
        .and_then(|k| k.parse::<usize>().ok())
        .filter(|&k| k > 0)
        .unwrap_or(keys);
    println!(
        "\n== search: every pane's history, {panes} panes x {lines} lines; key → frame ready of the visible pane with and without a search running"
    );
    let term = TermConfig {
        scrollback_lines: lines + 1_000,
        ..TermConfig::default()
    };
    let rig = TernRig::start(term)?;
    let size = TermSize::new(80, 24);
    let quiet: Vec<String> = ["sh", "-c", "exec sleep 3600"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let mut hidden: Vec<PaneId> = Vec::new();
    let fill = Instant::now();
    for i in 0..panes {
        let (pane, _) = rig.spawn(&quiet, size, false)?;
        rig.pipeline.feed(pane, &history(i, lines));
        hidden.push(pane);
    }
    for pane in &hidden {
        // A dump answers once the pane's bytes are parsed.
        let deadline = Instant::now() + Duration::from_secs(600);
        while rig.pipeline.dump_screen(*pane).is_none() {
            if Instant::now() > deadline {
                return Err(format!("pane {pane:?} never parsed its history"));
            }
        }
    }
    println!(
        "filled {} lines in {:.1} s",
        panes * lines,
        fill.elapsed().as_secs_f64()
    );
    let (echo, log) = rig.spawn(&probe_argv(&["echo"]), size, true)?;
    std::thread::sleep(Duration::from_millis(300));
    let mut all = hidden.clone();
    all.push(echo);
    let query = PanesQuery {
        limit: 100_000,
        ..PanesQuery::new(r"error\[E0425\]", true)
    };

    // Time to the first and the last result.
    let (mut first_ms, mut last_ms) = (Vec::new(), Vec::new());
    let mut matches = 0;
    for _ in 0..searches {
        let started = Instant::now();
        let s = rig
            .pipeline
            .start_search_panes(&all, &query)
            .map_err(|e| e.to_string())?;
        let mut first = None;
        let mut found = 0;
        let deadline = started + Duration::from_secs(600);
        loop {
            for f in s.poll() {
                first.get_or_insert_with(|| started.elapsed());
                found += f.hits.len();
            }
            if s.is_finished() {
                for f in s.poll() {
                    found += f.hits.len();
                }
                break;
            }
            if Instant::now() > deadline {
                return Err("the search did not finish".into());
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        last_ms.push(started.elapsed().as_secs_f64() * 1e3);
        first_ms.push(first.unwrap_or_default().as_secs_f64() * 1e3);
        matches = found;
    }
    let (f50, f90, f99) = quantiles(&first_ms);
    let (l50, l90, l99) = quantiles(&last_ms);
    let rate = (panes * lines) as f64 / (l50 / 1e3) / 1e6;
    println!("{:<28} {:>9} {:>9} {:>9}   (ms)", "", "p50", "p90", "p99");
    println!("{:<28} {f50:>9.1} {f90:>9.1} {f99:>9.1}", "first result");
    println!(
        "{:<28} {l50:>9.1} {l90:>9.1} {l99:>9.1}",
        "last result (whole search)"
    );
    println!("{matches} matching lines; {rate:.1} M lines/s searched");

    // Keys with and without a search running, alternating rounds on the same rig.
    let busy = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let searched = Arc::new(AtomicU64::new(0));
    let searcher = {
        let (busy, stop, searched) = (busy.clone(), stop.clone(), searched.clone());
        let (p, all, query) = (rig.pipeline.clone(), all.clone(), query.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if !busy.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                }
                // Back to back while the round lasts; dropped (cancelled) when it ends.
                let Ok(s) = p.start_search_panes(&all, &query) else {
                    return;
                };
                while busy.load(Ordering::Relaxed) && !s.is_finished() {
                    std::thread::sleep(Duration::from_millis(2));
                }
                if s.is_finished() {
                    searched.fetch_add(1, Ordering::Relaxed);
                }
            }
        })
    };
    let rounds = opts.rounds().max(2);
    // A warm-up round, not counted: the model thread encodes the history it was fed
    // while it has nothing else to do, which would weigh on the first round only.
    let base = log.max_total();
    let p = rig.pipeline.clone();
    type_keys(keys / rounds, &|k| p.write(echo, k), &log, base)?;
    let (mut without, mut with) = (Vec::new(), Vec::new());
    for round in 0..rounds * 2 {
        let searching = round % 2 == 1;
        busy.store(searching, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(50));
        let base = log.max_total();
        let p = rig.pipeline.clone();
        let s = type_keys(keys / rounds, &|k| p.write(echo, k), &log, base)?;
        if searching {
            with.extend(s.total);
        } else {
            without.extend(s.total);
        }
    }
    busy.store(false, Ordering::Relaxed);
    stop.store(true, Ordering::Relaxed);
    let _ = searcher.join();
    let (w50, w90, w99) = quantiles(&without);
    let (s50, s90, s99) = quantiles(&with);
    println!(
        "{:<28} {:>9} {:>9} {:>9}   (µs, {} keys each)",
        "key → frame ready",
        "p50",
        "p90",
        "p99",
        with.len()
    );
    println!(
        "{:<28} {w50:>9.0} {w90:>9.0} {w99:>9.0}",
        "no search running"
    );
    println!(
        "{:<28} {s50:>9.0} {s90:>9.0} {s99:>9.0}",
        "searches running"
    );
    println!(
        "{:<28} {:>8.2}x {:>8.2}x {:>8.2}x   ({} whole searches ran meanwhile)",
        "ratio (with / without)",
        s50 / w50,
        s90 / w90,
        s99 / w99,
        searched.load(Ordering::Relaxed)
    );
    println!("target: the ratio near 1 (the search is never in the way)");
    for pane in all {
        rig.pipeline.close(pane);
    }
    Ok(json!({
        "suite": "search",
        "panes": panes, "lines_per_pane": lines, "matches": matches,
        "first_result_ms": { "p50": f50, "p90": f90, "p99": f99, "all": first_ms },
        "last_result_ms": { "p50": l50, "p90": l90, "p99": l99, "all": last_ms },
        "lines_per_s_millions": rate,
        "keys_us": {
            "without_search": { "p50": w50, "p90": w90, "p99": w99, "summary": summarize(&without) },
            "with_search": { "p50": s50, "p90": s90, "p99": s99, "summary": summarize(&with) },
            "ratio_p50": s50 / w50, "ratio_p90": s90 / w90, "ratio_p99": s99 / w99,
        },
        "whole_searches_during_keys": searched.load(Ordering::Relaxed),
    }))
}
