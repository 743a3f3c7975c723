//! Images as the renderer draws them: a texture over a rectangle of cells, made from
//! a pane's image placements by [`ImageTextures`] (kept in the pane's `RowCache`): a
//! texture for each image with a placement in view, uploaded when it comes into view
//! and freed in the frame it leaves it (scrolled away, deleted, the pane parked).

use std::collections::HashMap;

use egui::{Color32, Painter, Pos2, Rect, Vec2, pos2, vec2};
use tern_core::model::Row;
use tern_core::model::images::{ImageData, ImageLayer, placeholder};

/// An image to draw: a texture over a rectangle given in cells from cell 0,0 (rows may
/// be negative: an image that starts above the view).
#[derive(Clone, Debug)]
pub struct ImageQuad {
    pub texture: egui::TextureId,
    /// Top-left (column, row) and size (columns, rows), in cells.
    pub at: Vec2,
    pub size: Vec2,
    /// The part of the texture shown (0..1).
    pub uv: Rect,
    /// Drawn before the text (kitty's negative z-index), else after it.
    pub below_text: bool,
}

/// Draws the quads under the text (`below`) or over it, in their order.
pub fn paint(painter: &Painter, origin: Pos2, cell: Vec2, images: &[ImageQuad], below: bool) {
    for q in images.iter().filter(|q| q.below_text == below) {
        let rect = Rect::from_min_size(origin + q.at * cell, q.size * cell);
        painter.add(egui::Shape::image(q.texture, rect, q.uv, Color32::WHITE));
    }
}

#[derive(Default)]
pub struct ImageTextures {
    /// By [`tern_core::model::images::ImageData::key`].
    by_key: HashMap<u64, egui::TextureHandle>,
}

impl ImageTextures {
    /// The quads of the placements that reach the view's `rows`, whose top row is the
    /// absolute image line `top_line`, and of the Unicode placeholders in those rows
    /// (cells of `cell_px` pixels, for an image's aspect in its box). Images in view
    /// are uploaded once; textures of images no longer in view are freed.
    pub fn quads(
        &mut self,
        ctx: &egui::Context,
        layer: &ImageLayer,
        top_line: i64,
        rows: &[&Row],
        cell_px: Vec2,
    ) -> Vec<ImageQuad> {
        let mut quads = Vec::new();
        let mut used = Vec::new();
        for placed in &layer.placements {
            let p = &placed.placement;
            let row = p.line as i64 - top_line;
            if p.is_virtual || row >= rows.len() as i64 || row + p.rows as i64 <= 0 {
                continue;
            }
            let image = &placed.image;
            let texture = self.texture(ctx, image);
            used.push(image.key);
            let (w, h) = (image.width as f32, image.height as f32);
            let s = p.source;
            quads.push((
                p.z,
                ImageQuad {
                    texture,
                    at: vec2(p.col as f32 + p.offset.0, row as f32 + p.offset.1),
                    size: vec2(p.extent.0, p.extent.1),
                    uv: Rect::from_min_max(
                        pos2(s.x as f32 / w, s.y as f32 / h),
                        pos2((s.x + s.width) as f32 / w, (s.y + s.height) as f32 / h),
                    ),
                    below_text: p.z < 0,
                },
            ));
        }
        if layer.has_virtual() {
            self.placeholder_quads(ctx, layer, rows, cell_px, &mut quads, &mut used);
        }
        self.by_key.retain(|key, _| used.contains(key));
        // Lower z first, so higher z is drawn over it (a stable sort keeps the order
        // of placement among equals).
        quads.sort_by_key(|(z, _)| *z);
        quads.into_iter().map(|(_, q)| q).collect()
    }

    pub fn clear(&mut self) {
        self.by_key.clear();
    }

    /// The image's texture, uploaded the first time it is asked for.
    fn texture(&mut self, ctx: &egui::Context, image: &ImageData) -> egui::TextureId {
        self.by_key
            .entry(image.key)
            .or_insert_with(|| {
                let pixels = egui::ColorImage::from_rgba_unmultiplied(
                    [image.width as usize, image.height as usize],
                    &image.rgba,
                );
                ctx.load_texture(
                    format!("tern-image-{}", image.key),
                    pixels,
                    egui::TextureOptions::LINEAR,
                )
            })
            .id()
    }

    /// A quad for each run of placeholder cells in `rows` that shows part of a
    /// virtual placement's image (`placeholder.rs` in the model).
    fn placeholder_quads(
        &mut self,
        ctx: &egui::Context,
        layer: &ImageLayer,
        rows: &[&Row],
        cell_px: Vec2,
        quads: &mut Vec<(i32, ImageQuad)>,
        used: &mut Vec<u64>,
    ) {
        for (r, row) in rows.iter().enumerate() {
            for run in placeholder::runs(row) {
                let Some(placed) = layer.virtual_placement(run.image_id, run.placement_id) else {
                    continue;
                };
                let Some(piece) = placeholder::piece(placed, &run, (cell_px.x, cell_px.y)) else {
                    continue;
                };
                let image = &placed.image;
                let texture = self.texture(ctx, image);
                used.push(image.key);
                let (w, h) = (image.width as f32, image.height as f32);
                let (x, y, sw, sh) = piece.source;
                let z = placed.placement.z;
                quads.push((
                    z,
                    ImageQuad {
                        texture,
                        at: vec2(run.col as f32 + piece.at.0, r as f32 + piece.at.1),
                        size: vec2(piece.size.0, piece.size.1),
                        uv: Rect::from_min_max(
                            pos2(x / w, y / h),
                            pos2((x + sw) / w, (y + sh) / h),
                        ),
                        below_text: z < 0,
                    },
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tern_core::model::images::{ImageData, PixelRect, PlacedImage, Placement};

    use super::*;

    fn layer(line: u64, z: i32) -> ImageLayer {
        let image = ImageData::new(2, 2, vec![255; 16]).expect("pixels");
        ImageLayer {
            placements: vec![PlacedImage {
                placement: Placement {
                    image_id: 1,
                    placement_id: 0,
                    line,
                    col: 3,
                    cols: 2,
                    rows: 2,
                    source: PixelRect {
                        x: 0,
                        y: 1,
                        width: 2,
                        height: 1,
                    },
                    offset: (0.0, 0.0),
                    extent: (2.0, 1.5),
                    z,
                    is_virtual: false,
                },
                image: Arc::new(image),
            }],
        }
    }

    /// Catches a texture kept for an image scrolled out of view (or uploaded for one
    /// never in view).
    #[test]
    fn a_texture_lives_only_while_its_image_is_in_view() {
        let ctx = egui::Context::default();
        let mut textures = ImageTextures::default();
        let blank = Row::blank(10, tern_core::model::Color::Default);
        let rows = vec![&blank; 10];
        let cell = vec2(10.0, 20.0);
        let image = layer(100, -1);
        // Rows 0..10 of the view show lines 95..105: the image is on rows 5 and 6.
        let quads = textures.quads(&ctx, &image, 95, &rows, cell);
        assert_eq!(textures.by_key.len(), 1);
        let q = &quads[0];
        assert_eq!((q.at, q.size), (vec2(3.0, 5.0), vec2(2.0, 1.5)));
        assert_eq!(q.uv, Rect::from_min_max(pos2(0.0, 0.5), pos2(1.0, 1.0)));
        assert!(q.below_text, "a negative z is under the text");
        // An image whose last row is just above the view is not drawn, its texture gone.
        assert!(textures.quads(&ctx, &image, 102, &rows, cell).is_empty());
        assert_eq!(textures.by_key.len(), 0);
        // Far below the view: never uploaded.
        assert!(
            textures
                .quads(&ctx, &layer(1_000_000, 0), 0, &rows, cell)
                .is_empty()
        );
        assert_eq!(textures.by_key.len(), 0);
    }
}
