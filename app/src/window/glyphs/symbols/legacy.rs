//! Symbols for Legacy Computing, U+1FB00–1FBAF: sextants, smooth mosaic wedges, eighth
//! blocks, shades, fills and light diagonals. Shapes follow the Unicode chart: corners
//! and edges of a 2x3 grid (x 0, ½, 1; y 0, ⅓, ⅔, 1).

use super::canvas::Canvas;

/// A point in fractions of the cell, or in pixels.
type Point = (f32, f32);

/// Medium shade coverage, as the renderer draws ▒.
const SHADE: u8 = 128;

pub fn draws(c: char) -> bool {
    ('\u{1FB00}'..='\u{1FBAF}').contains(&c) && c != '\u{1FB93}'
}

/// Draws `c`; false for the unassigned U+1FB93.
pub fn draw(canvas: &mut Canvas, c: char) -> bool {
    let n = c as u32;
    if !draws(c) {
        return false;
    }
    match n {
        0x1FB00..=0x1FB3B => sextant(canvas, n - 0x1FB00),
        0x1FB3C..=0x1FB67 => wedge(canvas, n),
        0x1FB68..=0x1FB6F => triangles(canvas, n),
        0x1FB70..=0x1FB8B => eighths(canvas, n),
        0x1FB8C..=0x1FB9F => shades(canvas, n),
        0x1FBA0..=0x1FBAF => light_diagonals(canvas, n),
        _ => return false,
    }
    true
}

/// Sextants: bits 0..6 are the cells of a 2x3 grid (left to right, top to bottom). The
/// block skips the patterns that exist elsewhere: empty, ▌ (21), ▐ (42) and █.
fn sextant(canvas: &mut Canvas, index: u32) {
    let mut bits = index + 1;
    if bits >= 21 {
        bits += 1;
    }
    if bits >= 42 {
        bits += 1;
    }
    for k in 0..6 {
        if bits & (1 << k) != 0 {
            let (col, row) = ((k % 2) as f32, (k / 2) as f32);
            canvas.frac_rect(
                col / 2.0,
                row / 3.0,
                (col + 1.0) / 2.0,
                (row + 1.0) / 3.0,
                255,
            );
        }
    }
}

const LL: Point = (0.0, 1.0);
const LR: Point = (1.0, 1.0);
const T1: f32 = 1.0 / 3.0;
const T2: f32 = 2.0 / 3.0;

/// U+1FB3C–1FB51: the corner the block is on, and the diagonal that bounds it.
/// U+1FB52–1FB67 are their complements (the same diagonal, the other side filled).
const WEDGES: [(Point, Point, Point); 22] = [
    (LL, (0.0, T2), (0.5, 1.0)),
    (LL, (0.0, T2), (1.0, 1.0)),
    (LL, (0.0, T1), (0.5, 1.0)),
    (LL, (0.0, T1), (1.0, 1.0)),
    (LL, (0.0, 0.0), (0.5, 1.0)),
    (LR, (0.0, T1), (0.5, 0.0)),
    (LR, (0.0, T1), (1.0, 0.0)),
    (LR, (0.0, T2), (0.5, 0.0)),
    (LR, (0.0, T2), (1.0, 0.0)),
    (LR, (0.0, 1.0), (0.5, 0.0)),
    (LR, (0.0, T2), (1.0, T1)),
    (LR, (0.5, 1.0), (1.0, T2)),
    (LR, (0.0, 1.0), (1.0, T2)),
    (LR, (0.5, 1.0), (1.0, T1)),
    (LR, (0.0, 1.0), (1.0, T1)),
    (LR, (0.5, 1.0), (1.0, 0.0)),
    (LL, (0.5, 0.0), (1.0, T1)),
    (LL, (0.0, 0.0), (1.0, T1)),
    (LL, (0.5, 0.0), (1.0, T2)),
    (LL, (0.0, 0.0), (1.0, T2)),
    (LL, (0.5, 0.0), (1.0, 1.0)),
    (LL, (0.0, T1), (1.0, T2)),
];

fn side(a: Point, b: Point, p: Point) -> f32 {
    (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
}

fn wedge(canvas: &mut Canvas, n: u32) {
    let (index, complement) = if n < 0x1FB52 {
        (n - 0x1FB3C, false)
    } else {
        (n - 0x1FB52, true)
    };
    let (corner, a, b) = WEDGES[index as usize];
    let (w, h) = (canvas.w, canvas.h);
    let corner_side = side(a, b, corner).signum();
    canvas.fill(255, move |x, y| {
        let s = side(a, b, (x / w, y / h));
        (s * corner_side >= 0.0) != complement
    });
}

/// U+1FB68–1FB6F: three-quarter blocks missing a triangle, then the quarter triangles,
/// each pointing at the cell's centre from the left, top, right and bottom edges.
fn triangles(canvas: &mut Canvas, n: u32) {
    let (w, h) = (canvas.w, canvas.h);
    let centre = (0.5, 0.5);
    // Left, top, right, bottom edges as the triangle's base.
    let bases = [
        ((0.0, 0.0), (0.0, 1.0)),
        ((0.0, 0.0), (1.0, 0.0)),
        ((1.0, 0.0), (1.0, 1.0)),
        ((0.0, 1.0), (1.0, 1.0)),
    ];
    // 1FB68 lacks the left triangle, 1FB69 the upper, 1FB6A the right, 1FB6B the lower;
    // 1FB6C–1FB6F are the left, upper, right and lower triangles alone.
    let k = (n - 0x1FB68) as usize;
    let (base, inverse) = if k < 4 {
        (bases[k], true)
    } else {
        (bases[k - 4], false)
    };
    let tri = [base.0, base.1, centre];
    canvas.fill(255, move |x, y| {
        let p = (x / w, y / h);
        let s = [0, 1, 2].map(|i| side(tri[i], tri[(i + 1) % 3], p));
        let inside = s.iter().all(|&v| v >= 0.0) || s.iter().all(|&v| v <= 0.0);
        inside != inverse
    });
}

/// U+1FB70–1FB8B: single eighth columns and rows, eighth-block corners, and the upper
/// and right blocks in quarters and eighths.
fn eighths(canvas: &mut Canvas, n: u32) {
    let e = |k: u32| k as f32 / 8.0;
    match n {
        // Vertical one eighth block 2..7: the k-th eighth column.
        0x1FB70..=0x1FB75 => {
            let k = n - 0x1FB70 + 1;
            canvas.frac_rect(e(k), 0.0, e(k + 1), 1.0, 255);
        }
        // Horizontal one eighth block 2..7.
        0x1FB76..=0x1FB7B => {
            let k = n - 0x1FB76 + 1;
            canvas.frac_rect(0.0, e(k), 1.0, e(k + 1), 255);
        }
        // Left and lower, left and upper, right and upper, right and lower.
        0x1FB7C..=0x1FB7F => {
            let (left, lower) = match n {
                0x1FB7C => (true, true),
                0x1FB7D => (true, false),
                0x1FB7E => (false, false),
                _ => (false, true),
            };
            if left {
                canvas.frac_rect(0.0, 0.0, e(1), 1.0, 255);
            } else {
                canvas.frac_rect(e(7), 0.0, 1.0, 1.0, 255);
            }
            if lower {
                canvas.frac_rect(0.0, e(7), 1.0, 1.0, 255);
            } else {
                canvas.frac_rect(0.0, 0.0, 1.0, e(1), 255);
            }
        }
        // Upper and lower one eighth.
        0x1FB80 => {
            canvas.frac_rect(0.0, 0.0, 1.0, e(1), 255);
            canvas.frac_rect(0.0, e(7), 1.0, 1.0, 255);
        }
        // Horizontal one eighth block 1, 3, 5 and 8.
        0x1FB81 => {
            for k in [0, 2, 4, 7] {
                canvas.frac_rect(0.0, e(k), 1.0, e(k + 1), 255);
            }
        }
        // Upper one quarter, three, five eighths, three quarters, seven eighths.
        0x1FB82..=0x1FB86 => {
            let eighths = [2, 3, 5, 6, 7][(n - 0x1FB82) as usize];
            canvas.frac_rect(0.0, 0.0, 1.0, e(eighths), 255);
        }
        // Right one quarter ... seven eighths.
        _ => {
            let eighths = [2, 3, 5, 6, 7][(n - 0x1FB87) as usize];
            canvas.frac_rect(1.0 - e(eighths), 0.0, 1.0, 1.0, 255);
        }
    }
}

/// U+1FB8C–1FB9F: half medium shades, checker boards, fills and shaded triangles.
fn shades(canvas: &mut Canvas, n: u32) {
    let (w, h) = (canvas.w, canvas.h);
    match n {
        0x1FB8C => canvas.frac_rect(0.0, 0.0, 0.5, 1.0, SHADE),
        0x1FB8D => canvas.frac_rect(0.5, 0.0, 1.0, 1.0, SHADE),
        0x1FB8E => canvas.frac_rect(0.0, 0.0, 1.0, 0.5, SHADE),
        0x1FB8F => canvas.frac_rect(0.0, 0.5, 1.0, 1.0, SHADE),
        0x1FB90 => canvas.frac_rect(0.0, 0.0, 1.0, 1.0, 255 - SHADE),
        0x1FB91 => {
            canvas.frac_rect(0.0, 0.0, 1.0, 0.5, 255);
            canvas.frac_rect(0.0, 0.5, 1.0, 1.0, 255 - SHADE);
        }
        0x1FB92 => {
            canvas.frac_rect(0.0, 0.0, 1.0, 0.5, 255 - SHADE);
            canvas.frac_rect(0.0, 0.5, 1.0, 1.0, 255);
        }
        0x1FB94 => {
            canvas.frac_rect(0.0, 0.0, 0.5, 1.0, 255 - SHADE);
            canvas.frac_rect(0.5, 0.0, 1.0, 1.0, 255);
        }
        // Checker boards: a 4x4 board (and its inverse) per cell.
        0x1FB95 | 0x1FB96 => {
            let first = n == 0x1FB95;
            for row in 0..4 {
                for col in 0..4 {
                    if ((row + col) % 2 == 0) == first {
                        let (x, y) = (col as f32 / 4.0, row as f32 / 4.0);
                        canvas.frac_rect(x, y, x + 0.25, y + 0.25, 255);
                    }
                }
            }
        }
        // Heavy horizontal fill: alternate quarter rows.
        0x1FB97 => {
            canvas.frac_rect(0.0, 0.25, 1.0, 0.5, 255);
            canvas.frac_rect(0.0, 0.75, 1.0, 1.0, 255);
        }
        // Diagonal hatching: stripes a quarter of the cell's width apart.
        0x1FB98 | 0x1FB99 => {
            let down = n == 0x1FB98;
            let period = w / 2.0;
            canvas.fill(255, move |x, y| {
                let along = if down { x - y * w / h } else { x + y * w / h };
                along.rem_euclid(period) < period / 2.0
            });
        }
        // Upper and lower, left and right triangular half blocks (hourglass, bow tie).
        0x1FB9A => {
            canvas.frac_polygon(&[(0.0, 0.0), (1.0, 0.0), (0.5, 0.5)]);
            canvas.frac_polygon(&[(0.0, 1.0), (1.0, 1.0), (0.5, 0.5)]);
        }
        0x1FB9B => {
            canvas.frac_polygon(&[(0.0, 0.0), (0.0, 1.0), (0.5, 0.5)]);
            canvas.frac_polygon(&[(1.0, 0.0), (1.0, 1.0), (0.5, 0.5)]);
        }
        // Shaded triangles: upper left, upper right, lower right, lower left.
        _ => {
            let corner = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)][(n - 0x1FB9C) as usize];
            let (a, b) = ((1.0 - corner.0, corner.1), (corner.0, 1.0 - corner.1));
            let corner_side = side(a, b, corner).signum();
            canvas.fill(SHADE, move |x, y| {
                side(a, b, (x / w, y / h)) * corner_side >= 0.0
            });
        }
    }
}

/// U+1FBA0–1FBAF: light diagonals between the middles of the edges, and a horizontal
/// line with a vertical stroke.
fn light_diagonals(canvas: &mut Canvas, n: u32) {
    let (w, h, t) = (canvas.w, canvas.h, canvas.light());
    let top = (w / 2.0, 0.0);
    let left = (0.0, h / 2.0);
    let right = (w, h / 2.0);
    let bottom = (w / 2.0, h);
    let (tl, tr, lb, rb) = ((top, left), (top, right), (left, bottom), (right, bottom));
    let segments: &[(Point, Point)] = match n {
        0x1FBA0 => &[tl],
        0x1FBA1 => &[tr],
        0x1FBA2 => &[lb],
        0x1FBA3 => &[rb],
        0x1FBA4 => &[tl, lb],
        0x1FBA5 => &[tr, rb],
        0x1FBA6 => &[lb, rb],
        0x1FBA7 => &[tl, tr],
        0x1FBA8 => &[tl, rb],
        0x1FBA9 => &[tr, lb],
        0x1FBAA => &[tr, rb, lb],
        0x1FBAB => &[tl, lb, rb],
        0x1FBAC => &[tl, tr, rb],
        0x1FBAD => &[tr, tl, lb],
        0x1FBAE => &[tl, tr, lb, rb],
        _ => {
            let y = Canvas::centred(h, t);
            canvas.rect(0.0, y, w, y + t, 255);
            let x = Canvas::centred(w, t);
            canvas.rect(x, (h / 4.0).round(), x + t, (h * 0.75).round(), 255);
            &[]
        }
    };
    for &(a, b) in segments {
        canvas.line(a, b, t);
    }
}
