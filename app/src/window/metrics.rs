//! Cell geometry: the font's cell, snapped to whole pixels, and the multipliers the
//! config applies to it.

use egui::{FontId, Vec2};

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
