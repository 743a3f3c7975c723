//! Symbols tern draws itself instead of taking them from a font, as exact cell geometry
//! at any scale (as kitty, WezTerm and Ghostty do): Braille (U+2800–28FF), Powerline
//! separators (U+E0B0–E0BF, the rounded ones included), legacy computing sextants,
//! wedges and blocks (U+1FB00–1FBAF), and the box-drawing shapes the renderer's
//! rectangles do not cover (dashed lines, rounded corners, diagonals).
//!
//! Pure: a character and a cell size in physical pixels in, a coverage [`Mask`] out.
//! The window hands the masks to egui's font atlas (see `window::glyphs`), so a symbol
//! is rasterized once per size and drawn like any glyph, exactly filling its cell.

mod canvas;
mod legacy;

use canvas::Canvas;
pub use canvas::Mask;

/// One cell's size in physical pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CellPx {
    pub width_px: u32,
    pub height_px: u32,
}

/// Whether tern draws `c` itself.
pub fn draws(c: char) -> bool {
    matches!(c,
        '\u{2800}'..='\u{28FF}'
        | '\u{E0B0}'..='\u{E0BF}'
        | '\u{2504}'..='\u{250B}'
        | '\u{254C}'..='\u{254F}'
        | '\u{256D}'..='\u{2573}')
        || legacy::draws(c)
}

/// The coverage of `c` in a cell of `cell`, or `None` for characters left to fonts.
pub fn mask(c: char, cell: CellPx) -> Option<Mask> {
    if !draws(c) || cell.width_px == 0 || cell.height_px == 0 {
        return None;
    }
    let mut canvas = Canvas::new(cell.width_px, cell.height_px);
    let drawn = match c {
        '\u{2800}'..='\u{28FF}' => {
            braille(&mut canvas, c as u32 - 0x2800);
            true
        }
        '\u{E0B0}'..='\u{E0BF}' => {
            powerline(&mut canvas, c);
            true
        }
        '\u{2504}'..='\u{250B}' | '\u{254C}'..='\u{254F}' => {
            dashed(&mut canvas, c);
            true
        }
        '\u{256D}'..='\u{2570}' => {
            rounded_corner(&mut canvas, c);
            true
        }
        '\u{2571}'..='\u{2573}' => {
            diagonal(&mut canvas, c);
            true
        }
        _ => legacy::draw(&mut canvas, c),
    };
    drawn.then(|| canvas.finish())
}

/// Braille: dots 1–3 and 7 down the left column, 4–6 and 8 down the right; bit n-1 of
/// the offset from U+2800 sets dot n. Square dots, whole pixels, evenly spaced.
fn braille(canvas: &mut Canvas, bits: u32) {
    const DOTS: [(u32, u32); 8] = [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
        (1, 2),
        (0, 3),
        (1, 3),
    ];
    let (sub_w, sub_h) = (canvas.w / 2.0, canvas.h / 4.0);
    let dot = (sub_w.min(sub_h) * 0.6).round().max(1.0);
    for (bit, &(col, row)) in DOTS.iter().enumerate() {
        if bits & (1 << bit) == 0 {
            continue;
        }
        let x = (col as f32 * sub_w + (sub_w - dot) / 2.0).round();
        let y = (row as f32 * sub_h + (sub_h - dot) / 2.0).round();
        canvas.rect(x, y, x + dot, y + dot, 255);
    }
}

/// Powerline separators: solid and thin triangles, half circles, and the slanted ones.
fn powerline(canvas: &mut Canvas, c: char) {
    let (w, h) = (canvas.w, canvas.h);
    let t = canvas.light();
    match c {
        '\u{E0B0}' => canvas.frac_polygon(&[(0.0, 0.0), (1.0, 0.5), (0.0, 1.0)]),
        '\u{E0B2}' => canvas.frac_polygon(&[(1.0, 0.0), (0.0, 0.5), (1.0, 1.0)]),
        '\u{E0B1}' => {
            canvas.line((0.0, 0.0), (w, h / 2.0), t);
            canvas.line((w, h / 2.0), (0.0, h), t);
        }
        '\u{E0B3}' => {
            canvas.line((w, 0.0), (0.0, h / 2.0), t);
            canvas.line((0.0, h / 2.0), (w, h), t);
        }
        // Half circles (ellipses filling the cell's height), bulging right or left.
        '\u{E0B4}'..='\u{E0B7}' => {
            let cx = if matches!(c, '\u{E0B4}' | '\u{E0B5}') {
                0.0
            } else {
                w
            };
            let (rx, ry, cy) = (w, h / 2.0, h / 2.0);
            let solid = matches!(c, '\u{E0B4}' | '\u{E0B6}');
            canvas.fill(255, move |x, y| {
                let d = ((x - cx) / rx).powi(2) + ((y - cy) / ry).powi(2);
                if solid {
                    d <= 1.0
                } else {
                    // A ring `t` pixels thick just inside the ellipse.
                    let inner = ((x - cx) / (rx - t).max(0.5)).powi(2)
                        + ((y - cy) / (ry - t).max(0.5)).powi(2);
                    d <= 1.0 && inner >= 1.0
                }
            });
        }
        '\u{E0B8}' => canvas.frac_polygon(&[(0.0, 0.0), (1.0, 1.0), (0.0, 1.0)]),
        '\u{E0BA}' => canvas.frac_polygon(&[(1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]),
        '\u{E0BC}' => canvas.frac_polygon(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]),
        '\u{E0BE}' => canvas.frac_polygon(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)]),
        '\u{E0B9}' | '\u{E0BF}' => canvas.line((0.0, 0.0), (w, h), t),
        _ => canvas.line((w, 0.0), (0.0, h), t), // E0BB, E0BD
    }
}

/// Dashed lines: double (╌), triple (┄) and quadruple (┈) dashes, light or heavy,
/// horizontal or vertical; the gaps sit inside the cell so dashes repeat evenly.
fn dashed(canvas: &mut Canvas, c: char) {
    let (dashes, heavy, vertical) = match c {
        '\u{2504}' => (3, false, false),
        '\u{2505}' => (3, true, false),
        '\u{2506}' => (3, false, true),
        '\u{2507}' => (3, true, true),
        '\u{2508}' => (4, false, false),
        '\u{2509}' => (4, true, false),
        '\u{250A}' => (4, false, true),
        '\u{250B}' => (4, true, true),
        '\u{254C}' => (2, false, false),
        '\u{254D}' => (2, true, false),
        '\u{254E}' => (2, false, true),
        _ => (2, true, true),
    };
    let t = canvas.light() * if heavy { 2.0 } else { 1.0 };
    let (along, across) = if vertical {
        (canvas.h, canvas.w)
    } else {
        (canvas.w, canvas.h)
    };
    let at = Canvas::centred(across, t);
    let segment = along / dashes as f32;
    let gap = (segment * 0.4).round().max(1.0);
    for k in 0..dashes {
        let start = (k as f32 * segment + gap / 2.0).round();
        let end = ((k + 1) as f32 * segment - gap / 2.0)
            .round()
            .max(start + 1.0);
        if vertical {
            canvas.rect(at, start, at + t, end, 255);
        } else {
            canvas.rect(start, at, end, at + t, 255);
        }
    }
}

/// Rounded corners ╭ ╮ ╯ ╰: a quarter circle from the middle of one edge to the middle
/// of the other, in the same place and thickness as the renderer's `─` and `│`, so they
/// join.
fn rounded_corner(canvas: &mut Canvas, c: char) {
    let t = canvas.light();
    let (w, h) = (canvas.w, canvas.h);
    // Centre lines of the vertical and horizontal strokes.
    let vx = Canvas::centred(w, t) + t / 2.0;
    let hy = Canvas::centred(h, t) + t / 2.0;
    // Which way the arms go: right or left, down or up.
    let (right, down) = match c {
        '\u{256D}' => (true, true),
        '\u{256E}' => (false, true),
        '\u{256F}' => (false, false),
        _ => (true, false),
    };
    let r = if right { w - vx } else { vx }.min(if down { h - hy } else { hy });
    let cx = if right { vx + r } else { vx - r };
    let cy = if down { hy + r } else { hy - r };
    // The arc, in the quadrant facing the corner.
    canvas.fill(255, move |x, y| {
        let in_quadrant =
            (if right { x <= cx } else { x >= cx }) && (if down { y <= cy } else { y >= cy });
        let d = ((x - cx).powi(2) + (y - cy).powi(2)).sqrt();
        in_quadrant && (d - r).abs() <= t / 2.0
    });
    // Straight arms from the arc's ends to the edges.
    let (x0, y0) = (vx - t / 2.0, hy - t / 2.0);
    if right {
        canvas.rect(cx, y0, w, y0 + t, 255);
    } else {
        canvas.rect(0.0, y0, cx, y0 + t, 255);
    }
    if down {
        canvas.rect(x0, cy, x0 + t, h, 255);
    } else {
        canvas.rect(x0, 0.0, x0 + t, cy, 255);
    }
}

/// Diagonals ╱ ╲ ╳ from corner to corner (continuing into the next cell's diagonal).
fn diagonal(canvas: &mut Canvas, c: char) {
    let (w, h, t) = (canvas.w, canvas.h, canvas.light());
    if c != '\u{2572}' {
        canvas.line((w, 0.0), (0.0, h), t);
    }
    if c != '\u{2571}' {
        canvas.line((0.0, 0.0), (w, h), t);
    }
}

#[cfg(test)]
mod tests;
