//! A pane's grid (backgrounds, selection, glyphs, box drawing, decorations) drawn into
//! a texture the pane keeps between frames, and put on screen as a few quads.
//!
//! On a software renderer a frame's cost is the pixels it shades (~65 ns a pixel for
//! egui's fragment shader on lavapipe), and drawing a pane's rows as egui meshes shades
//! every glyph of the screen in every frame, for one changed cell. Here a frame
//! re-renders only the rows whose mesh changed (and their neighbours, which a glyph may
//! reach into), each scissored to its band of the texture, which keeps the rest
//! (`LoadOp::Load`); then the texture goes on screen by a copy shader (one texel
//! load, no blending) over each row's drawn extent — on a window cleared to the pane's
//! background, empty space costs nothing, as it did before.
//!
//! Colours are egui's: rows are drawn with egui's vertex format, blend and arithmetic
//! (`egui.wgsl`: the vertex colour times the atlas sample, premultiplied, into a
//! gamma-space target, or converted to linear for an sRGB one) into a texture of the
//! window's own format, over the pane's background, so the texture holds the pixels
//! the window would have held; the copy moves them unchanged.
//!
//! The texture is stale when egui's font atlas moves (the row cache's key holds the
//! atlas generation: every row is rebuilt and the texture redrawn whole), when its size
//! changes, or when a frame's drawing did not reach the GPU (each job is numbered; a
//! job that does not follow the last one drawn is drawn whole).

mod gpu;
mod kept;
mod pipelines;

use std::ops::Range;
use std::sync::PoisonError;

use eframe::egui_wgpu;
use egui::{Color32, Mesh, Pos2, Rect, pos2, vec2};

use gpu::{Callback, Job, SharedSurface};
pub use gpu::{GridGpu, GridSlot};
pub use kept::{KeptDraw, KeptShapes};
use pipelines::{VERTEX_BYTES, vertex_bytes};

/// A pane's grid texture, kept in its row cache (freed with it).
#[derive(Default)]
pub struct GridTexture {
    surface: SharedSurface,
    /// The number of the last job handed to a callback.
    issued: u64,
    /// Each row's drawn extent in the texture (pixels), as last drawn.
    extents: Vec<Option<[u32; 4]>>,
    /// The last frame's rows drawn and rows in view (`None`: drawn directly).
    pub last: Option<(usize, usize)>,
}

/// One frame of a pane's grid: where the texture goes and what changed.
pub struct GridFrame<'a> {
    /// The texture's top-left (points, on a physical pixel) and size.
    pub at: Pos2,
    pub size_px: [u32; 2],
    pub pixels_per_point: f32,
    /// The pane's default background: the texture's colour where no row draws.
    pub background: Color32,
    /// Where row 0 starts (window points) and each row's height.
    pub row_top: f32,
    pub row_height: f32,
    /// Each row's mesh (in window points), top to bottom.
    pub rows: &'a [&'a Mesh],
    /// Rows whose mesh changed since the texture was last drawn.
    pub changed: &'a [usize],
    /// Whether everything must be drawn again (the rows' geometry, colours or the
    /// atlas changed).
    pub whole: bool,
    /// Whether the window was cleared to `background` (then only what rows draw is
    /// copied; else the whole texture).
    pub on_background: bool,
}

impl GridTexture {
    /// The texture's bytes on the GPU (for the cap on kept textures).
    pub fn bytes(&self) -> usize {
        let s = self.surface.lock().unwrap_or_else(PoisonError::into_inner);
        s.as_ref().map_or(0, |(s, _)| {
            s.size_px[0] as usize * s.size_px[1] as usize * 4
        })
    }

    /// The texture no longer holds what the rows show (they were drawn directly).
    pub fn forget(&mut self) {
        self.last = None;
        self.issued += 1;
        self.extents.clear();
    }

    /// Whether the texture holds the last job at this size and scale.
    fn current(&self, size_px: [u32; 2], ppp: f32) -> bool {
        let s = self.surface.lock().unwrap_or_else(PoisonError::into_inner);
        s.as_ref()
            .is_some_and(|(s, p)| s.drawn == self.issued && s.size_px == size_px && *p == ppp)
    }

    /// The shape that draws `frame`: the changed rows into the texture, then the
    /// texture onto the window.
    pub fn shape(
        &mut self,
        gpu: &GridGpu,
        ctx: &egui::Context,
        frame: &GridFrame<'_>,
    ) -> egui::Shape {
        let ppp = frame.pixels_per_point;
        let whole = frame.whole
            || !self.current(frame.size_px, ppp)
            || self.extents.len() != frame.rows.len();
        let [w, h] = frame.size_px;
        let shift = frame.at.to_vec2();
        let mut job = Job {
            number: self.issued + 1,
            follows: self.issued,
            size_px: frame.size_px,
            pixels_per_point: ppp,
            vertices: Vec::new(),
            indices: Vec::new(),
            bands: Vec::new(),
            copy: Vec::new(),
            ctx: ctx.clone(),
        };
        self.extents.resize(frame.rows.len(), None);
        let bands = bands_to_draw(frame, whole);
        let drawn = bands.iter().map(|b| b.rows.len()).sum();
        self.last = Some((drawn, frame.rows.len()));
        let add = |job: &mut Job, mesh: &Mesh| {
            let base = (job.vertices.len() / VERTEX_BYTES) as u32;
            for v in &mesh.vertices {
                vertex_bytes(&mut job.vertices, v, shift);
            }
            job.indices.extend(mesh.indices.iter().map(|i| i + base));
        };
        for b in &bands {
            let start = job.indices.len() as u32;
            let mut clear = Mesh::default();
            let top = b.y_px.start as f32 / ppp;
            let bottom = b.y_px.end as f32 / ppp;
            clear.add_colored_rect(
                Rect::from_min_max(pos2(0.0, top), pos2(w as f32 / ppp, bottom)).translate(shift),
                frame.background,
            );
            add(&mut job, &clear);
            let reach = b.rows.start.saturating_sub(1)..(b.rows.end + 1).min(frame.rows.len());
            for r in reach {
                add(&mut job, frame.rows[r]);
            }
            job.bands
                .push((b.y_px.clone(), start..job.indices.len() as u32));
        }
        for b in &bands {
            for r in b.rows.clone() {
                self.extents[r] = extent(frame.rows[r], shift, ppp, frame.size_px);
            }
        }
        // What goes on the window: each row's extent, or the whole texture.
        let quads: Vec<[u32; 4]> = if frame.on_background {
            self.extents.iter().flatten().copied().collect()
        } else {
            vec![[0, 0, w, h]]
        };
        for [x0, y0, x1, y1] in quads {
            let ndc = |x: u32, y: u32| {
                [
                    2.0 * x as f32 / w as f32 - 1.0,
                    1.0 - 2.0 * y as f32 / h as f32,
                    x as f32,
                    y as f32,
                ]
            };
            let (a, b, c, d) = (ndc(x0, y0), ndc(x1, y0), ndc(x0, y1), ndc(x1, y1));
            for v in [a, b, c, c, b, d] {
                job.copy.extend(v);
            }
        }
        self.issued = job.number;
        let rect = Rect::from_min_size(frame.at, vec2(w as f32, h as f32) / ppp);
        let callback = Callback {
            gpu: gpu.clone(),
            surface: self.surface.clone(),
            job,
            whole,
        };
        egui::Shape::Callback(egui_wgpu::Callback::new_paint_callback(rect, callback))
    }
}

/// A run of rows drawn again together: its rows and its band of the texture.
struct Band {
    rows: Range<usize>,
    y_px: Range<u32>,
}

/// The runs of rows to draw: every row when `whole`, else the changed rows and the rows
/// next to them (a glyph may reach into the row above or below), each band cleared to
/// the background and drawn from the rows that can reach it.
fn bands_to_draw(frame: &GridFrame<'_>, whole: bool) -> Vec<Band> {
    let n = frame.rows.len();
    let ppp = frame.pixels_per_point;
    let y_of = |r: usize| {
        if r == 0 {
            0
        } else if r >= n {
            frame.size_px[1]
        } else {
            let y = frame.row_top - frame.at.y + r as f32 * frame.row_height;
            ((y * ppp).round().max(0.0) as u32).min(frame.size_px[1])
        }
    };
    let band = |rows: Range<usize>| Band {
        y_px: y_of(rows.start)..y_of(rows.end),
        rows,
    };
    if whole {
        return vec![band(0..n)];
    }
    let mut marked = vec![false; n];
    for &r in frame.changed.iter().filter(|&&r| r < n) {
        marked[r.saturating_sub(1)..(r + 2).min(n)].fill(true);
    }
    let mut out = Vec::new();
    let mut r = 0;
    while r < n {
        if !marked[r] {
            r += 1;
            continue;
        }
        let start = r;
        while r < n && marked[r] {
            r += 1;
        }
        out.push(band(start..r));
    }
    out
}

/// The pixels a row's mesh covers in the texture, rounded out.
fn extent(mesh: &Mesh, shift: egui::Vec2, ppp: f32, [w, h]: [u32; 2]) -> Option<[u32; 4]> {
    let mut bounds = Rect::NOTHING;
    for v in &mesh.vertices {
        bounds.extend_with(v.pos - shift);
    }
    if !bounds.is_positive() {
        return None;
    }
    let clamp = |v: f32, max: u32| v.clamp(0.0, max as f32) as u32;
    let r = [
        clamp((bounds.min.x * ppp).floor(), w),
        clamp((bounds.min.y * ppp).floor(), h),
        clamp((bounds.max.x * ppp).ceil(), w),
        clamp((bounds.max.y * ppp).ceil(), h),
    ];
    (r[0] < r[2] && r[1] < r[3]).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Catches a changed row drawn without its neighbours (a glyph reaching into the
    /// next row would be cut off, or left behind when the row changes), runs of changed
    /// rows drawn as more than one band, and bands off the rows' pixels.
    #[test]
    fn a_changed_row_is_drawn_with_its_neighbours_in_one_band_per_run() {
        let meshes = vec![Mesh::default(); 10];
        let rows: Vec<&Mesh> = meshes.iter().collect();
        let frame = |changed: &'static [usize]| GridFrame {
            at: pos2(0.0, 0.0),
            size_px: [100, 205],
            pixels_per_point: 1.0,
            background: Color32::BLACK,
            row_top: 2.0,
            row_height: 20.0,
            rows: &rows,
            changed,
            whole: false,
            on_background: true,
        };
        let bands = |f: &GridFrame<'_>, whole| -> Vec<(Range<usize>, Range<u32>)> {
            bands_to_draw(f, whole)
                .into_iter()
                .map(|b| (b.rows, b.y_px))
                .collect()
        };
        assert_eq!(bands(&frame(&[]), false), vec![]);
        // The first row's band starts at the texture's top, the last ends at its bottom.
        assert_eq!(bands(&frame(&[0]), false), vec![(0..2, 0..42)]);
        assert_eq!(bands(&frame(&[9]), false), vec![(8..10, 162..205)]);
        assert_eq!(bands(&frame(&[4, 6]), false), vec![(3..8, 62..162)]);
        assert_eq!(
            bands(&frame(&[2, 7]), false),
            vec![(1..4, 22..82), (6..9, 122..182)]
        );
        assert_eq!(bands(&frame(&[3]), true), vec![(0..10, 0..205)]);
    }
}
