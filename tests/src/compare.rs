//! Running one byte stream through both tern's model and the [`Oracle`], describing the
//! first difference between the two screens, and shrinking a differing stream to a short
//! reproduction.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use tern_core::model::{DumpAttrs, ScreenDump, TermConfig, TermSize, Terminal};

use crate::oracle::Oracle;
use crate::streams::{Construct, Item, escape};

/// How the bytes are handed to the model (the oracle always gets them in one piece).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Feed {
    /// One `advance` call.
    Whole,
    /// One `advance` call per byte.
    Bytewise,
    /// Split before each of these offsets (ascending); offsets past the end are ignored.
    Splits(Vec<usize>),
    /// Two calls, the second with the last this many bytes.
    SplitBeforeEnd(usize),
}

impl Feed {
    /// The pieces `bytes` is fed in.
    pub fn chunks<'a>(&self, bytes: &'a [u8]) -> Vec<&'a [u8]> {
        match self {
            Feed::Whole => vec![bytes],
            Feed::Bytewise => bytes.chunks(1).collect(),
            Feed::Splits(offsets) => {
                let mut chunks = Vec::with_capacity(offsets.len() + 1);
                let mut start = 0;
                for &offset in offsets {
                    if offset > start && offset < bytes.len() {
                        chunks.push(&bytes[start..offset]);
                        start = offset;
                    }
                }
                chunks.push(&bytes[start..]);
                chunks
            }
            Feed::SplitBeforeEnd(tail) if *tail > 0 && *tail < bytes.len() => {
                let (head, tail) = bytes.split_at(bytes.len() - tail);
                vec![head, tail]
            }
            Feed::SplitBeforeEnd(_) => vec![bytes],
        }
    }
}

/// What one emulator made of a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Screen {
    Ok { dump: ScreenDump, replies: Vec<u8> },
    Panicked(String),
}

impl Screen {
    /// The dump with attributes, or the panic message.
    pub fn render(&self) -> String {
        match self {
            Screen::Ok { dump, replies } => {
                let mut out = render_compact(dump);
                if !replies.is_empty() {
                    out.push_str(&format!("replies: {}\n", escape(replies)));
                }
                out
            }
            Screen::Panicked(message) => format!("panicked: {message}\n"),
        }
    }
}

/// The rows up to the last non-blank one (or the cursor row) as `NN |text|`, then the
/// cursor and the attribute runs (0-based rows and columns, end exclusive).
pub fn render_compact(dump: &ScreenDump) -> String {
    let last = dump
        .rows
        .iter()
        .rposition(|row| !row.is_empty())
        .unwrap_or(0);
    let last = last
        .max(dump.cursor.0)
        .min(dump.rows.len().saturating_sub(1));
    let mut out = String::new();
    for (index, row) in dump.rows.iter().enumerate().take(last + 1) {
        out.push_str(&format!("{index:3} |{row}|\n"));
    }
    if last + 1 < dump.rows.len() {
        out.push_str(&format!(
            "    (rows {}..{} blank)\n",
            last + 1,
            dump.rows.len()
        ));
    }
    out.push_str(&format!("cursor (row, col): {:?}\n", dump.cursor));
    for (row, runs) in dump.runs.iter().enumerate() {
        if runs.is_empty() {
            continue;
        }
        let runs: Vec<String> = runs
            .iter()
            .map(|run| format!("{}..{} {}", run.start, run.end, run.attrs))
            .collect();
        out.push_str(&format!("attrs row {row}: {}\n", runs.join("; ")));
    }
    out
}

/// The screens of both emulators after the same stream.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// alacritty, the expected picture.
    pub oracle: Screen,
    /// tern's model.
    pub model: Screen,
}

impl Outcome {
    /// The first difference, or `None` when the screens agree. A panicking oracle counts
    /// as agreement: there is nothing to compare against.
    pub fn difference(&self) -> Option<Difference> {
        match (&self.oracle, &self.model) {
            (Screen::Panicked(_), _) => None,
            (Screen::Ok { .. }, Screen::Panicked(message)) => Some(Difference {
                kind: DifferenceKind::Panic,
                detail: format!("tern panicked: {message}"),
            }),
            (
                Screen::Ok {
                    dump: expected,
                    replies: expected_replies,
                },
                Screen::Ok {
                    dump: actual,
                    replies: actual_replies,
                },
            ) => first_difference(expected, actual).or_else(|| {
                (expected_replies != actual_replies).then(|| Difference {
                    kind: DifferenceKind::Replies,
                    detail: format!(
                        "replies differ: alacritty `{}`, tern `{}`",
                        escape(expected_replies),
                        escape(actual_replies)
                    ),
                })
            }),
        }
    }

    pub fn differs(&self) -> bool {
        self.difference().is_some()
    }
}

/// What part of the picture differs first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DifferenceKind {
    Panic,
    RowCount,
    Text,
    Attributes,
    Cursor,
    Replies,
}

/// The first difference between the two screens, described for a person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub kind: DifferenceKind,
    pub detail: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

/// Runs `bytes` through both emulators on a `cols` x `rows` screen.
pub fn run_both(cols: usize, rows: usize, bytes: &[u8], feed: &Feed) -> Outcome {
    let oracle = catch(|| {
        let mut oracle = Oracle::new(cols, rows);
        oracle.advance(bytes);
        Screen::Ok {
            dump: oracle.dump(),
            replies: oracle.take_replies(),
        }
    });
    let model = catch(|| {
        let mut term = Terminal::new(TermSize { cols, rows }, TermConfig::default());
        for chunk in feed.chunks(bytes) {
            term.advance(chunk);
        }
        Screen::Ok {
            dump: term.dump(),
            replies: term.take_replies(),
        }
    });
    Outcome { oracle, model }
}

thread_local! {
    /// Set while [`catch`] runs an emulator on this thread.
    static CATCHING: Cell<bool> = const { Cell::new(false) };
    /// Where the last panic caught by [`catch`] happened.
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that keeps quiet about panics [`run_both`] catches, so that
/// a run that provokes many of them (the minimiser) does not flood the output, and
/// remembers where they happened for the report. Other panics go to the previous hook.
pub fn quiet_caught_panics() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CATCHING.with(Cell::get) {
                let location = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()));
                PANIC_LOCATION.with(|cell| *cell.borrow_mut() = location);
            } else {
                previous(info);
            }
        }));
    });
}

fn catch(run: impl FnOnce() -> Screen) -> Screen {
    CATCHING.with(|catching| catching.set(true));
    PANIC_LOCATION.with(|cell| cell.borrow_mut().take());
    let result = panic::catch_unwind(AssertUnwindSafe(run));
    CATCHING.with(|catching| catching.set(false));
    result.unwrap_or_else(|payload| {
        let mut message = panic_message(&*payload);
        if let Some(location) = PANIC_LOCATION.with(|cell| cell.borrow_mut().take()) {
            message.push_str(&format!(" (at {location})"));
        }
        Screen::Panicked(message)
    })
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_string()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "(no message)".to_string()
    }
}

/// Describes the first place where `actual` differs from `expected`: the row text, then
/// the attributes, then the cursor.
pub fn first_difference(expected: &ScreenDump, actual: &ScreenDump) -> Option<Difference> {
    let found = |kind, detail| Some(Difference { kind, detail });
    if expected.rows.len() != actual.rows.len() {
        return found(
            DifferenceKind::RowCount,
            format!(
                "row count: alacritty {}, tern {}",
                expected.rows.len(),
                actual.rows.len()
            ),
        );
    }
    for (row, (want, got)) in expected.rows.iter().zip(&actual.rows).enumerate() {
        if want != got {
            let at = want
                .chars()
                .zip(got.chars())
                .take_while(|(a, b)| a == b)
                .count();
            return found(
                DifferenceKind::Text,
                format!(
                    "row {row} text differs at char {at}: \
                     alacritty {:?} (char {:?}), tern {:?} (char {:?})",
                    want,
                    want.chars().nth(at),
                    got,
                    got.chars().nth(at)
                ),
            );
        }
    }
    let empty = Vec::new();
    for row in 0..expected.rows.len() {
        let want = expected.runs.get(row).unwrap_or(&empty);
        let got = actual.runs.get(row).unwrap_or(&empty);
        if want != got {
            let (want_cells, got_cells) = (cells_of(want), cells_of(got));
            let width = want_cells.len().max(got_cells.len());
            let cell =
                |cells: &[DumpAttrs], col: usize| cells.get(col).copied().unwrap_or_default();
            let col = (0..width).find(|&col| cell(&want_cells, col) != cell(&got_cells, col));
            let col = col.unwrap_or(0);
            return found(
                DifferenceKind::Attributes,
                format!(
                    "row {row} attributes differ at col {col}: alacritty [{}], tern [{}]",
                    cell(&want_cells, col),
                    cell(&got_cells, col)
                ),
            );
        }
    }
    if expected.cursor != actual.cursor {
        return found(
            DifferenceKind::Cursor,
            format!(
                "cursor (row, col): alacritty {:?}, tern {:?}",
                expected.cursor, actual.cursor
            ),
        );
    }
    None
}

/// Per-column attributes of one row, from its runs.
fn cells_of(runs: &[tern_core::model::AttrRun]) -> Vec<DumpAttrs> {
    let width = runs.iter().map(|run| run.end).max().unwrap_or(0);
    let mut cells = vec![DumpAttrs::default(); width];
    for run in runs {
        for cell in cells.iter_mut().take(run.end).skip(run.start) {
            *cell = run.attrs;
        }
    }
    cells
}

/// The shortest `n` such that `differs(&bytes[..n])` while `differs(&bytes[..n - 1])` does
/// not, found by bisection, assuming `differs(bytes)`. Differences can come and go as
/// the stream grows, so this is a shortest prefix along the bisection path, not
/// necessarily the globally shortest one.
pub fn shortest_differing_prefix(bytes: &[u8], differs: impl Fn(&[u8]) -> bool) -> usize {
    // Invariant: `bytes[..low]` agrees (the empty stream is assumed to), `bytes[..high]`
    // differs.
    let (mut low, mut high) = (0, bytes.len());
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if differs(&bytes[..mid]) {
            high = mid;
        } else {
            low = mid;
        }
    }
    high
}

/// The items covering the first `len` bytes, the last one cut where the prefix ends.
pub fn items_of_prefix(items: &[Item], len: usize) -> Vec<Item> {
    let mut out = Vec::new();
    let mut taken = 0;
    for item in items {
        if taken >= len {
            break;
        }
        let keep = item.bytes.len().min(len - taken);
        out.push(Item {
            construct: item.construct,
            bytes: item.bytes[..keep].to_vec(),
        });
        taken += keep;
    }
    out
}

/// Shrinks a list of items that `differs` while keeping it differing: removes ever
/// smaller blocks of items, then shortens the remaining ASCII text runs byte by byte.
pub fn minimize(items: Vec<Item>, differs: impl Fn(&[Item]) -> bool) -> Vec<Item> {
    let mut items = items;
    let mut block = items.len().div_ceil(2).max(1);
    loop {
        let mut removed_any = false;
        let mut start = 0;
        while start < items.len() {
            let end = (start + block).min(items.len());
            let mut candidate = items.clone();
            candidate.drain(start..end);
            if differs(&candidate) {
                items = candidate;
                removed_any = true;
            } else {
                start = end;
            }
        }
        if block == 1 && !removed_any {
            break;
        }
        if !removed_any {
            block = (block / 2).max(1);
        }
    }
    // Shorten each run of ASCII text: drop bytes from its end, then from its start, while
    // it still differs. This turns long runs into the few characters that matter.
    for index in 0..items.len() {
        let mut keep_shortening = matches!(
            items[index].construct,
            Construct::Text | Construct::WrapText
        );
        while keep_shortening && items[index].bytes.len() > 1 {
            keep_shortening = false;
            for trim_front in [false, true] {
                let mut candidate = items.clone();
                let bytes = &mut candidate[index].bytes;
                if trim_front {
                    bytes.remove(0);
                } else {
                    bytes.pop();
                }
                if differs(&candidate) {
                    items = candidate;
                    keep_shortening = true;
                    break;
                }
            }
        }
    }
    items
}
