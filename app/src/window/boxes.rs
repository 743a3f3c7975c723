//! Box-drawing and block characters drawn as rectangles on whole physical pixels (not
//! from the font), so lines join across cells; a leaf of `render`.

use egui::{Color32, Rect, pos2};

/// Rounds a length or coordinate in points to whole physical pixels.
#[derive(Clone, Copy)]
pub struct Pixels(pub f32);

impl Pixels {
    pub fn snap(self, v: f32) -> f32 {
        (v * self.0).round() / self.0
    }

    /// A line thickness: `points` rounded to whole pixels, at least one.
    pub fn thickness(self, points: f32) -> f32 {
        (points * self.0).round().max(1.0) / self.0
    }
}

/// Box-drawing and block characters drawn as rectangles so lines join across cells.
/// Every edge is on a physical pixel, so lines are crisp and equally thick at any
/// scale. Returns false for characters left to the font.
pub fn draw_box(
    fill: &mut dyn FnMut(Rect, Color32),
    rect: Rect,
    c: char,
    color: Color32,
    px: Pixels,
) -> bool {
    let light = px.thickness(rect.height() / 14.0);
    let heavy = light * 2.0;
    let center = rect.center();
    let cx = px.snap(center.x - light / 2.0);
    let cy = px.snap(center.y - light / 2.0);
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
            fill(
                Rect::from_min_max(pos2(rect.left(), cy), pos2(cx + l, cy + l)),
                color,
            );
        }
        if r > 0.0 {
            fill(
                Rect::from_min_max(pos2(cx, cy), pos2(rect.right(), cy + r)),
                color,
            );
        }
        if u > 0.0 {
            fill(
                Rect::from_min_max(pos2(cx, rect.top()), pos2(cx + u, cy + u)),
                color,
            );
        }
        if d > 0.0 {
            fill(
                Rect::from_min_max(pos2(cx, cy), pos2(cx + d, rect.bottom())),
                color,
            );
        }
        return true;
    }
    let (w, h) = (rect.width(), rect.height());
    let block = |x0: f32, y0: f32, x1: f32, y1: f32| {
        Rect::from_min_max(
            pos2(px.snap(rect.left() + w * x0), px.snap(rect.top() + h * y0)),
            pos2(px.snap(rect.left() + w * x1), px.snap(rect.top() + h * y1)),
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
    fill(area, color);
    true
}
