//! Sixel (`DCS P1 ; P2 ; P3 q ... ST`), as xterm draws it: raster attributes (`"`),
//! colour registers defined in HLS or RGB (`#`), repeats (`!`), graphics carriage
//! return (`$`) and new line (`-`); the background select (`P2 = 1`: pixels no sixel
//! set stay transparent, else they take colour register 0). Each image has its own
//! registers (xterm's private colour registers, ?1070, its default), starting from the
//! VT340's 16 colours. A pixel takes the colour its register has when it is drawn.
//!
//! Bounded whatever comes: at most [`MAX_SIXEL_SIDE`] pixels wide or tall and
//! [`super::MAX_IMAGE_BYTES`] of pixels (a repeat count is cut at the right edge, so
//! `!999999999~` costs as little as the room left), [`REGISTERS`] registers; bytes past
//! the limits are read and dropped.

use super::{ImageData, MAX_IMAGE_BYTES};

/// Widest or tallest sixel image, in pixels.
pub const MAX_SIXEL_SIDE: usize = 4096;
/// Colour registers an image has (xterm's default).
pub const REGISTERS: usize = 1024;
/// Most digits of a number kept (the value saturates).
const MAX_PARAMS: usize = 8;

/// The VT340's default colour registers 0–15 (percent RGB, as xterm has them).
const VT340: [(u8, u8, u8); 16] = [
    (0, 0, 0),
    (20, 20, 80),
    (80, 13, 13),
    (20, 80, 20),
    (80, 20, 80),
    (20, 80, 80),
    (80, 80, 20),
    (53, 53, 53),
    (26, 26, 26),
    (33, 33, 60),
    (60, 26, 26),
    (33, 60, 33),
    (60, 33, 60),
    (33, 60, 60),
    (60, 60, 33),
    (80, 80, 80),
];

fn percent(v: u8) -> u8 {
    ((u32::from(v.min(100)) * 255 + 50) / 100) as u8
}

fn rgba(r: u8, g: u8, b: u8) -> u32 {
    u32::from_le_bytes([r, g, b, 255])
}

/// HLS as DEC defines it (hue 0 is blue, lightness and saturation in percent) to RGB.
fn hls(h: u32, l: u32, s: u32) -> u32 {
    let (l, s) = (l.min(100) as f32 / 100.0, s.min(100) as f32 / 100.0);
    // DEC's hue is rotated by 240 degrees from the usual one (0 = blue, 120 = red).
    let h = ((h % 360) as f32 + 240.0) % 360.0;
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let x = c * (1.0 - ((h / 60.0) % 2.0 - 1.0).abs());
    let m = l - c / 2.0;
    let (r, g, b) = match (h / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let byte = |v: f32| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    rgba(byte(r), byte(g), byte(b))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Data,
    /// Reading the numbers after `!`, `#` or `"`.
    Params(u8),
}

/// A sixel image being received.
pub struct Decoder {
    /// Registers 0..len (the VT340's 16, then as far as the highest one set); those
    /// past the end are black.
    registers: Vec<u32>,
    color: u32,
    transparent_background: bool,
    /// Rows of packed RGBA (0: no sixel set this pixel); each grows as it is drawn.
    rows: Vec<Vec<u32>>,
    /// Pixels held in `rows`, counted against the cap.
    pixels: usize,
    x: usize,
    /// Top row of the current band.
    band: usize,
    /// The raster attributes' size, if given.
    raster: (usize, usize),
    mode: Mode,
    params: Vec<u32>,
    /// Work done and not yet handed to the terminal's count ([`Decoder::take_work_cells`]),
    /// in pixels written.
    unpaid_pixels: u64,
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("sixel::Decoder")
            .field("x", &self.x)
            .field("band", &self.band)
            .finish_non_exhaustive()
    }
}

impl Decoder {
    /// Starts an image from the DCS parameters (`P2` is the background select).
    pub fn new(params: &[u16]) -> Decoder {
        let registers: Vec<u32> = VT340
            .iter()
            .map(|&(r, g, b)| rgba(percent(r), percent(g), percent(b)))
            .collect();
        Decoder {
            color: registers[0],
            registers,
            transparent_background: params.get(1) == Some(&1),
            rows: Vec::new(),
            pixels: 0,
            x: 0,
            band: 0,
            raster: (0, 0),
            mode: Mode::Data,
            params: Vec::new(),
            unpaid_pixels: 0,
        }
    }

    /// The work done since the last call, in the cells of work a terminal counts
    /// ([`super::pixel_work_cells`]; the pixels short of a whole cell are kept for the
    /// next call, so the total is the same however the data was split). Called after
    /// each byte, so that a parse can stop inside a long image once its slice's work
    /// is spent.
    #[inline]
    pub fn take_work_cells(&mut self) -> u64 {
        let cells = self.unpaid_pixels / super::PIXELS_PER_WORK_CELL;
        self.unpaid_pixels %= super::PIXELS_PER_WORK_CELL;
        cells
    }

    /// Heap bytes held so far.
    pub fn heap_bytes(&self) -> usize {
        self.rows.iter().map(|r| r.capacity() * 4).sum::<usize>()
            + self.registers.len() * 4
            + self.rows.capacity() * 24
    }

    pub fn put(&mut self, byte: u8) {
        if let Mode::Params(intro) = self.mode {
            match byte {
                b'0'..=b'9' => {
                    if self.params.is_empty() {
                        self.params.push(0);
                    }
                    if let Some(last) = self.params.last_mut() {
                        *last = last
                            .saturating_mul(10)
                            .saturating_add(u32::from(byte - b'0'));
                    }
                    return;
                }
                b';' => {
                    if self.params.is_empty() {
                        self.params.push(0);
                    }
                    if self.params.len() < MAX_PARAMS {
                        self.params.push(0);
                    }
                    return;
                }
                _ => {
                    self.mode = Mode::Data;
                    if intro == b'!' {
                        if let b'?'..=b'~' = byte {
                            let count = self.param(0).max(1) as usize;
                            self.sixel(byte - b'?', count);
                            return;
                        }
                    } else {
                        self.apply_params(intro);
                    }
                }
            }
        }
        match byte {
            b'?'..=b'~' => self.sixel(byte - b'?', 1),
            b'!' | b'#' | b'"' => {
                self.params.clear();
                self.mode = Mode::Params(byte);
            }
            b'$' => self.x = 0,
            b'-' => {
                self.x = 0;
                self.band = (self.band + 6).min(MAX_SIXEL_SIDE);
            }
            _ => {}
        }
    }

    fn param(&self, i: usize) -> u32 {
        self.params.get(i).copied().unwrap_or(0)
    }

    /// Acts on a colour (`#`) or raster attributes (`"`) command once its numbers end.
    fn apply_params(&mut self, intro: u8) {
        let p = |i: usize| self.param(i);
        match intro {
            b'#' => {
                let reg = p(0) as usize % REGISTERS;
                if self.params.len() >= 5 {
                    let color = match p(1) {
                        1 => Some(hls(p(2), p(3), p(4))),
                        2 => Some(rgba(
                            percent(p(2).min(100) as u8),
                            percent(p(3).min(100) as u8),
                            percent(p(4).min(100) as u8),
                        )),
                        _ => None,
                    };
                    if let Some(color) = color {
                        if self.registers.len() <= reg {
                            self.registers.resize(reg + 1, rgba(0, 0, 0));
                        }
                        self.registers[reg] = color;
                    }
                }
                self.color = self.registers.get(reg).copied().unwrap_or(rgba(0, 0, 0));
            }
            b'"' => {
                let (w, h) = (p(2) as usize, p(3) as usize);
                self.raster = (w.min(MAX_SIXEL_SIDE), h.min(MAX_SIXEL_SIDE));
            }
            _ => {}
        }
    }

    /// Draws one sixel (six pixels, bit 0 on top) `count` times at the cursor.
    fn sixel(&mut self, bits: u8, count: usize) {
        let count = count.min(MAX_SIXEL_SIDE.saturating_sub(self.x));
        if count == 0 {
            return;
        }
        let end = self.x + count;
        for bit in 0..6 {
            if bits & (1 << bit) == 0 {
                continue;
            }
            let y = self.band + bit;
            if y >= MAX_SIXEL_SIDE {
                break;
            }
            if self.rows.len() <= y {
                self.rows.resize_with(y + 1, Vec::new);
            }
            let row = &mut self.rows[y];
            if row.len() < end {
                let grow = end - row.len();
                if (self.pixels + grow) * 4 > MAX_IMAGE_BYTES {
                    continue;
                }
                self.pixels += grow;
                if row.capacity() < end {
                    // Doubling, but never past the widest row: the rows' capacity
                    // stays within the image cap.
                    let target = end.max(row.capacity() * 2).min(MAX_SIXEL_SIDE);
                    row.reserve_exact(target - row.len());
                }
                row.resize(end, 0);
            }
            row[self.x..end].fill(self.color);
            self.unpaid_pixels += count as u64;
        }
        self.x = end;
    }

    /// The image drawn, or `None` if nothing was.
    pub fn finish(mut self) -> Option<ImageData> {
        if let Mode::Params(intro) = self.mode {
            self.apply_params(intro);
        }
        let drawn_w = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let drawn_h = self.rows.len();
        let width = drawn_w.max(self.raster.0).min(MAX_SIXEL_SIDE);
        let height = drawn_h.max(self.raster.1).min(MAX_SIXEL_SIDE);
        if width == 0 || height == 0 || width * height * 4 > MAX_IMAGE_BYTES {
            return None;
        }
        let background = if self.transparent_background {
            0
        } else {
            self.registers[0]
        };
        // Zeroed (fresh pages, no writes) and then written a row at a time: a pixel no
        // sixel set takes the background.
        let mut out = vec![0u8; width * height * 4];
        for (y, line) in out.chunks_exact_mut(width * 4).enumerate() {
            let row = self.rows.get(y).map_or(&[][..], Vec::as_slice);
            let row = &row[..row.len().min(width)];
            let (drawn, rest) = line.split_at_mut(row.len() * 4);
            for (dst, &px) in drawn.chunks_exact_mut(4).zip(row) {
                let px = if px == 0 { background } else { px };
                dst.copy_from_slice(&px.to_le_bytes());
            }
            if background != 0 {
                for dst in rest.chunks_exact_mut(4) {
                    dst.copy_from_slice(&background.to_le_bytes());
                }
            }
        }
        ImageData::new(width as u32, height as u32, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8], params: &[u16]) -> Option<ImageData> {
        let mut d = Decoder::new(params);
        bytes.iter().for_each(|&b| d.put(b));
        d.finish()
    }

    fn pixel(img: &ImageData, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * img.width + x) * 4) as usize;
        img.rgba[i..i + 4].try_into().unwrap()
    }

    #[test]
    fn a_red_bar_over_two_bands() {
        // Register 1 is red (RGB 100,0,0); 3 columns of a full sixel, then the next
        // band with the top pixel only.
        let img = decode(b"#1;2;100;0;0#1~~~-!3@", &[0, 1]).unwrap();
        assert_eq!((img.width, img.height), (3, 7));
        assert_eq!(pixel(&img, 0, 0), [255, 0, 0, 255]);
        assert_eq!(pixel(&img, 2, 6), [255, 0, 0, 255]);
    }

    #[test]
    fn the_background_select_decides_unset_pixels() {
        let transparent = decode(b"\"1;1;2;6#2@", &[0, 1]).unwrap();
        assert_eq!(pixel(&transparent, 1, 0), [0, 0, 0, 0]);
        let filled = decode(b"\"1;1;2;6#2@", &[0, 0]).unwrap();
        assert_eq!(pixel(&filled, 1, 0), [0, 0, 0, 255]);
    }

    #[test]
    fn hls_blue_is_hue_zero() {
        assert_eq!(hls(0, 50, 100).to_le_bytes(), [0, 0, 255, 255]);
        assert_eq!(hls(120, 50, 100).to_le_bytes(), [255, 0, 0, 255]);
    }

    #[test]
    fn a_billion_repeats_stop_at_the_edge() {
        let mut d = Decoder::new(&[0, 1]);
        b"!1000000000~!1000000000~".iter().for_each(|&b| d.put(b));
        // The work is the pixels painted: one band of the widest image, whatever the
        // repeats asked (counted, not timed).
        assert_eq!(
            d.take_work_cells(),
            crate::model::images::pixel_work_cells(6 * MAX_SIXEL_SIDE as u64)
        );
        let img = d.finish().unwrap();
        assert_eq!(img.width as usize, MAX_SIXEL_SIDE);
    }
}
