//! The checks behind the fuzz targets in `fuzz/`, shared with `fuzz_regressions.rs` so
//! that `cargo test` replays the kept corpus without cargo-fuzz. Each function takes the
//! fuzzer's raw bytes and panics when an invariant breaks.
//!
//! Input formats are plain bytes (so seeds can be real escape sequences):
//! - `model`: 4 header bytes (cols, rows, scrollback lines, chunk size), then the byte
//!   stream, in which `FF FE c r` resizes to `c x r` and `FF FD n b` feeds byte `b`
//!   `n * 1024` times (to reach the caps cheaply).
//! - `snapshot`: like `model`; additionally `FF FC` takes a snapshot (reveal) and
//!   `FF FB` builds and applies a frame, and the remainder after `FF FA` is decoded as a
//!   scrollback line.
//! - `config`: UTF-8 text (lossy), parsed as a config file, then line by line as key
//!   chords.
//! - `input`: a key/mouse event header, then paste text.

#![allow(dead_code)]

#[path = "../alloc_counter/mod.rs"]
mod alloc_counter;

use alloc_counter::live_bytes;

use tern_core::config::{Config, KeyBinding, KeyChord};
use tern_core::input::{
    Key, KeyModes, Mods, MouseButton, MouseEvent, MouseEventKind, encode_key, encode_mouse,
    encode_paste, sanitize_paste,
};
use tern_core::model::scrollback::{Scrollback, decode_line};
use tern_core::model::state::{MAX_HYPERLINKS, MAX_TITLE_CHARS, MAX_TITLE_STACK};
use tern_core::model::{
    MouseEncoding, MouseTracking, Row, TermConfig, TermEvent, TermSize, Terminal,
};
use tern_core::pipeline::delivery::{PaneView, frame, snapshot};

/// Most bytes the repeat op feeds in one input.
const MAX_REPEAT_BYTES: usize = 256 * 1024;

/// Scrollback byte cap used by the model target (small, so floods reach it).
const FUZZ_SCROLLBACK_BYTES: usize = 256 * 1024;

/// One step of a model input.
enum Step<'a> {
    Feed(&'a [u8]),
    Resize(TermSize),
    Repeat(u8, usize),
    Snapshot,
    Frame,
    Decode(&'a [u8]),
}

/// Splits the body into steps at the `FF xx` markers.
fn steps(body: &[u8], chunk: usize) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    let mut rest = body;
    loop {
        let marker = (0..rest.len().saturating_sub(1))
            .find(|&i| rest[i] == 0xff && (0xfa..=0xfe).contains(&rest[i + 1]));
        let end = marker.unwrap_or(rest.len());
        for piece in rest[..end].chunks(chunk.max(1)) {
            out.push(Step::Feed(piece));
        }
        let Some(i) = marker else { break };
        let arg = |k: usize| rest.get(i + 2 + k).copied().unwrap_or(0);
        let (step, used) = match rest[i + 1] {
            0xfe => (
                Step::Resize(TermSize::new(arg(0) as usize, arg(1) as usize)),
                4,
            ),
            0xfd => (Step::Repeat(arg(1), (arg(0) as usize % 64) * 1024), 4),
            0xfc => (Step::Snapshot, 2),
            0xfb => (Step::Frame, 2),
            _ => {
                out.push(Step::Decode(&rest[i + 2..]));
                break;
            }
        };
        out.push(step);
        rest = &rest[(i + used).min(rest.len())..];
    }
    out
}

struct Header {
    size: TermSize,
    config: TermConfig,
    chunk: usize,
}

fn header(data: &[u8]) -> Option<(Header, &[u8])> {
    let (h, body) = data.split_first_chunk::<4>()?;
    Some((
        Header {
            size: TermSize::new(h[0] as usize % 200, h[1] as usize % 80),
            config: TermConfig {
                scrollback_lines: h[2] as usize * 8,
                scrollback_bytes: FUZZ_SCROLLBACK_BYTES,
                ..TermConfig::default()
            },
            chunk: (h[3] as usize).max(1),
        },
        body,
    ))
}

/// The memory caps every terminal keeps, whatever it was fed.
pub fn assert_caps(term: &Terminal, config: &TermConfig) {
    let sb = term.scrollback();
    assert!(
        sb.len() <= config.scrollback_lines,
        "scrollback {} lines over the cap {}",
        sb.len(),
        config.scrollback_lines
    );
    assert!(
        sb.bytes() <= config.scrollback_bytes || sb.len() <= 1,
        "scrollback {} bytes over the cap {}",
        sb.bytes(),
        config.scrollback_bytes
    );
    assert!(
        term.title().chars().count() <= MAX_TITLE_CHARS,
        "title over cap"
    );
    assert!(
        term.title_stack_len() <= MAX_TITLE_STACK,
        "title stack over cap"
    );
    assert!(
        term.hyperlink_count() <= MAX_HYPERLINKS,
        "hyperlinks over cap"
    );
    let TermSize { cols, rows } = term.size();
    assert!((1..=1000).contains(&cols) && (1..=1000).contains(&rows));
    let cursor = term.cursor();
    assert!(cursor.row < rows && cursor.col < cols, "cursor off screen");
    // Two screens of cells with a full side table (8 combining marks each), the
    // scrollback's bytes plus its last partly filled block, every link at full length.
    let cells = cols * rows;
    let bound = 2 * cells * (16 + 8 * 4 + 64)
        + 2 * (config.scrollback_bytes + 128 * 1024)
        + MAX_HYPERLINKS * (2048 + 256 + 64)
        + 1024 * 1024;
    assert!(
        term.heap_bytes() <= bound,
        "heap {} over bound {bound}",
        term.heap_bytes()
    );
}

/// Replies must stay proportional to the queries that asked for them. Returns the
/// events, written out (so that keeping them does not hold the model's allocations).
fn assert_replies(term: &mut Terminal, fed: usize) -> String {
    let replies = term.take_replies();
    assert!(
        replies.len() <= 4096 + 64 * fed,
        "{} reply bytes for {fed} input bytes",
        replies.len()
    );
    let events: Vec<TermEvent> = term.drain_events().collect();
    assert!(
        events.len() <= 64 + fed,
        "{} events for {fed} bytes",
        events.len()
    );
    for e in &events {
        if let TermEvent::Title(t) = e {
            assert!(t.chars().count() <= MAX_TITLE_CHARS);
        }
    }
    events.iter().map(|e| format!("{e:?}\n")).collect()
}

/// Heap bytes a terminal may hold beyond what `Terminal::heap_bytes` accounts for: its
/// small tables and buffers (events, the printable run, tab stops, palette, DCS body,
/// title stack), each bounded on its own.
const UNACCOUNTED_HEAP_BYTES: isize = 96 * 1024;

/// Every byte the allocator saw `term` keep is in its own heap figure (so a buffer that
/// grows outside the caps, like vte's OSC body, shows).
fn assert_heap_accounted(term: &Terminal, held: isize) {
    let figure = term.heap_bytes() as isize;
    assert!(
        held <= figure + UNACCOUNTED_HEAP_BYTES,
        "the terminal holds {held} bytes, its heap figure says {figure}"
    );
}

/// The model target: any bytes, any sizes, resizes in between, any chunking. No panic,
/// caps hold after every step, and the same stream fed in one piece (per resize) ends on
/// the same screen.
pub fn model(data: &[u8]) {
    let Some((h, body)) = header(data) else {
        return;
    };
    let steps = steps(body, h.chunk);
    let mut whole = Terminal::new(h.size, h.config.clone());
    let mut pending: Vec<u8> = Vec::new();
    let mut repeat = Vec::new();
    let mut repeated = 0;
    // Events in order, for comparison with the whole feed.
    let mut events = String::new();
    let mut whole_events = String::new();
    // Bytes `term` holds, as the allocator sees them around each call into it.
    let start = live_bytes();
    let mut term = Terminal::new(h.size, h.config.clone());
    let mut held = live_bytes() - start;
    for step in steps {
        match step {
            Step::Feed(bytes) => {
                let before = live_bytes();
                term.advance(bytes);
                let written = assert_replies(&mut term, bytes.len());
                held += live_bytes() - before - written.capacity() as isize;
                events.push_str(&written);
                pending.extend_from_slice(bytes);
            }
            Step::Repeat(b, n) => {
                // At most `MAX_REPEAT_BYTES` per input, so one input stays fast.
                let n = n.min(MAX_REPEAT_BYTES.saturating_sub(repeated));
                repeated += n;
                repeat.clear();
                repeat.resize(n, b);
                let before = live_bytes();
                term.advance(&repeat);
                let written = assert_replies(&mut term, n);
                held += live_bytes() - before - written.capacity() as isize;
                events.push_str(&written);
                pending.extend_from_slice(&repeat);
            }
            Step::Resize(size) => {
                let before = live_bytes();
                term.resize(size);
                held += live_bytes() - before;
                whole.advance(&pending);
                whole.take_replies();
                whole_events.push_str(&written_events(&mut whole));
                pending.clear();
                whole.resize(size);
            }
            Step::Snapshot | Step::Frame | Step::Decode(_) => {}
        }
        assert_caps(&term, &h.config);
        assert_heap_accounted(&term, held);
    }
    whole.advance(&pending);
    whole_events.push_str(&written_events(&mut whole));
    assert_caps(&whole, &h.config);
    assert_eq!(
        term.dump(),
        whole.dump(),
        "chunked and whole feeding differ (chunk {})",
        h.chunk
    );
    assert_eq!(
        term.title(),
        whole.title(),
        "titles differ (chunk {})",
        h.chunk
    );
    assert_eq!(events, whole_events, "events differ (chunk {})", h.chunk);
}

fn written_events(term: &mut Terminal) -> String {
    term.drain_events().map(|e| format!("{e:?}\n")).collect()
}

/// Pushing `row` into a scrollback and reading it back gives the row without its
/// trailing default blanks and without the drawn marks (which only DECRQCRA reads on
/// the screen; the scrollback does not keep them).
pub fn assert_scrollback_roundtrip(row: &Row) {
    let mut sb = Scrollback::new(4, usize::MAX);
    sb.push(row);
    let back = sb.row(0).expect("pushed row is there");
    let keep = row
        .cells
        .iter()
        .rposition(|c| !c.is_default_blank())
        .map_or(0, |i| i + 1);
    let (mut cells, extras) = row.clone().into_parts();
    for cell in &mut cells {
        *cell = cell.with_drawn(false);
    }
    let extras = extras
        .into_iter()
        .filter(|(c, _)| (*c as usize) < keep)
        .collect();
    let expected = Row::from_parts(cells[..keep].to_vec(), extras, row.wrapped);
    assert_eq!(back, expected, "scrollback changed a row");
}

/// The snapshot target: a view rebuilt from a snapshot and kept current by frames shows
/// what the terminal shows; every row survives the scrollback encoding; damaged encoded
/// bytes decode without panic into a row bounded by their length.
pub fn snapshot_roundtrip(data: &[u8]) {
    let Some((h, body)) = header(data) else {
        return;
    };
    let mut term = Terminal::new(h.size, h.config.clone());
    let mut view: Option<PaneView> = None;
    let mut seq = 0u64;
    for step in steps(body, h.chunk) {
        match step {
            Step::Feed(bytes) => {
                term.advance(bytes);
                seq += bytes.len() as u64;
            }
            Step::Repeat(b, n) => {
                term.advance(&vec![b; n.min(8192)]);
                seq += n.min(8192) as u64;
            }
            Step::Resize(size) => term.resize(size),
            Step::Snapshot => {
                let s = snapshot(&term, seq);
                for row in s.history.iter().chain(s.rows.iter()) {
                    assert_scrollback_roundtrip(row);
                }
                view = Some(PaneView::from_snapshot(s));
                term.take_damage();
            }
            Step::Frame => {
                if let Some(v) = view.as_mut() {
                    v.apply(frame(&mut term, seq));
                }
            }
            Step::Decode(bytes) => {
                let row = decode_line(bytes, false);
                assert!(row.cells.len() <= bytes.len());
            }
        }
        term.take_replies();
        term.drain_events().for_each(drop);
    }
    for row in term.grid().iter() {
        assert_scrollback_roundtrip(row);
    }
    let mut v = match view {
        Some(v) => v,
        None => PaneView::from_snapshot(snapshot(&term, seq)),
    };
    v.apply(frame(&mut term, seq));
    assert_eq!(v.dump(), term.dump(), "the view differs from the model");
    // The title is not in frames: the app follows `TermEvent::Title`.
    assert_eq!(v.meta.size, term.size());
    for (id, uri) in &v.links {
        assert_eq!(term.hyperlink_uri(*id), Some(uri.as_str()));
    }
}

/// The config target: no panic; a config that parses writes out and parses back to the
/// same config; chords that parse print canonically and parse back to themselves.
pub fn config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(config) = Config::parse(&text, "fuzz.ron") {
        let ron = config.to_ron();
        let again = Config::parse(&ron, "fuzz.ron").expect("written config parses");
        assert_eq!(again.to_ron(), ron, "config does not round-trip");
    }
    for line in text.lines().take(64) {
        if let Ok(chord) = line.parse::<KeyChord>() {
            let printed = chord.to_string();
            let back: KeyChord = printed
                .parse()
                .unwrap_or_else(|e| panic!("{printed:?} from {line:?} does not parse: {e}"));
            assert_eq!(back, chord, "chord {line:?} does not round-trip");
        }
        let _ = line.parse::<KeyBinding>();
    }
}

/// The input target: key and mouse encoders never panic and write well-formed
/// sequences; sanitized paste carries no control that could end the bracket.
pub fn input(data: &[u8]) {
    let Some((h, rest)) = data.split_first_chunk::<8>() else {
        return;
    };
    let mods = Mods {
        shift: h[0] & 1 != 0,
        alt: h[0] & 2 != 0,
        ctrl: h[0] & 4 != 0,
        meta: h[0] & 8 != 0,
    };
    let modes = KeyModes {
        app_cursor: h[0] & 16 != 0,
        newline: h[0] & 32 != 0,
        eight_bit_controls: h[0] & 64 != 0,
    };
    let text = String::from_utf8_lossy(rest);
    let named = [
        Key::Enter,
        Key::Tab,
        Key::Backspace,
        Key::Escape,
        Key::Up,
        Key::Down,
        Key::Left,
        Key::Right,
        Key::Home,
        Key::End,
        Key::PageUp,
        Key::PageDown,
        Key::Insert,
        Key::Delete,
        Key::F(h[1]),
    ];
    let key = match h[1] as usize {
        i if i < named.len() => named[i],
        _ => Key::Char(text.chars().next().unwrap_or('a')),
    };
    if let Some(bytes) = encode_key(key, mods, modes) {
        assert!(
            !bytes.is_empty() && bytes.len() <= 32,
            "key {key:?} -> {bytes:?}"
        );
    }
    for c in text.chars().take(16) {
        let _ = encode_key(Key::Char(c), mods, modes);
    }

    let buttons = [
        MouseButton::Left,
        MouseButton::Middle,
        MouseButton::Right,
        MouseButton::WheelUp,
        MouseButton::WheelDown,
        MouseButton::None,
    ];
    let kinds = [
        MouseEventKind::Press,
        MouseEventKind::Release,
        MouseEventKind::Motion,
    ];
    let trackings = [
        MouseTracking::Off,
        MouseTracking::X10,
        MouseTracking::Normal,
        MouseTracking::ButtonMotion,
        MouseTracking::AnyMotion,
    ];
    let encodings = [
        MouseEncoding::Default,
        MouseEncoding::Utf8,
        MouseEncoding::Sgr,
        MouseEncoding::Urxvt,
    ];
    // Coordinates: small, near the encodings' limits, or anything a usize holds.
    let coord = |b: u8, w: u8| -> usize {
        match w % 4 {
            0 => b as usize,
            1 => 200 + b as usize,
            2 => 2000 + b as usize * 16,
            _ => usize::MAX - b as usize,
        }
    };
    let event = MouseEvent {
        kind: kinds[h[2] as usize % kinds.len()],
        button: buttons[h[3] as usize % buttons.len()],
        col: coord(h[4], h[6]),
        row: coord(h[5], h[6] >> 2),
        mods,
    };
    let tracking = trackings[h[7] as usize % trackings.len()];
    let encoding = encodings[(h[7] >> 4) as usize % encodings.len()];
    if let Some(bytes) = encode_mouse(event, tracking, encoding) {
        assert!(
            bytes.starts_with(b"\x1b[") && bytes.len() <= 64,
            "{bytes:?}"
        );
        assert!(
            !bytes[2..].contains(&0x1b),
            "a mouse report carries ESC: {bytes:?}"
        );
    }

    let clean = sanitize_paste(&text);
    assert!(
        !clean
            .chars()
            .any(|c| c.is_control() && c != '\t' && c != '\r'),
        "sanitized paste keeps a control: {clean:?}"
    );
    for bracketed in [false, true] {
        let bytes = encode_paste(&text, bracketed);
        let inner = if bracketed {
            assert!(bytes.starts_with(b"\x1b[200~") && bytes.ends_with(b"\x1b[201~"));
            &bytes[6..bytes.len() - 6]
        } else {
            &bytes[..]
        };
        assert!(
            !inner
                .iter()
                .any(|&b| b == 0x1b || (b < 0x20 && b != b'\t' && b != b'\r') || b == 0x7f),
            "paste keeps a C0 control: {inner:?}"
        );
        let inner_text = std::str::from_utf8(inner).expect("paste stays UTF-8");
        assert!(
            !inner_text
                .chars()
                .any(|c| ('\u{80}'..='\u{9f}').contains(&c)),
            "paste keeps a C1 control"
        );
        assert!(!inner_text.contains("[201~") || !inner.contains(&0x1b));
    }
}
