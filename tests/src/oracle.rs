//! The reference emulator: `alacritty_terminal` behind the same small surface as
//! [`tern_core::model::Terminal`], producing the same neutral [`ScreenDump`] so that the
//! differential tests can compare the two screens cell by cell.

use std::cell::RefCell;
use std::rc::Rc;

use alacritty_terminal::Term;
use alacritty_terminal::event::{Event, EventListener};
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::term::test::TermSize;
use alacritty_terminal::term::{Config, TermMode};
use alacritty_terminal::vte::ansi::{Color, NamedColor, Processor};
use tern_core::model::{DumpAttrs, DumpColor, ScreenDump, UnderlineKind};

/// Collects the bytes alacritty asks to write back to the pty (`Event::PtyWrite`).
#[derive(Clone, Default)]
struct ReplyCollector {
    replies: Rc<RefCell<Vec<u8>>>,
}

impl EventListener for ReplyCollector {
    fn send_event(&self, event: Event) {
        if let Event::PtyWrite(text) = event {
            self.replies.borrow_mut().extend_from_slice(text.as_bytes());
        }
    }
}

/// alacritty's terminal and parser, fed like the model.
pub struct Oracle {
    term: Term<ReplyCollector>,
    parser: Processor,
    replies: Rc<RefCell<Vec<u8>>>,
}

impl Oracle {
    /// A terminal of `cols` x `rows` cells with alacritty's default configuration.
    pub fn new(cols: usize, rows: usize) -> Oracle {
        let listener = ReplyCollector::default();
        let replies = Rc::clone(&listener.replies);
        let size = TermSize::new(cols, rows);
        let term = Term::new(Config::default(), &size, listener);
        Oracle {
            term,
            parser: Processor::new(),
            replies,
        }
    }

    /// Feeds pty output.
    pub fn advance(&mut self, bytes: &[u8]) {
        self.parser.advance(&mut self.term, bytes);
    }

    /// The bytes the terminal would have written back to the pty since the last call.
    pub fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut *self.replies.borrow_mut())
    }

    /// The cursor position as `(row, column)`, 0-based.
    pub fn cursor(&self) -> (usize, usize) {
        let point = self.term.grid().cursor.point;
        (usize::try_from(point.line.0).unwrap_or(0), point.column.0)
    }

    /// Whether the cursor sits in the last column with the next printable character due to
    /// wrap first.
    pub fn pending_wrap(&self) -> bool {
        self.term.grid().cursor.input_needs_wrap
    }

    /// The screen size as `(columns, rows)`.
    pub fn size(&self) -> (usize, usize) {
        let grid = self.term.grid();
        (grid.columns(), grid.screen_lines())
    }

    /// IRM, insert mode.
    pub fn insert_mode(&self) -> bool {
        self.term.mode().contains(TermMode::INSERT)
    }

    /// DECOM, origin mode.
    pub fn origin_mode(&self) -> bool {
        self.term.mode().contains(TermMode::ORIGIN)
    }

    /// DECAWM, autowrap.
    pub fn autowrap(&self) -> bool {
        self.term.mode().contains(TermMode::LINE_WRAP)
    }

    /// LNM, automatic newline.
    pub fn newline_mode(&self) -> bool {
        self.term.mode().contains(TermMode::LINE_FEED_NEW_LINE)
    }

    /// Whether the alternate screen is shown.
    pub fn alt_screen(&self) -> bool {
        self.term.mode().contains(TermMode::ALT_SCREEN)
    }

    /// Whether visible row `row` holds a cell of a wide character: either half, or a spacer
    /// left behind when the character itself was erased (false past the last row).
    pub fn row_has_wide(&self, row: usize) -> bool {
        let grid = self.term.grid();
        if row >= grid.screen_lines() {
            return false;
        }
        let line = &grid[Line(row as i32)];
        let wide = Flags::WIDE_CHAR | Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER;
        (0..grid.columns()).any(|col| line[Column(col)].flags.intersects(wide))
    }

    /// The visible screen in the neutral form the model dumps.
    pub fn dump(&self) -> ScreenDump {
        let grid = self.term.grid();
        let cols = grid.columns();
        let lines = grid.screen_lines();
        let mut rows = Vec::with_capacity(lines);
        let mut runs = Vec::with_capacity(lines);
        for line in 0..lines {
            let row = &grid[Line(line as i32)];
            let cells = (0..cols).map(|col| &row[Column(col)]);
            rows.push(row_text(cells.clone()));
            runs.push(ScreenDump::runs_from_cells(cells.map(cell_attrs)));
        }
        ScreenDump {
            rows,
            runs,
            cursor: self.cursor(),
            images: Vec::new(),
        }
    }
}

/// The text of one row: spacers after wide characters skipped, zero-width characters after
/// their base, alacritty's tab markers and leading wide-char spacers shown as blanks,
/// trailing spaces trimmed.
fn row_text<'a>(cells: impl Iterator<Item = &'a Cell>) -> String {
    let mut text = String::new();
    for cell in cells {
        if cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
            continue;
        }
        let shown = if cell.c == '\t' || cell.flags.contains(Flags::LEADING_WIDE_CHAR_SPACER) {
            ' '
        } else {
            cell.c
        };
        text.push(shown);
        if let Some(zerowidth) = cell.zerowidth() {
            text.extend(zerowidth.iter());
        }
    }
    let trimmed = text.trim_end_matches(' ').len();
    text.truncate(trimmed);
    text
}

/// The attributes of one cell in the dump's terms.
fn cell_attrs(cell: &Cell) -> DumpAttrs {
    let flags = cell.flags;
    DumpAttrs {
        fg: dump_color(cell.fg),
        bg: dump_color(cell.bg),
        bold: flags.contains(Flags::BOLD),
        dim: flags.contains(Flags::DIM),
        italic: flags.contains(Flags::ITALIC),
        underline: underline_kind(flags),
        // alacritty does not implement blinking text.
        blink: false,
        inverse: flags.contains(Flags::INVERSE),
        hidden: flags.contains(Flags::HIDDEN),
        strike: flags.contains(Flags::STRIKEOUT),
    }
}

fn underline_kind(flags: Flags) -> UnderlineKind {
    if flags.contains(Flags::UNDERLINE) {
        UnderlineKind::Single
    } else if flags.contains(Flags::DOUBLE_UNDERLINE) {
        UnderlineKind::Double
    } else if flags.contains(Flags::UNDERCURL) {
        UnderlineKind::Curly
    } else if flags.contains(Flags::DOTTED_UNDERLINE) {
        UnderlineKind::Dotted
    } else if flags.contains(Flags::DASHED_UNDERLINE) {
        UnderlineKind::Dashed
    } else {
        UnderlineKind::None
    }
}

/// Maps alacritty's colour to the colour as the program set it.
pub fn dump_color(color: Color) -> DumpColor {
    match color {
        Color::Spec(rgb) => DumpColor::Rgb(rgb.r, rgb.g, rgb.b),
        Color::Indexed(index) => DumpColor::Indexed(index),
        Color::Named(named) => named_color(named),
    }
}

fn named_color(named: NamedColor) -> DumpColor {
    let index = named as usize;
    // Black..BrightWhite are 0..=15; everything else (Foreground, Background, Cursor, the
    // dim variants) is a default colour rather than a palette slot the program chose.
    match u8::try_from(index) {
        Ok(index) if index < 16 => DumpColor::Indexed(index),
        _ => DumpColor::Default,
    }
}
