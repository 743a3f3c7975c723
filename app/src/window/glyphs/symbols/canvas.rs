//! A coverage bitmap one cell (in physical pixels) in size, and the shapes drawn into it.
//!
//! Rectangles snap to whole pixels so that lines and blocks are crisp and join exactly
//! with their neighbours; slanted and curved shapes are anti-aliased by sampling each
//! pixel 4x4 times. Coordinates are in pixels from the cell's top-left.

/// One cell's worth of coverage, row-major, 0 (empty) to 255 (covered).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mask {
    pub width_px: u32,
    pub height_px: u32,
    pub alpha: Vec<u8>,
}

impl Mask {
    pub fn at(&self, x: u32, y: u32) -> u8 {
        self.alpha[(y * self.width_px + x) as usize]
    }

    /// Sum of coverage over the cell, in whole pixels (255 = one pixel).
    pub fn covered_px(&self) -> f32 {
        self.alpha.iter().map(|&a| a as f32 / 255.0).sum()
    }
}

/// Samples per pixel side for anti-aliased shapes.
const SAMPLES: usize = 4;

pub struct Canvas {
    pub w: f32,
    pub h: f32,
    width_px: u32,
    height_px: u32,
    alpha: Vec<u8>,
}

impl Canvas {
    pub fn new(width_px: u32, height_px: u32) -> Canvas {
        Canvas {
            w: width_px as f32,
            h: height_px as f32,
            width_px,
            height_px,
            alpha: vec![0; (width_px * height_px) as usize],
        }
    }

    pub fn finish(self) -> Mask {
        Mask {
            width_px: self.width_px,
            height_px: self.height_px,
            alpha: self.alpha,
        }
    }

    /// A line thickness for this cell: `light` is the one box drawing uses (the cell's
    /// height / 14, at least one pixel), the same rule as the renderer's lines.
    pub fn light(&self) -> f32 {
        (self.h / 14.0).round().max(1.0)
    }

    /// Where a centred line of `thickness` starts, on a whole pixel (as the renderer's
    /// `─` and `│`, so that drawn shapes join them).
    pub fn centred(extent: f32, thickness: f32) -> f32 {
        (extent / 2.0 - thickness / 2.0).round()
    }

    /// Fills the rectangle with corners rounded to whole pixels, at `alpha`.
    pub fn rect(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, alpha: u8) {
        let clamp_x = |v: f32| (v.round().max(0.0) as u32).min(self.width_px);
        let clamp_y = |v: f32| (v.round().max(0.0) as u32).min(self.height_px);
        let (x0, x1, y0, y1) = (clamp_x(x0), clamp_x(x1), clamp_y(y0), clamp_y(y1));
        for y in y0..y1 {
            for x in x0..x1 {
                let a = &mut self.alpha[(y * self.width_px + x) as usize];
                *a = (*a).max(alpha);
            }
        }
    }

    /// Fills a rectangle given in fractions of the cell.
    pub fn frac_rect(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, alpha: u8) {
        let (w, h) = (self.w, self.h);
        self.rect(x0 * w, y0 * h, x1 * w, y1 * h, alpha);
    }

    /// Fills every point where `inside` holds, anti-aliased, at `alpha`.
    pub fn fill(&mut self, alpha: u8, inside: impl Fn(f32, f32) -> bool) {
        let step = 1.0 / SAMPLES as f32;
        for y in 0..self.height_px {
            for x in 0..self.width_px {
                let mut hits = 0;
                for sy in 0..SAMPLES {
                    for sx in 0..SAMPLES {
                        let px = x as f32 + (sx as f32 + 0.5) * step;
                        let py = y as f32 + (sy as f32 + 0.5) * step;
                        if inside(px, py) {
                            hits += 1;
                        }
                    }
                }
                if hits > 0 {
                    let a = (hits * alpha as usize / (SAMPLES * SAMPLES)) as u8;
                    let cell = &mut self.alpha[(y * self.width_px + x) as usize];
                    *cell = (*cell).max(a);
                }
            }
        }
    }

    /// Fills a convex polygon (points in pixels, either winding).
    pub fn polygon(&mut self, points: &[(f32, f32)]) {
        let pts = points.to_vec();
        self.fill(255, move |x, y| inside_convex(&pts, x, y));
    }

    /// Fills a convex polygon given in fractions of the cell.
    pub fn frac_polygon(&mut self, points: &[(f32, f32)]) {
        let (w, h) = (self.w, self.h);
        let pts: Vec<(f32, f32)> = points.iter().map(|&(x, y)| (x * w, y * h)).collect();
        self.polygon(&pts);
    }

    /// A straight line of `thickness` pixels between two points (in pixels), with
    /// square ends extended by half the thickness so that joined segments meet.
    pub fn line(&mut self, a: (f32, f32), b: (f32, f32), thickness: f32) {
        let half = thickness / 2.0;
        self.fill(255, move |x, y| {
            distance_to_segment((x, y), a, b, half) <= half
        });
    }
}

/// Whether (x, y) lies inside the convex polygon `pts`.
fn inside_convex(pts: &[(f32, f32)], x: f32, y: f32) -> bool {
    let mut sign = 0.0f32;
    for i in 0..pts.len() {
        let (ax, ay) = pts[i];
        let (bx, by) = pts[(i + 1) % pts.len()];
        let cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
        if cross != 0.0 {
            if sign != 0.0 && cross.signum() != sign {
                return false;
            }
            sign = cross.signum();
        }
    }
    true
}

/// Distance from `p` to the segment `a`–`b` extended by `extend` at both ends, measured
/// along the segment as a square cap (so a thick segment is a rectangle).
fn distance_to_segment(p: (f32, f32), a: (f32, f32), b: (f32, f32), extend: f32) -> f32 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = (dx * dx + dy * dy).sqrt();
    if len == 0.0 {
        return ((p.0 - a.0).powi(2) + (p.1 - a.1).powi(2)).sqrt();
    }
    let (ux, uy) = (dx / len, dy / len);
    let along = (p.0 - a.0) * ux + (p.1 - a.1) * uy;
    if along < -extend || along > len + extend {
        return f32::INFINITY;
    }
    ((p.0 - a.0) * uy - (p.1 - a.1) * ux).abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rectangles_snap_to_whole_pixels() {
        let mut c = Canvas::new(10, 20);
        c.rect(2.4, 0.0, 5.6, 20.0, 255);
        let m = c.finish();
        assert_eq!(m.at(1, 5), 0);
        assert_eq!(m.at(2, 5), 255);
        assert_eq!(m.at(5, 5), 255);
        assert_eq!(m.at(6, 5), 0);
    }

    #[test]
    fn a_half_cell_triangle_covers_half_the_cell() {
        let mut c = Canvas::new(16, 32);
        c.frac_polygon(&[(0.0, 0.0), (1.0, 0.5), (0.0, 1.0)]);
        let m = c.finish();
        let half = 16.0 * 32.0 / 2.0;
        assert!(
            (m.covered_px() - half).abs() < half * 0.03,
            "{}",
            m.covered_px()
        );
    }
}
