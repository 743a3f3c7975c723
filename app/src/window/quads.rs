//! Images as the renderer draws them: a texture over a rectangle of cells
//! (`pane/images.rs` makes them from the pane's image placements).

use egui::{Color32, Painter, Pos2, Rect, Vec2};

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
