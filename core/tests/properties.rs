//! Property tests: any bytes, any chunking, any resize.
//!
//! Seeded: CI runs a fixed seed. `PROPTEST_CASES=N` deepens a run and
//! `PROPTEST_RNG_SEED=S` picks another seed.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use tern_core::model::{MAX_OSC_BYTES, TermConfig, TermSize, Terminal};

fn config() -> Config {
    let mut c = Config::default();
    if matches!(c.rng_seed, RngSeed::Random) {
        c.rng_seed = RngSeed::Fixed(0x7e57_7e57);
    }
    c.failure_persistence = None;
    c
}

/// Fragments that steer random input into the parser's interesting states.
fn token() -> impl Strategy<Value = Vec<u8>> {
    let fixed: Vec<&'static [u8]> = vec![
        b"\x1b[",
        b"\x1b]",
        b"\x1bP",
        b"\x1b_",
        b"\x1b^",
        b"\x1bX",
        b"\x1b(0",
        b"\x1b)B",
        b"\x1b#8",
        b"\x1b7",
        b"\x1b8",
        b"\x1bc",
        b"\x1bD",
        b"\x1bM",
        b"\x1bE",
        b"\x1bH",
        b"\x07",
        b"\x1b\\",
        b"\x18",
        b"\x1a",
        b"\r\n",
        b"\t",
        b"\x08",
        b"\x0e",
        b"\x0f",
        b";",
        b":",
        b"?",
        b">",
        b"$",
        b"!",
        b" ",
        b"0",
        b"1",
        b"2",
        b"9",
        b"65535",
        b"4294967296",
        b"m",
        b"H",
        b"J",
        b"K",
        b"r",
        b"h",
        b"l",
        b"@",
        b"P",
        b"L",
        b"M",
        b"X",
        b"b",
        b"n",
        b"c",
        b"q",
        b"t",
        b"S",
        b"T",
        b"?1049h",
        b"?1049l",
        b"?47h",
        b"?6h",
        b"?7l",
        b"4h",
        b"38;2;1;2;3m",
        b"58:5:1m",
        b"8;;http://x",
        b"52;c;?",
        b"133;D;1",
        b"7;file:///tmp",
        b"4;1;?",
        b"11;?",
        "你".as_bytes(),
        "😀".as_bytes(),
        "e\u{301}".as_bytes(),
        b"\xff",
        b"\xe4\xbd",
        b"abcdefghij",
        b"\x9b",
        b"\x9d",
        b"\xc2\x9b",
        b"\x1b[38;5;200m",
        b"\x1b[1;4m",
        b"\x1b[12;40H",
        b"\x1b[;5f",
        b"\x1b[2K",
        b"\x1b[m",
        b"\x1b[99999m",
        b"\x7f",
        "日本語│→".as_bytes(),
        b"plain words and more plain words ",
    ];
    prop_oneof![
        4 => prop::sample::select(fixed).prop_map(|b| b.to_vec()),
        1 => prop::collection::vec(any::<u8>(), 1..8),
    ]
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(token(), 0..300).prop_map(|t| t.concat())
}

fn small_config() -> TermConfig {
    TermConfig {
        scrollback_lines: 200,
        scrollback_bytes: 256 * 1024,
        ..TermConfig::default()
    }
}

fn feed_chunked(term: &mut Terminal, bytes: &[u8], cuts: &[usize]) {
    let mut start = 0;
    for &cut in cuts {
        let end = (start + cut).min(bytes.len());
        term.advance(&bytes[start..end]);
        start = end;
    }
    term.advance(&bytes[start..]);
}

/// Rectangle operations, column shifts, REP, selective erases and sixel images: the
/// sequences that count area work ([`Terminal::work_cells`]), mixed into the usual
/// tokens.
fn work_input() -> impl Strategy<Value = Vec<u8>> {
    let rect: Vec<&'static [u8]> = vec![
        b"\x1b[65;1;1;9;30$x",
        b"\x1b[2;2;8;20$z",
        b"\x1b[$z",
        b"\x1b[1;1;5;5${",
        b"\x1b[1;1;9;9;1;4;7$r",
        b"\x1b[2;2;6;6;7$t",
        b"\x1b[1;1;4;10;3;5$v",
        b"\x1b[1;1;1;1;1;1*y",
        b"\x1b[3\x27}",
        b"\x1b[2\x27~",
        b"\x1b[?2J",
        b"\x1b[?1K",
        b"x\x1b[300b",
        b"\x1b#8",
        b"\x1b[2*x",
        b"\x1bPq#1;2;100;0;0!40~-#2!30N$!9?~\x1b\\",
        b"\x1bP0;1q\"1;1;24;12#3!24~-!24o\x1b\\",
    ];
    let part = prop_oneof![
        3 => token(),
        1 => prop::sample::select(rect).prop_map(|b| b.to_vec()),
    ];
    prop::collection::vec(part, 0..300).prop_map(|t| t.concat())
}

/// Feeds `bytes` with [`Terminal::advance_bounded`], allowing `budgets[i]` more cells of
/// work per call (0: stop after the first sequence), until all is consumed.
fn feed_bounded(term: &mut Terminal, bytes: &[u8], budgets: &[u64]) {
    let mut rest = bytes;
    let mut i = 0;
    while !rest.is_empty() {
        let budget = budgets.get(i % budgets.len().max(1)).copied().unwrap_or(0);
        let took = term.advance_bounded(rest, term.work_cells() + budget);
        assert!(took > 0, "advance_bounded made no progress");
        rest = &rest[took..];
        i += 1;
    }
}

proptest! {
    #![proptest_config(config())]

    /// Stopping for work and going on gives what one call gives. Catches a stop that
    /// loses or repeats bytes (the OSC guard looking past the stop, a held UTF-8 tail).
    #[test]
    fn stopping_for_work_gives_the_same_screen(
        bytes in work_input(),
        cols in 1usize..40,
        rows in 1usize..12,
        budgets in prop::collection::vec(0u64..200, 1..20),
    ) {
        let size = TermSize::new(cols, rows);
        let mut whole = Terminal::new(size, small_config());
        whole.advance(&bytes);
        let mut bounded = Terminal::new(size, small_config());
        feed_bounded(&mut bounded, &bytes, &budgets);
        prop_assert_eq!(whole.dump(), bounded.dump());
        prop_assert_eq!(whole.take_replies(), bounded.take_replies());
        prop_assert_eq!(whole.title(), bounded.title());
        prop_assert_eq!(whole.cursor(), bounded.cursor());
        prop_assert_eq!(whole.work_cells(), bounded.work_cells());
        let events = |t: &mut Terminal| t.drain_events().collect::<Vec<_>>();
        prop_assert_eq!(events(&mut whole), events(&mut bounded));
    }

    #[test]
    fn any_input_in_any_chunks_gives_the_same_screen(
        bytes in input(),
        cols in 1usize..40,
        rows in 1usize..12,
        cuts in prop::collection::vec(1usize..64, 0..40),
    ) {
        let size = TermSize::new(cols, rows);
        let mut whole = Terminal::new(size, small_config());
        whole.advance(&bytes);
        let mut chunked = Terminal::new(size, small_config());
        feed_chunked(&mut chunked, &bytes, &cuts);
        prop_assert_eq!(whole.dump(), chunked.dump());
        prop_assert_eq!(whole.take_replies(), chunked.take_replies());
        prop_assert_eq!(whole.title(), chunked.title());
    }

    #[test]
    fn the_fast_path_gives_what_vte_alone_gives(
        bytes in input(),
        cols in 1usize..40,
        rows in 1usize..12,
        cuts in prop::collection::vec(1usize..64, 0..40),
    ) {
        let size = TermSize::new(cols, rows);
        let mut vte_only = Terminal::new(size, small_config());
        vte_only.set_fast_path(false);
        vte_only.advance(&bytes);
        let mut fast = Terminal::new(size, small_config());
        feed_chunked(&mut fast, &bytes, &cuts);
        prop_assert_eq!(vte_only.dump(), fast.dump());
        let history = |t: &Terminal| t.scrollback().iter().collect::<Vec<_>>();
        prop_assert_eq!(history(&vte_only), history(&fast));
        prop_assert_eq!(vte_only.take_replies(), fast.take_replies());
        prop_assert_eq!(vte_only.title(), fast.title());
        prop_assert_eq!(vte_only.pen(), fast.pen());
        prop_assert_eq!(vte_only.modes(), fast.modes());
        prop_assert_eq!(vte_only.cursor(), fast.cursor());
        let events = |t: &mut Terminal| t.drain_events().collect::<Vec<_>>();
        prop_assert_eq!(events(&mut vte_only), events(&mut fast));
    }

    #[test]
    fn any_input_with_resizes_stays_within_caps(
        parts in prop::collection::vec((input(), 1usize..60, 1usize..20), 1..6),
    ) {
        let mut term = Terminal::new(TermSize::new(20, 5), small_config());
        for (bytes, cols, rows) in parts {
            term.advance(&bytes);
            term.resize(TermSize::new(cols, rows));
            let size = term.size();
            prop_assert_eq!(term.grid().rows(), size.rows);
            prop_assert!(term.grid().iter().all(|r| r.cells.len() == size.cols));
            let c = term.cursor();
            prop_assert!(c.row < size.rows && c.col < size.cols);
        }
        prop_assert!(term.scrollback().len() <= 200);
        prop_assert!(term.scrollback().bytes() <= 256 * 1024 + 64 * 1024);
        prop_assert!(term.title().chars().count() <= 1024);
        let _ = term.drain_events().count();
    }
}

#[test]
fn a_flood_of_every_kind_keeps_memory_flat() {
    let mut term = Terminal::new(TermSize::new(80, 24), small_config());
    let floods: Vec<Vec<u8>> = vec![
        b"line of text that scrolls\r\n".repeat(20_000),
        [
            b"\x1b]2;".as_slice(),
            &vec![b't'; 4 * MAX_OSC_BYTES],
            b"\x07",
        ]
        .concat(),
        [
            b"\x1b]8;;".as_slice(),
            &vec![b'u'; 4 * MAX_OSC_BYTES],
            b"\x07x",
        ]
        .concat(),
        (0..20_000)
            .flat_map(|i| format!("\x1b]8;;http://h/{i}\x07x\x1b]8;;\x07").into_bytes())
            .collect(),
        "e\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}"
            .repeat(5_000)
            .into_bytes(),
        b"\x1b[22t".repeat(10_000),
        b"\x1bP"
            .iter()
            .chain(vec![b'd'; 1 << 20].iter())
            .copied()
            .collect(),
    ];
    let mut after_warmup = 0;
    for (i, flood) in floods.iter().enumerate() {
        for chunk in flood.chunks(4096) {
            term.advance(chunk);
        }
        let _ = term.drain_events().count();
        let _ = term.take_replies();
        let bytes = term.heap_bytes();
        if i == 0 {
            after_warmup = bytes;
        }
        // Grid, a full scrollback and capped tables: well under 2 MB whatever came in.
        assert!(bytes < 2 * 1024 * 1024, "flood {i}: {bytes} bytes");
    }
    assert!(after_warmup > 0);
}

/// A full-screen DECFRA counts its cells, and a bounded parse stops right after the
/// first one that reaches the bound. Catches rectangle operations not counted as work.
#[test]
fn a_bounded_parse_stops_after_the_sequence_that_reaches_the_bound() {
    let mut term = Terminal::new(TermSize::new(100, 50), small_config());
    let one = b"\x1b[65;1;1;50;100$x";
    let three = one.repeat(3);
    let took = term.advance_bounded(&three, term.work_cells() + 1);
    assert_eq!(took, one.len());
    assert_eq!(term.work_cells(), 100 * 50);
    assert_eq!(
        term.advance_bounded(&three[took..], u64::MAX),
        2 * one.len()
    );
    assert_eq!(term.work_cells(), 3 * 100 * 50);
}
