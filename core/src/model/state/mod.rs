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

pub mod agent_status;
mod controls;
mod editing;
mod geometry;
mod grapheme;
mod graphics;
pub(super) mod ground;
pub mod kitty;
pub mod links;
pub mod notify;
pub(super) mod osc;
mod osc_params;
pub(super) mod perform;
mod printing;
mod reflow;
pub(super) mod reports;
mod screens;
mod scrolling;
pub(super) mod sgr;
mod text;

/// A cell's size in pixels until the window says its own (and in `--headless`): what
/// XTWINOPS 14/16 answer, images are sized by and the pty's `ws_xpixel` carries.
pub const DEFAULT_CELL_PIXELS: (usize, usize) = (8, 16);

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
    /// DECSDM (?80): sixel display mode, images at the screen's top-left corner,
    /// neither scrolling nor moving the cursor (xterm); reset, sixel scrolling.
    pub(super) sixel_display_mode: bool,
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
    /// Images and placements of the primary and the alternate screen (`images/`).
    pub(in crate::model) images_primary: crate::model::images::ImageStore,
    pub(in crate::model) images_alt: crate::model::images::ImageStore,
    /// Lines scrolled off the top of the alternate screen (its placements' line base).
    pub(in crate::model) alt_scrolled_lines: u64,
    /// A kitty graphics transmission still receiving chunks.
    pub(in crate::model) kitty_upload: Option<Box<crate::model::images::kitty::Upload>>,
    /// A sixel image being received (DCS q).
    pub(in crate::model) sixel: Option<Box<crate::model::images::sixel::Decoder>>,
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
            sixel_display_mode: false,
            saved_private_modes: Vec::new(),
            columns_132: false,
            cell_pixels: DEFAULT_CELL_PIXELS,
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
            images_primary: Default::default(),
            images_alt: Default::default(),
            alt_scrolled_lines: 0,
            kitty_upload: None,
            sixel: None,
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
