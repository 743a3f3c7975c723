//! Turns a pane's view into shapes: background runs, text runs, box drawing drawn as
//! rectangles (pixel-exact, not from the font), decorations and the cursor. This is the
//! UI's frame-building code; it reads only the `PaneView`, never the live model.

use egui::{Align2, Color32, FontId, Painter, Pos2, Rect, Stroke, Vec2, pos2, vec2};
use tern_core::model::{Cell, Cursor, CursorShape, Flags, Palette, Row, Underline};

use super::theme::{self, Theme};

/// Cell geometry for one font.
#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    pub font: FontId,
    pub cell: Vec2,
}

/// What one cell looks like once flags are applied.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Look {
    fg: Color32,
    bg: Color32,
    underline: Underline,
    strike: bool,
}

fn look(cell: &Cell, palette: &Palette, default_bg: Color32) -> Look {
    let flags = cell.flags();
    let mut fg = theme::resolve(cell.fg(), palette, true);
    let mut bg = theme::resolve(cell.bg(), palette, false);
    if flags.contains(Flags::INVERSE) {
        std::mem::swap(&mut fg, &mut bg);
    }
    if flags.contains(Flags::DIM) {
        fg = theme::dim(fg, bg);
    }
    if flags.contains(Flags::HIDDEN) {
        fg = bg;
    }
    let _ = default_bg;
    Look {
        fg,
        bg,
        underline: cell.underline(),
        strike: flags.contains(Flags::STRIKE),
    }
}

/// Box-drawing and block characters drawn as rectangles so lines join across cells.
/// Returns false for characters left to the font.
fn draw_box(painter: &Painter, rect: Rect, c: char, color: Color32) -> bool {
    let light = (rect.height() / 14.0).round().max(1.0);
    let heavy = light * 2.0;
    let center = rect.center();
    let cx = (center.x - light / 2.0).round();
    let cy = (center.y - light / 2.0).round();
    // (left, right, up, down) arm widths; 0 = no arm.
    let arms: Option<(f32, f32, f32, f32)> = match c {
        '─' => Some((light, light, 0.0, 0.0)),
        '━' => Some((heavy, heavy, 0.0, 0.0)),
        '│' => Some((0.0, 0.0, light, light)),
        '┃' => Some((0.0, 0.0, heavy, heavy)),
        '┌' => Some((0.0, light, 0.0, light)),
        '┐' => Some((light, 0.0, 0.0, light)),
        '└' => Some((0.0, light, light, 0.0)),
        '┘' => Some((light, 0.0, light, 0.0)),
        '├' => Some((0.0, light, light, light)),
        '┤' => Some((light, 0.0, light, light)),
        '┬' => Some((light, light, 0.0, light)),
        '┴' => Some((light, light, light, 0.0)),
        '┼' => Some((light, light, light, light)),
        '╴' => Some((light, 0.0, 0.0, 0.0)),
        '╶' => Some((0.0, light, 0.0, 0.0)),
        '╵' => Some((0.0, 0.0, light, 0.0)),
        '╷' => Some((0.0, 0.0, 0.0, light)),
        _ => None,
    };
    if let Some((l, r, u, d)) = arms {
        if l > 0.0 {
            painter.rect_filled(
                Rect::from_min_max(pos2(rect.left(), cy), pos2(cx + l, cy + l)),
                0.0,
                color,
            );
        }
        if r > 0.0 {
            painter.rect_filled(
                Rect::from_min_max(pos2(cx, cy), pos2(rect.right(), cy + r)),
                0.0,
                color,
            );
        }
        if u > 0.0 {
            painter.rect_filled(
                Rect::from_min_max(pos2(cx, rect.top()), pos2(cx + u, cy + u)),
                0.0,
                color,
            );
        }
        if d > 0.0 {
            painter.rect_filled(
                Rect::from_min_max(pos2(cx, cy), pos2(cx + d, rect.bottom())),
                0.0,
                color,
            );
        }
        return true;
    }
    let (w, h) = (rect.width(), rect.height());
    let block = |x0: f32, y0: f32, x1: f32, y1: f32| {
        Rect::from_min_max(
            pos2(rect.left() + w * x0, rect.top() + h * y0),
            pos2(rect.left() + w * x1, rect.top() + h * y1),
        )
    };
    let (area, alpha) = match c {
        '█' => (block(0.0, 0.0, 1.0, 1.0), 255),
        '▀' => (block(0.0, 0.0, 1.0, 0.5), 255),
        '▄' => (block(0.0, 0.5, 1.0, 1.0), 255),
        '▌' => (block(0.0, 0.0, 0.5, 1.0), 255),
        '▐' => (block(0.5, 0.0, 1.0, 1.0), 255),
        '░' => (block(0.0, 0.0, 1.0, 1.0), 64),
        '▒' => (block(0.0, 0.0, 1.0, 1.0), 128),
        '▓' => (block(0.0, 0.0, 1.0, 1.0), 192),
        '▁'..='▇' => {
            let eighths = (c as u32 - '▁' as u32 + 1) as f32;
            (block(0.0, 1.0 - eighths / 8.0, 1.0, 1.0), 255)
        }
        _ => return false,
    };
    let color = if alpha == 255 {
        color
    } else {
        Color32::from_rgba_unmultiplied(color.r(), color.g(), color.b(), alpha)
    };
    painter.rect_filled(area, 0.0, color);
    true
}

/// Paints one row at `top_left`.
fn paint_row(
    painter: &Painter,
    top_left: Pos2,
    row: &Row,
    m: &Metrics,
    palette: &Palette,
    default_bg: Color32,
    selection: (Color32, &dyn Fn(usize) -> bool),
) {
    let cw = m.cell.x;
    let cells = &row.cells;
    // Backgrounds, merged into runs.
    let mut col = 0;
    while col < cells.len() {
        let bg = look(&cells[col], palette, default_bg).bg;
        let start = col;
        while col < cells.len() && look(&cells[col], palette, default_bg).bg == bg {
            col += 1;
        }
        if bg != default_bg {
            let r = Rect::from_min_size(
                top_left + vec2(start as f32 * cw, 0.0),
                vec2((col - start) as f32 * cw, m.cell.y),
            );
            painter.rect_filled(r, 0.0, bg);
        }
    }
    // Selection, over the backgrounds and under the text.
    let (sel_color, selected) = selection;
    let mut col = 0;
    while col < cells.len() {
        if !selected(col) {
            col += 1;
            continue;
        }
        let start = col;
        while col < cells.len() && selected(col) {
            col += 1;
        }
        let r = Rect::from_min_size(
            top_left + vec2(start as f32 * cw, 0.0),
            vec2((col - start) as f32 * cw, m.cell.y),
        );
        painter.rect_filled(r, 0.0, sel_color);
    }
    // Text: ASCII runs in one call (the font is monospace); anything else cell by cell.
    let mut run = String::new();
    let mut run_start = 0;
    let mut run_look: Option<Look> = None;
    let flush = |run: &mut String, start: usize, lk: Option<Look>| {
        if let Some(lk) = lk
            && !run.trim_end().is_empty()
        {
            painter.text(
                top_left + vec2(start as f32 * cw, 0.0),
                Align2::LEFT_TOP,
                run.as_str(),
                m.font.clone(),
                lk.fg,
            );
        }
        run.clear();
    };
    for (i, cell) in cells.iter().enumerate() {
        let flags = cell.flags();
        if flags.contains(Flags::WIDE_SPACER) {
            continue;
        }
        let lk = look(cell, palette, default_bg);
        let c = cell.ch();
        let cell_rect = Rect::from_min_size(
            top_left + vec2(i as f32 * cw, 0.0),
            vec2(
                cw * if flags.contains(Flags::WIDE) {
                    2.0
                } else {
                    1.0
                },
                m.cell.y,
            ),
        );
        let combining =
            flags.contains(Flags::EXTRA) && row.extra(i).is_some_and(|e| !e.combining.is_empty());
        if c.is_ascii() && !combining {
            if run_look != Some(lk) || run.is_empty() {
                flush(&mut run, run_start, run_look);
                run_start = i;
                run_look = Some(lk);
            }
            run.push(c);
        } else {
            flush(&mut run, run_start, run_look);
            run_look = None;
            if !draw_box(painter, cell_rect, c, lk.fg) {
                let mut text = c.to_string();
                if let Some(e) = row.extra(i) {
                    text.extend(e.combining.iter());
                }
                painter.text(
                    cell_rect.center_top(),
                    Align2::CENTER_TOP,
                    text,
                    m.font.clone(),
                    lk.fg,
                );
            }
        }
        // Decorations.
        let baseline = cell_rect.bottom() - (m.cell.y * 0.12).max(1.0);
        let thickness = (m.cell.y / 16.0).max(1.0);
        match lk.underline {
            Underline::None => {}
            Underline::Double => {
                painter.hline(cell_rect.x_range(), baseline, Stroke::new(thickness, lk.fg));
                painter.hline(
                    cell_rect.x_range(),
                    baseline - 2.0 * thickness,
                    Stroke::new(thickness, lk.fg),
                );
            }
            Underline::Curly => {
                let pts: Vec<Pos2> = (0..=4)
                    .map(|k| {
                        pos2(
                            cell_rect.left() + cell_rect.width() * k as f32 / 4.0,
                            baseline - if k % 2 == 0 { 0.0 } else { 2.0 * thickness },
                        )
                    })
                    .collect();
                painter.add(egui::Shape::line(pts, Stroke::new(thickness, lk.fg)));
            }
            _ => {
                painter.hline(cell_rect.x_range(), baseline, Stroke::new(thickness, lk.fg));
            }
        }
        if lk.strike {
            painter.hline(
                cell_rect.x_range(),
                cell_rect.center().y,
                Stroke::new(thickness, lk.fg),
            );
        }
    }
    flush(&mut run, run_start, run_look);
}

/// What to draw: rows top to bottom, the cursor (when the live screen is shown) and
/// which cells are selected (`selected(row, col)`).
pub struct Scene<'a> {
    pub rows: &'a [&'a Row],
    pub cursor: Option<(Cursor, CursorShape)>,
    pub selected: &'a dyn Fn(usize, usize) -> bool,
    /// Scrollbar: (lines above the screen in all, lines scrolled up).
    pub scroll: (u64, usize),
}

/// Paints the whole pane into `rect` (its top-left is cell 0,0).
pub fn paint(
    painter: &Painter,
    rect: Rect,
    scene: &Scene<'_>,
    m: &Metrics,
    palette: &Palette,
    theme: &Theme,
    focused: bool,
) {
    let default_bg = theme::rgb(palette.background());
    painter.rect_filled(rect, 0.0, default_bg);
    for (r, row) in scene.rows.iter().enumerate() {
        let selected = |c: usize| (scene.selected)(r, c);
        paint_row(
            painter,
            rect.min + vec2(0.0, r as f32 * m.cell.y),
            row,
            m,
            palette,
            default_bg,
            (theme.selection, &selected),
        );
    }
    let (total, offset) = scene.scroll;
    if total > 0 && offset > 0 {
        let rows = scene.rows.len().max(1) as f32;
        let all = total as f32 + rows;
        let h = (rect.height() * rows / all).max(12.0);
        let top = rect.top() + (rect.height() - h) * (1.0 - offset as f32 / total as f32);
        let bar = Rect::from_min_max(
            pos2(rect.right() - 6.0, top),
            pos2(rect.right() - 2.0, top + h),
        );
        painter.rect_filled(
            bar,
            2.0,
            Color32::from_rgba_unmultiplied(200, 200, 200, 120),
        );
    }
    if let Some((c, shape)) = scene.cursor {
        let cell = Rect::from_min_size(
            rect.min + vec2(c.col as f32 * m.cell.x, c.row as f32 * m.cell.y),
            m.cell,
        );
        let color = theme::rgb(palette.cursor());
        if !focused {
            painter.rect_stroke(
                cell.shrink(0.5),
                0.0,
                Stroke::new(1.0, color),
                egui::StrokeKind::Inside,
            );
        } else {
            match shape {
                CursorShape::Block => {
                    painter.rect_filled(cell, 0.0, color);
                    if let Some(cellv) = scene.rows.get(c.row).and_then(|r| r.cells.get(c.col)) {
                        let ch = cellv.ch();
                        if ch != ' ' {
                            painter.text(
                                cell.center_top(),
                                Align2::CENTER_TOP,
                                ch.to_string(),
                                m.font.clone(),
                                theme.cursor_text,
                            );
                        }
                    }
                }
                CursorShape::Beam => {
                    painter.rect_filled(
                        Rect::from_min_size(cell.min, vec2((m.cell.x / 8.0).max(2.0), m.cell.y)),
                        0.0,
                        color,
                    );
                }
                CursorShape::Underline => {
                    let h = (m.cell.y / 8.0).max(2.0);
                    painter.rect_filled(
                        Rect::from_min_max(pos2(cell.left(), cell.bottom() - h), cell.max),
                        0.0,
                        color,
                    );
                }
            }
        }
    }
}
