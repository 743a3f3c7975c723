//! Resize: the primary screen reflows soft-wrapped lines to the new width (scrollback
//! included); the alternate screen is cut or padded.

use std::collections::{HashMap, VecDeque};

use super::{Cursor, State};
use crate::model::cell::{Cell, Flags};
use crate::model::grid::{CellExtra, Grid, Row};

pub fn resize(st: &mut State, cols: usize, rows: usize) {
    let in_alt = st.modes.alt_screen;
    // The primary cursor: live, or the one 1049 saved while the alternate screen is up.
    let mut cursor = if in_alt {
        st.saved_primary.cursor
    } else {
        st.cursor
    };
    if cols != st.cols {
        reflow_primary(st, cols, rows, &mut cursor);
    } else {
        resize_rows_primary(st, rows, &mut cursor);
    }
    if in_alt {
        st.saved_primary.cursor = cursor;
        let mut alt_cursor = st.cursor;
        cut_grid(&mut st.alt, cols, rows, &mut alt_cursor);
        st.cursor = alt_cursor;
    } else {
        st.cursor = cursor;
        let mut alt_cursor = st.saved_alt.cursor;
        cut_grid(&mut st.alt, cols, rows, &mut alt_cursor);
    }
}

/// Same width: shrink by moving rows above the cursor into scrollback; grow by pulling
/// rows back out of scrollback.
fn resize_rows_primary(st: &mut State, rows: usize, cursor: &mut Cursor) {
    let cols = st.cols;
    let mut lines = st.primary.take_rows();
    if rows < lines.len() {
        let overflow = (cursor.row + 1).saturating_sub(rows);
        for _ in 0..overflow {
            if let Some(row) = lines.pop_front() {
                st.scrollback.push(&row);
            }
        }
        cursor.row -= overflow;
        lines.truncate(rows);
    } else {
        while lines.len() < rows {
            match st.scrollback.pop_newest() {
                Some(mut row) => {
                    row.set_len(cols);
                    lines.push_front(row);
                    cursor.row += 1;
                }
                None => break,
            }
        }
        while lines.len() < rows {
            lines.push_back(Row::blank(cols, Default::default()));
        }
    }
    st.primary.set_rows(lines, cols);
}

fn cut_grid(grid: &mut Grid, cols: usize, rows: usize, cursor: &mut Cursor) {
    let mut lines = grid.take_rows();
    let overflow = (cursor.row + 1).saturating_sub(rows);
    for _ in 0..overflow {
        lines.pop_front();
    }
    cursor.row -= overflow;
    lines.truncate(rows);
    while lines.len() < rows {
        lines.push_back(Row::blank(cols, Default::default()));
    }
    for row in lines.iter_mut() {
        row.set_len(cols);
        if let Some(last) = row.cells.last_mut()
            && last.flags().contains(Flags::WIDE)
        {
            *last = Cell::BLANK;
        }
    }
    cursor.col = cursor.col.min(cols - 1);
    cursor.pending_wrap = false;
    grid.set_rows(lines, cols);
}

/// A logical line: cells of all its soft-wrapped rows, and side-table entries keyed by
/// offset in the line.
struct Logical {
    cells: Vec<Cell>,
    extras: Vec<(usize, CellExtra)>,
}

fn reflow_primary(st: &mut State, cols: usize, rows: usize, cursor: &mut Cursor) {
    let old_cols = st.cols;
    let history = st.scrollback.take_all();
    let screen = st.primary.take_rows();
    let history_len = history.len();
    let cursor_abs = history_len + cursor.row;
    // Rows below the cursor that are blank are dropped, not reflowed.
    let screen: Vec<Row> = screen.into_iter().collect();
    let last_content = screen
        .iter()
        .rposition(|r| r.cells.iter().any(|c| !c.is_default_blank()));
    let keep_screen = last_content
        .map_or(0, |i| i + 1)
        .max(cursor.row + 1)
        .min(screen.len());

    let mut logicals: Vec<Logical> = Vec::new();
    let mut current = Logical {
        cells: Vec::new(),
        extras: Vec::new(),
    };
    // (logical index, offset) of the cursor.
    let mut cursor_at = (0usize, 0usize);
    // Image placements follow the cell they start on: its old row index, where the
    // row lands (logical index, offset), then its new row and column.
    let dropped = st.scrollback.dropped();
    let mut anchors: Vec<ImageAnchor> = st
        .images_primary
        .placements()
        .iter()
        .map(|p| ImageAnchor {
            old_row: p.line.checked_sub(dropped).map(|r| r as usize),
            col: p.col,
            logical: None,
            moved: None,
        })
        .collect();
    // The anchors by old row, then by logical line (a reflow of a long history must
    // not look at every anchor for every row).
    let mut by_row: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, a) in anchors.iter().enumerate() {
        if let Some(r) = a.old_row {
            by_row.entry(r).or_default().push(i);
        }
    }
    let mut by_logical: HashMap<usize, Vec<usize>> = HashMap::new();
    let all = history
        .into_iter()
        .chain(screen.into_iter().take(keep_screen));
    for (abs, row) in all.enumerate() {
        let wrapped = row.wrapped;
        let (mut cells, extras) = row.into_parts();
        let base = current.cells.len();
        if abs == cursor_abs {
            cursor_at = (logicals.len(), base + cursor.col);
        }
        for &i in by_row.get(&abs).into_iter().flatten() {
            anchors[i].logical = Some((logicals.len(), base + anchors[i].col));
            by_logical.entry(logicals.len()).or_default().push(i);
        }
        if wrapped {
            cells.resize(old_cols, Cell::BLANK);
            if cells
                .last()
                .is_some_and(|c| c.flags().contains(Flags::LEADING_SPACER))
            {
                cells.pop();
            }
        } else {
            let keep = cells
                .iter()
                .rposition(|c| !c.is_default_blank())
                .map_or(0, |i| i + 1);
            cells.truncate(keep);
        }
        for (col, extra) in extras {
            if (col as usize) < cells.len() {
                current.extras.push((base + col as usize, extra));
            }
        }
        current.cells.extend(cells);
        if !wrapped {
            logicals.push(std::mem::replace(
                &mut current,
                Logical {
                    cells: Vec::new(),
                    extras: Vec::new(),
                },
            ));
        }
    }
    if !current.cells.is_empty() || logicals.len() <= cursor_at.0 {
        logicals.push(current);
    }

    // Re-wrap at the new width.
    let mut out: VecDeque<Row> = VecDeque::new();
    let mut new_cursor: Option<(usize, usize)> = None;
    for (li, line) in logicals.into_iter().enumerate() {
        let start_row = out.len();
        let mut rows_of_line = wrap_cells(line, cols);
        for &i in by_logical.get(&li).into_iter().flatten() {
            if let Some((_, off)) = anchors[i].logical {
                let (r, c) = locate(&rows_of_line.1, off, cols);
                anchors[i].moved = Some((start_row + r, c.min(cols - 1)));
            }
        }
        if li == cursor_at.0 {
            let (mut r, mut c) = locate(&rows_of_line.1, cursor_at.1, cols);
            if c == 0 && r == rows_of_line.0.len() && cursor_at.1 > 0 {
                // Right after a full last row: stay on it with the wrap pending.
                r -= 1;
                c = cols;
            }
            let extra_rows = (r + 1).saturating_sub(rows_of_line.0.len());
            for _ in 0..extra_rows {
                if let Some(last) = rows_of_line.0.last_mut() {
                    last.wrapped = true;
                }
                rows_of_line.0.push(Row::blank(cols, Default::default()));
            }
            new_cursor = Some((start_row + r, c));
        }
        out.extend(rows_of_line.0);
    }
    let (cur_abs, cur_col) = new_cursor.unwrap_or((out.len().saturating_sub(1), 0));
    move_images(st, &anchors, dropped, (cursor_abs, cur_abs));

    // The screen shows the last `rows` rows, keeping the cursor on it.
    let top = out.len().max(cur_abs + 1).saturating_sub(rows).min(cur_abs);
    let mut screen_rows: VecDeque<Row> = VecDeque::with_capacity(rows);
    for (i, mut row) in out.into_iter().enumerate() {
        if i < top {
            st.scrollback.push(&row);
        } else if screen_rows.len() < rows {
            row.set_len(cols);
            screen_rows.push_back(row);
        }
    }
    while screen_rows.len() < rows {
        screen_rows.push_back(Row::blank(cols, Default::default()));
    }
    st.primary.set_rows(screen_rows, cols);
    cursor.row = cur_abs - top;
    cursor.col = cur_col.min(cols - 1);
    cursor.pending_wrap = cur_col >= cols;
}

/// Where an image placement's first cell was and goes in a reflow.
struct ImageAnchor {
    /// Its row among the history and screen rows before (`None`: already dropped).
    old_row: Option<usize>,
    col: usize,
    /// The logical line holding that cell and the cell's offset in it.
    logical: Option<(usize, usize)>,
    /// Its row among the reflowed rows and its column.
    moved: Option<(usize, usize)>,
}

/// Puts each placement on the row and column its first cell went to; one whose row
/// was not reflowed (a blank row below the cursor) keeps its distance to the cursor.
/// `cursor`: the cursor's row among the rows before and after.
fn move_images(st: &mut State, anchors: &[ImageAnchor], dropped: u64, cursor: (usize, usize)) {
    if anchors.is_empty() {
        return;
    }
    st.images_primary.reanchor(|i, p| {
        let a = &anchors[i];
        match (a.moved, a.old_row) {
            (Some((row, col)), _) => {
                p.line = dropped + row as u64;
                p.col = col;
            }
            (None, Some(old)) => {
                let row = (cursor.1 + old).saturating_sub(cursor.0);
                p.line = dropped + row as u64;
            }
            (None, None) => {}
        }
    });
}

/// Splits a logical line into rows of `cols`, never splitting a wide character. Also
/// returns each row's starting offset in the logical line.
fn wrap_cells(line: Logical, cols: usize) -> (Vec<Row>, Vec<usize>) {
    let Logical { cells, extras } = line;
    let mut rows = Vec::new();
    let mut starts = Vec::new();
    let mut extras = extras.into_iter().peekable();
    let mut i = 0;
    loop {
        starts.push(i);
        let mut end = (i + cols).min(cells.len());
        let mut leading_spacer = false;
        if end < cells.len() && end > i && cells[end - 1].flags().contains(Flags::WIDE) && cols > 1
        {
            end -= 1;
            leading_spacer = true;
        }
        let mut row_cells: Vec<Cell> = cells[i..end].to_vec();
        let mut row_extras = Vec::new();
        while let Some((off, _)) = extras.peek() {
            if *off >= end {
                break;
            }
            if let Some((off, extra)) = extras.next() {
                row_extras.push(((off - i) as u16, extra));
            }
        }
        if leading_spacer {
            let mut spacer = Cell::BLANK;
            spacer.insert_flags(Flags::LEADING_SPACER);
            row_cells.push(spacer);
        }
        let more = end < cells.len();
        row_cells.resize(cols, Cell::BLANK);
        rows.push(Row::from_parts(row_cells, row_extras, more));
        if !more {
            break;
        }
        i = end;
    }
    (rows, starts)
}

/// Row and column of offset `off` given each row's start offset.
fn locate(starts: &[usize], off: usize, cols: usize) -> (usize, usize) {
    let r = starts.iter().rposition(|s| *s <= off).unwrap_or(0);
    let col = off - starts[r];
    if col >= cols {
        let extra = col / cols;
        (r + extra, col % cols)
    } else {
        (r, col)
    }
}
