//! Turns a pane's view into shapes: background runs, text runs, box drawing drawn as
//! rectangles (pixel-exact, not from the font), decorations and the cursor. This is the
//! UI's frame-building code; it reads only the `PaneView`, never the live model.

use egui::{Align2, Color32, Mesh, Painter, Pos2, Rect, Stroke, pos2, vec2};
use tern_core::model::images::placeholder;
use tern_core::model::{Cell, Cursor, CursorShape, Flags, Palette, Row, Underline};

use super::boxes::{Pixels, draw_box};
use super::glyphs::{self, GlyphCache, emoji, presentation};
use super::grid::{GridFrame, GridGpu};
pub use super::metrics::{CellScale, Metrics};
use super::quads;
pub use super::row_cache::RowCache;
use super::row_cache::{CacheKey, RowState};
use super::theme::{self, Theme};

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

/// Adds one row, with its top-left at `top_left`, to the pane's mesh.
#[allow(clippy::too_many_arguments)]
fn add_row(
    mesh: &mut Mesh,
    glyphs: &mut GlyphCache,
    ctx: &egui::Context,
    top_left: Pos2,
    row: &Row,
    m: &Metrics,
    palette: &Palette,
    default_bg: Color32,
    selection: (Color32, Option<Color32>, &dyn Fn(usize) -> bool),
    cursor_col: Option<usize>,
) {
    let cw = m.cell.x;
    let cells = &row.cells;
    let cell_rect = |i: usize, width: f32| {
        Rect::from_min_size(
            top_left + vec2(i as f32 * cw, 0.0),
            vec2(cw * width, m.cell.y),
        )
    };
    // Backgrounds, merged into runs.
    let mut col = 0;
    while col < cells.len() {
        let bg = look(&cells[col], palette, default_bg).bg;
        let start = col;
        while col < cells.len() && look(&cells[col], palette, default_bg).bg == bg {
            col += 1;
        }
        if bg != default_bg {
            mesh.add_colored_rect(cell_rect(start, (col - start) as f32), bg);
        }
    }
    // Selection, over the backgrounds and under the text.
    let (sel_color, sel_text, selected) = selection;
    // A cell's look, with the theme's selection text colour when it is selected.
    let look_at = |i: usize| {
        let mut lk = look(&cells[i], palette, default_bg);
        if let Some(text) = sel_text
            && selected(i)
        {
            lk.fg = text;
        }
        lk
    };
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
        mesh.add_colored_rect(cell_rect(start, (col - start) as f32), sel_color);
    }
    // Runs of punctuation shaped for ligatures; their cells are skipped below.
    let text_at = |i: usize| cell_rect(i, 1.0).min + m.inset;
    let in_run = shaped_runs(mesh, glyphs, ctx, &text_at, row, cursor_col, &look_at);
    // Glyphs and decorations.
    let px = Pixels(ctx.pixels_per_point());
    let thickness = px.thickness(m.cell.y / 16.0);
    for (i, cell) in cells.iter().enumerate() {
        let flags = cell.flags();
        if flags.contains(Flags::WIDE_SPACER) {
            continue;
        }
        let lk = look_at(i);
        let wide = if flags.contains(Flags::WIDE) {
            2.0
        } else {
            1.0
        };
        let rect = cell_rect(i, wide);
        let c = cell.ch();
        if c == placeholder::PLACEHOLDER {
            // A Unicode placeholder: the image is drawn over its cell (`quads.rs`).
            continue;
        }
        let combining = if flags.contains(Flags::EXTRA) {
            row.extra(i).filter(|e| !e.combining.is_empty())
        } else {
            None
        };
        let marks: &[char] = combining.map_or(&[], |e| &e.combining);
        let face = face_of(flags);
        let colour_emoji = if lk.fg != lk.bg && presentation::wants_colour(c, marks) {
            // The whole cluster, so that a sequence the font joins is one glyph.
            let mut cluster = String::from(c);
            cluster.extend(marks);
            glyphs.emoji(ctx, &cluster, rect.size())
        } else {
            None
        };
        if let Some(q) = colour_emoji {
            mesh.add_rect_with_uv(emoji::fit(rect, q.size, px.0), q.uv, Color32::WHITE);
        } else if let Some(extra) = combining {
            let mut text = c.to_string();
            text.extend(extra.combining.iter());
            for q in glyphs.cluster(ctx, &text) {
                glyphs::add(mesh, rect.min + m.inset, &q, 0.0, 0.0, lk.fg);
            }
        } else if c != ' ' && lk.fg != lk.bg && !in_run.get(i).is_some_and(|&r| r) {
            let mut fill = |r: Rect, color: Color32| mesh.add_colored_rect(r, color);
            if !draw_box(&mut fill, rect, c, lk.fg, px) {
                if glyphs::symbols::draws(c) {
                    // Drawn by tern (see `glyphs::symbols`): one cell, at its corner.
                    if let Some(q) = glyphs.glyph(ctx, c, face) {
                        let at = Rect::from_min_size(rect.min, q.size);
                        mesh.add_rect_with_uv(at, q.uv, lk.fg);
                    }
                } else if let Some(q) = glyphs.glyph(ctx, c, face) {
                    if q.color {
                        // An emoji from the fallback chain: fitted like those asked for.
                        let at = emoji::fit(rect, q.size, px.0);
                        mesh.add_rect_with_uv(at, q.uv, Color32::WHITE);
                    } else {
                        glyphs::add(mesh, rect.min + m.inset, &q, 0.0, 0.0, lk.fg);
                    }
                }
            }
        }
        let baseline = px.snap(rect.bottom() - m.inset.y - (m.cell.y * 0.12).max(1.0));
        let line = |mesh: &mut Mesh, y: f32| {
            mesh.add_colored_rect(
                Rect::from_min_max(pos2(rect.left(), y), pos2(rect.right(), y + thickness)),
                lk.fg,
            )
        };
        match lk.underline {
            Underline::None => {}
            Underline::Double => {
                line(mesh, baseline);
                line(mesh, baseline - 2.0 * thickness);
            }
            Underline::Curly => {
                // A square wave: alternate halves of the cell up and down.
                let half = rect.width() / 2.0;
                for k in 0..2 {
                    let y = baseline
                        - if k == 0 {
                            0.0
                        } else {
                            px.snap(thickness * 1.5)
                        };
                    let x0 = rect.left() + half * k as f32;
                    mesh.add_colored_rect(
                        Rect::from_min_max(pos2(x0, y), pos2(x0 + half, y + thickness)),
                        lk.fg,
                    );
                }
            }
            Underline::Dotted => {
                let mut x = rect.left();
                while x < rect.right() {
                    mesh.add_colored_rect(
                        Rect::from_min_max(
                            pos2(x, baseline),
                            pos2((x + thickness).min(rect.right()), baseline + thickness),
                        ),
                        lk.fg,
                    );
                    x += thickness * 2.0;
                }
            }
            Underline::Dashed => {
                let third = rect.width() / 3.0;
                mesh.add_colored_rect(
                    Rect::from_min_max(
                        pos2(rect.left(), baseline),
                        pos2(rect.left() + 2.0 * third, baseline + thickness),
                    ),
                    lk.fg,
                );
            }
            Underline::Single => line(mesh, baseline),
        }
        if lk.strike {
            line(mesh, px.snap(rect.center().y));
        }
    }
}

fn face_of(flags: Flags) -> glyphs::Face {
    glyphs::Face {
        bold: flags.contains(Flags::BOLD),
        italic: flags.contains(Flags::ITALIC),
    }
}

/// Draws the row's runs of punctuation that shape into something else than their
/// characters (ligatures, see `glyphs::shaping`); returns which cells they drew (empty
/// when none: shaping off, or nothing to shape).
fn shaped_runs(
    mesh: &mut Mesh,
    glyphs: &mut GlyphCache,
    ctx: &egui::Context,
    text_at: &dyn Fn(usize) -> Pos2,
    row: &Row,
    cursor_col: Option<usize>,
    look_of: &dyn Fn(usize) -> Look,
) -> Vec<bool> {
    let mut drawn = Vec::new();
    if !glyphs.shaping_on() {
        return drawn;
    }
    let cells = &row.cells;
    let key = |i: usize| {
        let cell = &cells[i];
        let flags = cell.flags();
        if !glyphs::shaping::can_ligate(cell.ch())
            || [Flags::WIDE, Flags::WIDE_SPACER, Flags::EXTRA]
                .iter()
                .any(|&f| flags.contains(f))
        {
            return None;
        }
        let lk = look_of(i);
        (lk.fg != lk.bg).then_some((face_of(flags), lk.fg))
    };
    let mut text = String::new();
    for run in glyphs::shaping::runs(cells.len(), cursor_col, key) {
        text.clear();
        text.extend(cells[run.clone()].iter().map(|c| c.ch()));
        let (face, fg) = (face_of(cells[run.start].flags()), look_of(run.start).fg);
        let Some(shaped) = glyphs.run(ctx, &text, face) else {
            continue;
        };
        for g in shaped.iter() {
            let at = text_at(run.start + g.cell) + vec2(g.dx, 0.0);
            glyphs::add(mesh, at, &g.quad, 0.0, 0.0, fg);
        }
        drawn.resize(cells.len(), false);
        drawn[run].fill(true);
    }
    drawn
}

/// What to draw: rows top to bottom, the cursor (when the live screen is shown) and
/// which cells are selected (`selected(row, col)`).
pub struct Scene<'a> {
    pub rows: &'a [&'a Row],
    pub cursor: Option<(Cursor, CursorShape)>,
    pub selected: &'a dyn Fn(usize, usize) -> bool,
    /// Whether anything is selected (otherwise `selected` is not asked).
    pub any_selected: bool,
    /// Scrollbar: (lines above the screen in all, lines scrolled up).
    pub scroll: (u64, usize),
    /// Images in view (`pane/images.rs`), drawn under or over the text.
    pub images: &'a [quads::ImageQuad],
}

/// Paints the whole pane into `rect` (its top-left is cell 0,0).
/// How to draw: cell geometry, colours, focus.
pub struct Style<'a> {
    pub metrics: &'a Metrics,
    pub palette: &'a Palette,
    pub theme: &'a Theme,
    pub focused: bool,
    /// The colour the window was cleared to this frame, if known.
    pub window_clear: Option<Color32>,
    /// The GPU state for drawing the rows into a texture kept between frames
    /// (`grid.rs`); `None` draws them directly.
    pub grid: Option<&'a GridGpu>,
}

/// The pane's background rectangle, unless the window was cleared to that colour
/// already: a rectangle the size of the pane costs a software renderer a fill of every
/// pixel each frame, as much as the text on a sparse screen.
pub fn background_rect(
    rect: Rect,
    background: Color32,
    window_clear: Option<Color32>,
) -> Option<Rect> {
    (window_clear != Some(background)).then_some(rect)
}

/// The selected columns of a row as ranges (empty without a selection).
fn selected_ranges(scene: &Scene<'_>, r: usize, cols: usize) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    if !scene.any_selected {
        return out;
    }
    for c in 0..cols {
        if (scene.selected)(r, c) {
            match out.last_mut() {
                Some((_, end)) if *end == c => *end = c + 1,
                _ => out.push((c, c + 1)),
            }
        }
    }
    out
}

fn append(dst: &mut Mesh, src: &Mesh) {
    let base = dst.vertices.len() as u32;
    dst.vertices.extend_from_slice(&src.vertices);
    dst.indices.extend(src.indices.iter().map(|i| i + base));
}

/// The rows as one egui mesh over the pane's background (and the images under them).
fn paint_rows(
    painter: &Painter,
    cache: &RowCache,
    rect: Rect,
    origin: Pos2,
    style: &Style<'_>,
    images: &[quads::ImageQuad],
) {
    let default_bg = theme::rgb(style.palette.background());
    let meshes = cache.meshes();
    let mut mesh = Mesh::with_texture(egui::TextureId::default());
    mesh.reserve_vertices(meshes.iter().map(|m| m.vertices.len()).sum::<usize>() + 4);
    mesh.reserve_triangles(meshes.iter().map(|m| m.indices.len() / 3).sum::<usize>() + 2);
    let any_below = images.iter().any(|q| q.below_text);
    if let Some(r) = background_rect(rect, default_bg, style.window_clear) {
        if any_below {
            // Images under the text go over the background: it is its own shape.
            painter.rect_filled(r, 0.0, default_bg);
        } else {
            mesh.add_colored_rect(r, default_bg);
        }
    }
    if any_below {
        quads::paint(painter, origin, style.metrics.cell, images, true);
    }
    for row in meshes {
        append(&mut mesh, row);
    }
    painter.add(egui::Shape::mesh(mesh));
}

pub fn paint(
    painter: &Painter,
    glyphs: &mut GlyphCache,
    cache: &mut RowCache,
    rect: Rect,
    scene: &Scene<'_>,
    style: &Style<'_>,
) {
    let (m, palette, theme, focused) = (style.metrics, style.palette, style.theme, style.focused);
    let ctx = painter.ctx().clone();
    glyphs.begin_frame(&ctx, &m.font);
    glyphs.set_cell(&ctx, m.cell);
    // Cell 0,0 on a physical pixel (cells are whole pixels), so glyphs, emoji and box
    // lines of every cell are pixel-aligned at any scale.
    let ppp = ctx.pixels_per_point();
    let origin = pos2(
        (rect.min.x * ppp).ceil() / ppp,
        (rect.min.y * ppp).ceil() / ppp,
    );
    let key = CacheKey {
        metrics: m.clone(),
        origin,
        atlas: glyphs.generation(),
        palette: palette.clone(),
        selection: theme.selection,
        selection_text: theme.selection_text,
    };
    let key_changed = cache.begin(key, scene.rows.len());
    let default_bg = theme::rgb(palette.background());
    let any_below = scene.images.iter().any(|q| q.below_text);
    // With ligatures on, the cursor's cell is drawn apart from a run it is in: its row
    // is built for where the cursor is.
    let cursor_at = scene
        .cursor
        .filter(|_| glyphs.shaping_on())
        .map(|(c, _)| (c.row, c.col));
    let mut changed = Vec::new();
    for (r, row) in scene.rows.iter().enumerate() {
        let state = RowState {
            selected: selected_ranges(scene, r, row.cells.len()),
            cursor_col: cursor_at.filter(|&(cr, _)| cr == r).map(|(_, c)| c),
        };
        let built = cache.update(r, row, state, |state| {
            let mut row_mesh = Mesh::with_texture(egui::TextureId::default());
            let is_selected = |c: usize| state.selected.iter().any(|&(a, b)| a <= c && c < b);
            let top_left = origin + vec2(0.0, r as f32 * m.cell.y);
            add_row(
                &mut row_mesh,
                glyphs,
                &ctx,
                top_left,
                row,
                m,
                palette,
                default_bg,
                (theme.selection, theme.selection_text, &is_selected),
                state.cursor_col,
            );
            row_mesh
        });
        if built {
            changed.push(r);
        }
    }
    // The texture covers every pixel the pane's rectangle reaches.
    let at = pos2((rect.min.x * ppp).floor(), (rect.min.y * ppp).floor()) / ppp;
    let size_px = [
        ((rect.max.x * ppp).ceil() - at.x * ppp).max(0.0) as u32,
        ((rect.max.y * ppp).ceil() - at.y * ppp).max(0.0) as u32,
    ];
    // Images under the text sit between the background and the rows: drawn directly.
    match style.grid.filter(|g| !any_below && g.fits(size_px)) {
        Some(gpu) => {
            let (meshes, grid) = cache.meshes_and_grid();
            let frame = GridFrame {
                at,
                size_px,
                pixels_per_point: ppp,
                background: default_bg,
                row_top: origin.y,
                row_height: m.cell.y,
                rows: &meshes,
                changed: &changed,
                whole: key_changed,
                on_background: style.window_clear == Some(default_bg),
            };
            let shape = grid.shape(gpu, &ctx, &frame);
            painter.add(shape);
        }
        None => {
            cache.grid.forget();
            paint_rows(painter, cache, rect, origin, style, scene.images);
        }
    }
    quads::paint(painter, origin, m.cell, scene.images, false);
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
            origin + vec2(c.col as f32 * m.cell.x, c.row as f32 * m.cell.y),
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
                                cell.center_top() + vec2(0.0, m.inset.y),
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

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
