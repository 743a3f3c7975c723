//! The terminal model: a headless, xterm-compatible emulator built on `vte`.
//!
//! [`Terminal`] owns a `vte::Parser` and the [`state::State`] it drives through the one
//! `Perform` implementation in `perform.rs`. Programs' queries are answered into
//! [`Terminal::take_replies`]; facts (title, cwd, bell, marks, notifications, clipboard
//! requests) come out of [`Terminal::drain_events`].

pub mod cell;
pub mod charset;
mod colornames;
pub mod dump;
pub mod grid;
pub mod images;
pub mod marks;
pub mod modes;
pub mod palette;
mod prefetch;
mod private_modes;
mod rect;
mod row;
pub mod scrollback;
pub mod search;
pub mod state;
mod stream_guard;
pub mod title;
mod width;

pub use cell::{Cell, Color, Flags, Underline};
pub use dump::{AttrRun, DumpAttrs, DumpColor, ScreenDump, UnderlineKind};
pub use grid::{CellExtra, Grid, Row};
pub use modes::{Modes, MouseEncoding, MouseTracking};
pub use osc::MAX_OSC_BYTES;
pub use palette::{DynamicDefaults, Palette, Rgb};
pub use perform::{DA1_REPLY, VERSION};
pub use rect::checksum_value;
pub use scrollback::Scrollback;
pub use state::{Cursor, CursorShape, DEFAULT_CELL_PIXELS, Damage, Pen};
pub use state::{agent_status, kitty, links, notify};
pub use stream_guard::MAX_APC_BYTES;

use state::{State, ground, osc, perform};
use stream_guard::{ApcCapture, OscGuard, OscScan, incomplete_utf8_tail, scan_for_osc, utf8_len};

/// Screen size in cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TermSize {
    pub cols: usize,
    pub rows: usize,
}

impl TermSize {
    /// The widest screen a terminal takes (wider sizes are clamped): a 5K display at a
    /// tiny font is under 1,000 columns, and cell columns must fit the side table's
    /// `u16` keys.
    pub const MAX_COLS: usize = 2000;
    /// The tallest screen a terminal takes (taller sizes are clamped).
    pub const MAX_ROWS: usize = 1000;

    pub const fn new(cols: usize, rows: usize) -> TermSize {
        TermSize { cols, rows }
    }

    /// This size within what a terminal takes: 2..=[`TermSize::MAX_COLS`] columns,
    /// 1..=[`TermSize::MAX_ROWS`] rows.
    pub fn clamped(self) -> TermSize {
        TermSize {
            cols: self.cols.clamp(2, Self::MAX_COLS),
            rows: self.rows.clamp(1, Self::MAX_ROWS),
        }
    }
}

/// Settings of one terminal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TermConfig {
    /// Most lines kept in scrollback.
    pub scrollback_lines: usize,
    /// Most bytes the scrollback may hold (approximate heap size of its rows).
    pub scrollback_bytes: usize,
    /// The theme's colours.
    pub palette: DynamicDefaults,
    /// The cursor until a program asks for another (DECSCUSR 0 comes back to it).
    pub cursor_shape: CursorShape,
    pub cursor_blink: bool,
    /// Answer DECRQCRA with the real checksum; off, the answer is always 0000 (a 1x1
    /// checksum reveals the cell's character to the program that asks).
    pub rect_checksum_reports: bool,
    /// The pane's program runs on another machine (a remote tmux pane): every OSC 7 is
    /// a remote hint ([`Terminal::remote_cwd`]), whatever host it names, never a local
    /// folder (the remote machine may share this one's host name).
    pub far_side: bool,
}

impl Default for TermConfig {
    fn default() -> Self {
        TermConfig {
            scrollback_lines: 10_000,
            scrollback_bytes: 64 * 1024 * 1024,
            palette: DynamicDefaults::default(),
            cursor_shape: CursorShape::Block,
            cursor_blink: false,
            rect_checksum_reports: true,
            far_side: false,
        }
    }
}

/// OSC 52 requests; the app decides whether to honour them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClipboardRequest {
    /// A program wants to read the clipboard (refused unless enabled).
    Read { selection: String },
    /// A program wants to set the clipboard to base64-encoded data.
    Write { selection: String, base64: String },
}

/// OSC 133 shell-integration marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShellMark {
    PromptStart,
    CommandStart,
    CommandExecuted,
    CommandFinished { exit_code: Option<i32> },
}

/// Facts the model reports upward, for visible and hidden panes alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TermEvent {
    Title(String),
    Cwd(String),
    Bell,
    /// OSC 9, OSC 777;notify, OSC 99 (its last part).
    Notification(notify::Notification),
    /// OSC 9;4.
    Progress(notify::Progress),
    /// OSC 21337: the agent's own report of what it does.
    AgentStatus(agent_status::AgentStatus),
    /// The command line a shell is about to run (sent just before OSC 133 C): what
    /// the shell said in `cmdline=`, else the text typed after the prompt (OSC 133 B).
    Command(String),
    Clipboard(ClipboardRequest),
    /// `line` is the absolute line (see [`Terminal::absolute_cursor_line`]).
    Shell {
        mark: ShellMark,
        line: u64,
    },
    ScrollbackCleared,
    /// Input was dropped to keep memory bounded.
    Dropped {
        what: &'static str,
    },
}

impl std::fmt::Debug for Terminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminal")
            .field("size", &self.size())
            .finish_non_exhaustive()
    }
}

/// One pane's emulator.
pub struct Terminal {
    parser: vte::Parser,
    guard: OscGuard,
    /// The most bytes vte's OSC buffer has held (its capacity, which it keeps).
    osc_buffer_bytes: usize,
    st: State,
    /// Printable text waiting to be written as one run (see `perform::Performer`).
    run: Vec<u8>,
    /// An incomplete UTF-8 sequence at the end of the last input, held back (at most 3
    /// bytes) so the parser never sees a character split across calls.
    carry: Vec<u8>,
    /// vte is in its ground state, so the fast path in `ground.rs` reads the bytes.
    ground: bool,
    /// Off only in tests that check the fast path against vte alone.
    fast_path: bool,
    /// The APC string being received (the kitty graphics protocol).
    apc: ApcCapture,
}

/// Event capacity a terminal keeps between bursts.
const MAX_IDLE_EVENTS: usize = 64;

impl Terminal {
    pub fn new(size: TermSize, config: TermConfig) -> Terminal {
        Terminal {
            parser: vte::Parser::new(),
            guard: OscGuard::Outside,
            osc_buffer_bytes: 0,
            st: State::new(size.clamped(), config),
            run: Vec::new(),
            carry: Vec::new(),
            ground: true,
            fast_path: true,
            apc: ApcCapture::default(),
        }
    }

    /// Parses program output. Any chunking of the same bytes gives the same result.
    pub fn advance(&mut self, bytes: &[u8]) {
        let _ = self.advance_bounded(bytes, u64::MAX);
    }

    /// Cells touched so far by operations whose cost grows with the pane's area
    /// (DECFRA, DECERA, DECSERA, DECCARA, DECRARA, DECCRA, DECRQCRA, DECIC, DECDC,
    /// DECSED, DECSEL, REP, DECALN) and images' pixels as cells
    /// ([`images::pixel_work_cells`]), cumulative.
    pub fn work_cells(&self) -> u64 {
        self.st.work_cells
    }

    /// Like [`Terminal::advance`], but stops after the first control sequence at which
    /// [`Terminal::work_cells`] reached `until_work_cells` (inside a sixel image, after
    /// the byte that reached it); returns how many bytes it consumed (the caller passes
    /// the rest again later). So a pane whose few bytes ask for much work (a DECFRA
    /// over 2000x1000 cells is 20 bytes, a sixel image is one sequence) yields to other
    /// panes. Stopping and going on gives the same result as one call.
    pub fn advance_bounded(&mut self, mut bytes: &[u8], until_work_cells: u64) -> usize {
        let total = bytes.len();
        // Events are drained between calls; a burst of them (a flood of marks or
        // titles) must not keep its capacity for the terminal's whole life.
        if self.st.events.is_empty() && self.st.events.capacity() > MAX_IDLE_EVENTS {
            self.st.events.shrink_to(MAX_IDLE_EVENTS);
        }
        // vte 0.15 can drop the character after a UTF-8 sequence split across calls (its
        // partial-sequence path consumes too many bytes), so a split sequence is held
        // back and completed here, and the parser never sees one. (Completing one is
        // printing a character: never a stop.)
        while !self.carry.is_empty() && !bytes.is_empty() {
            let need = utf8_len(self.carry[0]).saturating_sub(self.carry.len());
            let take = need.min(bytes.len());
            let mut joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            let tail = incomplete_utf8_tail(&joined);
            self.feed(&joined[..joined.len() - tail], u64::MAX);
            self.carry.extend_from_slice(&joined[joined.len() - tail..]);
        }
        let tail = incomplete_utf8_tail(bytes);
        let body = bytes.len() - tail;
        let fed = self.feed(&bytes[..body], until_work_cells);
        if fed < body {
            return total - bytes.len() + fed;
        }
        self.carry.extend_from_slice(&bytes[body..]);
        total
    }

    /// Feeds `bytes` through the OSC guard; returns how many it consumed (fewer only
    /// when `parse` stopped for work).
    fn feed(&mut self, bytes: &[u8], until_work_cells: u64) -> usize {
        let mut rest = bytes;
        while !rest.is_empty() {
            let (feed, skip) = self.guard_step(rest);
            if feed > 0 {
                let took = self.parse(&rest[..feed], until_work_cells);
                if took < feed {
                    // Stopped in ground, right after a control sequence, or inside a
                    // sixel image's DCS after a data byte (never an ESC): what the
                    // guard saw past it is looked at again next time.
                    self.guard = OscGuard::Outside;
                    return bytes.len() - rest.len() + took;
                }
            }
            rest = &rest[feed + skip..];
        }
        bytes.len()
    }

    /// Parses bytes the OSC guard let through: the fast path while vte is in ground,
    /// vte from the first byte the fast path leaves to it until a dispatch brings it
    /// back to ground. Stops there once the work reached `until_work_cells`, or inside
    /// a sixel image as soon as its decoding reached it; returns the bytes parsed.
    fn parse(&mut self, mut bytes: &[u8], until_work_cells: u64) -> usize {
        let total = bytes.len();
        while !bytes.is_empty() {
            if self.ground && self.fast_path {
                let took = ground::advance(&mut self.st, bytes);
                bytes = &bytes[took..];
                if bytes.is_empty() {
                    break;
                }
                self.ground = false;
            }
            // Inside a sixel image a call paints something before it stops, so each
            // call makes progress.
            let sixel_until = until_work_cells.max(self.st.work_cells + 1);
            let mut performer = perform::Performer {
                st: &mut self.st,
                run: &mut self.run,
                back_to_ground: false,
                until_work_cells: sixel_until,
            };
            let took = self.parser.advance_until_terminated(&mut performer, bytes);
            performer.flush();
            self.ground = performer.back_to_ground;
            let paused = !self.ground && performer.paused_in_sixel();
            bytes = &bytes[took..];
            if (paused || (self.ground && self.st.work_cells >= until_work_cells))
                && !bytes.is_empty()
            {
                break;
            }
        }
        total - bytes.len()
    }

    /// Decides how much of `bytes` to hand to the parser (`feed`) and then how much to
    /// skip (`skip`), so that no OSC string over [`MAX_OSC_BYTES`] is buffered. vte
    /// buffers OSC bodies without limit; this tracks `ESC ]` ... terminator around it,
    /// however the bytes are split across calls.
    fn guard_step(&mut self, bytes: &[u8]) -> (usize, usize) {
        const TERMINATORS: [u8; 4] = [0x07, 0x18, 0x1a, 0x1b];
        match self.guard {
            OscGuard::Outside | OscGuard::Escape => {
                match scan_for_osc(self.guard == OscGuard::Escape, bytes) {
                    OscScan::StartsAt(at) => {
                        self.guard = if bytes[at] == b'_' {
                            self.apc.start();
                            OscGuard::Apc
                        } else {
                            OscGuard::Inside(0)
                        };
                        (at + 1, 0)
                    }
                    OscScan::Ends { in_escape } => {
                        self.guard = if in_escape {
                            OscGuard::Escape
                        } else {
                            OscGuard::Outside
                        };
                        (bytes.len(), 0)
                    }
                }
            }
            OscGuard::Inside(len) => {
                let room = MAX_OSC_BYTES - len;
                let window = &bytes[..bytes.len().min(room + 1)];
                match window.iter().position(|b| TERMINATORS.contains(b)) {
                    Some(i) => {
                        self.note_osc_buffered(len + i);
                        self.guard = OscGuard::Outside;
                        (i, 0)
                    }
                    None if window.len() > room => {
                        // Over the cap: stop buffering, drop the rest of this OSC.
                        self.note_osc_buffered(MAX_OSC_BYTES);
                        self.st.osc_truncated = true;
                        self.guard = OscGuard::Skipping;
                        (room, 0)
                    }
                    None => {
                        self.note_osc_buffered(len + window.len());
                        self.guard = OscGuard::Inside(len + window.len());
                        (window.len(), 0)
                    }
                }
            }
            OscGuard::Apc => {
                let (taken, end) = self.apc.read(bytes);
                self.end_apc(end);
                (0, taken)
            }
            OscGuard::Skipping => match bytes.iter().position(|b| TERMINATORS.contains(b)) {
                Some(i) => {
                    self.guard = OscGuard::Outside;
                    (0, i)
                }
                None => (0, bytes.len()),
            },
        }
    }

    /// Turns the ground-state fast path off (everything goes through vte), so tests can
    /// check that both give the same result. Not for production use.
    #[doc(hidden)]
    pub fn set_fast_path(&mut self, on: bool) {
        self.fast_path = on;
    }

    /// vte's OSC buffer keeps its largest size (it is cleared, never shrunk); this
    /// remembers it for [`Terminal::heap_bytes`].
    fn note_osc_buffered(&mut self, len: usize) {
        self.osc_buffer_bytes = self.osc_buffer_bytes.max(len.next_power_of_two());
    }

    pub fn size(&self) -> TermSize {
        TermSize {
            cols: self.st.cols,
            rows: self.st.rows,
        }
    }

    /// Resizes the screen (clamped, see [`TermSize::clamped`]).
    pub fn resize(&mut self, size: TermSize) {
        self.st.resize(size.clamped());
    }

    /// Bytes to write back to the pty (query replies), in order.
    pub fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.st.replies)
    }

    /// True when replies are waiting.
    pub fn has_replies(&self) -> bool {
        !self.st.replies.is_empty()
    }

    pub fn drain_events(&mut self) -> std::vec::Drain<'_, TermEvent> {
        self.st.events.drain(..)
    }

    /// The active screen (primary or alternate).
    pub fn grid(&self) -> &Grid {
        self.st.grid()
    }

    pub fn scrollback(&self) -> &Scrollback {
        &self.st.scrollback
    }

    pub fn cursor(&self) -> Cursor {
        self.st.cursor
    }

    pub fn cursor_shape(&self) -> CursorShape {
        self.st.cursor_shape
    }

    pub fn modes(&self) -> &Modes {
        &self.st.modes
    }

    /// Puts both screens' kitty keyboard flags back to legacy keys (the pane's program
    /// exited, so nothing is left to pop them).
    pub fn reset_keyboard_flags(&mut self) {
        self.st.reset_keyboard_flags();
    }

    pub fn pen(&self) -> &Pen {
        &self.st.pen
    }

    pub fn title(&self) -> &str {
        &self.st.title
    }

    /// The local working directory the shell reported (OSC 7 from this host).
    pub fn cwd(&self) -> Option<&str> {
        self.st.cwd.as_deref()
    }

    /// The last OSC 7 that named another host, as (host, path): where a remote shell
    /// is, never used as a local folder.
    pub fn remote_cwd(&self) -> Option<(&str, &str)> {
        self.st
            .remote_cwd
            .as_ref()
            .map(|(h, p)| (h.as_str(), p.as_str()))
    }

    pub fn palette(&self) -> &Palette {
        &self.st.palette
    }

    /// Changes whenever a program changes the palette.
    pub fn palette_generation(&self) -> u64 {
        self.st.palette_generation
    }

    /// Changes the theme (config reload): colours no program set follow it, and the
    /// next frame carries the palette.
    pub fn set_palette_defaults(&mut self, defaults: DynamicDefaults) {
        self.st.config.palette = defaults;
        self.st.palette.set_defaults(defaults);
        self.st.palette_generation += 1;
    }

    pub fn hyperlink_uri(&self, id: u32) -> Option<&str> {
        self.st.hyperlinks.get(id).map(|h| h.uri.as_str())
    }

    /// Hyperlinks (OSC 8 targets) this terminal holds; at most
    /// [`state::MAX_HYPERLINKS`].
    pub fn hyperlink_count(&self) -> usize {
        self.st.hyperlinks.len()
    }

    /// Titles saved by XTWINOPS 22 (at most [`state::MAX_TITLE_STACK`]).
    pub fn title_stack_len(&self) -> usize {
        self.st.title_stack.len()
    }

    /// Tells the model one cell's size in pixels (for XTWINOPS 14 and 16); until the
    /// app calls this, 8x16 is reported.
    pub fn set_cell_pixel_size(&mut self, width_px: usize, height_px: usize) {
        self.st.cell_pixels = (width_px.max(1), height_px.max(1));
    }

    /// The latest resize a program asked for with XTWINOPS 8 (`CSI 8 ; rows ; cols t`),
    /// taking it. The model never resizes itself; the app may honour or ignore it.
    pub fn take_resize_request(&mut self) -> Option<TermSize> {
        self.st.resize_request.take()
    }

    /// DECLRMM (?69): whether `CSI Pl ; Pr s` sets left/right margins.
    pub fn lr_margin_mode(&self) -> bool {
        self.st.lr_margin_mode
    }

    /// Left/right margins as 0-based `left..right` (exclusive); the full width unless
    /// DECLRMM is set and DECSLRM narrowed them.
    pub fn lr_margins(&self) -> std::ops::Range<usize> {
        self.st.margin_left..self.st.margin_right
    }

    /// The DECRQCRA checksum of a rectangle given as DECRQCRA's `Pt;Pl;Pb;Pr`.
    pub fn rect_checksum(&self, top: u16, left: u16, bottom: u16, right: u16) -> u16 {
        self.st.rect_checksum([top, left, bottom, right])
    }

    /// Scroll region as 0-based `top..bottom` (exclusive).
    pub fn scroll_region(&self) -> std::ops::Range<usize> {
        self.st.scroll_top..self.st.scroll_bottom
    }

    pub fn absolute_cursor_line(&self) -> u64 {
        self.st.absolute_cursor_line()
    }

    /// See [`state::State::output_start_row`].
    pub fn output_start_row(&self) -> Option<usize> {
        self.st.output_start_row()
    }

    pub fn damage(&self) -> &Damage {
        &self.st.damage
    }

    /// Damaged rows since the last call, clearing the damage.
    pub fn take_damage(&mut self) -> Vec<usize> {
        self.st.damage.take()
    }

    /// Encodes up to `lines` scrollback lines whose encoding was deferred
    /// ([`Scrollback::settle_some`]); returns whether some remain.
    pub fn settle_scrollback(&mut self, lines: usize) -> bool {
        self.st.scrollback.settle_some(lines)
    }

    /// Scrollback lines encoded as they are pushed (a flood) or left to wait
    /// ([`Scrollback::set_eager`]).
    pub fn set_scrollback_eager(&mut self, eager: bool) {
        self.st.scrollback.set_eager(eager);
    }

    /// Drops the oldest scrollback lines until at most `max_bytes` are held; returns
    /// the bytes freed. Absolute line numbers stay stable (the drop count grows).
    pub fn trim_scrollback_bytes(&mut self, max_bytes: usize) -> usize {
        self.st.scrollback.trim_to_bytes(max_bytes)
    }

    /// Approximate heap bytes held by this terminal (grids, scrollback, tables, the
    /// parser's OSC buffer).
    pub fn heap_bytes(&self) -> usize {
        self.osc_buffer_bytes
            + self.apc.capacity()
            + self.image_heap_bytes()
            + self.st.primary.heap_bytes()
            + self.st.alt.heap_bytes()
            + self.st.scrollback.heap_bytes()
            + self
                .st
                .hyperlinks
                .iter()
                .map(|h| h.uri.len() + h.id.as_ref().map_or(0, String::len) + 32)
                .sum::<usize>()
            + self.st.replies.capacity()
            + self.st.title.capacity()
            + self.st.events.capacity() * std::mem::size_of::<TermEvent>()
            + self.run.capacity()
            + self.carry.capacity()
            + self
                .st
                .notify_pending
                .as_ref()
                .map_or(0, notify::PendingNotification::heap_bytes)
    }
}
