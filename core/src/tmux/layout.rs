//! tmux layout strings: `%layout-change`'s and `list-windows`'s `#{window_layout}`.
//!
//! ```text
//! 8205,80x24,0,0{40x24,0,0,0,39x24,41,0,1}
//! ^^^^ checksum of the rest (4 hex digits)
//!      ^^^^^^^^^ a cell: WIDTHxHEIGHT,X,Y
//!               { ... } its children left to right   [ ... ] top to bottom
//!                ^^^^^^^^^^ a pane: WIDTHxHEIGHT,X,Y,PANE_ID (the number of %0)
//! ```
//!
//! The checksum is tmux's (a 16-bit rotate right and add over the bytes after the
//! comma); a string whose checksum does not match is refused, as tmux refuses it.
//! [`Layout`]'s `Display` writes the same string tmux does, so parse and print round
//! trip.

use std::fmt;

use super::TmuxPaneId;

/// Deepest nesting accepted (tmux itself cannot split that deep on any real screen);
/// keeps hostile input from exhausting the stack.
pub const MAX_LAYOUT_DEPTH: usize = 64;

/// A parsed layout: the window's root cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub root: LayoutCell,
}

/// One cell of a layout: its size and offset in character cells, and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutCell {
    pub width: u32,
    pub height: u32,
    pub x: u32,
    pub y: u32,
    pub content: CellContent,
}

/// What a layout cell holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CellContent {
    /// A pane. tmux always writes the id; a layout written by hand may leave it out.
    Pane(Option<TmuxPaneId>),
    /// Children side by side (`{…}`), at least one.
    LeftRight(Vec<LayoutCell>),
    /// Children one above the other (`[…]`), at least one.
    TopBottom(Vec<LayoutCell>),
}

/// Why a layout string did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// No `XXXX,` checksum prefix.
    MissingChecksum,
    /// The checksum does not match the rest of the string.
    Checksum { written: u16, computed: u16 },
    /// Something unexpected at byte `at` of the string (after the checksum).
    Syntax { at: usize, expected: &'static str },
    /// Nested deeper than [`MAX_LAYOUT_DEPTH`].
    TooDeep,
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::MissingChecksum => write!(f, "no checksum prefix"),
            LayoutError::Checksum { written, computed } => {
                write!(f, "checksum {written:04x} does not match {computed:04x}")
            }
            LayoutError::Syntax { at, expected } => write!(f, "expected {expected} at byte {at}"),
            LayoutError::TooDeep => write!(f, "nested deeper than {MAX_LAYOUT_DEPTH}"),
        }
    }
}

impl std::error::Error for LayoutError {}

/// tmux's layout checksum.
pub fn checksum(body: &[u8]) -> u16 {
    body.iter().fold(0u16, |csum, &b| {
        let rotated = (csum >> 1) | ((csum & 1) << 15);
        rotated.wrapping_add(u16::from(b))
    })
}

impl Layout {
    /// Parses `cccc,BODY`, checking the checksum.
    pub fn parse(text: &str) -> Result<Layout, LayoutError> {
        let bytes = text.as_bytes();
        if bytes.len() < 5 || bytes[4] != b',' || !bytes[..4].iter().all(u8::is_ascii_hexdigit) {
            return Err(LayoutError::MissingChecksum);
        }
        let written =
            u16::from_str_radix(&text[..4], 16).map_err(|_| LayoutError::MissingChecksum)?;
        let body = &bytes[5..];
        let computed = checksum(body);
        if written != computed {
            return Err(LayoutError::Checksum { written, computed });
        }
        let mut cursor = Cursor { bytes: body, at: 0 };
        let root = cursor.cell(0)?;
        if cursor.at != body.len() {
            return Err(cursor.syntax("the end of the layout"));
        }
        Ok(Layout { root })
    }

    /// The panes in layout order (left to right, top to bottom), as tmux assigns them.
    pub fn panes(&self) -> Vec<TmuxPaneId> {
        let mut out = Vec::new();
        self.root.collect_panes(&mut out);
        out
    }

    /// The body without its checksum.
    pub fn body(&self) -> String {
        let mut body = String::new();
        self.root.write(&mut body);
        body
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let body = self.body();
        write!(f, "{:04x},{body}", checksum(body.as_bytes()))
    }
}

impl LayoutCell {
    fn collect_panes(&self, out: &mut Vec<TmuxPaneId>) {
        match &self.content {
            CellContent::Pane(id) => out.extend(*id),
            CellContent::LeftRight(children) | CellContent::TopBottom(children) => {
                for child in children {
                    child.collect_panes(out);
                }
            }
        }
    }

    fn write(&self, out: &mut String) {
        use std::fmt::Write as _;
        let _ = write!(out, "{}x{},{},{}", self.width, self.height, self.x, self.y);
        let (open, close, children) = match &self.content {
            CellContent::Pane(Some(id)) => {
                let _ = write!(out, ",{}", id.0);
                return;
            }
            CellContent::Pane(None) => return,
            CellContent::LeftRight(children) => ('{', '}', children),
            CellContent::TopBottom(children) => ('[', ']', children),
        };
        out.push(open);
        for (i, child) in children.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            child.write(out);
        }
        out.push(close);
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn syntax(&self, expected: &'static str) -> LayoutError {
        LayoutError::Syntax {
            at: self.at,
            expected,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, b: u8, expected: &'static str) -> Result<(), LayoutError> {
        if self.peek() == Some(b) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.syntax(expected))
        }
    }

    fn number(&mut self) -> Result<u32, LayoutError> {
        let start = self.at;
        let mut value: u32 = 0;
        while let Some(b) = self.peek().filter(u8::is_ascii_digit) {
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u32::from(b - b'0')))
                .ok_or(LayoutError::Syntax {
                    at: start,
                    expected: "a number below 2^32",
                })?;
            self.at += 1;
        }
        if self.at == start {
            return Err(self.syntax("a number"));
        }
        Ok(value)
    }

    fn cell(&mut self, depth: usize) -> Result<LayoutCell, LayoutError> {
        if depth > MAX_LAYOUT_DEPTH {
            return Err(LayoutError::TooDeep);
        }
        let width = self.number()?;
        self.eat(b'x', "'x'")?;
        let height = self.number()?;
        self.eat(b',', "','")?;
        let x = self.number()?;
        self.eat(b',', "','")?;
        let y = self.number()?;
        // `,ID` follows a pane; a `,` followed by the next cell's `WxH` is a sibling.
        let mut id = None;
        if self.peek() == Some(b',') {
            let saved = self.at;
            self.at += 1;
            match self.number() {
                Ok(n) if self.peek() != Some(b'x') => id = Some(TmuxPaneId(n)),
                _ => self.at = saved,
            }
        }
        let content = match self.peek() {
            Some(open @ (b'{' | b'[')) => {
                if id.is_some() {
                    return Err(self.syntax("',', '}', ']' or the end after a pane id"));
                }
                let close = if open == b'{' { b'}' } else { b']' };
                let mut children = Vec::new();
                loop {
                    self.at += 1; // the bracket or the comma
                    children.push(self.cell(depth + 1)?);
                    match self.peek() {
                        Some(b',') => continue,
                        Some(b) if b == close => break,
                        _ => {
                            return Err(self.syntax(if close == b'}' {
                                "',' or '}'"
                            } else {
                                "',' or ']'"
                            }));
                        }
                    }
                }
                self.at += 1;
                if open == b'{' {
                    CellContent::LeftRight(children)
                } else {
                    CellContent::TopBottom(children)
                }
            }
            None | Some(b',' | b'}' | b']') => CellContent::Pane(id),
            Some(_) => return Err(self.syntax("'{', '[', ',', '}', ']' or the end")),
        };
        Ok(LayoutCell {
            width,
            height,
            x,
            y,
            content,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pane(width: u32, height: u32, x: u32, y: u32, id: u32) -> LayoutCell {
        LayoutCell {
            width,
            height,
            x,
            y,
            content: CellContent::Pane(Some(TmuxPaneId(id))),
        }
    }

    #[test]
    fn a_left_right_split_from_real_tmux() {
        let text = "8205,80x24,0,0{40x24,0,0,0,39x24,41,0,1}";
        let layout = Layout::parse(text).unwrap();
        assert_eq!(
            layout.root,
            LayoutCell {
                width: 80,
                height: 24,
                x: 0,
                y: 0,
                content: CellContent::LeftRight(vec![
                    pane(40, 24, 0, 0, 0),
                    pane(39, 24, 41, 0, 1)
                ]),
            }
        );
        assert_eq!(layout.panes(), vec![TmuxPaneId(0), TmuxPaneId(1)]);
        assert_eq!(layout.to_string(), text);
    }

    #[test]
    fn a_single_pane_and_nested_splits_round_trip() {
        for body in [
            "100x30,0,0,0",
            "80x24,0,0[80x12,0,0,0,80x11,0,13{40x11,0,13,1,39x11,41,13,2}]",
            "80x24,0,0{40x24,0,0[40x12,0,0,3,40x11,0,13,4],39x24,41,0,5}",
        ] {
            let text = format!("{:04x},{body}", checksum(body.as_bytes()));
            let layout = Layout::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(layout.to_string(), text);
        }
        assert_eq!(checksum(b"100x30,0,0,0"), 0xa87d);
    }

    #[test]
    fn a_wrong_checksum_is_refused() {
        assert_eq!(
            Layout::parse("8206,80x24,0,0{40x24,0,0,0,39x24,41,0,1}"),
            Err(LayoutError::Checksum {
                written: 0x8206,
                computed: 0x8205
            })
        );
        assert_eq!(
            Layout::parse("80x24,0,0,1"),
            Err(LayoutError::MissingChecksum)
        );
    }

    #[test]
    fn broken_bodies_are_syntax_errors() {
        for body in [
            "",
            "80x24",
            "80x24,0,0{",
            "80x24,0,0{}",
            "80x24,0,0{1x1,0,0,1]",
            "80x24,0,0,1{1x1,0,0}",
            "80x24,0,0?",
            "99999999999x1,0,0",
        ] {
            let text = format!("{:04x},{body}", checksum(body.as_bytes()));
            assert!(Layout::parse(&text).is_err(), "{text} parsed");
        }
    }

    #[test]
    fn hostile_nesting_is_refused_not_a_stack_overflow() {
        let body = format!(
            "{}1x1,0,0,1{}",
            "1x1,0,0{".repeat(10_000),
            "}".repeat(10_000)
        );
        let text = format!("{:04x},{body}", checksum(body.as_bytes()));
        assert_eq!(Layout::parse(&text), Err(LayoutError::TooDeep));
    }
}
