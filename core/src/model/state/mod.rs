//! The terminal's state and its typed operations. The vte performer
//! (`perform.rs`) decodes sequences and calls these methods; nothing else mutates the
//! screen.

use super::cell::{BOUND, Cell, Color, Flags, Underline, write_ascii};
use super::charset::{Charset, Charsets};
use super::grid::{CellExtra, Grid, Row};
use super::modes::{Modes, RecordedMode};
use super::palette::Palette;
use super::scrollback::Scrollback;
use super::width::char_width;
use super::{TermConfig, TermEvent, TermSize};

mod geometry;
mod grapheme;
pub(super) mod ground;
pub mod kitty;
pub mod links;
pub mod notify;
pub(super) mod osc;
mod osc_params;
pub(super) mod perform;
mod reflow;
pub(super) mod reports;
mod text;

/// The SGR state new cells are written with.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Pen {
    pub fg: Color,
    pub bg: Color,
    pub flags: Flags,
    pub underline: Underline,
    pub underline_color: Option<Color>,
    pub hyperlink: Option<u32>,
    /// DECSCA: cells written now are protected from selective erase.
    pub protected: bool,
}

impl Pen {
    pub fn template(&self) -> Cell {
        Cell::styled(self.fg, self.bg, self.flags, self.underline)
            .with_protected(self.protected)
            .with_drawn(true)
    }

    /// Whether the pen carries out-of-line attributes (kept in the row's side table).
    #[inline]
    pub fn has_extra(&self) -> bool {
        self.underline_color.is_some() || self.hyperlink.is_some()
    }

    /// Out-of-line attributes the pen carries, if any.
    pub fn extra(&self) -> Option<CellExtra> {
        if !self.has_extra() {
            return None;
        }
        Some(CellExtra {
            combining: Vec::new(),
            hyperlink: self.hyperlink,
            underline_color: self.underline_color,
        })
    }
}

/// xterm's protected-mode state: which kind of protection the cells written with a
/// protected pen have. DECSCA chooses `Dec` (only DECSED, DECSEL and DECSERA keep
/// them), SPA chooses `Iso` (ED, EL and ECH keep them too, and so do DECSED and
/// DECSEL, as in xterm). DECSTR and RIS go back to `Off`, where no erase keeps them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Protection {
    #[default]
    Off,
    Dec,
    Iso,
}

/// Cursor position (0-based, screen-relative) and the wrap-pending state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Cursor {
    pub row: usize,
    pub col: usize,
    /// The last column was just written: the next printable character wraps first.
    pub pending_wrap: bool,
}

/// What DECSC saves.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SavedCursor {
    pub cursor: Cursor,
    pub pen: Pen,
    pub charsets: Charsets,
    pub origin: bool,
}

/// DECSCUSR cursor shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum CursorShape {
    #[default]
    Block,
    Underline,
    Beam,
}

/// Per-row damage since the last frame was built.
#[derive(Clone, Debug, Default)]
pub struct Damage {
    rows: Vec<bool>,
    any: bool,
    /// Marks ever made (never cleared): whether anything on the screen may have
    /// changed between two looks that are not frames (the question scan).
    edits: u64,
}

impl Damage {
    fn new(rows: usize) -> Damage {
        Damage {
            rows: vec![true; rows],
            any: true,
            edits: 1,
        }
    }
    #[inline]
    pub fn mark(&mut self, row: usize) {
        if let Some(r) = self.rows.get_mut(row) {
            *r = true;
            self.any = true;
            self.edits = self.edits.wrapping_add(1);
        }
    }
    pub fn mark_all(&mut self) {
        self.rows.iter_mut().for_each(|r| *r = true);
        self.any = true;
        self.edits = self.edits.wrapping_add(1);
    }
    /// Marks ever made; equal between two looks only if no row was marked between.
    pub fn edits(&self) -> u64 {
        self.edits
    }
    pub fn is_damaged(&self, row: usize) -> bool {
        self.rows.get(row).copied().unwrap_or(false)
    }
    pub fn any(&self) -> bool {
        self.any
    }
    /// The damaged rows, clearing them.
    pub fn take(&mut self) -> Vec<usize> {
        let rows = self
            .rows
            .iter()
            .enumerate()
            .filter(|(_, d)| **d)
            .map(|(i, _)| i)
            .collect();
        self.rows.iter_mut().for_each(|r| *r = false);
        self.any = false;
        rows
    }
    fn resize(&mut self, rows: usize) {
        self.rows = vec![true; rows];
        self.any = true;
        self.edits = self.edits.wrapping_add(1);
    }
}

/// Caps that keep memory bounded under any input.
pub const MAX_TITLE_CHARS: usize = 1024;
pub use links::MAX_HYPERLINKS;
pub const MAX_URI_BYTES: usize = 2048;
/// Longest OSC 8 `id=` kept; a longer id is dropped (the link stays, ungrouped).
pub const MAX_LINK_ID_BYTES: usize = 256;
pub const MAX_TITLE_STACK: usize = 16;

/// The highest DECSCL level (65: level 5, a VT520), the one tern starts at.
pub const MAX_CONFORMANCE_LEVEL: u16 = 65;

/// A hyperlink from OSC 8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hyperlink {
    pub id: Option<String>,
    pub uri: String,
}

pub struct State {
    pub(super) cols: usize,
    pub(super) rows: usize,
    pub(super) primary: Grid,
    pub(super) alt: Grid,
    pub(super) scrollback: Scrollback,
    pub(super) cursor: Cursor,
    pub(super) saved_primary: SavedCursor,
    pub(super) saved_alt: SavedCursor,
    pub(super) pen: Pen,
    pub(super) template: Cell,
    pub(super) pen_extra: Option<CellExtra>,
    pub(super) charsets: Charsets,
    pub(super) modes: Modes,
    pub(super) scroll_top: usize,
    /// Exclusive.
    pub(super) scroll_bottom: usize,
    /// DECLRMM (?69): `CSI Pl ; Pr s` sets left/right margins (else it is SCOSC). Kept
    /// here, not in `Modes`, which frames carry and which the app does not need it in.
    pub(super) lr_margin_mode: bool,
    /// Left margin (DECSLRM, only while DECLRMM is set; else 0).
    pub(super) margin_left: usize,
    /// Right margin, exclusive (else `cols`).
    pub(super) margin_right: usize,
    /// DECSCL conformance level (61..=65; tern starts at 65, a VT520, as xterm with
    /// `decTerminalID: 520`). RIS goes back to it.
    pub(super) conformance_level: u16,
    /// DECNCSM (?95, a level-5 mode): DECCOLM keeps the screen instead of clearing it.
    pub(super) no_clear_on_column_switch: bool,
    /// DECSACE's parameter as a program gave it (DECRQSS reports it back): 2 makes
    /// DECCARA/DECRARA act on the exact rectangle, anything else on the stream of
    /// characters from the start position to the end position.
    pub(super) attr_change_extent: u16,
    /// Which protection the last DECSCA or SPA chose; it decides which erases keep
    /// protected cells (see [`Protection`]).
    pub(super) protection: Protection,
    /// ?45: BS and CUB wrap back to the line above.
    pub(super) reverse_wrap: bool,
    /// ?40: DECCOLM may switch between 80 and 132 columns.
    pub(super) allow_column_switch: bool,
    /// ?41, xterm's "more(1) fix" (its `curses` resource): a tab in the wrap-pending
    /// state wraps first.
    pub(super) tab_wraps_pending: bool,
    /// XTSAVE's slots: DEC private modes and whether each was set (one entry per mode,
    /// so bounded by the modes tern reports).
    pub(super) saved_private_modes: Vec<(u16, bool)>,
    /// ?3 as DECRQM reports it: the last DECCOLM or DECSCPP asked for 132 columns.
    pub(super) columns_132: bool,
    /// One cell's size in pixels (`width, height`), told by the app (XTWINOPS 14/16).
    pub(super) cell_pixels: (usize, usize),
    /// The last XTWINOPS 8 resize request, waiting for the app (which may ignore it).
    pub(super) resize_request: Option<TermSize>,
    /// A DCS request being received (DECRQSS, XTGETTCAP).
    pub(super) dcs: Option<reports::DcsRequest>,
    pub(super) tabs: Vec<bool>,
    pub(super) palette: Palette,
    /// Bumped whenever a program changes the palette (frames carry it only then).
    pub(super) palette_generation: u64,
    pub(super) title: String,
    /// xterm's title mode 0 (`CSI > 0 t`): OSC 0/1/2 carry the title hex-encoded.
    pub(super) title_hex: bool,
    /// XTWINOPS 22/23 entries; `None` for one that saved only the icon label.
    pub(super) title_stack: Vec<Option<String>>,
    pub(super) cwd: Option<String>,
    pub(super) hyperlinks: links::LinkTable,
    pub(super) cursor_shape: CursorShape,
    pub(super) last_printed: Option<char>,
    pub(super) replies: Vec<u8>,
    pub(super) events: Vec<TermEvent>,
    pub(super) damage: Damage,
    pub(super) config: TermConfig,
    /// The OSC being received overflowed its cap; its dispatch is ignored.
    pub(super) osc_truncated: bool,
    /// The last OSC 7 from another host: (host, path), a hint, never a local folder.
    pub(super) remote_cwd: Option<(String, String)>,
    /// Kitty keyboard flag stacks, one per screen (`kitty.rs`).
    pub(super) keyboard: kitty::KeyboardStacks,
    /// An OSC 99 notification still receiving parts (`notify.rs`).
    pub(super) notify_pending: Option<notify::PendingNotification>,
    /// Where the shell's input began (OSC 133 B): absolute line and column.
    pub(super) input_start: Option<(u64, usize)>,
    /// Where the running command's output began (OSC 133 C, until the next A): an
    /// absolute line.
    pub(super) output_start: Option<u64>,
    /// Cells touched by operations whose cost grows with the pane's area (rectangle
    /// operations, DECIC/DECDC, DECSED, REP, DECALN), cumulative: the model thread
    /// counts it against a pane's slice ([`super::Terminal::advance_bounded`]).
    pub(super) work_cells: u64,
}

fn default_tabs(cols: usize) -> Vec<bool> {
    (0..cols).map(|c| c % 8 == 0 && c != 0).collect()
}

impl State {
    /// Whether the DECSCL level is at least VT level `level` (1..=5): xterm's
    /// `vtXX_level >= level`.
    #[inline]
    pub(super) fn at_level(&self, level: u16) -> bool {
        self.conformance_level >= 60 + level
    }

    pub fn new(size: TermSize, config: TermConfig) -> State {
        let cols = size.cols.max(2);
        let rows = size.rows.max(1);
        let pen = Pen::default();
        State {
            cols,
            rows,
            primary: Grid::new(cols, rows),
            alt: Grid::new(cols, rows),
            scrollback: Scrollback::new(config.scrollback_lines, config.scrollback_bytes),
            cursor: Cursor::default(),
            saved_primary: SavedCursor::default(),
            saved_alt: SavedCursor::default(),
            template: pen.template(),
            pen,
            pen_extra: None,
            charsets: Charsets::default(),
            modes: Modes {
                cursor_blink: config.cursor_blink,
                ..Modes::default()
            },
            scroll_top: 0,
            scroll_bottom: rows,
            lr_margin_mode: false,
            margin_left: 0,
            margin_right: cols,
            conformance_level: MAX_CONFORMANCE_LEVEL,
            no_clear_on_column_switch: false,
            attr_change_extent: 0,
            protection: Protection::Off,
            reverse_wrap: false,
            allow_column_switch: false,
            tab_wraps_pending: false,
            saved_private_modes: Vec::new(),
            columns_132: false,
            cell_pixels: (8, 16),
            resize_request: None,
            dcs: None,
            tabs: default_tabs(cols),
            palette: Palette::new(config.palette),
            palette_generation: 0,
            title: String::new(),
            title_hex: false,
            title_stack: Vec::new(),
            cwd: None,
            hyperlinks: links::LinkTable::default(),
            cursor_shape: config.cursor_shape,
            last_printed: None,
            work_cells: 0,
            replies: Vec::new(),
            events: Vec::new(),
            damage: Damage::new(rows),
            config,
            osc_truncated: false,
            remote_cwd: None,
            input_start: None,
            output_start: None,
            keyboard: Default::default(),
            notify_pending: None,
        }
    }

    // ---- accessors ----

    #[inline]
    pub fn grid(&self) -> &Grid {
        if self.modes.alt_screen {
            &self.alt
        } else {
            &self.primary
        }
    }

    #[inline]
    fn grid_mut(&mut self) -> &mut Grid {
        if self.modes.alt_screen {
            &mut self.alt
        } else {
            &mut self.primary
        }
    }

    #[inline]
    pub(super) fn row_mut(&mut self, row: usize) -> &mut Row {
        self.damage.mark(row);
        self.grid_mut().row_mut(row)
    }

    /// True when `col` is inside the left/right margins.
    #[inline]
    pub(super) fn col_in_margins(&self, col: usize) -> bool {
        col >= self.margin_left && col < self.margin_right
    }

    /// True when left/right margins are narrower than the screen.
    #[inline]
    pub(super) fn has_lr_margins(&self) -> bool {
        self.margin_left != 0 || self.margin_right != self.cols
    }

    /// The column just past the last one the cursor may write or move to on its line:
    /// the right margin when the cursor is left of it, else the screen edge (xterm).
    #[inline]
    fn right_edge(&self) -> usize {
        if self.cursor.col < self.margin_right {
            self.margin_right
        } else {
            self.cols
        }
    }

    /// The leftmost column the cursor may move back to: the left margin when the
    /// cursor is at or right of it, else column 0.
    #[inline]
    fn left_edge(&self) -> usize {
        if self.cursor.col >= self.margin_left {
            self.margin_left
        } else {
            0
        }
    }

    pub(super) fn pen_changed(&mut self) {
        self.template = self.pen.template();
        // Most pens have no out-of-line attributes before or after (an SGR after every
        // few characters of a TUI): nothing to build or drop then.
        if self.pen_extra.is_some() || self.pen.has_extra() {
            self.pen_extra = self.pen.extra();
        }
    }

    /// A blank for erasing: current background, nothing else (background colour erase).
    #[inline]
    pub(super) fn erase_cell(&self) -> Cell {
        Cell::blank_with_bg(self.pen.bg)
    }

    /// Queues a reply, written with 7-bit controls; after S8C1T they go out as 8-bit C1
    /// bytes (CSI 0x9B, DCS 0x90, OSC 0x9D, ST 0x9C), as xterm sends them.
    pub(super) fn reply(&mut self, bytes: &[u8]) {
        if !self.modes.eight_bit_controls {
            self.replies.extend_from_slice(bytes);
            return;
        }
        let mut i = 0;
        while i < bytes.len() {
            let c1 = match (bytes[i], bytes.get(i + 1)) {
                (0x1b, Some(b'[')) => Some(0x9b),
                (0x1b, Some(b'P')) => Some(0x90),
                (0x1b, Some(b']')) => Some(0x9d),
                (0x1b, Some(b'\\')) => Some(0x9c),
                _ => None,
            };
            match c1 {
                Some(byte) => {
                    self.replies.push(byte);
                    i += 2;
                }
                None => {
                    self.replies.push(bytes[i]);
                    i += 1;
                }
            }
        }
    }

    /// The cursor's line counted from the first line ever written (stable while
    /// scrollback is trimmed).
    pub fn absolute_cursor_line(&self) -> u64 {
        self.scrollback.dropped() + self.scrollback.len() as u64 + self.cursor.row as u64
    }

    /// The first screen row the running command printed (OSC 133 C), if a command
    /// runs: 0 when its start has scrolled off; `None` at a prompt, without marks, or
    /// on the alternate screen (which the command drew whole).
    pub fn output_start_row(&self) -> Option<usize> {
        if self.modes.alt_screen {
            return None;
        }
        let top = self.scrollback.dropped() + self.scrollback.len() as u64;
        let line = self.output_start?;
        Some(usize::try_from(line.saturating_sub(top)).unwrap_or(usize::MAX))
    }

    /// The text from the shell's input start (OSC 133 B) to the cursor: the command
    /// line the user typed, rows joined (a wrapped row without a newline). `None` when
    /// there was no B, or its row has left the screen. At most [`INPUT_ROWS`] rows are
    /// read, so a huge paste costs a bounded scan.
    pub fn input_text(&self) -> Option<String> {
        const INPUT_ROWS: usize = 16;
        let (line, col) = self.input_start?;
        let top = self.scrollback.dropped() + self.scrollback.len() as u64;
        let first = usize::try_from(line.checked_sub(top)?).ok()?;
        let grid = self.grid();
        // After Enter the cursor sits at the start of the row below the input.
        let last = if self.cursor.col == 0 && self.cursor.row > first {
            self.cursor.row - 1
        } else {
            self.cursor.row
        };
        if first >= grid.rows() || last < first || last - first >= INPUT_ROWS {
            return None;
        }
        let mut text = String::new();
        for r in first..=last {
            let row = grid.row(r);
            let t = row.text_from(if r == first { col } else { 0 });
            text.push_str(if row.wrapped { &t } else { t.trim_end() });
            if !row.wrapped && r != last {
                text.push('\n');
            }
        }
        Some(text)
    }

    // ---- printing ----

    pub fn print(&mut self, c: char) {
        let width = if (c as u32) < 0x7f {
            1
        } else {
            match char_width(c) {
                Some(w) => w,
                None => return,
            }
        };
        if self.modes.grapheme_clusters && c as u32 >= 0x7f && self.join_cluster(c) {
            return;
        }
        if width == 0 {
            self.push_combining(c);
            return;
        }
        self.last_printed = Some(c);
        if self.cursor.pending_wrap {
            self.wrap_line();
        }
        let cols = self.right_edge();
        if self.modes.insert && self.cursor.col + width < cols {
            let (row, col, blank) = (self.cursor.row, self.cursor.col, self.erase_cell());
            self.row_mut(row)
                .insert_cells_before(col, cols, width, blank);
        }
        let c = self.charsets.map(c);
        if width == 1 {
            self.write_cell(c, Flags::empty());
        } else {
            if self.cursor.col + 1 >= cols {
                if self.modes.autowrap {
                    self.write_cell(' ', Flags::LEADING_SPACER);
                    self.wrap_line();
                } else {
                    self.cursor.pending_wrap = true;
                    return;
                }
            }
            self.write_cell(c, Flags::WIDE);
            self.cursor.col += 1;
            self.write_cell(' ', Flags::WIDE_SPACER);
        }
        if self.cursor.col + 1 < cols {
            self.cursor.col += 1;
        } else {
            self.cursor.pending_wrap = true;
        }
    }

    /// Prints a run of printable ASCII: a row slice at a time when nothing special is
    /// in effect, else character by character through [`State::print`].
    pub fn print_ascii_run(&mut self, text: &[u8]) {
        if self.plain_printing() {
            self.print_ascii(text);
        } else {
            for &b in text {
                self.print(b as char);
            }
        }
    }

    /// True when text can be written straight into the cells: autowrap on, no insert
    /// mode, no left/right margins, no out-of-line pen attributes, the ASCII charset.
    #[inline]
    pub(super) fn plain_printing(&self) -> bool {
        !self.modes.insert
            && !self.has_lr_margins()
            && self.modes.autowrap
            && self.pen_extra.is_none()
            && self.charsets.slots[self.charsets.active] == Charset::Ascii
    }

    /// Writes printable ASCII with autowrap on, no insert mode, the ASCII charset and no
    /// out-of-line pen attributes.
    fn print_ascii(&mut self, mut bytes: &[u8]) {
        let cols = self.cols;
        let template = self.template;
        while !bytes.is_empty() {
            if self.cursor.pending_wrap {
                self.wrap_line();
            }
            let (row, col) = (self.cursor.row, self.cursor.col);
            let n = bytes.len().min(cols - col);
            let r = self.row_mut(row);
            // A narrow character over the left half of a wide one orphans its spacer:
            // with a spacer after the run, every character takes the careful path.
            let spacer_after =
                col + n < cols && r.cells[col + n].flags().contains(Flags::WIDE_SPACER);
            let free = if spacer_after {
                0
            } else {
                write_ascii(&mut r.cells[col..col + n], &bytes[..n], template)
            };
            if free > 0 {
                self.last_printed = Some(bytes[free - 1] as char);
                if col + free >= cols {
                    self.cursor.col = cols - 1;
                    self.cursor.pending_wrap = true;
                } else {
                    self.cursor.col = col + free;
                }
            }
            // From the first cell that is not free (a wide half or side-table entry in
            // the way), the careful path.
            for &b in &bytes[free..n] {
                self.print(b as char);
            }
            bytes = &bytes[n..];
        }
    }

    /// Writes one cell at the cursor with the pen, fixing up any wide character it
    /// overwrites half of.
    #[inline]
    fn write_cell(&mut self, c: char, extra_flags: Flags) {
        let (row, col) = (self.cursor.row, self.cursor.col);
        let mut cell = self.template.with_ch(c);
        cell.insert_flags(extra_flags);
        self.damage.mark(row);
        let grid = if self.modes.alt_screen {
            &mut self.alt
        } else {
            &mut self.primary
        };
        let target = &mut grid.row_mut(row).cells[col];
        if self.pen_extra.is_none() && !target.flags().intersects(BOUND) {
            *target = cell;
            return;
        }
        self.write_cell_slow(cell);
    }

    fn write_cell_slow(&mut self, cell: Cell) {
        let (row, col, cols) = (self.cursor.row, self.cursor.col, self.cols);
        let pen_extra = self.pen_extra.take();
        let grid = if self.modes.alt_screen {
            &mut self.alt
        } else {
            &mut self.primary
        };
        let r = grid.row_mut(row);
        let old = r.cells[col].flags();
        if old.intersects(Flags::WIDE.union(Flags::WIDE_SPACER)) {
            if old.contains(Flags::WIDE) && col + 1 < cols {
                r.cells[col + 1].remove_flags(Flags::WIDE_SPACER);
            } else if old.contains(Flags::WIDE_SPACER) && col > 0 {
                let left = &mut r.cells[col - 1];
                left.remove_flags(Flags::WIDE);
                left.set_ch(' ');
                if left.flags().contains(Flags::EXTRA) {
                    r.remove_extra(col - 1);
                }
            }
            if col <= 1 && row > 0 {
                grid.row_mut(row - 1).cells[cols - 1].remove_flags(Flags::LEADING_SPACER);
            }
        }
        grid.row_mut(row).write(col, cell, pen_extra.as_ref());
        self.pen_extra = pen_extra;
    }

    fn push_combining(&mut self, c: char) {
        let row = self.cursor.row;
        let mut col = self.cursor.col;
        if !self.cursor.pending_wrap {
            col = col.saturating_sub(1);
        }
        if self.grid().row(row).cells[col]
            .flags()
            .contains(Flags::WIDE_SPACER)
        {
            col = col.saturating_sub(1);
        }
        self.row_mut(row).push_combining(col, c);
    }

    /// REP: repeat the last printed character.
    pub fn repeat_last(&mut self, count: usize) {
        if let Some(c) = self.last_printed {
            self.charge_cells(count.min(u16::MAX as usize));
            for _ in 0..count.min(u16::MAX as usize) {
                self.print(c);
            }
        }
    }

    pub(super) fn wrap_line(&mut self) {
        if !self.modes.autowrap {
            return;
        }
        let row = self.cursor.row;
        if !self.has_lr_margins() {
            self.row_mut(row).wrapped = true;
        }
        if self.cursor.row + 1 >= self.scroll_bottom {
            self.linefeed();
        } else {
            self.cursor.row += 1;
        }
        self.cursor.col = self.margin_left;
        self.cursor.pending_wrap = false;
    }

    // ---- C0 controls ----

    /// LF, IND (and the line feed of NEL and of a wrap): down one line, scrolling at the
    /// bottom margin. The column stays and a pending wrap is cancelled (xterm: after a
    /// full line, LF then a character writes it in the last column of the next line).
    pub fn linefeed(&mut self) {
        self.cursor.pending_wrap = false;
        let next = self.cursor.row + 1;
        if next == self.scroll_bottom {
            // Outside the left/right margins the cursor stays and nothing scrolls.
            if self.col_in_margins(self.cursor.col) {
                self.scroll_up(1);
            }
        } else if next < self.rows {
            self.cursor.row = next;
        }
    }

    /// LF, VT, FF: a line feed, plus a carriage return in LNM.
    pub fn newline(&mut self) {
        self.linefeed();
        if self.modes.newline {
            self.carriage_return();
        }
    }

    /// CR: to the left margin, or to column 0 from left of it.
    pub fn carriage_return(&mut self) {
        self.cursor.col = self.left_edge();
        self.cursor.pending_wrap = false;
    }

    /// BS: one column back (see [`State::cursor_back`] for the margins and reverse
    /// wraparound).
    pub fn backspace(&mut self) {
        self.cursor_back(1);
    }

    /// HT: to the next tab stop (or the last column), `count` times. With ?41 and
    /// autowrap on, a pending wrap is carried out first (index, column 0), as xterm's
    /// `TabNext` does for each step.
    pub fn tab_forward(&mut self, count: usize) {
        let edge = self.right_edge();
        if self.tab_wraps_pending && self.cursor.pending_wrap && self.modes.autowrap {
            self.index();
            self.cursor.col = 0;
            self.cursor.pending_wrap = false;
        }
        for _ in 0..count {
            if self.cursor.col + 1 >= edge {
                break;
            }
            let mut col = self.cursor.col + 1;
            while col + 1 < edge && !self.tabs[col] {
                col += 1;
            }
            self.cursor.col = col;
        }
    }

    /// CBT: to the previous tab stop (or column 0), `count` times. Like xterm it
    /// ignores the margins, except that in origin mode it stops at the left margin.
    pub fn tab_backward(&mut self, count: usize) {
        let edge = if self.modes.origin {
            self.margin_left
        } else {
            0
        };
        for _ in 0..count {
            if self.cursor.col <= edge {
                break;
            }
            let mut col = self.cursor.col - 1;
            while col > edge && !self.tabs[col] {
                col -= 1;
            }
            self.cursor.col = col;
        }
        self.cursor.pending_wrap = false;
    }

    pub fn set_tab_stop(&mut self) {
        let col = self.cursor.col;
        self.tabs[col] = true;
    }

    /// TBC: 0 clears the stop at the cursor, 3 clears all.
    pub fn clear_tab_stops(&mut self, mode: u16) {
        match mode {
            0 => {
                let col = self.cursor.col;
                self.tabs[col] = false;
            }
            3 => self.tabs.iter_mut().for_each(|t| *t = false),
            _ => {}
        }
    }

    pub fn bell(&mut self) {
        self.events.push(TermEvent::Bell);
    }

    // ---- cursor movement ----

    /// CUP/HVP with 0-based coordinates, relative to the scroll region in origin mode.
    /// In origin mode also relative to the left margin, and kept inside the margins.
    pub fn goto(&mut self, row: usize, col: usize) {
        let (offset, max_row, col_offset, max_col) = if self.modes.origin {
            (
                self.scroll_top,
                self.scroll_bottom - 1,
                self.margin_left,
                self.margin_right - 1,
            )
        } else {
            (0, self.rows - 1, 0, self.cols - 1)
        };
        self.cursor.row = (row.saturating_add(offset)).min(max_row);
        self.cursor.col = (col.saturating_add(col_offset)).min(max_col);
        self.cursor.pending_wrap = false;
    }

    /// Cursor column relative to the origin (what `goto` takes).
    pub(super) fn origin_col(&self) -> usize {
        if self.modes.origin {
            self.cursor.col.saturating_sub(self.margin_left)
        } else {
            self.cursor.col
        }
    }

    /// Cursor row relative to the origin (what `goto` takes).
    pub(super) fn origin_row(&self) -> usize {
        if self.modes.origin {
            self.cursor.row.saturating_sub(self.scroll_top)
        } else {
            self.cursor.row
        }
    }

    pub fn goto_row(&mut self, row: usize) {
        let col = self.origin_col();
        self.goto(row, col);
    }

    pub fn goto_col(&mut self, col: usize) {
        let row = self.origin_row();
        self.goto(row, col);
    }

    /// CUU (and CPL): stops at the top margin when starting inside the scroll region
    /// (or in origin mode), else at the top of the screen.
    pub fn move_up(&mut self, n: usize) {
        let origin = self.modes.origin;
        let top = if origin || self.cursor.row >= self.scroll_top {
            self.scroll_top
        } else {
            0
        };
        let mut row = self.cursor.row.saturating_sub(n).max(top);
        if origin {
            row = row.min(self.scroll_bottom - 1);
        }
        self.cursor.row = row;
        self.cursor.pending_wrap = false;
    }

    /// CUD (and CNL, VPR): stops at the bottom margin when starting inside the scroll
    /// region (or in origin mode), else at the bottom of the screen.
    pub fn move_down(&mut self, n: usize) {
        let origin = self.modes.origin;
        let bottom = if origin || self.cursor.row < self.scroll_bottom {
            self.scroll_bottom - 1
        } else {
            self.rows - 1
        };
        let mut row = self.cursor.row.saturating_add(n).min(bottom);
        if origin {
            row = row.max(self.scroll_top);
        }
        self.cursor.row = row;
        self.cursor.pending_wrap = false;
    }

    /// CUF: stops at the right margin from inside the margins, else at the edge.
    pub fn move_forward(&mut self, n: usize) {
        let last = self.right_edge() - 1;
        self.cursor.col = self.cursor.col.saturating_add(n).min(last);
        self.cursor.pending_wrap = false;
    }

    /// CUB: stops at the left margin from inside the margins, else at column 0 (or
    /// wraps back with ?45, see [`State::cursor_back`]).
    pub fn move_backward(&mut self, n: usize) {
        self.cursor_back(n);
    }

    /// IND
    pub fn index(&mut self) {
        self.linefeed();
    }

    /// RI: up one line, scrolling down at the top margin; cancels a pending wrap.
    pub fn reverse_index(&mut self) {
        self.cursor.pending_wrap = false;
        if self.cursor.row == self.scroll_top {
            if self.col_in_margins(self.cursor.col) {
                self.scroll_down(1);
            }
        } else {
            self.cursor.row = self.cursor.row.saturating_sub(1);
        }
    }

    // ---- scrolling ----

    /// SU and the scroll of a line feed at the bottom margin.
    pub fn scroll_up(&mut self, n: usize) {
        let top = self.scroll_top;
        self.scroll_up_from(top, n);
    }

    pub fn scroll_down(&mut self, n: usize) {
        let top = self.scroll_top;
        self.scroll_down_from(top, n);
    }

    pub(super) fn scroll_up_from(&mut self, top: usize, n: usize) {
        let bottom = self.scroll_bottom;
        let bg = self.pen.bg;
        if self.has_lr_margins() {
            // Only the margin box moves, and nothing goes to the scrollback.
            let (left, right) = (self.margin_left, self.margin_right);
            self.shift_box_rows(top, bottom, left, right, n, true);
            return;
        }
        if self.modes.alt_screen {
            self.alt.scroll_up(top, bottom, n, bg, None);
        } else {
            let keep = top == 0;
            let sb = if keep {
                Some(&mut self.scrollback)
            } else {
                None
            };
            self.primary.scroll_up(top, bottom, n, bg, sb);
        }
        self.damage.mark_all();
    }

    pub(super) fn scroll_down_from(&mut self, top: usize, n: usize) {
        let bottom = self.scroll_bottom;
        let bg = self.pen.bg;
        if self.has_lr_margins() {
            let (left, right) = (self.margin_left, self.margin_right);
            self.shift_box_rows(top, bottom, left, right, n, false);
            return;
        }
        self.grid_mut().scroll_down(top, bottom, n, bg);
        self.damage.mark_all();
    }

    /// Moves the cells of columns `left..right` in rows `top..bottom` up (or down) by
    /// `n` rows, blanks (current background) entering at the other end.
    pub(super) fn shift_box_rows(
        &mut self,
        top: usize,
        bottom: usize,
        left: usize,
        right: usize,
        n: usize,
        up: bool,
    ) {
        if top >= bottom || left >= right {
            return;
        }
        let n = n.min(bottom - top);
        let blank = self.erase_cell();
        let order: Vec<usize> = if up {
            (top..bottom).collect()
        } else {
            (top..bottom).rev().collect()
        };
        // Every line feed at the bottom margin comes here while DECLRMM narrows the box,
        // so the band moves as a slice plus its side-table entries: a flood of line
        // feeds must cost a copy per row, not a lookup per cell.
        let mut band: Vec<Cell> = Vec::with_capacity(right - left);
        for dst in order {
            let src = if up { dst + n } else { dst.wrapping_sub(n) };
            let inside = if up { src < bottom } else { dst >= top + n };
            if inside {
                let from = self.grid().row(src);
                band.clear();
                band.extend_from_slice(&from.cells[left..right]);
                let extras = from.extras_in(left..right);
                self.row_mut(dst).set_band(left, &band, extras);
            } else {
                self.row_mut(dst).fill(left, right, blank);
            }
        }
        self.damage.mark_all();
    }

    /// DECSTBM with 1-based inclusive bounds (0 or missing = default).
    pub fn set_scroll_region(&mut self, top: usize, bottom: Option<usize>) {
        let bottom = bottom
            .filter(|b| *b > 0)
            .unwrap_or(self.rows)
            .min(self.rows);
        let top = top.max(1);
        if top >= bottom {
            return;
        }
        self.scroll_top = top - 1;
        self.scroll_bottom = bottom;
        self.goto(0, 0);
    }

    /// DECSLRM with 1-based inclusive columns (0 or missing = default); only while
    /// DECLRMM is set. A margin pair narrower than two columns is ignored (xterm).
    pub fn set_lr_margins(&mut self, left: usize, right: Option<usize>) {
        if !self.lr_margin_mode {
            return;
        }
        let right = right.filter(|r| *r > 0).unwrap_or(self.cols).min(self.cols);
        let left = left.max(1);
        if left >= right {
            return;
        }
        self.margin_left = left - 1;
        self.margin_right = right;
        self.goto(0, 0);
    }

    /// DECLRMM (?69): switching it either way resets the left/right margins.
    pub fn set_lr_margin_mode(&mut self, on: bool) {
        self.lr_margin_mode = on;
        self.margin_left = 0;
        self.margin_right = self.cols;
    }

    // ---- editing ----

    /// True when the cursor is inside the scroll region and the left/right margins,
    /// where IL and DL act.
    fn cursor_in_line_box(&self) -> bool {
        let row = self.cursor.row;
        row >= self.scroll_top && row < self.scroll_bottom && self.col_in_margins(self.cursor.col)
    }

    /// IL and DL move the cursor to the left margin (DEC, xterm), cancelling a pending
    /// wrap.
    fn line_edit_home(&mut self) {
        self.cursor.col = self.margin_left;
        self.cursor.pending_wrap = false;
    }

    /// IL
    pub fn insert_lines(&mut self, n: usize) {
        let row = self.cursor.row;
        if self.cursor_in_line_box() {
            self.line_edit_home();
            self.scroll_down_from(row, n);
        }
    }

    /// DL
    pub fn delete_lines(&mut self, n: usize) {
        let row = self.cursor.row;
        if self.cursor_in_line_box() && n > 0 {
            self.line_edit_home();
            let bottom = self.scroll_bottom;
            if self.has_lr_margins() {
                let (left, right) = (self.margin_left, self.margin_right);
                self.shift_box_rows(row, bottom, left, right, n, true);
                return;
            }
            let bg = self.pen.bg;
            self.grid_mut().scroll_up(row, bottom, n, bg, None);
            self.damage.mark_all();
        }
    }

    /// ICH: inside the margins it shifts only up to the right margin; outside them it
    /// does nothing. Like xterm it cancels a pending wrap, and DECRQCRA counts its
    /// blanks as written spaces.
    pub fn insert_blanks(&mut self, n: usize) {
        self.cursor.pending_wrap = false;
        let (row, col) = (self.cursor.row, self.cursor.col);
        let blank = self.erase_cell().with_drawn(true);
        if !self.col_in_margins(col) {
            return;
        }
        let end = self.margin_right;
        self.row_mut(row).insert_cells_before(col, end, n, blank);
    }

    /// DCH: like ICH, bounded by the right margin.
    pub fn delete_chars(&mut self, n: usize) {
        self.cursor.pending_wrap = false;
        let (row, col, blank) = (self.cursor.row, self.cursor.col, self.erase_cell());
        if !self.col_in_margins(col) {
            return;
        }
        let end = self.margin_right;
        self.row_mut(row).delete_cells_before(col, end, n, blank);
    }

    /// ECH. Cancels a pending wrap; DECRQCRA counts its blanks as written spaces.
    pub fn erase_chars(&mut self, n: usize) {
        self.cursor.pending_wrap = false;
        let (row, col) = (self.cursor.row, self.cursor.col);
        let blank = self.erase_cell().with_drawn(true);
        let end = col.saturating_add(n.max(1));
        self.erase_span(row, col, end, blank);
    }

    /// Fills `start..end` of `row` with `blank` for ED, EL and ECH: under ISO
    /// protection (SPA) protected cells are kept, as in xterm.
    fn erase_span(&mut self, row: usize, start: usize, end: usize, blank: Cell) {
        let keep_protected = self.protection == Protection::Iso;
        let r = self.row_mut(row);
        if !keep_protected {
            r.fill(start, end, blank);
            return;
        }
        for col in start..end.min(r.cells.len()) {
            if !r.cells[col].is_protected() {
                r.fill(col, col + 1, blank);
            }
        }
    }

    /// EL: 0 right of the cursor, 1 left of it, 2 the whole line. Cancels a pending
    /// wrap; DECRQCRA counts the blanks of EL 1 (only) as written spaces, as xterm does.
    pub fn erase_in_line(&mut self, mode: u16) {
        self.cursor.pending_wrap = false;
        let (row, col, cols) = (self.cursor.row, self.cursor.col, self.cols);
        let blank = self.erase_cell().with_drawn(mode == 1);
        let (start, end) = match mode {
            0 => (col, cols),
            1 => (0, col + 1),
            2 => (0, cols),
            _ => return,
        };
        self.erase_span(row, start, end, blank);
        if end == cols {
            self.row_mut(row).wrapped = false;
        }
    }

    /// ED: 0 below, 1 above, 2 all, 3 scrollback.
    pub fn erase_in_display(&mut self, mode: u16) {
        if mode <= 2 {
            self.cursor.pending_wrap = false;
        }
        let (row, rows, blank) = (self.cursor.row, self.rows, self.erase_cell());
        match mode {
            0 => {
                self.erase_in_line(0);
                for r in row + 1..rows {
                    self.erase_row(r, blank);
                }
            }
            1 => {
                for r in 0..row {
                    self.erase_row(r, blank);
                }
                self.erase_in_line(1);
            }
            2 => {
                for r in 0..rows {
                    self.erase_row(r, blank);
                }
            }
            3 => {
                self.scrollback.clear();
                self.events.push(TermEvent::ScrollbackCleared);
            }
            _ => {}
        }
    }

    /// Blanks a whole row, protected cells included.
    fn reset_row(&mut self, row: usize, blank: Cell) {
        let cols = self.cols;
        let r = self.row_mut(row);
        r.fill(0, cols, blank);
        r.wrapped = false;
    }

    /// Blanks a whole row for ED (see [`State::erase_span`]).
    fn erase_row(&mut self, row: usize, blank: Cell) {
        let cols = self.cols;
        self.erase_span(row, 0, cols, blank);
        self.row_mut(row).wrapped = false;
    }

    /// Blanks the whole screen, protected cells included (DECCOLM, as xterm's
    /// `ClearScreen`).
    pub(super) fn clear_screen(&mut self) {
        self.cursor.pending_wrap = false;
        let blank = self.erase_cell();
        for r in 0..self.rows {
            self.reset_row(r, blank);
        }
    }

    /// DECALN: fill the screen with 'E', reset margins, home the cursor.
    pub fn screen_alignment(&mut self) {
        let cols = self.cols;
        self.charge_cells(cols * self.rows);
        for r in 0..self.rows {
            let row = self.row_mut(r);
            row.fill(0, cols, Cell::BLANK.with_ch('E').with_drawn(true));
            row.wrapped = false;
        }
        self.scroll_top = 0;
        self.scroll_bottom = self.rows;
        self.margin_left = 0;
        self.margin_right = self.cols;
        self.cursor = Cursor::default();
    }

    // ---- cursor save/restore, alternate screen ----

    pub fn save_cursor(&mut self) {
        let saved = SavedCursor {
            cursor: self.cursor,
            pen: self.pen.clone(),
            charsets: self.charsets,
            origin: self.modes.origin,
        };
        if self.modes.alt_screen {
            self.saved_alt = saved;
        } else {
            self.saved_primary = saved;
        }
    }

    pub fn restore_cursor(&mut self) {
        let saved = if self.modes.alt_screen {
            self.saved_alt.clone()
        } else {
            self.saved_primary.clone()
        };
        self.cursor = saved.cursor;
        self.cursor.row = self.cursor.row.min(self.rows - 1);
        self.cursor.col = self.cursor.col.min(self.cols - 1);
        self.pen = saved.pen;
        self.pen_changed();
        self.charsets = saved.charsets;
        self.modes.origin = saved.origin;
    }

    /// Enters the alternate screen. `save_cursor` for 1049, `clear` for 1047/1049.
    pub fn enter_alt_screen(&mut self, save_cursor: bool, clear: bool) {
        if self.modes.alt_screen {
            return;
        }
        if save_cursor {
            self.save_cursor();
        }
        self.modes.alt_screen = true;
        self.sync_keyboard_flags();
        if clear {
            let blank = self.erase_cell();
            for r in 0..self.rows {
                self.reset_row(r, blank);
            }
        }
        self.damage.mark_all();
    }

    /// Leaves the alternate screen. `restore_cursor` for 1049, `clear` for 1047.
    pub fn leave_alt_screen(&mut self, restore_cursor: bool, clear: bool) {
        if !self.modes.alt_screen {
            return;
        }
        if clear {
            let blank = self.erase_cell();
            for r in 0..self.rows {
                self.reset_row(r, blank);
            }
        }
        self.modes.alt_screen = false;
        self.sync_keyboard_flags();
        if restore_cursor {
            self.restore_cursor();
        }
        self.damage.mark_all();
    }

    // ---- resets ----

    /// DECSTR: soft reset, xterm's list: cursor shown with the configured shape and
    /// blink, replace mode, absolute origin, autowrap on, reverse wraparound off,
    /// keyboard unlocked, normal cursor keys and keypad, full margins (top/bottom and
    /// left/right) and DECLRMM off, default pen (SGR and DECSCA) and no protection
    /// mode, default charsets, the ANSI colours (OSC 4), the active screen's saved
    /// cursor back to home. The screen, the cursor position, tab stops, the special
    /// and dynamic colours and the other modes are kept.
    pub fn soft_reset(&mut self) {
        self.reverse_wrap = false;
        self.protection = Protection::Off;
        self.cursor_shape = self.config.cursor_shape;
        self.modes.cursor_blink = self.config.cursor_blink;
        self.modes.recorded.set(RecordedMode::Kam, false);
        // xterm's ReallyReset resets the ANSI colours (OSC 4) on DECSTR too; the
        // special and dynamic colours (OSC 5, 10-19) are kept.
        let palette_before = self.palette.clone();
        self.palette.reset_all_indexed();
        if self.palette != palette_before {
            self.palette_generation += 1;
            self.damage.mark_all();
        }
        self.modes.insert = false;
        self.modes.origin = false;
        self.modes.autowrap = true;
        self.modes.show_cursor = true;
        self.modes.app_cursor_keys = false;
        self.modes.app_keypad = false;
        self.scroll_top = 0;
        self.scroll_bottom = self.rows;
        self.margin_left = 0;
        self.margin_right = self.cols;
        self.pen = Pen::default();
        self.pen_changed();
        self.charsets = Charsets::default();
        // xterm's ReallyReset: resetMarginMode, then CursorSave of the reset state with
        // the position set to home, into the active screen's slot only.
        self.lr_margin_mode = false;
        if self.modes.alt_screen {
            self.saved_alt = SavedCursor::default();
        } else {
            self.saved_primary = SavedCursor::default();
        }
        self.cursor.pending_wrap = false;
    }

    /// RIS: everything back to power-on, scrollback included, except the special and
    /// dynamic colours (OSC 5, 10-19), which xterm keeps.
    pub fn full_reset(&mut self) {
        let size = TermSize {
            cols: self.cols,
            rows: self.rows,
        };
        let config = self.config.clone();
        let events = std::mem::take(&mut self.events);
        let generation = self.palette_generation;
        let replies = std::mem::take(&mut self.replies);
        let cell_pixels = self.cell_pixels;
        let resize_request = self.resize_request.take();
        // xterm: RIS goes back to 80 columns when 132 were selected while ?40 allowed
        // switching.
        let back_to_80 = self.allow_column_switch && self.columns_132;
        // Hyperlink ids and absolute line numbers must never be reused: rows the UI
        // still holds (and marks, search results) refer to them. So the link table
        // survives, and the scrollback is cleared in place (its drop count goes on).
        let hyperlinks = std::mem::take(&mut self.hyperlinks);
        // As in xterm 379, RIS resets the ANSI colours (OSC 4) but keeps the special
        // and dynamic colours a program set (OSC 5, 10-19).
        let mut palette = self.palette.clone();
        palette.reset_all_indexed();
        let mut scrollback = std::mem::replace(&mut self.scrollback, Scrollback::new(0, 0));
        let had_history = !scrollback.is_empty();
        scrollback.clear();
        *self = State::new(size, config);
        self.palette = palette;
        self.hyperlinks = hyperlinks;
        self.scrollback = scrollback;
        // What the app told the model, and a request the app has not read yet, outlive
        // the reset.
        self.cell_pixels = cell_pixels;
        self.resize_request = resize_request;
        if back_to_80 && self.cols != geometry::NORMAL_COLUMNS {
            self.program_resize(TermSize::new(geometry::NORMAL_COLUMNS, self.rows));
        }
        // A reset palette is a change too.
        self.palette_generation = generation + 1;
        // Answers to queries that came before the reset still go out.
        self.events = events;
        self.replies = replies;
        self.events.push(TermEvent::Title(String::new()));
        if had_history {
            self.events.push(TermEvent::ScrollbackCleared);
        }
    }

    pub fn designate_charset(&mut self, slot: usize, charset: Charset) {
        if let Some(s) = self.charsets.slots.get_mut(slot) {
            *s = charset;
        }
    }

    pub fn invoke_charset(&mut self, slot: usize) {
        if slot < 4 {
            self.charsets.active = slot;
        }
    }

    pub fn set_title(&mut self, title: &str) {
        let title: String = title
            .chars()
            .filter(|c| !c.is_control())
            .take(MAX_TITLE_CHARS)
            .collect();
        if title != self.title {
            self.title = title.clone();
            self.events.push(TermEvent::Title(title));
        }
    }

    /// XTWINOPS 22: pushes an entry; it holds the title unless only the icon label
    /// (which tern does not keep) was to be saved.
    pub fn push_title(&mut self, save_title: bool) {
        if self.title_stack.len() >= MAX_TITLE_STACK {
            self.title_stack.remove(0);
        }
        self.title_stack
            .push(save_title.then(|| self.title.clone()));
    }

    /// XTWINOPS 23: pops an entry (whatever `restore_title` says, as xterm) and restores
    /// its title when asked to and it holds one.
    pub fn pop_title(&mut self, restore_title: bool) {
        if let Some(Some(title)) = self.title_stack.pop()
            && restore_title
        {
            self.set_title(&title);
        }
    }

    /// Interns an OSC 8 hyperlink, returning its id; `None` when the table is full
    /// of links cells still use.
    pub fn intern_hyperlink(&mut self, id: Option<&str>, uri: &str) -> Option<u32> {
        if uri.len() > MAX_URI_BYTES {
            return None;
        }
        let id = id.filter(|id| id.len() <= MAX_LINK_ID_BYTES);
        if let Some(found) = self.hyperlinks.find(id, uri) {
            return Some(found);
        }
        if !self.hyperlinks.has_room() && !self.collect_links() {
            return None;
        }
        Some(self.hyperlinks.insert(Hyperlink {
            id: id.map(str::to_owned),
            uri: uri.to_owned(),
        }))
    }

    /// Drops the links nothing refers to (both screens, the scrollback, the pen, the
    /// saved cursors); returns whether a new one has room. The scan counts as work
    /// ([`State::work_cells`]).
    fn collect_links(&mut self) -> bool {
        if !self.hyperlinks.collection_due() {
            return false;
        }
        let mut used = std::collections::HashSet::new();
        let pens = [&self.pen, &self.saved_primary.pen, &self.saved_alt.pen];
        used.extend(pens.iter().filter_map(|p| p.hyperlink));
        let mut note = |row: &super::grid::Row| {
            used.extend(row.extras().iter().filter_map(|(_, e)| e.hyperlink));
        };
        let mut rows = 0;
        for row in self.primary.iter().chain(self.alt.iter()) {
            note(row);
            rows += 1;
        }
        for row in self.scrollback.iter() {
            note(&row);
            rows += 1;
        }
        self.charge_cells(rows * self.cols);
        self.hyperlinks.retain(&used);
        self.hyperlinks.has_room()
    }

    // ---- resize ----

    pub fn resize(&mut self, size: TermSize) {
        let cols = size.cols.max(2);
        let rows = size.rows.max(1);
        if cols == self.cols && rows == self.rows {
            return;
        }
        reflow::resize(self, cols, rows);
        self.cols = cols;
        self.rows = rows;
        self.scroll_top = 0;
        self.scroll_bottom = rows;
        self.margin_left = 0;
        self.margin_right = cols;
        let mut tabs = default_tabs(cols);
        for (i, t) in self.tabs.iter().enumerate().take(cols) {
            tabs[i] = *t;
        }
        self.tabs = tabs;
        self.damage.resize(rows);
        self.cursor.row = self.cursor.row.min(rows - 1);
        self.cursor.col = self.cursor.col.min(cols - 1);
        for saved in [&mut self.saved_primary, &mut self.saved_alt] {
            saved.cursor.row = saved.cursor.row.min(rows - 1);
            saved.cursor.col = saved.cursor.col.min(cols - 1);
        }
    }
}
