//! Glyph quads from egui's font atlas, cached per character, so a frame is one mesh of
//! textured quads instead of thousands of text layouts.
//!
//! egui has no public call that rasterizes one glyph, so the first time a character is
//! needed it is laid out once and its atlas rectangle is remembered. egui clears its atlas
//! when it fills up (and its fill ratio then drops): the cache notices and starts over.
//!
//! Colour glyphs (emoji, see `emoji`) come from the same atlas with their own colours;
//! their quads say so and are drawn untinted.
//!
//! The glyph stack lives in this folder: the fonts installed into egui (`fonts`,
//! `families`), the system's fonts through fontconfig (`system_fonts`), colour emoji
//! (`emoji`), the symbols tern draws itself (`symbols`) and shaping for ligatures
//! (`shaping`).

pub mod emoji;
pub mod families;
pub mod fonts;
pub mod presentation;
pub mod shaping;
pub mod symbols;
pub mod system_fonts;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use egui::{
    Color32, FontId, FontPriority, GlyphBitmap, GlyphRasterizer, GlyphRasterizerRequest, Pos2,
    RasterizedGlyph, Rect, Vec2, pos2,
};

use shaping::{SHAPED_FAMILIES, Shaping};
use symbols::CellPx;

/// Cell sizes in pixels by font size in pixels (1/16 px steps), told by the renderer
/// ([`GlyphCache::set_cell`]) before it asks for a glyph, for the symbol rasterizer.
static SYMBOL_CELLS: Mutex<Vec<(u32, CellPx)>> = Mutex::new(Vec::new());

fn size_key(font_size_px: f32) -> u32 {
    (font_size_px * 16.0).round() as u32
}

/// The rasterizer for the symbols tern draws itself (`symbols`): asked before
/// any font (and cached by egui per character and size), it answers only for those
/// symbols in the terminal's monospace families, with a bitmap exactly one cell big.
pub fn symbol_rasterizer() -> GlyphRasterizer {
    GlyphRasterizer::new("tern::symbols", |req: &GlyphRasterizerRequest<'_>| {
        let mut chars = req.cluster.chars();
        let c = chars.next()?;
        if chars.next().is_some() || !symbols::draws(c) || !is_terminal_family(req.family) {
            return None;
        }
        let key = size_key(req.font_size_px);
        let cell = SYMBOL_CELLS
            .lock()
            .ok()?
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, cell)| *cell)?;
        let mask = symbols::mask(c, cell)?;
        let size = [mask.width_px as usize, mask.height_px as usize];
        let pixels = mask
            .alpha
            .iter()
            .map(|&a| Color32::from_white_alpha(a))
            .collect();
        Some(RasterizedGlyph {
            bitmap: GlyphBitmap {
                image: egui::ColorImage::new(size, pixels),
                offset_px: Vec2::new(0.0, -(cell.height_px as f32) * 0.8),
                is_color: false,
            },
            advance_px: cell.width_px as f32,
        })
    })
    .with_priority(FontPriority::Highest)
}

fn is_terminal_family(family: &egui::FontFamily) -> bool {
    match family {
        egui::FontFamily::Monospace => true,
        egui::FontFamily::Name(n) => [
            families::BOLD_FAMILY,
            families::ITALIC_FAMILY,
            families::BOLD_ITALIC_FAMILY,
        ]
        .contains(&n.as_ref()),
        _ => false,
    }
}

/// Which face of the font a glyph comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Face {
    pub bold: bool,
    pub italic: bool,
}

impl Face {
    /// 0 regular, 1 bold, 2 italic, 3 bold italic (the order of the fonts' faces).
    pub fn index(self) -> usize {
        self.bold as usize + 2 * self.italic as usize
    }
}

/// One glyph of a shaped run, ready to draw: the run's cell it belongs to, where it
/// sits from that cell's left edge (points) and its quad.
#[derive(Clone, Copy, Debug)]
pub struct RunGlyph {
    pub cell: usize,
    pub dx: f32,
    pub quad: GlyphQuad,
}

/// A shaped run: `None` when shaping changes nothing (drawn cell by cell).
pub type ShapedRun = Option<Arc<[RunGlyph]>>;

/// Shaped runs kept per face; past this the cache starts over.
const MAX_RUNS: usize = 8192;

/// Where a glyph sits relative to its cell's top-left, and its texture rectangle.
#[derive(Clone, Copy, Debug)]
pub struct GlyphQuad {
    pub offset: Vec2,
    pub size: Vec2,
    /// Normalized UVs in the font atlas.
    pub uv: Rect,
    /// A colour glyph: drawn with its own colours, not the text colour.
    pub color: bool,
}

#[derive(Default)]
pub struct GlyphCache {
    font: Option<FontId>,
    /// Keyed by character and face.
    glyphs: HashMap<(char, Face), Option<GlyphQuad>>,
    combined: HashMap<String, Vec<GlyphQuad>>,
    /// Colour emoji by cluster, for narrow `[0]` and wide `[1]` cells.
    emoji: [HashMap<String, Option<GlyphQuad>>; 2],
    /// Shaped runs by face and text (see `shaping`).
    runs: [HashMap<String, ShapedRun>; 4],
    /// The shaping in force when the runs were shaped.
    shaping: Option<Arc<Shaping>>,
    /// Runs are shaped from the pass after the shaping was installed (its fonts and
    /// rasterizer only take effect then): the pass it was seen in, until then.
    shaping_seen: Option<u64>,
    pixels_per_point: f32,
    fill_ratio: f32,
    atlas_size: [usize; 2],
    /// Bumped whenever cached quads are dropped (their atlas positions may change).
    generation: u64,
    /// The pass, atlas size and generation when the pass's first pane began drawing:
    /// what [`Self::end_frame`] compares with (every pane's `begin_frame` moves the
    /// fields above on).
    pass_start: Option<(u64, [usize; 2], u64)>,
}

fn quads_of(
    f: &mut egui::epaint::text::FontsView<'_>,
    text: &str,
    font: &FontId,
) -> Vec<GlyphQuad> {
    let galley = f.layout_no_wrap(text.to_owned(), font.clone(), Color32::WHITE);
    let [aw, ah] = f.font_image_size();
    let (aw, ah) = (aw as f32, ah as f32);
    let mut out = Vec::new();
    for prow in &galley.rows {
        for g in &prow.row.glyphs {
            if g.uv_rect.is_nothing() {
                continue;
            }
            let uv = Rect::from_min_max(
                pos2(g.uv_rect.min[0] as f32 / aw, g.uv_rect.min[1] as f32 / ah),
                pos2(g.uv_rect.max[0] as f32 / aw, g.uv_rect.max[1] as f32 / ah),
            );
            out.push(GlyphQuad {
                offset: prow.pos.to_vec2() + g.pos.to_vec2() + g.uv_rect.offset,
                size: g.uv_rect.size,
                uv,
                color: g.is_color,
            });
        }
    }
    out
}

impl GlyphCache {
    /// Call once per frame before drawing: drops the cache when the font changed or
    /// egui rebuilt its atlas.
    pub fn begin_frame(&mut self, ctx: &egui::Context, font: &FontId) {
        let (ratio, size) = ctx.fonts(|f| (f.font_atlas_fill_ratio(), f.font_image_size()));
        let ppp = ctx.pixels_per_point();
        let shaping = shaping::get(ctx);
        let same_shaping = match (&self.shaping, &shaping) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        if self.font.as_ref() != Some(font)
            || ratio < self.fill_ratio
            || size != self.atlas_size
            || ppp != self.pixels_per_point
            || !same_shaping
        {
            self.glyphs.clear();
            self.combined.clear();
            self.emoji.iter_mut().for_each(HashMap::clear);
            self.runs.iter_mut().for_each(HashMap::clear);
            self.pixels_per_point = ppp;
            self.font = Some(font.clone());
            self.generation += 1;
        }
        let pass = ctx.cumulative_pass_nr();
        if !same_shaping {
            self.shaping = shaping;
            self.shaping_seen = Some(pass);
        } else if self.shaping_seen.is_some_and(|seen| seen < pass) {
            // Its fonts are in now: rows drawn without it are built again (if it
            // shapes anything).
            self.shaping_seen = None;
            if self.shaping_on() {
                self.generation += 1;
            }
        }
        self.fill_ratio = ratio;
        self.atlas_size = size;
        if self.pass_start.is_none_or(|(p, _, _)| p != pass) {
            self.pass_start = Some((pass, size, self.generation));
        }
    }

    /// Call once per frame after drawing: when egui's atlas grew or was rebuilt while
    /// this frame drew (a new glyph did not fit), or a shaping font came in, what was
    /// drawn used stale glyphs, and the next frame's [`Self::begin_frame`] rebuilds
    /// them: that frame is asked for here (a wake-up asks egui for one frame, not its
    /// "settling" second).
    pub fn end_frame(&self, ctx: &egui::Context) {
        // Compared with the pass's first pane: another pane's `begin_frame` may have seen
        // the change already (and dropped the quads the panes before it drew). A pass
        // that drew no pane drew none of these glyphs.
        let Some((_, start_size, start_generation)) = self
            .pass_start
            .filter(|(pass, _, _)| *pass == ctx.cumulative_pass_nr())
        else {
            return;
        };
        let (ratio, size) = ctx.fonts(|f| (f.font_atlas_fill_ratio(), f.font_image_size()));
        if start_size != size
            || start_generation != self.generation
            || ratio < self.fill_ratio
            || self.shaping_seen.is_some()
        {
            ctx.request_repaint();
        }
    }

    /// Tells the symbol rasterizer the cell size (points) for this cache's font at the
    /// current scale. Call after [`Self::begin_frame`], before asking for glyphs.
    pub fn set_cell(&mut self, ctx: &egui::Context, cell: Vec2) {
        let Some(font) = &self.font else {
            return;
        };
        let ppp = ctx.pixels_per_point();
        let key = size_key(font.size * ppp);
        let px = CellPx {
            width_px: (cell.x * ppp).round().max(1.0) as u32,
            height_px: (cell.y * ppp).round().max(1.0) as u32,
        };
        let Ok(mut cells) = SYMBOL_CELLS.lock() else {
            return;
        };
        match cells.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = px,
            None => {
                // A handful of sizes at most (zoom levels, scales); keep the latest.
                if cells.len() >= 64 {
                    cells.remove(0);
                }
                cells.push((key, px));
            }
        }
    }

    /// Changes whenever quads handed out before may no longer be valid.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The quad for a single character in a face (bold and/or italic).
    pub fn glyph(&mut self, ctx: &egui::Context, c: char, face: Face) -> Option<GlyphQuad> {
        if let Some(q) = self.glyphs.get(&(c, face)) {
            return *q;
        }
        let mut font = self.font.clone()?;
        let family = match face {
            Face {
                bold: false,
                italic: false,
            } => None,
            Face {
                bold: true,
                italic: false,
            } => Some(families::BOLD_FAMILY),
            Face {
                bold: false,
                italic: true,
            } => Some(families::ITALIC_FAMILY),
            Face {
                bold: true,
                italic: true,
            } => Some(families::BOLD_ITALIC_FAMILY),
        };
        if let Some(f) = family {
            font.family = egui::FontFamily::Name(f.into());
        }
        let quad = ctx
            .fonts_mut(|f| quads_of(f, &c.to_string(), &font))
            .into_iter()
            .next();
        self.glyphs.insert((c, face), quad);
        self.refresh_ratio(ctx);
        quad
    }

    /// Whether runs of punctuation are shaped (ligatures on, fonts installed).
    pub fn shaping_on(&self) -> bool {
        self.shaping_seen.is_none() && self.shaping.as_ref().is_some_and(|s| s.enabled())
    }

    /// The run `text` (one ASCII character a cell, see [`shaping::can_ligate`]) in
    /// `face`, shaped with the configured features; `None` when shaping changes nothing
    /// or is off: the cells are drawn one by one.
    pub fn run(&mut self, ctx: &egui::Context, text: &str, face: Face) -> ShapedRun {
        let i = face.index();
        if let Some(r) = self.runs[i].get(text) {
            return r.clone();
        }
        let run = self.shape_run(ctx, text, i);
        // Random punctuation makes new runs without end: keep the cache bounded.
        if self.runs[i].len() >= MAX_RUNS {
            self.runs[i].clear();
        }
        self.runs[i].insert(text.to_owned(), run.clone());
        self.refresh_ratio(ctx);
        run
    }

    fn shape_run(&mut self, ctx: &egui::Context, text: &str, face: usize) -> ShapedRun {
        let shaped = self.shaping.as_ref()?.shape(text, face)?;
        let size = self.font.as_ref()?.size;
        let font = FontId::new(size, egui::FontFamily::Name(SHAPED_FAMILIES[face].into()));
        let mut glyphs = Vec::with_capacity(shaped.len());
        ctx.fonts_mut(|f| {
            for s in shaped {
                let c = shaping::glyph_char(s.glyph)?;
                if let Some(quad) = quads_of(f, &c.to_string(), &font).into_iter().next() {
                    glyphs.push(RunGlyph {
                        cell: s.cell,
                        dx: s.x_em * size,
                        quad,
                    });
                }
            }
            Some(())
        })?;
        Some(glyphs.into())
    }

    /// Quads for a base character with combining marks.
    pub fn cluster(&mut self, ctx: &egui::Context, text: &str) -> Vec<GlyphQuad> {
        if let Some(q) = self.combined.get(text) {
            return q.clone();
        }
        let Some(font) = self.font.clone() else {
            return Vec::new();
        };
        let quads = ctx.fonts_mut(|f| quads_of(f, text, &font));
        self.combined.insert(text.to_owned(), quads.clone());
        self.refresh_ratio(ctx);
        quads
    }

    /// The colour emoji for the cluster `text` (one emoji, or a sequence the font joins
    /// into one glyph: ZWJ sequences, flags, keycaps, skin tones) sized for a cell box of
    /// `cells` (points, one or two cells), from the colour emoji font; `None` when there
    /// is no such font, it lacks the first character, or it draws the cluster as more
    /// than one glyph. The glyph is rasterized at the size it is drawn (scaled down, when
    /// the font's size overflows the box), so it maps one texel to one pixel.
    pub fn emoji(&mut self, ctx: &egui::Context, text: &str, cells: Vec2) -> Option<GlyphQuad> {
        let wide = cells.x > cells.y;
        if let Some(q) = self.emoji[wide as usize].get(text) {
            return *q;
        }
        let size = self.font.as_ref()?.size;
        let family = egui::FontFamily::Name(emoji::EMOJI_FAMILY.into());
        let quad = ctx.fonts_mut(|f| {
            if !f.families().contains(&family) {
                return None;
            }
            let font = FontId::new(size, family);
            if !f.has_glyph(&font, text.chars().next()?) {
                return None;
            }
            let one = |quads: Vec<GlyphQuad>| match quads.as_slice() {
                [q] => Some(*q),
                _ => None,
            };
            let q = one(quads_of(f, text, &font))?;
            let k = (cells.x / q.size.x).min(cells.y / q.size.y);
            if k >= 1.0 {
                return Some(q);
            }
            // Too big for the box: rasterize it again at the size that fits.
            let smaller = FontId::new(size * k * 0.99, font.family);
            one(quads_of(f, text, &smaller))
        });
        let quad = quad.filter(|q| q.color);
        self.emoji[wide as usize].insert(text.to_owned(), quad);
        self.refresh_ratio(ctx);
        quad
    }

    fn refresh_ratio(&mut self, ctx: &egui::Context) {
        self.fill_ratio = ctx.fonts(|f| f.font_atlas_fill_ratio());
    }
}

/// Adds a glyph quad for a cell whose top-left is `at`, centred in `cell_w` (one or two
/// cells wide).
pub fn add(
    mesh: &mut egui::Mesh,
    at: Pos2,
    q: &GlyphQuad,
    cell_w: f32,
    advance: f32,
    color: Color32,
) {
    let dx = ((cell_w - advance) / 2.0).max(0.0);
    let rect = Rect::from_min_size(at + q.offset + egui::vec2(dx, 0.0), q.size);
    mesh.add_rect_with_uv(rect, q.uv, if q.color { Color32::WHITE } else { color });
}

#[cfg(test)]
mod tests {
    use super::emoji::tests::{in_frame, whole_pixels};
    use super::*;

    /// Glyphs are drawn at the cell's top-left (a whole pixel) plus their offset: the
    /// offset and size must be whole pixels too, or the glyph is resampled (blurred).
    #[test]
    fn glyph_quads_land_on_whole_pixels_at_fractional_scales() {
        for ppp in [1.0, 1.25, 1.5, 2.0] {
            let quads = in_frame(ppp, |ctx, _| {
                let mut glyphs = GlyphCache::default();
                glyphs.begin_frame(ctx, &FontId::monospace(15.0));
                ['a', 'M', 'g', '@', '日', '│'].map(|c| (c, glyphs.glyph(ctx, c, Face::default())))
            });
            for (c, q) in quads {
                let q = q.unwrap_or_else(|| panic!("no glyph for {c:?}"));
                assert!(
                    whole_pixels(q.offset.x, ppp)
                        && whole_pixels(q.offset.y, ppp)
                        && whole_pixels(q.size.x, ppp)
                        && whole_pixels(q.size.y, ppp),
                    "{c:?} at {ppp}x: offset {:?} size {:?} (pixels {:?} {:?})",
                    q.offset,
                    q.size,
                    q.offset * ppp,
                    q.size * ppp
                );
            }
        }
    }

    /// Symbols tern draws come out of the atlas exactly one cell big, with the mask's
    /// empty, full and partial pixels, at scale 1, 1.5 and 2.
    #[test]
    fn drawn_symbols_are_one_cell_of_the_masks_coverage() {
        for ppp in [1.0, 1.5, 2.0] {
            let (cell, quads, atlas) = in_frame(ppp, |ctx, cell| {
                let mut glyphs = GlyphCache::default();
                glyphs.begin_frame(ctx, &FontId::monospace(15.0));
                glyphs.set_cell(ctx, cell);
                let quads = ['⣿', '\u{E0B0}', '\u{1FB82}', '╰']
                    .map(|c| (c, glyphs.glyph(ctx, c, Face::default())));
                (cell, quads, ctx.fonts(|f| f.image()))
            });
            let px = CellPx {
                width_px: (cell.x * ppp).round() as u32,
                height_px: (cell.y * ppp).round() as u32,
            };
            for (c, q) in quads {
                let q = q.unwrap_or_else(|| panic!("no glyph for {c:?} at {ppp}x"));
                assert!(
                    (q.size.x * ppp - px.width_px as f32).abs() < 0.01
                        && (q.size.y * ppp - px.height_px as f32).abs() < 0.01,
                    "{c:?} at {ppp}x: {:?} for a cell of {px:?}",
                    q.size * ppp
                );
                let mask = symbols::mask(c, px).expect("a drawn symbol");
                let [aw, ah] = atlas.size;
                let (x0, y0) = (
                    (q.uv.min.x * aw as f32).round() as usize,
                    (q.uv.min.y * ah as f32).round() as usize,
                );
                for y in 0..px.height_px {
                    for x in 0..px.width_px {
                        // egui maps partial coverage through its own curve: empty,
                        // full and partial must stay so.
                        let texel = atlas[(x0 + x as usize, y0 + y as usize)].a();
                        let m = mask.at(x, y);
                        assert!(
                            (texel == 0) == (m == 0) && (texel == 255) == (m == 255),
                            "{c:?} at {ppp}x, ({x}, {y})"
                        );
                    }
                }
            }
        }
    }
}
