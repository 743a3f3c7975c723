//! Every memory cap (docs/SECURITY.md lists them): a flood aimed at each one keeps the
//! terminal's memory flat and the terminal usable afterwards.

mod alloc_counter;
mod support;

use alloc_counter::live_bytes;

use support::TestTerm;
use tern_core::model::grid::MAX_COMBINING;
use tern_core::model::state::{
    MAX_HYPERLINKS, MAX_LINK_ID_BYTES, MAX_TITLE_CHARS, MAX_TITLE_STACK, MAX_URI_BYTES,
};
use tern_core::model::{MAX_OSC_BYTES, TermConfig, TermEvent, TermSize, Terminal};
use tern_core::pipeline::budget;

/// Feeds `stream` `times` times in 64 KiB pieces and returns the growth of the bytes
/// this thread holds on the heap.
fn heap_growth(t: &mut Terminal, stream: &[u8], times: usize) -> usize {
    let before = live_bytes();
    for _ in 0..times {
        for piece in stream.chunks(64 * 1024) {
            t.advance(piece);
            t.take_replies();
            t.drain_events().for_each(drop);
        }
    }
    (live_bytes() - before).max(0) as usize
}

fn term(cols: usize, rows: usize) -> Terminal {
    Terminal::new(TermSize::new(cols, rows), TermConfig::default())
}

#[test]
fn parameters_per_sequence_are_capped_and_values_saturate() {
    let mut t = TestTerm::new(10, 3);
    // vte keeps 32 parameters; a sequence with more is ignored whole.
    let many = "1;".repeat(10_000);
    t.feed(&format!("\x1b[{many}31mA"));
    assert_eq!(t.fg(0, 0), tern_core::model::DumpColor::Default);
    // Values saturate at 65535 instead of wrapping.
    t.feed("\x1b[99999999999999999999CB\x1b[99999999999;99999999999HC");
    t.assert_screen(&["A        B", "", "         C"]);
    // Intermediates over vte's cap leave the sequence ignored too.
    t.feed("\x1b[1$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$pX");
    assert_eq!(t.replies(), "");
}

#[test]
fn osc_strings_over_the_cap_are_dropped_whole_without_buffering() {
    let mut t = term(20, 2);
    let body = vec![b'x'; MAX_OSC_BYTES + 1];
    let mut stream = b"\x1b]0;".to_vec();
    stream.extend_from_slice(&body);
    stream.extend_from_slice(b"\x07ok");
    t.advance(&stream);
    let events: Vec<TermEvent> = t.drain_events().collect();
    assert!(!events.iter().any(|e| matches!(e, TermEvent::Title(_))));
    assert!(events.contains(&TermEvent::Dropped {
        what: "over-long OSC string"
    }));
    assert_eq!(t.dump().rows[0], "ok");
    // An unterminated OSC of 50 MB is skipped, not stored.
    let mut t = term(20, 2);
    t.advance(b"\x1b]2;");
    let growth = heap_growth(&mut t, &[b'y'; 1 << 20], 50);
    assert!(growth < 2 * MAX_OSC_BYTES, "grew {growth} bytes");
}

/// The ways a string can start: vte stays in its Escape state on a second ESC, on C0
/// controls and on bytes of 0x80 and up, so each of these opens the string.
const STRING_STARTS: [&[u8]; 10] = [
    b"\x1b]",
    b"\x1b\x1b]",
    b"\x1b\n\x1b\x1b\x7f]",
    b"\x1b\x80\xe2]",
    b"\x1bP",
    b"\x1bP$q",
    b"\x1b\x1bP+q",
    b"\x1b_",
    b"\x1b^",
    b"\x1bX",
];

#[test]
fn a_string_start_split_anywhere_across_reads_is_still_capped() {
    for start in STRING_STARTS {
        // Every split of the start into two reads, and one byte per read.
        let mut splits: Vec<Vec<&[u8]>> = (1..start.len())
            .map(|at| vec![&start[..at], &start[at..]])
            .collect();
        splits.push(start.chunks(1).collect());
        for pieces in splits {
            let mut t = term(20, 2);
            t.advance(b"\x1b]2;before\x07");
            for piece in &pieces {
                t.advance(piece);
            }
            let growth = heap_growth(&mut t, &[b'y'; 1 << 20], 8);
            assert!(growth < 2 * MAX_OSC_BYTES, "{pieces:?} grew {growth} bytes");
            t.advance(b"\x1b\\after");
            // (A C0 control inside the start may have moved the cursor down a line.)
            assert!(
                t.dump().rows.iter().any(|r| r == "after"),
                "{pieces:?}: {:?}",
                t.dump().rows
            );
            assert_eq!(t.title(), "before", "{pieces:?}");
            assert!(
                t.heap_bytes() < 4 * MAX_OSC_BYTES,
                "{pieces:?}: heap_bytes {}",
                t.heap_bytes()
            );
        }
    }
}

#[test]
fn heap_bytes_counts_the_parsers_osc_buffer() {
    let mut t = term(20, 2);
    let before = t.heap_bytes();
    let mut stream = b"\x1b]2;".to_vec();
    stream.resize(4 + MAX_OSC_BYTES / 2, b'z');
    stream.push(0x07);
    t.advance(&stream);
    assert!(t.heap_bytes() >= before + MAX_OSC_BYTES / 2);
}

#[test]
fn dcs_apc_pm_and_sos_strings_are_not_buffered() {
    for start in ["\x1bPq", "\x1bP$q", "\x1bP+q", "\x1b_", "\x1b^", "\x1bX"] {
        let mut t = term(20, 2);
        t.advance(start.as_bytes());
        let growth = heap_growth(&mut t, &[b'5'; 1 << 20], 20);
        assert!(growth < 64 * 1024, "{start:?} grew {growth} bytes");
        t.advance(b"\x1b\\after");
        assert_eq!(t.dump().rows[0], "after", "{start:?}");
    }
}

#[test]
fn titles_and_the_title_stack_are_capped() {
    let mut t = TestTerm::new(10, 2);
    t.feed(&format!("\x1b]2;{}\x07", "é".repeat(MAX_TITLE_CHARS * 4)));
    assert_eq!(t.term.title().chars().count(), MAX_TITLE_CHARS);
    t.feed(&"\x1b[22t".repeat(MAX_TITLE_STACK * 10));
    assert_eq!(t.term.title_stack_len(), MAX_TITLE_STACK);
    // Controls never reach a title (it is shown in the tab bar and window title); an
    // ESC ends the OSC.
    t.feed("\x1b]2;a\rb\x01\u{9b}c\x1b[31md\x07");
    assert_eq!(t.term.title(), "abc");
}

#[test]
fn hyperlinks_are_capped_in_count_uri_and_id_length() {
    let mut t = TestTerm::new(10, 2);
    for i in 0..MAX_HYPERLINKS + 500 {
        t.feed(&format!("\x1b]8;;https://x/{i}\x07a\x1b]8;;\x07\r"));
    }
    assert!(t.term.hyperlink_count() <= MAX_HYPERLINKS);
    // The same 200 links without ids: what long ids may add to is this, plus little.
    let mut plain = TestTerm::new(10, 2);
    for i in 0..200 {
        plain.feed(&format!("\x1b]8;;https://x/{i}\x07a\x1b]8;;\x07\r"));
    }
    let before = plain.term.heap_bytes() + 64 * 1024;
    let long_id = "i".repeat(MAX_OSC_BYTES - 100);
    let mut t = TestTerm::new(10, 2);
    for i in 0..200 {
        t.feed(&format!(
            "\x1b]8;id={long_id};https://x/{i}\x07a\x1b]8;;\x07\r"
        ));
    }
    assert!(
        t.term.heap_bytes() < before,
        "long ids are not kept: {} bytes",
        t.term.heap_bytes()
    );
    t.feed(&format!(
        "\x1b]8;id={};https://y\x07b",
        "k".repeat(MAX_LINK_ID_BYTES)
    ));
    assert_eq!(
        t.term.hyperlink_uri(t.term.hyperlink_count() as u32 - 1),
        Some("https://y")
    );
    t.feed(&format!(
        "\x1b]8;;https://x/{}\x07c\x1b]8;;\x07",
        "u".repeat(MAX_URI_BYTES)
    ));
    assert_eq!(
        t.term.grid().row(0).extra(1).and_then(|e| e.hyperlink),
        None
    );
}

/// What `ls --hyperlink` prints, 10,000 times: a new id-less link per line. Links no
/// cell refers to any more (scrolled out of a 100-line history) are reclaimed, so the
/// last line's link still opens, every link on screen and in the history still
/// resolves to its own target, and the table stays within its cap. Catches a table
/// that runs out for good (after 4,096 such links no link opened until restart).
#[test]
fn links_no_cell_uses_are_reclaimed() {
    let config = TermConfig {
        scrollback_lines: 100,
        ..TermConfig::default()
    };
    let mut t = TestTerm::with_config(20, 5, config);
    for i in 0..10_000 {
        t.feed(&format!("\x1b]8;;file:///f/{i}\x07f{i}\x1b]8;;\x07\r\n"));
    }
    assert!(t.term.hyperlink_count() <= MAX_HYPERLINKS);
    let link_of = |row: &tern_core::model::grid::Row| {
        row.extra(0)
            .and_then(|e| e.hyperlink)
            .and_then(|id| t.term.hyperlink_uri(id))
            .map(str::to_owned)
    };
    // The screen: lines 9996..9999 and the empty last row.
    let last = t.term.grid().row(3);
    assert_eq!(link_of(last).as_deref(), Some("file:///f/9999"));
    for (n, row) in t.term.scrollback().iter().enumerate() {
        let i = 10_000 - 4 - t.term.scrollback().len() + n;
        assert_eq!(
            link_of(&row),
            Some(format!("file:///f/{i}")),
            "history line {n}"
        );
    }
}

#[test]
fn combining_marks_per_cell_are_capped() {
    let mut t = term(10, 2);
    let mut stream = b"e".to_vec();
    for _ in 0..100_000 {
        stream.extend_from_slice("\u{301}".as_bytes());
    }
    t.advance(&stream);
    let extra = t.grid().row(0).extra(0).expect("marks");
    assert_eq!(extra.combining.len(), MAX_COMBINING);
}

#[test]
fn scrollback_is_capped_by_lines_and_by_bytes() {
    let config = TermConfig {
        scrollback_lines: 1000,
        scrollback_bytes: usize::MAX,
        ..TermConfig::default()
    };
    let mut t = Terminal::new(TermSize::new(40, 5), config);
    for i in 0..5000 {
        t.advance(format!("line {i}\r\n").as_bytes());
    }
    assert_eq!(t.scrollback().len(), 1000);
    let config = TermConfig {
        scrollback_lines: 1_000_000,
        scrollback_bytes: 256 * 1024,
        ..TermConfig::default()
    };
    let mut t = Terminal::new(TermSize::new(200, 5), config);
    let line = format!("{}\r\n", "\x1b[31mw\x1b[32mx".repeat(100));
    let growth = heap_growth(&mut t, line.repeat(2000).as_bytes(), 5);
    assert!(t.scrollback().bytes() <= 256 * 1024);
    assert!(t.scrollback().len() < 10_000);
    assert!(growth < 512 * 1024, "grew {growth}");
}

#[test]
fn the_total_budget_trims_the_largest_histories_first() {
    let mut terms: Vec<Terminal> = [20_000, 20_000, 300]
        .iter()
        .map(|&lines| {
            let config = TermConfig {
                scrollback_lines: 1_000_000,
                ..TermConfig::default()
            };
            let mut t = Terminal::new(TermSize::new(40, 5), config);
            for i in 0..lines {
                t.advance(format!("line {i:06}\r\n").as_bytes());
            }
            t
        })
        .collect();
    let small_before = terms[2].scrollback().len();
    let total =
        |terms: &[Terminal]| -> usize { terms.iter().map(|t| t.scrollback().bytes()).sum() };
    let budget_bytes = total(&terms) / 4;
    let freed = budget::enforce(terms.iter_mut(), budget_bytes);
    assert!(freed > 0);
    assert!(total(&terms) <= budget_bytes);
    assert_eq!(
        terms[2].scrollback().len(),
        small_before,
        "small panes keep all"
    );
    let (a, b) = (terms[0].scrollback(), terms[1].scrollback());
    assert!(a.len() < 20_000 && b.len() < 20_000);
    // The newest lines stay; absolute numbering continues.
    let newest = a.row(a.len() - 1).expect("row").text();
    assert!(newest.starts_with("line 019995"), "{newest}");
    assert_eq!(a.dropped() + a.len() as u64, 20_000 - 4);
}

#[test]
fn the_pipeline_keeps_all_panes_within_the_total_budget() {
    use std::sync::atomic::Ordering;
    use std::time::Duration;
    use tern_core::pipeline::{PaneEvent, Pipeline, PipelineConfig, SpawnSpec};
    use tern_testkit::eventually;

    let budget_bytes = 256 * 1024;
    let config = PipelineConfig {
        term: TermConfig {
            scrollback_lines: 1_000_000,
            ..TermConfig::default()
        },
        total_scrollback_bytes: budget_bytes,
        ..PipelineConfig::default()
    };
    let p = Pipeline::start(config, std::sync::Arc::new(|| {})).expect("pipeline");
    let spawn = |script: &str| {
        p.spawn(&SpawnSpec::command("sh", &["-c", script]).size(TermSize::new(80, 24)))
            .expect("spawn")
    };
    let big = [spawn("seq 1 60000"), spawn("seq 1 60000")];
    let small = spawn("seq 1 300");
    let mut exited = 0;
    eventually("the three panes' exits", Duration::from_secs(60), || {
        if let Some(PaneEvent::Exited { .. }) = p.wait_event(Duration::from_millis(100)) {
            exited += 1;
        }
        (exited == 3).then_some(()).ok_or(format!("{exited} exits"))
    });
    let lines = |pane| {
        p.stats(pane)
            .expect("stats")
            .scrollback_lines
            .load(Ordering::Relaxed)
    };
    // The model finishes its round after the last exit.
    tern_testkit::eventually(
        "the small pane keeps its history",
        Duration::from_secs(60),
        || {
            let kept = lines(small);
            if kept == 300 - 23 {
                Ok(())
            } else {
                Err(format!("{kept} lines"))
            }
        },
    );
    // Each kept line costs at least its index entry (24 bytes) and 3 encoded bytes.
    let total_lines: u64 = big.iter().map(|&b| lines(b)).sum::<u64>() + lines(small);
    assert!(
        total_lines * 27 <= budget_bytes as u64,
        "{total_lines} lines cannot fit in {budget_bytes} bytes"
    );
    for b in big {
        assert!(lines(b) > 1000, "the big panes keep their newest lines");
        // Lines are asked for by absolute line; older ones dropped off the front.
        let head = p.history(b, 0, 1).expect("history");
        assert!(head.first > 0, "the first lines were dropped");
        let end = head.dropped + head.total as u64;
        let newest = p.history(b, end - 1, 1).expect("history");
        assert_eq!(newest.rows[0].text().trim_end(), "59977");
        let oldest = p.history(b, head.dropped, 1).expect("history");
        let first: u64 = oldest.rows[0].text().trim_end().parse().expect("a number");
        assert!(first > 1, "the oldest lines went first");
    }
}

#[test]
fn scrolling_inside_left_right_margins_moves_the_band_and_drops_replaced_links() {
    // The fast path for line-feed floods with DECLRMM margins (found by the model
    // fuzzer: cell-by-cell moves made each line feed cost far more than a copy).
    let mut t = TestTerm::new(10, 3);
    t.feed("\x1b]8;;https://x\x07ABCDEFGHIJ\x1b]8;;\x07\r\n0123456789\r\nabcdefghij");
    t.feed("\x1b[?69h\x1b[3;8s\x1b[3;4H\n");
    t.assert_screen(&["AB234567IJ", "01cdefgh89", "ab      ij"]);
    let row = t.term.grid().row(0);
    for col in 0..10 {
        let linked = row.extra(col).and_then(|e| e.hyperlink).is_some();
        assert_eq!(linked, !(2..8).contains(&col), "column {col}");
    }
}

#[test]
fn a_full_reset_never_reuses_link_ids_or_absolute_lines() {
    // Found by the snapshot fuzzer: after RIS a new link got an old id, so rows the UI
    // still held (and older frames' link maps) would show the new target.
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b]8;;https://old\x07a\x1b]8;;\x07\r\n1\r\n2\r\n3");
    let old_id = t
        .term
        .scrollback()
        .row(0)
        .and_then(|r| r.extra(0)?.hyperlink);
    let dropped_before = t.term.scrollback().dropped() + t.term.scrollback().len() as u64;
    t.events();
    t.feed("\x1bc\x1b]8;;https://new\x07b\x1b]8;;\x07");
    let new_id = t.term.grid().row(0).extra(0).and_then(|e| e.hyperlink);
    assert_ne!(old_id, new_id);
    assert_eq!(
        t.term.hyperlink_uri(old_id.expect("old")),
        Some("https://old")
    );
    assert_eq!(
        t.term.hyperlink_uri(new_id.expect("new")),
        Some("https://new")
    );
    assert_eq!(t.term.scrollback().len(), 0, "RIS clears the scrollback");
    assert_eq!(
        t.term.scrollback().dropped(),
        dropped_before,
        "numbering goes on"
    );
    assert!(t.events().contains(&TermEvent::ScrollbackCleared));
}

/// A program that asks (DA1) and never reads the answers: the pty's write queue stays
/// near its high-water mark while the model stops parsing the pane (so the program
/// blocks on output), and once the program reads, every answer arrives and every byte
/// it printed is shown. While paused the model thread sleeps: counted in its rounds
/// over 20 round trips on another pane, no clock. Catches: `has_input` counting a
/// paused pane's queue as work (seen: 3343 rounds for 20 probes).
#[test]
fn a_program_that_never_reads_its_answers_is_paused_not_buffered() {
    use tern_core::pipeline::PipelineConfig;
    never_reads_its_answers(PipelineConfig::default());
    // The same with the model thread reading the pty itself all along (the flood
    // would otherwise be read ahead by another thread).
    never_reads_its_answers(PipelineConfig {
        read_ahead_after_bytes: u64::MAX,
        ..PipelineConfig::default()
    });
}

fn never_reads_its_answers(config: tern_core::pipeline::PipelineConfig) {
    use std::sync::atomic::Ordering;
    use std::time::Duration;
    use tern_core::pipeline::io::WRITE_QUEUE_HIGH_BYTES;
    use tern_core::pipeline::{Pipeline, SpawnSpec};
    use tern_testkit::eventually;

    const QUERIES: usize = 500_000;
    /// Round trips on another pane while the flooding one is paused.
    const PROBES: u64 = 20;
    let answers = QUERIES * tern_core::model::DA1_REPLY.len();
    let dir = tempfile::tempdir().expect("dir");
    let go = dir.path().join("go");
    // The reader starts when the test says so (a line in the fifo); until then nobody
    // reads the pty's input.
    let script = format!(
        "mkfifo '{go}'; stty raw -echo; \
         (read start < '{go}'; head -c {answers} >/dev/null; echo read-all) </dev/tty & \
         yes \"$(printf '\\033[c')\" | tr -d '\\n' | head -c {}; wait; echo END",
        QUERIES * 3,
        go = go.display(),
    );
    let p = Pipeline::start(config, std::sync::Arc::new(|| {})).expect("pipeline");
    let size = TermSize::new(40, 5);
    let pane = p
        .spawn(&SpawnSpec::command("sh", &["-c", &script]).size(size))
        .expect("spawn");
    let probe = p
        .spawn(&SpawnSpec::command("sh", &["-c", "exec sleep 600"]).size(size))
        .expect("spawn");
    let within = Duration::from_secs(120);
    eventually("the pane paused", within, || {
        p.poll_events();
        p.breadcrumbs()
            .iter()
            .any(|c| c.pane == pane.0 && c.what.starts_with("paused parsing"))
    });
    // Parsing stopped, but a pane read ahead is still read until its credit window is
    // full (bounded: a round a read, seen 143 reads of 4 KiB): only then is the program
    // blocked on output and the pane quiet.
    let credit = p.credit(pane).expect("credit");
    let stats = p.stats(pane).expect("stats");
    eventually("the read-ahead fills the window", within, || {
        !stats.reading_ahead.load(Ordering::Acquire) || credit.is_paused()
    });
    // Paused, the pane is neither parsed nor read: the model thread sleeps (it once
    // went round and round, the pty readable and its bytes unparsed). Its rounds over
    // a few round trips on another pane are counted: a handful each.
    let (_, rounds_before) = p.model_busy();
    let replies = p.stats(probe).expect("stats");
    for n in 1..=PROBES {
        p.feed(probe, b"\x1b[6n");
        eventually(format!("probe {n} answered"), within, || {
            replies.replies_sent.load(Ordering::Acquire) >= n
        });
    }
    let rounds = p.model_busy().1 - rounds_before;
    assert!(
        rounds <= 5 * PROBES,
        "the model thread ran {rounds} rounds for {PROBES} probes while the pane was paused"
    );
    let most_queued = p.write_queue_bytes(pane).unwrap_or(0);
    assert!(
        most_queued > WRITE_QUEUE_HIGH_BYTES / 2,
        "the flood never filled the queue ({most_queued} bytes)"
    );
    assert!(
        most_queued < WRITE_QUEUE_HIGH_BYTES + 512 * 1024,
        "{most_queued} bytes queued for a program that does not read"
    );
    std::fs::write(&go, b"go\n").expect("the reader starts");
    let rows = eventually("the reader finishes", within, || {
        let rows = p.dump_screen(pane).map(|d| d.rows).unwrap_or_default();
        p.poll_events();
        if rows.iter().any(|r| r.contains("END")) {
            Ok(rows)
        } else {
            Err(format!("{rows:?}"))
        }
    });
    assert!(rows.iter().any(|r| r.contains("read-all")), "{rows:?}");
}

#[test]
fn screen_sizes_are_clamped_to_the_limits() {
    let huge = TermSize::new(100_000, 100_000);
    let mut t = Terminal::new(huge, TermConfig::default());
    assert_eq!(
        t.size(),
        TermSize::new(TermSize::MAX_COLS, TermSize::MAX_ROWS)
    );
    t.resize(TermSize::new(70_000, 3));
    assert_eq!(t.size(), TermSize::new(TermSize::MAX_COLS, 3));
    t.advance(b"\x1b[1;65535H");
    assert_eq!(t.cursor().col, TermSize::MAX_COLS - 1);
}
