//! egui shapes drawn into a texture kept between frames, for chrome that stays the same
//! while a person types: the tab bar. On a software renderer every frame re-shades each
//! glyph egui draws; with 32 tabs the bar's text cost a key's frame ~1 ms more than a
//! bar of two (`scripts/typometer.py --tests agents --still`). Here the bar's widgets
//! are laid out and answer the pointer as before, but their shapes are taken out of
//! egui's paint list, tessellated once, and drawn into a [`GridTexture`] (as one row)
//! only when the tessellated mesh differs from the last one drawn (a title, a badge, a
//! hover, the atlas); every other frame copies the texture (one texel fetch a pixel).
//!
//! The shapes go back to egui untouched (drawn directly, as before) when there is no
//! GPU path (the kittest harness), the window is not cleared to a known colour, a shape
//! is a paint callback or uses another texture than the font atlas, or a part of it
//! shown on screen would fall outside the texture (the intersection of the shapes'
//! clip rectangles).

use egui::epaint::{ClippedShape, Primitive};
use egui::layers::ShapeIdx;
use egui::{Color32, Mesh, Rect, Shape, TextureId, pos2};

use super::{GridFrame, GridGpu, GridTexture};

/// How the last frame drew the kept shapes (the trace's `bar`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeptDraw {
    /// Copied from the texture: nothing changed.
    Kept,
    /// Drawn into the texture again (they changed), then copied.
    Drawn,
    /// Left to egui.
    Direct,
}

impl KeptDraw {
    pub fn label(self) -> &'static str {
        match self {
            KeptDraw::Kept => "kept",
            KeptDraw::Drawn => "drawn",
            KeptDraw::Direct => "direct",
        }
    }
}

/// A part of the chrome whose shapes are kept in a texture.
#[derive(Default)]
pub struct KeptShapes {
    texture: GridTexture,
    /// The mesh the texture holds.
    mesh: Mesh,
    /// How the last frame drew them (`None`: not drawn yet).
    pub last: Option<KeptDraw>,
}

impl KeptShapes {
    /// Runs `draw` (widgets that paint into `ui`'s layer), then puts what it painted
    /// into the texture, if it can, in place of its shapes.
    pub fn show<R>(
        &mut self,
        ui: &mut egui::Ui,
        gpu: Option<&GridGpu>,
        background: Option<Color32>,
        draw: impl FnOnce(&mut egui::Ui) -> R,
    ) -> R {
        let ctx = ui.ctx().clone();
        let layer = ui.layer_id();
        let start = ctx.graphics_mut(|g| g.entry(layer).next_idx());
        let out = draw(ui);
        let end = ctx.graphics_mut(|g| g.entry(layer).next_idx());
        let drawn = match (gpu, background) {
            (Some(gpu), Some(background)) => self.keep(&ctx, layer, start..end, gpu, background),
            _ => None,
        };
        self.last = Some(drawn.unwrap_or(KeptDraw::Direct));
        if drawn.is_none() {
            self.texture.forget();
            self.mesh = Mesh::default();
        }
        out
    }

    /// Tessellates the shapes `range` of `layer` and draws them through the texture;
    /// `None` when they must stay egui's.
    fn keep(
        &mut self,
        ctx: &egui::Context,
        layer: egui::LayerId,
        range: std::ops::Range<ShapeIdx>,
        gpu: &GridGpu,
        background: Color32,
    ) -> Option<KeptDraw> {
        let shapes: Vec<ClippedShape> = ctx.graphics(|g| {
            g.get(layer).map(|list| {
                list.all_entries()
                    .skip(range.start.0)
                    .take(range.end.0.saturating_sub(range.start.0))
                    .cloned()
                    .collect()
            })
        })?;
        if shapes.is_empty()
            || shapes.iter().any(|s| {
                matches!(s.shape, Shape::Callback(_))
                    || s.transform_after_tessellation != egui::emath::TSTransform::IDENTITY
            })
        {
            return None;
        }
        let clip = shapes
            .iter()
            .map(|s| s.clip_rect)
            .reduce(|a, b| a.intersect(b))?;
        let ppp = ctx.pixels_per_point();
        // On physical pixels, as egui-wgpu rounds a clip rectangle to its scissor.
        let at = pos2((clip.min.x * ppp).round(), (clip.min.y * ppp).round()) / ppp;
        let size_px = [
            ((clip.max.x * ppp).round() - at.x * ppp).max(0.0) as u32,
            ((clip.max.y * ppp).round() - at.y * ppp).max(0.0) as u32,
        ];
        if size_px[0] == 0 || size_px[1] == 0 || !gpu.fits(size_px) {
            return None;
        }
        let texture_rect =
            Rect::from_min_size(at, egui::vec2(size_px[0] as f32, size_px[1] as f32) / ppp);
        let mut mesh = Mesh::with_texture(TextureId::default());
        for p in ctx.tessellate(shapes, ppp) {
            let Primitive::Mesh(m) = p.primitive else {
                return None;
            };
            if m.is_empty() {
                continue;
            }
            if m.texture_id != TextureId::default() {
                return None;
            }
            // What the window would show of it must lie in the texture.
            let mut bounds = Rect::NOTHING;
            for v in &m.vertices {
                bounds.extend_with(v.pos);
            }
            let shown = bounds.intersect(p.clip_rect);
            if shown.is_positive() && !texture_rect.expand(0.5 / ppp).contains_rect(shown) {
                return None;
            }
            mesh.append(m);
        }
        let changed: &[usize] = if mesh == self.mesh { &[] } else { &[0] };
        let frame = GridFrame {
            at,
            size_px,
            pixels_per_point: ppp,
            background,
            row_top: at.y,
            row_height: size_px[1] as f32 / ppp,
            rows: &[&mesh],
            changed,
            whole: false,
            on_background: true,
        };
        let shape = self.texture.shape(gpu, ctx, &frame);
        let drawn = match self.texture.last {
            Some((0, _)) => KeptDraw::Kept,
            _ => KeptDraw::Drawn,
        };
        self.mesh = mesh;
        ctx.graphics_mut(|g| {
            let list = g.entry(layer);
            list.set(range.start, texture_rect, shape);
            for i in range.start.0 + 1..range.end.0 {
                list.reset_shape(ShapeIdx(i));
            }
        });
        Some(drawn)
    }
}
