//! What the model hands the UI: structural snapshots on reveal, then frames of damaged
//! rows. At most one delivery is outstanding per visible pane (the slot); the UI taking
//! it is the credit that lets the model build the next.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;

use std::sync::Arc;

use crate::model::images::ImageLayer;
use crate::model::{Cursor, CursorShape, Modes, Palette, Row, ScreenDump, TermSize, Terminal};

/// Lines of scrollback a snapshot carries; older history is paged on demand.
pub const SNAPSHOT_HISTORY_LINES: usize = 200;

/// Changed rows since the previous delivery, with everything needed to draw them.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Bytes of this pty parsed when the frame was built.
    pub seq: u64,
    /// Size, cursor, modes and scrollback counts after those bytes.
    pub meta: ScreenMeta,
    /// `(row index, row)` of each damaged row.
    pub rows: Vec<(usize, Row)>,
    /// The pane's colours, only when a program changed them (OSC 4/10/11/12 and
    /// resets) since the previous delivery.
    pub palette: Option<Box<Palette>>,
    /// URIs of the OSC 8 hyperlinks the delivered rows use.
    pub links: Vec<(u32, String)>,
    /// The screen's images, only when they changed since the previous delivery (an
    /// empty layer: none left). Pixels are shared, never copied.
    pub images: Option<Arc<ImageLayer>>,
    /// When the newest bytes in this frame were read from the pty (set by the model
    /// thread; for latency analysis).
    pub read_at: Option<Instant>,
    /// When the frame was built (for latency analysis).
    pub built_at: Instant,
}

/// Everything needed to show a pane from scratch: the viewport and a bounded window of
/// scrollback (not the whole history), cursor, modes and facts.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The snapshot covers exactly the bytes up to and including `seq`.
    pub seq: u64,
    /// Size, cursor, modes and scrollback counts (`scrollback_lines`: all lines the
    /// model holds, not only `history`).
    pub meta: ScreenMeta,
    pub rows: Vec<Row>,
    /// The newest scrollback lines, oldest first (at most [`SNAPSHOT_HISTORY_LINES`]).
    pub history: Vec<Row>,
    pub title: String,
    pub cwd: Option<String>,
    pub palette: Palette,
    /// URIs of the OSC 8 hyperlinks the snapshot's rows use.
    pub links: Vec<(u32, String)>,
    /// The screen's image placements with their pixels (shared, never copied).
    pub images: Arc<ImageLayer>,
    /// When the snapshot was built (for latency analysis).
    pub built_at: Instant,
}

#[derive(Clone, Debug)]
pub enum Delivery {
    Snapshot(Box<Snapshot>),
    Frame(Frame),
}

impl Delivery {
    pub fn seq(&self) -> u64 {
        match self {
            Delivery::Snapshot(s) => s.seq,
            Delivery::Frame(f) => f.seq,
        }
    }
}

/// What a screen shows besides its rows. A parse round that leaves it and every row
/// unchanged (a query answered, a mode set to what it was) makes no delivery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScreenMeta {
    pub size: TermSize,
    pub cursor: Cursor,
    pub cursor_shape: CursorShape,
    pub modes: Modes,
    /// Scrollback lines the model holds.
    pub scrollback_lines: u64,
    /// Scrollback lines dropped off the front so far (absolute line = dropped + index).
    pub scrollback_dropped: u64,
    /// The absolute line of the screen's first row as image placements count lines
    /// (`dropped + scrollback_lines` on the primary screen; the lines scrolled off the
    /// top on the alternate one).
    pub image_base: u64,
}

impl ScreenMeta {
    pub fn of(term: &Terminal) -> ScreenMeta {
        ScreenMeta {
            size: term.size(),
            cursor: term.cursor(),
            cursor_shape: term.cursor_shape(),
            modes: *term.modes(),
            scrollback_lines: term.scrollback().len() as u64,
            scrollback_dropped: term.scrollback().dropped(),
            image_base: term.image_line_base(),
        }
    }
}

/// The hyperlinks `rows` refer to, with their URIs.
fn links_of<'a>(term: &Terminal, rows: impl Iterator<Item = &'a Row>) -> Vec<(u32, String)> {
    let mut ids: Vec<u32> = rows
        .flat_map(|r| r.extras().iter().filter_map(|(_, e)| e.hyperlink))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.into_iter()
        .filter_map(|id| term.hyperlink_uri(id).map(|u| (id, u.to_owned())))
        .collect()
}

/// Builds a snapshot of `term`; cost is O(viewport + SNAPSHOT_HISTORY_LINES), never
/// O(history).
pub fn snapshot(term: &Terminal, seq: u64) -> Snapshot {
    let sb = term.scrollback();
    let from = sb.len().saturating_sub(SNAPSHOT_HISTORY_LINES);
    Snapshot {
        seq,
        meta: ScreenMeta::of(term),
        rows: term.grid().iter().cloned().collect(),
        history: (from..sb.len()).filter_map(|i| sb.row(i)).collect(),
        title: term.title().to_owned(),
        cwd: term.cwd().map(str::to_owned),
        palette: term.palette().clone(),
        links: links_of(term, term.grid().iter()),
        images: Arc::new(term.image_layer().unwrap_or_default()),
        built_at: Instant::now(),
    }
}

/// Builds a frame of the rows damaged since the last delivery (clearing the damage).
pub fn frame(term: &mut Terminal, seq: u64) -> Frame {
    let damaged = term.take_damage();
    let grid = term.grid();
    let links = links_of(term, damaged.iter().map(|r| grid.row(*r)));
    let rows = damaged
        .into_iter()
        .map(|r| (r, grid.row(r).clone()))
        .collect();
    Frame {
        seq,
        meta: ScreenMeta::of(term),
        rows,
        palette: None,
        links,
        images: None,
        read_at: None,
        built_at: Instant::now(),
    }
}

/// The hand-over point for one pane: empty means the UI holds the credit.
#[derive(Debug, Default)]
pub struct Slot {
    inner: Mutex<SlotState>,
    /// Signalled when a delivery is put while [`Slot::take_within`] waits.
    filled: std::sync::Condvar,
}

#[derive(Debug, Default)]
struct SlotState {
    delivery: Option<Delivery>,
    /// The UI waits in [`Slot::take_within`] (a reveal): only then does `put` wake it,
    /// so the frame path pays no wake-up call.
    waiting: bool,
    /// The UI is about to wait ([`Slot::expect`]: a frame that writes a key and then
    /// waits for its echo); cleared by [`Slot::take_within`].
    expecting: bool,
}

impl Slot {
    pub fn is_empty(&self) -> bool {
        self.inner
            .lock()
            .map(|s| s.delivery.is_none())
            .unwrap_or(true)
    }

    /// Puts a delivery (a snapshot replaces whatever is there). Returns whether the UI
    /// was waiting for it in [`Slot::take_within`] (a key's echo, a reveal), or about to
    /// ([`Slot::expect`]): that frame takes and draws it, so the UI needs no wake-up
    /// for it.
    pub fn put(&self, delivery: Delivery) -> bool {
        let Ok(mut s) = self.inner.lock() else {
            return false;
        };
        s.delivery = Some(delivery);
        if s.waiting {
            self.filled.notify_all();
        }
        s.waiting || s.expecting
    }

    /// Says that the caller calls [`Slot::take_within`] next, without fail: a
    /// delivery put before it gets there (an echo quicker than the frame that wrote
    /// the key) is taken by that call, so it wakes nobody either.
    pub fn expect(&self) {
        if let Ok(mut s) = self.inner.lock() {
            s.expecting = true;
        }
    }

    pub fn take(&self) -> Option<Delivery> {
        self.inner.lock().ok().and_then(|mut s| s.delivery.take())
    }

    /// Takes the delivery, waiting up to `timeout` for one to be put.
    pub fn take_within(&self, timeout: std::time::Duration) -> Option<Delivery> {
        let mut guard = self.inner.lock().ok()?;
        guard.waiting = true;
        let (mut guard, _) = self
            .filled
            .wait_timeout_while(guard, timeout, |s| s.delivery.is_none())
            .ok()?;
        guard.waiting = false;
        guard.expecting = false;
        guard.delivery.take()
    }

    pub fn clear(&self) {
        if let Ok(mut s) = self.inner.lock() {
            s.delivery = None;
        }
    }
}

/// The UI's copy of a visible pane, rebuilt from a snapshot and kept current by frames.
#[derive(Clone, Debug)]
pub struct PaneView {
    pub seq: u64,
    /// Size, cursor, modes and scrollback counts as of `seq`.
    pub meta: ScreenMeta,
    pub rows: Vec<Row>,
    pub history: VecDeque<Row>,
    pub title: String,
    pub palette: Palette,
    /// Hyperlink URIs by id.
    pub links: std::collections::HashMap<u32, String>,
    /// Image placements (absolute lines: `meta.scrollback_dropped +
    /// meta.scrollback_lines` is the screen's first row on the primary screen).
    pub images: Arc<ImageLayer>,
}

impl PaneView {
    pub fn from_snapshot(s: Snapshot) -> PaneView {
        PaneView {
            seq: s.seq,
            meta: s.meta,
            rows: s.rows,
            history: s.history.into(),
            title: s.title,
            palette: s.palette,
            links: s.links.into_iter().collect(),
            images: s.images,
        }
    }

    /// Applies a frame. Frames older than the view (built before its snapshot) are
    /// ignored; returns whether it was applied.
    pub fn apply(&mut self, f: Frame) -> bool {
        if f.seq < self.seq {
            return false;
        }
        if f.meta.size != self.meta.size {
            let size = f.meta.size;
            self.rows
                .resize_with(size.rows, || Row::blank(size.cols, Default::default()));
        }
        for (i, row) in f.rows {
            if let Some(slot) = self.rows.get_mut(i) {
                *slot = row;
            }
        }
        self.seq = f.seq;
        self.meta = f.meta;
        if let Some(palette) = f.palette {
            self.palette = *palette;
        }
        self.links.extend(f.links);
        if let Some(images) = f.images {
            self.images = images;
        }
        true
    }

    /// Applies any delivery: a snapshot replaces the view.
    pub fn apply_delivery(view: &mut Option<PaneView>, d: Delivery) -> bool {
        match d {
            Delivery::Snapshot(s) => {
                *view = Some(PaneView::from_snapshot(*s));
                true
            }
            Delivery::Frame(f) => view.as_mut().is_some_and(|v| v.apply(f)),
        }
    }

    pub fn dump(&self) -> ScreenDump {
        ScreenDump::from_rows(
            self.rows.iter(),
            (self.meta.cursor.row, self.meta.cursor.col),
        )
    }

    /// Heap bytes the view holds (what parking a pane frees).
    pub fn heap_bytes(&self) -> usize {
        self.rows
            .iter()
            .chain(self.history.iter())
            .map(Row::heap_bytes)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::model::{TermConfig, TermSize, Terminal};

    #[test]
    fn take_within_waits_for_a_delivery_put_by_another_thread_and_no_longer() {
        let slot = Arc::new(Slot::default());
        let term = Terminal::new(TermSize::new(10, 2), TermConfig::default());
        let started = Instant::now();
        assert!(slot.take_within(Duration::from_millis(20)).is_none());
        assert!(started.elapsed() >= Duration::from_millis(20), "it waited");
        let putter = {
            let slot = slot.clone();
            let snapshot = snapshot(&term, 7);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(10));
                slot.put(Delivery::Snapshot(Box::new(snapshot)))
            })
        };
        let got = slot.take_within(Duration::from_secs(30));
        assert!(matches!(got, Some(Delivery::Snapshot(s)) if s.seq == 7));
        assert!(
            putter.join().unwrap(),
            "the put said the UI was waiting for it"
        );
        assert!(slot.is_empty(), "taken");
        // With nobody waiting, the put says so (the model thread then wakes the UI).
        assert!(!slot.put(Delivery::Snapshot(Box::new(snapshot(&term, 8)))));
        assert!(matches!(slot.take(), Some(Delivery::Snapshot(s)) if s.seq == 8));
        // A taker that said it comes: a put before it gets there wakes nobody, and the
        // take finds it at once; after that take, a put wakes the UI again.
        slot.expect();
        assert!(slot.put(Delivery::Snapshot(Box::new(snapshot(&term, 9)))));
        let started = Instant::now();
        let got = slot.take_within(Duration::from_secs(30));
        assert!(matches!(got, Some(Delivery::Snapshot(s)) if s.seq == 9));
        assert!(started.elapsed() < Duration::from_secs(30), "found at once");
        assert!(!slot.put(Delivery::Snapshot(Box::new(snapshot(&term, 10)))));
        // A take that ran out clears the mark too.
        slot.clear();
        slot.expect();
        assert!(slot.take_within(Duration::from_millis(1)).is_none());
        assert!(!slot.put(Delivery::Snapshot(Box::new(snapshot(&term, 11)))));
    }
}
