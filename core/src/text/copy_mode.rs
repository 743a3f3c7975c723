//! Copy mode: a cursor over the screen and the scrollback moved by vi keys, with cell,
//! line and block selections. GUI-free: the window feeds it [`CopyKey`]s, gives it the
//! text of lines through [`LineText`], draws [`CopyMode::cursor`] and
//! [`CopyMode::selection`], and carries out the returned [`CopyAction`].
//!
//! Lines are absolute (counted from the first line the pane ever had, as the window's
//! selection counts them), so output that scrolls the screen leaves the cursor on its
//! text; a line that dropped off the scrollback is clamped to the first one kept.
//!
//! ```text
//!  first_line ─┐  scrollback ...            view_top ─┐ H
//!              │  ...                                 │ M   (the lines shown)
//!              │  screen ...          last_line ──────┘ L
//! ```

use crate::model::marks::PromptMarks;

/// A place in the pane's text: an absolute line and a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CopyPoint {
    pub line: u64,
    pub col: usize,
}

/// How the selection grows from its anchor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopySelectMode {
    /// `v`: cells from the anchor to the cursor, in reading order.
    Cells,
    /// `V`: whole lines.
    Lines,
    /// `Ctrl+V`: the same columns on every line.
    Block,
}

/// A key, as copy mode reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyKey {
    /// A typed character (`w`, `G`, `$`, `/`...).
    Char(char),
    /// Ctrl and a letter (`Ctrl+U` is `Ctrl('u')`).
    Ctrl(char),
    Escape,
}

/// Which way a search goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchDirection {
    /// Toward the end (`/`, `n` after `/`).
    Down,
    /// Toward the start (`?`, `n` after `?`).
    Up,
}

/// What the window does after a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CopyAction {
    /// Nothing beyond redrawing the cursor (and following it with the view).
    Moved,
    /// Copy the selection (clipboard and PRIMARY); copy mode has left.
    Yank {
        start: CopyPoint,
        end: CopyPoint,
        mode: CopySelectMode,
    },
    /// Ask for a search pattern, then call [`CopyMode::search_found`].
    AskSearch(SearchDirection),
    /// Search the last pattern again, from the cursor.
    SearchAgain(SearchDirection),
    /// Copy mode has left.
    Exit,
    /// The key means nothing here.
    Ignored,
}

/// The text of the pane's lines: one char per cell (a wide char's spacer is `'\0'`).
pub trait LineText {
    /// The line's cells, or `None` when it is not there (dropped, past the end).
    fn line(&mut self, line: u64) -> Option<Vec<char>>;
}

/// Where the pane's lines are, at the time of a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyBounds {
    /// The first line still kept (lines before it dropped off the scrollback).
    pub first_line: u64,
    /// The last line of the screen.
    pub last_line: u64,
    /// The first line shown.
    pub view_top: u64,
    /// How many lines are shown.
    pub view_rows: usize,
    /// Columns of the grid.
    pub cols: usize,
}

/// A key that needs the next one (`g` of `gg`, `f` of `fx`, `[` of `[[`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pending {
    G,
    Find { before: bool, backward: bool },
    Bracket(char),
}

/// The copy-mode state of one pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyMode {
    cursor: CopyPoint,
    anchor: Option<(CopyPoint, CopySelectMode)>,
    pending: Option<Pending>,
    count: usize,
    last_search: SearchDirection,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Blank,
    Word,
    Punct,
}

fn class(c: char) -> Class {
    if c.is_whitespace() || c == '\0' {
        Class::Blank
    } else if c.is_alphanumeric() || c == '_' {
        Class::Word
    } else {
        Class::Punct
    }
}

impl CopyMode {
    /// Copy mode entered with its cursor at `at` (the terminal's cursor).
    pub fn new(at: CopyPoint) -> CopyMode {
        CopyMode {
            cursor: at,
            anchor: None,
            pending: None,
            count: 0,
            last_search: SearchDirection::Down,
        }
    }

    pub fn cursor(&self) -> CopyPoint {
        self.cursor
    }

    /// The selection: anchor, cursor and mode, or `None` before `v`/`V`/`Ctrl+V`.
    pub fn selection(&self) -> Option<(CopyPoint, CopyPoint, CopySelectMode)> {
        self.anchor
            .map(|(anchor, mode)| (anchor, self.cursor, mode))
    }

    /// The search the window ran found `at`: the cursor goes there.
    pub fn search_found(&mut self, at: CopyPoint, direction: SearchDirection) {
        self.cursor = at;
        self.last_search = direction;
    }

    /// Moves the cursor to `at` (`n`/`N` to a match of the last search).
    pub fn move_to(&mut self, at: CopyPoint) {
        self.cursor = at;
    }

    /// The direction of the last search (`/` is down, `?` is up).
    pub fn search_direction(&self) -> SearchDirection {
        self.last_search
    }

    /// Keeps the cursor inside the lines that exist (after output dropped old ones).
    pub fn clamp(&mut self, b: &CopyBounds) {
        self.cursor.line = self
            .cursor
            .line
            .clamp(b.first_line, b.last_line.max(b.first_line));
        self.cursor.col = self.cursor.col.min(b.cols.saturating_sub(1));
        if let Some((anchor, _)) = &mut self.anchor {
            anchor.line = anchor
                .line
                .clamp(b.first_line, b.last_line.max(b.first_line));
        }
    }

    /// Handles one key.
    pub fn key(
        &mut self,
        key: CopyKey,
        b: &CopyBounds,
        text: &mut dyn LineText,
        marks: &PromptMarks,
    ) -> CopyAction {
        self.clamp(b);
        if let Some(pending) = self.pending.take() {
            return self.finish_pending(pending, key, b, text, marks);
        }
        let count = self.count.max(1);
        let c = match key {
            CopyKey::Escape => return CopyAction::Exit,
            CopyKey::Ctrl(c) => {
                self.count = 0;
                let half = (b.view_rows / 2).max(1) as u64;
                let page = (b.view_rows.max(1)) as u64;
                let count = count as u64;
                match c.to_ascii_lowercase() {
                    'u' => self.up(half * count, b),
                    'd' => self.down(half * count, b),
                    'b' => self.up(page * count, b),
                    'f' => self.down(page * count, b),
                    'v' => self.toggle(CopySelectMode::Block),
                    'c' => return CopyAction::Exit,
                    _ => return CopyAction::Ignored,
                }
                return CopyAction::Moved;
            }
            CopyKey::Char(c) => c,
        };
        if c.is_ascii_digit() && (c != '0' || self.count > 0) {
            self.count = (self.count * 10 + (c as usize - '0' as usize)).min(100_000);
            return CopyAction::Moved;
        }
        self.count = 0;
        let line_of = |text: &mut dyn LineText, line| text.line(line).unwrap_or_default();
        match c {
            'h' => self.cursor.col = self.cursor.col.saturating_sub(count),
            'l' => self.cursor.col = (self.cursor.col + count).min(b.cols.saturating_sub(1)),
            'k' => self.up(count as u64, b),
            'j' => self.down(count as u64, b),
            '0' => self.cursor.col = 0,
            '^' => {
                let line = line_of(text, self.cursor.line);
                self.cursor.col = line
                    .iter()
                    .position(|c| class(*c) != Class::Blank)
                    .unwrap_or(0);
            }
            '$' => {
                let line = line_of(text, self.cursor.line);
                self.cursor.col = line
                    .iter()
                    .rposition(|c| class(*c) != Class::Blank)
                    .unwrap_or(0);
            }
            'w' => self.repeat(count, |m| m.word_forward(b, text, false)),
            'e' => self.repeat(count, |m| m.word_forward(b, text, true)),
            'b' => self.repeat(count, |m| m.word_backward(b, text)),
            'G' => self.cursor.line = b.last_line,
            'H' => self.cursor.line = b.view_top,
            'M' => self.cursor.line = b.view_top + (b.view_rows as u64).saturating_sub(1) / 2,
            'L' => self.cursor.line = b.view_top + (b.view_rows as u64).saturating_sub(1),
            '}' => self.repeat(count, |m| m.paragraph(b, text, true)),
            '{' => self.repeat(count, |m| m.paragraph(b, text, false)),
            'g' => self.pending = Some(Pending::G),
            'f' | 'F' | 't' | 'T' => {
                self.pending = Some(Pending::Find {
                    before: c.eq_ignore_ascii_case(&'t'),
                    backward: c.is_ascii_uppercase(),
                })
            }
            '[' | ']' => self.pending = Some(Pending::Bracket(c)),
            'v' => self.toggle(CopySelectMode::Cells),
            'V' => self.toggle(CopySelectMode::Lines),
            'y' => {
                let Some((anchor, cursor, mode)) = self.selection() else {
                    return CopyAction::Ignored;
                };
                let (start, end) = if anchor <= cursor {
                    (anchor, cursor)
                } else {
                    (cursor, anchor)
                };
                return CopyAction::Yank { start, end, mode };
            }
            '/' => {
                self.last_search = SearchDirection::Down;
                return CopyAction::AskSearch(SearchDirection::Down);
            }
            '?' => {
                self.last_search = SearchDirection::Up;
                return CopyAction::AskSearch(SearchDirection::Up);
            }
            'n' => return CopyAction::SearchAgain(self.last_search),
            'N' => {
                return CopyAction::SearchAgain(match self.last_search {
                    SearchDirection::Down => SearchDirection::Up,
                    SearchDirection::Up => SearchDirection::Down,
                });
            }
            'q' => return CopyAction::Exit,
            _ => return CopyAction::Ignored,
        }
        self.clamp(b);
        CopyAction::Moved
    }

    fn finish_pending(
        &mut self,
        pending: Pending,
        key: CopyKey,
        b: &CopyBounds,
        text: &mut dyn LineText,
        marks: &PromptMarks,
    ) -> CopyAction {
        let CopyKey::Char(c) = key else {
            return if key == CopyKey::Escape {
                CopyAction::Moved
            } else {
                CopyAction::Ignored
            };
        };
        match pending {
            Pending::G if c == 'g' => self.cursor.line = b.first_line,
            Pending::Find { before, backward } => {
                let line = text.line(self.cursor.line).unwrap_or_default();
                let col = self.cursor.col;
                let found = if backward {
                    let from = col.saturating_sub(usize::from(before));
                    (0..from)
                        .rev()
                        .find(|&i| line[i] == c)
                        .map(|i| i + usize::from(before))
                } else {
                    let from = col + 1 + usize::from(before);
                    (from.min(line.len())..line.len())
                        .find(|&i| line[i] == c)
                        .map(|i| i - usize::from(before))
                };
                if let Some(col) = found {
                    self.cursor.col = col;
                }
            }
            Pending::Bracket(first) if c == first => {
                let found = if first == '[' {
                    marks.previous(self.cursor.line)
                } else {
                    marks.next(self.cursor.line)
                };
                if let Some(line) = found {
                    self.cursor = CopyPoint { line, col: 0 };
                }
            }
            _ => return CopyAction::Ignored,
        }
        self.clamp(b);
        CopyAction::Moved
    }

    /// Runs `motion` `count` times, stopping early once it no longer moves (so a huge
    /// count costs no more than the text it crosses).
    fn repeat(&mut self, count: usize, mut motion: impl FnMut(&mut CopyMode)) {
        for _ in 0..count {
            let before = self.cursor;
            motion(self);
            if self.cursor == before {
                break;
            }
        }
    }

    fn toggle(&mut self, mode: CopySelectMode) {
        self.anchor = match self.anchor {
            Some((_, m)) if m == mode => None,
            Some((at, _)) => Some((at, mode)),
            None => Some((self.cursor, mode)),
        };
    }

    fn up(&mut self, n: u64, b: &CopyBounds) {
        self.cursor.line = self.cursor.line.saturating_sub(n).max(b.first_line);
    }

    fn down(&mut self, n: u64, b: &CopyBounds) {
        self.cursor.line = self.cursor.line.saturating_add(n).min(b.last_line);
    }

    /// `w` (start of the next word) or `e` (end of this or the next word), across lines.
    fn word_forward(&mut self, b: &CopyBounds, text: &mut dyn LineText, to_end: bool) {
        let mut chars = Walk::new(self.cursor, b, text);
        let start = chars.class_here();
        if to_end {
            // Step once, skip blanks, then run to the last char of that class.
            if !chars.step_forward() {
                return;
            }
            while chars.class_here() == Class::Blank {
                if !chars.step_forward() {
                    return;
                }
            }
            let class = chars.class_here();
            while chars.peek_forward() == Some(class) {
                chars.step_forward();
            }
        } else {
            while start != Class::Blank && chars.class_here() == start {
                if !chars.step_forward() {
                    return;
                }
            }
            while chars.class_here() == Class::Blank {
                if !chars.step_forward() {
                    return;
                }
            }
        }
        self.cursor = chars.at;
    }

    /// `b`: the start of this word (when inside it) or of the previous one.
    fn word_backward(&mut self, b: &CopyBounds, text: &mut dyn LineText) {
        let mut chars = Walk::new(self.cursor, b, text);
        if !chars.step_backward() {
            return;
        }
        while chars.class_here() == Class::Blank {
            if !chars.step_backward() {
                self.cursor = chars.at;
                return;
            }
        }
        let class = chars.class_here();
        while chars.peek_backward() == Some(class) {
            chars.step_backward();
        }
        self.cursor = chars.at;
    }

    /// `}` / `{`: the next (previous) blank line that ends a run of text, or the last
    /// (first) line.
    fn paragraph(&mut self, b: &CopyBounds, text: &mut dyn LineText, down: bool) {
        let blank = |text: &mut dyn LineText, line| {
            text.line(line)
                .is_none_or(|l| l.iter().all(|c| class(*c) == Class::Blank))
        };
        let mut line = self.cursor.line;
        // From a line of text the nearest blank line ends it; from a blank line, the
        // blank lines after it are skipped first.
        let mut seen_text = !blank(text, line);
        loop {
            let next = if down {
                line.checked_add(1)
            } else {
                line.checked_sub(1)
            };
            match next.filter(|l| (b.first_line..=b.last_line).contains(l)) {
                Some(l) => line = l,
                None => break,
            }
            if blank(text, line) {
                if seen_text {
                    break;
                }
            } else {
                seen_text = true;
            }
        }
        self.cursor = CopyPoint { line, col: 0 };
    }
}

/// The first of `matches` (in reading order) after `from` going `direction`.
pub fn next_match(
    matches: &[CopyPoint],
    from: CopyPoint,
    direction: SearchDirection,
) -> Option<CopyPoint> {
    match direction {
        SearchDirection::Down => matches.iter().filter(|m| **m > from).min().copied(),
        SearchDirection::Up => matches.iter().filter(|m| **m < from).max().copied(),
    }
}

/// A walk over the cells of consecutive lines; a line's end counts as a blank.
struct Walk<'a> {
    at: CopyPoint,
    b: &'a CopyBounds,
    text: &'a mut dyn LineText,
    line: Vec<char>,
}

impl<'a> Walk<'a> {
    fn new(at: CopyPoint, b: &'a CopyBounds, text: &'a mut dyn LineText) -> Walk<'a> {
        let line = text.line(at.line).unwrap_or_default();
        Walk { at, b, text, line }
    }

    fn class_here(&self) -> Class {
        self.line
            .get(self.at.col)
            .map_or(Class::Blank, |c| class(*c))
    }

    fn width(&self) -> usize {
        self.b.cols.max(1)
    }

    fn step_forward(&mut self) -> bool {
        if self.at.col + 1 < self.width() {
            self.at.col += 1;
            return true;
        }
        if self.at.line >= self.b.last_line {
            return false;
        }
        self.at = CopyPoint {
            line: self.at.line + 1,
            col: 0,
        };
        self.line = self.text.line(self.at.line).unwrap_or_default();
        true
    }

    fn step_backward(&mut self) -> bool {
        if self.at.col > 0 {
            self.at.col -= 1;
            return true;
        }
        if self.at.line <= self.b.first_line {
            return false;
        }
        self.at = CopyPoint {
            line: self.at.line - 1,
            col: self.width() - 1,
        };
        self.line = self.text.line(self.at.line).unwrap_or_default();
        true
    }

    /// The class of the next cell on this line (`None` at the line's end).
    fn peek_forward(&self) -> Option<Class> {
        (self.at.col + 1 < self.width()).then(|| {
            self.line
                .get(self.at.col + 1)
                .map_or(Class::Blank, |c| class(*c))
        })
    }

    fn peek_backward(&self) -> Option<Class> {
        let col = self.at.col.checked_sub(1)?;
        Some(self.line.get(col).map_or(Class::Blank, |c| class(*c)))
    }
}
