//! Turns a pane's view into shapes: background runs, text runs, box drawing drawn as
//! rectangles (pixel-exact, not from the font), decorations and the cursor. This is the
//! UI's frame-building code; it reads only the `PaneView`, never the live model.

use egui::{Align2, Color32, FontId, Mesh, Painter, Pos2, Rect, Stroke, Vec2, pos2, vec2};
use tern_core::model::images::placeholder;
use tern_core::model::{Cell, Cursor, CursorShape, Flags, Palette, Row, Underline};

use super::boxes::{Pixels, draw_box};
use super::glyphs::{self, GlyphCache, emoji, presentation};
use super::quads;
use super::theme::{self, Theme};

/// Cell geometry for one font.
#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    pub font: FontId,
    pub cell: Vec2,
    /// Where text sits in its cell: half of what `font.line_height` and
    /// `font.cell_width` add to (or take from) the font's own cell, in whole pixels.
    pub inset: Vec2,
}

/// The cell's height and width multipliers in force (`font.line_height`,
/// `font.cell_width`), kept in the context's memory for every [`Metrics::new`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellScale {
    pub height: f32,
    pub width: f32,
}

impl CellScale {
    fn id() -> egui::Id {
        egui::Id::unique("tern::cell_scale")
    }

    /// Makes `self` the scale of every cell measured in `ctx` from now on.
    pub fn set(self, ctx: &egui::Context) {
        ctx.data_mut(|d| d.insert_temp(CellScale::id(), self));
    }

    fn get(ctx: &egui::Context) -> CellScale {
        ctx.data(|d| d.get_temp(CellScale::id()))
            .unwrap_or(CellScale {
                height: 1.0,
                width: 1.0,
            })
    }
}

impl Metrics {
    /// The monospace font at `font_size` points and its cell (scaled by the
    /// [`CellScale`] in force), snapped to whole pixels (so cell edges, and box
    /// drawing, land on pixel boundaries).
    pub fn new(ctx: &egui::Context, font_size: f32) -> Metrics {
        let font = FontId::new(font_size, egui::FontFamily::Monospace);
        let (w, h) = ctx.fonts_mut(|f| (f.glyph_width(&font, 'M'), f.row_height(&font)));
        let ppp = ctx.pixels_per_point();
        let snap = |v: f32| (v * ppp).round().max(1.0) / ppp;
        let scale = CellScale::get(ctx);
        let cell = egui::vec2(snap(w * scale.width), snap(h * scale.height));
        let half = |extra: f32| (extra / 2.0 * ppp).round() / ppp;
        Metrics {
            font,
            cell,
            inset: egui::vec2(half(cell.x - snap(w)), half(cell.y - snap(h))),
        }
    }
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

/// Each row's mesh as last built, reused while the row, its selected cells, the
/// pane's position, the metrics, the palette and the glyph atlas stay the same: a
/// frame rebuilds only the rows that changed (an agent's status line, a prompt), and
/// an unchanged row costs a compare and a copy of its vertices.
#[derive(Default)]
pub struct RowCache {
    key: Option<CacheKey>,
    rows: Vec<Option<CachedRow>>,
    /// Rows rebuilt by the last paint, and by all paints (for benchmarks and tests).
    pub rebuilt: usize,
    pub rebuilt_total: u64,
    /// Textures of the images in view (`quads.rs`).
    pub images: quads::ImageTextures,
}

#[derive(PartialEq)]
struct CacheKey {
    metrics: Metrics,
    origin: Pos2,
    atlas: u64,
    palette: Palette,
    selection: Color32,
    selection_text: Option<Color32>,
}

struct CachedRow {
    row: Row,
    /// Selected column ranges of the row when it was built.
    selected: Vec<(usize, usize)>,
    /// The cursor's column when it was in the row and split a shaped run there.
    cursor_col: Option<usize>,
    mesh: Mesh,
}

impl RowCache {
    pub fn clear(&mut self) {
        self.key = None;
        self.rows.clear();
        self.images.clear();
    }
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
    if cache.key.as_ref() != Some(&key) {
        cache.rows.clear();
        cache.key = Some(key);
    }
    cache.rows.resize_with(scene.rows.len(), || None);
    cache.rebuilt = 0;
    let default_bg = theme::rgb(palette.background());
    let mut mesh = Mesh::with_texture(egui::TextureId::default());
    let cells: usize = scene.rows.iter().map(|r| r.cells.len()).sum();
    mesh.reserve_vertices(cells * 8);
    mesh.reserve_triangles(cells * 4);
    let any_below = scene.images.iter().any(|q| q.below_text);
    if let Some(r) = background_rect(rect, default_bg, style.window_clear) {
        if any_below {
            // Images under the text go over the background: it is its own shape.
            painter.rect_filled(r, 0.0, default_bg);
        } else {
            mesh.add_colored_rect(r, default_bg);
        }
    }
    if any_below {
        quads::paint(painter, origin, m.cell, scene.images, true);
    }
    // With ligatures on, the cursor's cell is drawn apart from a run it is in: its row
    // is built for where the cursor is.
    let cursor_at = scene
        .cursor
        .filter(|_| glyphs.shaping_on())
        .map(|(c, _)| (c.row, c.col));
    for (r, row) in scene.rows.iter().enumerate() {
        let selected = selected_ranges(scene, r, row.cells.len());
        let cursor_col = cursor_at.filter(|&(cr, _)| cr == r).map(|(_, c)| c);
        let fresh = cache.rows[r].as_ref().is_some_and(|c| {
            c.row == **row && c.selected == selected && c.cursor_col == cursor_col
        });
        if !fresh {
            let mut row_mesh = Mesh::with_texture(egui::TextureId::default());
            let is_selected = |c: usize| selected.iter().any(|&(a, b)| a <= c && c < b);
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
                cursor_col,
            );
            cache.rebuilt += 1;
            cache.rebuilt_total += 1;
            cache.rows[r] = Some(CachedRow {
                row: (*row).clone(),
                selected,
                cursor_col,
                mesh: row_mesh,
            });
        }
        if let Some(c) = &cache.rows[r] {
            append(&mut mesh, &c.mesh);
        }
    }
    painter.add(egui::Shape::mesh(mesh));
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
