//! A readable, neutral picture of the visible screen: text rows, attribute runs and the
//! cursor. `tern replay` prints it, expected-screen tests compare against it, and the
//! differential tests build the same picture from the reference emulator.

use std::fmt::{self, Write as _};

use super::{Cell, Terminal};

impl Terminal {
    /// The visible screen as a neutral picture.
    pub fn dump(&self) -> ScreenDump {
        let grid = self.grid();
        let rows = grid
            .iter()
            .map(|r| r.text().trim_end_matches(' ').to_owned())
            .collect();
        let runs = grid
            .iter()
            .map(|r| ScreenDump::runs_from_cells(r.cells.iter().map(Cell::dump_attrs)))
            .collect();
        ScreenDump {
            rows,
            runs,
            cursor: (self.st.cursor.row, self.st.cursor.col),
            images: self.image_dump(),
        }
    }
}

/// A colour as a program asked for it (not yet resolved through the palette).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DumpColor {
    #[default]
    Default,
    Indexed(u8),
    Rgb(u8, u8, u8),
}

/// Underline styles (SGR 4, 4:x and 21).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum UnderlineKind {
    #[default]
    None,
    Single,
    Double,
    Curly,
    Dotted,
    Dashed,
}

/// The attributes of one cell, as the dump compares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DumpAttrs {
    pub fg: DumpColor,
    pub bg: DumpColor,
    pub bold: bool,
    pub dim: bool,
    pub italic: bool,
    pub underline: UnderlineKind,
    pub blink: bool,
    pub inverse: bool,
    pub hidden: bool,
    pub strike: bool,
}

impl DumpAttrs {
    pub fn is_default(&self) -> bool {
        *self == DumpAttrs::default()
    }
}

/// A run of cells `start..end` (0-based columns, end exclusive) with the same non-default
/// attributes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttrRun {
    pub start: usize,
    pub end: usize,
    pub attrs: DumpAttrs,
}

/// The visible screen. Rows hold the text with wide-character spacers skipped, combining
/// marks kept after their base, and trailing spaces trimmed. `cursor` is 0-based
/// `(row, column)`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ScreenDump {
    pub rows: Vec<String>,
    pub runs: Vec<Vec<AttrRun>>,
    pub cursor: (usize, usize),
    /// Images on the screen, one line each (`image 5: 20x30 px at row 0 col 2, 2x2
    /// cells, z 0`); the rows' text never holds them.
    pub images: Vec<String>,
}

impl ScreenDump {
    /// The picture of `rows` with the cursor at `cursor` (0-based row, column).
    pub fn from_rows<'a>(
        rows: impl Iterator<Item = &'a super::Row>,
        cursor: (usize, usize),
    ) -> ScreenDump {
        let mut dump = ScreenDump {
            cursor,
            ..ScreenDump::default()
        };
        for row in rows {
            dump.rows.push(row.text().trim_end_matches(' ').to_owned());
            dump.runs.push(ScreenDump::runs_from_cells(
                row.cells.iter().map(super::Cell::dump_attrs),
            ));
        }
        dump
    }

    /// Builds run lists from per-cell attributes of one row.
    pub fn runs_from_cells(cells: impl IntoIterator<Item = DumpAttrs>) -> Vec<AttrRun> {
        let mut runs: Vec<AttrRun> = Vec::new();
        for (col, attrs) in cells.into_iter().enumerate() {
            if attrs.is_default() {
                continue;
            }
            match runs.last_mut() {
                Some(run) if run.end == col && run.attrs == attrs => run.end = col + 1,
                _ => runs.push(AttrRun {
                    start: col,
                    end: col + 1,
                    attrs,
                }),
            }
        }
        runs
    }

    /// The plain-text form: the rows, then `cursor: ROW COL` (1-based), then, with
    /// `with_attrs`, one `row N: ...` line per row that has attribute runs.
    pub fn render(&self, with_attrs: bool) -> String {
        let mut out = String::new();
        for row in &self.rows {
            out.push_str(row);
            out.push('\n');
        }
        let _ = writeln!(out, "cursor: {} {}", self.cursor.0 + 1, self.cursor.1 + 1);
        if with_attrs {
            out.push_str(&self.render_attrs());
        }
        out
    }

    /// One line per row with runs: `row 3: 1-5 fg=1 bold; 9-9 bg=#ff0000` (1-based,
    /// inclusive columns).
    pub fn render_attrs(&self) -> String {
        let mut out = String::new();
        for (row, runs) in self.runs.iter().enumerate() {
            if runs.is_empty() {
                continue;
            }
            let _ = write!(out, "row {}:", row + 1);
            for (i, run) in runs.iter().enumerate() {
                let sep = if i == 0 { " " } else { "; " };
                let _ = write!(out, "{sep}{}-{} {}", run.start + 1, run.end, run.attrs);
            }
            out.push('\n');
        }
        out
    }
}

impl fmt::Display for DumpColor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DumpColor::Default => f.write_str("default"),
            DumpColor::Indexed(i) => write!(f, "{i}"),
            DumpColor::Rgb(r, g, b) => write!(f, "#{r:02x}{g:02x}{b:02x}"),
        }
    }
}

impl fmt::Display for DumpAttrs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if self.fg != DumpColor::Default {
            parts.push(format!("fg={}", self.fg));
        }
        if self.bg != DumpColor::Default {
            parts.push(format!("bg={}", self.bg));
        }
        let flags = [
            (self.bold, "bold"),
            (self.dim, "dim"),
            (self.italic, "italic"),
            (self.blink, "blink"),
            (self.inverse, "inverse"),
            (self.hidden, "hidden"),
            (self.strike, "strike"),
        ];
        parts.extend(
            flags
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, name)| name.to_string()),
        );
        match self.underline {
            UnderlineKind::None => {}
            UnderlineKind::Single => parts.push("underline".into()),
            other => parts.push(format!("underline={}", format!("{other:?}").to_lowercase())),
        }
        f.write_str(&parts.join(" "))
    }
}
