//! Checks the stream generator: determinism, weights, escaping, and that it steers clear
//! of the known differences.

use tern_tests::known;
use tern_tests::streams::{self, Construct, Item, StreamConfig, Weights, escape, unescape};

fn config(weights: Weights) -> StreamConfig {
    StreamConfig {
        weights,
        ..StreamConfig::new(40, 12)
    }
}

#[test]
fn the_same_seed_gives_the_same_stream() {
    let config = config(Weights::default());
    assert_eq!(streams::generate(7, &config), streams::generate(7, &config));
    assert_ne!(streams::generate(7, &config), streams::generate(8, &config));
}

#[test]
fn streams_have_the_configured_length() {
    let config = StreamConfig {
        min_len: 300,
        max_len: 600,
        ..config(Weights::default())
    };
    for seed in 0..50 {
        let stream = streams::generate(seed, &config);
        // The last item may overshoot the target, but not by more than one item.
        let last = stream.items.last().map_or(0, |item| item.bytes.len());
        assert!(stream.len() >= 300, "seed {seed}: {} bytes", stream.len());
        assert!(
            stream.len() <= 600 + last,
            "seed {seed}: {} bytes",
            stream.len()
        );
    }
}

#[test]
fn weights_isolate_and_switch_off_constructs() {
    let mut weights = Weights::default();
    weights.apply_spec("only=sgr+tab").unwrap();
    for seed in 0..20 {
        for item in streams::generate(seed, &config(weights.clone())).items {
            let allowed = item.construct.group() == "sgr" || item.construct == Construct::Tab;
            assert!(allowed, "seed {seed}: {:?}", item.construct);
        }
    }

    let mut weights = Weights::default();
    weights.apply_spec("text=0, wide=0").unwrap();
    assert_eq!(weights.get(Construct::Text), 0);
    assert_eq!(weights.get(Construct::Wide), 0);
    assert_eq!(weights.get(Construct::Tab), Construct::Tab.default_weight());
    for seed in 0..20 {
        let stream = streams::generate(seed, &config(weights.clone()));
        assert!(stream.items.iter().all(|item| {
            item.construct != Construct::Text && item.construct != Construct::Wide
        }));
    }

    let mut weights = Weights::default();
    weights.apply_spec("only=text,text=0").unwrap();
    assert!(streams::generate(1, &config(weights)).is_empty());

    let mut weights = Weights::default();
    assert!(weights.apply_spec("no-such-thing=1").is_err());
    assert!(weights.apply_spec("text").is_err());
    assert!(weights.apply_spec("text=lots").is_err());
}

#[test]
fn generated_streams_avoid_the_known_differences() {
    for seed in 0..100 {
        let config = StreamConfig::new(10 + (seed as usize * 7) % 90, 3 + (seed as usize) % 27);
        let stream = streams::generate(seed, &config);
        let hit = known::first_hit(&stream.items, config.cols, config.rows);
        assert!(
            hit.is_none(),
            "seed {seed} runs into {:?}",
            hit.map(|k| k.name)
        );
    }
}

fn item(construct: Construct, bytes: &[u8]) -> Item {
    Item {
        construct,
        bytes: bytes.to_vec(),
    }
}

fn first_hit_name(items: &[Item], cols: usize) -> Option<&'static str> {
    known::first_hit(items, cols, 5).map(|known| known.name)
}

/// An incomplete UTF-8 sequence at the end of an item prints U+FFFD only when the next
/// item's first byte cuts it off, so a known difference must be judged after that print
/// (seeds 633, 2471, 8267, 11302, 15921 and 17986 of the 20,000-seed run).
#[test]
fn known_differences_see_the_replacement_character_of_a_cut_off_sequence() {
    let lone_lead = item(Construct::InvalidUtf8, b"\xc3");
    // The U+FFFD moves the cursor off the first column before IL or DL homes it.
    for (lead, line_op) in [
        (&b"\xc3"[..], &b"\x1b[1L"[..]),
        (b"\xc3", b"\x1b[M"),
        (b"\xe4\xb8", b"\x1b[27M"),
        (b"\xf0\x9f\x98", b"\x1b[4M"),
    ] {
        let items = [
            item(Construct::InvalidUtf8, lead),
            item(Construct::InsertDeleteLines, line_op),
        ];
        assert_eq!(first_hit_name(&items, 20), Some("il-dl-home-column"));
    }
    // Printed in the last column, it leaves a wrap pending that RI or ECH cancel.
    let to_last_column = item(Construct::CursorMove, b"\x1b[20G");
    for cancel in [&b"\x1bM"[..], b"\x1b[44X"] {
        let items = [
            to_last_column.clone(),
            item(Construct::InvalidUtf8, b"\xf0\x9f\x98"),
            item(Construct::Index, cancel),
        ];
        assert_eq!(first_hit_name(&items, 20), Some("pending-wrap-cancelled"));
    }
    // A continuation byte completes the sequence instead: nothing to see.
    let items = [
        lone_lead.clone(),
        item(Construct::InvalidUtf8, b"\xbf"),
        item(Construct::CursorMove, b"\x1b[H"),
    ];
    assert_eq!(first_hit_name(&items, 20), None);
    // A complete sequence (or an invalid one) leaves nothing pending: printed one column
    // before the last, it leaves no wrap pending for ECH to cancel.
    for bytes in [&b"\xc3\xa9"[..], b"\xff"] {
        let items = [
            item(Construct::CursorMove, b"\x1b[19G"),
            item(Construct::InvalidUtf8, bytes),
            item(Construct::EraseChars, b"\x1b[X"),
        ];
        assert_eq!(first_hit_name(&items, 20), None, "{}", escape(bytes));
    }
    // A sequence cut off by the reset itself leaves nothing behind it.
    let items = [
        lone_lead,
        item(Construct::Reset, b"\x1bc"),
        item(Construct::InsertDeleteLines, b"\x1b[1L"),
    ];
    assert_eq!(first_hit_name(&items, 20), None);
}

/// A long REP in insert mode wraps down to rows far below the cursor; a wide character
/// there is pushed off the margin (seed 88244 of a 100,000-seed run; xterm 379 agrees
/// with tern).
#[test]
fn irm_wide_at_margin_sees_every_row_a_long_repeat_reaches() {
    let items = [
        item(Construct::CursorMove, b"\x1b[29d"),
        item(Construct::Wide, "中".as_bytes()),
        item(Construct::InsertMode, b"\x1b[4h"),
        item(Construct::CursorMove, b"\x1b[20d"),
        item(Construct::Repeat, b"i\x1b[4294967297b"),
    ];
    let hit = known::first_hit(&items, 71, 30).map(|known| known.name);
    assert_eq!(hit, Some("irm-wide-at-margin"));
    // A short one stays on the cursor's row.
    let short = [&items[..4], &[item(Construct::Repeat, b"i\x1b[3b")]].concat();
    let hit = known::first_hit(&short, 71, 30).map(|known| known.name);
    assert_eq!(hit, None);
}

#[test]
fn escaping_round_trips() {
    assert_eq!(
        escape(b"\x1b[1m\r\n\t\x08\\\x07\xff\xc3"),
        "\\e[1m\\r\\n\\t\\b\\\\\\x07\\xff\\xc3"
    );
    assert_eq!(escape("中\u{301}".as_bytes()), "中\u{301}");
    for seed in 0..20 {
        let bytes = streams::generate(seed, &config(Weights::default())).bytes();
        assert_eq!(unescape(&escape(&bytes)).unwrap(), bytes, "seed {seed}");
    }
    assert!(unescape("\\q").is_err());
    assert!(unescape("\\xZZ").is_err());
    assert!(unescape("trailing\\").is_err());
}
