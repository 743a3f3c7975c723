//! Colour emoji: which font has them and how a colour glyph is fitted into its cells
//! (which cells are drawn with them: `presentation.rs`).
//!
//! egui's font atlas holds colour glyphs (epaint's `color_fonts` feature rasterizes
//! `CBDT`, `sbix` and `COLR` glyphs at the physical pixel size, like any glyph). The
//! system's colour emoji font is installed as its own family, and as a fallback after the
//! monospace faces; a colour glyph's quad says so (`GlyphQuad::color`) and is drawn
//! untinted, centred in its one or two cells.
//!
//! A cell's whole grapheme cluster is shaped at once (egui shapes with harfrust), so a
//! ZWJ sequence, a flag, a keycap or a skin-toned emoji that the font joins is one
//! glyph. The model keeps such a cluster in one cell under mode 2027; without it each
//! code point has its own cells (wcwidth) and each part is drawn on its own.

use std::path::{Path, PathBuf};

use egui::{Pos2, Rect, Vec2};

/// The family holding only the colour emoji font (absent when the system has none).
pub const EMOJI_FAMILY: &str = "tern-emoji";
/// The font's name in egui's font definitions.
pub const EMOJI_FONT_NAME: &str = "tern-color-emoji";

/// Where colour emoji fonts live on common systems (bitmap `CBDT` or `sbix`, or `COLR`),
/// looked at only without fontconfig. `TERN_EMOJI_FONT` overrides: a path, or `none`
/// for no colour emoji.
const CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",
    "/usr/share/fonts/noto/NotoColorEmoji.ttf",
    "/usr/share/fonts/google-noto-emoji/NotoColorEmoji.ttf",
    "/usr/share/fonts/google-noto-color-emoji-fonts/NotoColorEmoji.ttf",
    "/usr/share/fonts/noto-emoji/NotoColorEmoji.ttf",
    "/usr/share/fonts/TTF/NotoColorEmoji.ttf",
    "/usr/local/share/fonts/NotoColorEmoji.ttf",
    "/System/Library/Fonts/Apple Color Emoji.ttc",
];

/// The colour emoji font to use: its path and face, or `None` (emoji are then drawn
/// from the monochrome fonts, or not at all). fontconfig's `emoji` family when it is
/// a colour font (read once per process and shared, not copied: Noto Color Emoji is
/// 11 MB, and reading and copying it was most of the fonts' part of start-up); the
/// well-known paths only where fontconfig is not there.
pub fn find_font() -> Option<(PathBuf, egui::FontData)> {
    match std::env::var_os("TERN_EMOJI_FONT") {
        Some(p) if p == "none" => None,
        Some(p) => read(Path::new(&p)),
        None => match super::system_fonts::SystemFonts::open() {
            Ok(fc) => {
                let face = fc.family("emoji")?.faces[0].clone();
                let data = fc.load(&face)?;
                super::system_fonts::has_colour_glyphs(&data).then_some((face.path, data))
            }
            Err(_) => CANDIDATES.iter().find_map(|p| read(Path::new(p))),
        },
    }
}

/// Drawn a little smaller than the font's own size: Noto's emoji are 1.25 em wide, two
/// cells of a monospace font about 1.2 em. `fit` scales down whatever still overflows.
pub fn font_tweak() -> egui::FontTweak {
    egui::FontTweak {
        scale: 0.92,
        ..Default::default()
    }
}

fn read(path: &Path) -> Option<(PathBuf, egui::FontData)> {
    std::fs::read(path)
        .ok()
        .map(|b| (path.to_owned(), egui::FontData::from_owned(b)))
}

/// The rectangle a colour glyph of `size` (points) takes in the cell box `cells`:
/// scaled down to fit if it is larger (never up), centred, its top-left on a physical
/// pixel so that a glyph rasterized at its size is sampled one texel per pixel.
pub fn fit(cells: Rect, size: Vec2, pixels_per_point: f32) -> Rect {
    let k = (cells.width() / size.x)
        .min(cells.height() / size.y)
        .min(1.0);
    let size = size * k;
    let min = cells.center() - size / 2.0;
    let snap = |v: f32| (v * pixels_per_point).round() / pixels_per_point;
    Rect::from_min_size(Pos2::new(snap(min.x), snap(min.y)), size)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// fontconfig's `emoji` family (fonts-noto-color-emoji, which `scripts/test.sh`
    /// installs), not a list of paths.
    #[test]
    fn the_colour_emoji_font_comes_from_fontconfig() {
        let (path, data) = find_font().expect("a colour emoji font through fontconfig");
        assert!(path.ends_with("NotoColorEmoji.ttf"), "{}", path.display());
        assert!(crate::window::glyphs::system_fonts::has_colour_glyphs(
            &data
        ));
    }

    #[test]
    fn a_colour_glyph_is_fitted_into_its_cells_on_whole_pixels() {
        let cells = Rect::from_min_size(Pos2::new(10.0, 20.0), Vec2::new(18.0, 17.5));
        // Smaller than the box: kept, centred.
        let r = fit(cells, Vec2::new(16.0, 15.0), 2.0);
        assert_eq!(r.size(), Vec2::new(16.0, 15.0));
        assert!((r.center() - cells.center()).length() <= 0.5);
        // Wider than the box: scaled down, aspect kept.
        let r = fit(cells, Vec2::new(36.0, 30.0), 1.5);
        assert!((r.width() - 18.0).abs() < 1e-4 && (r.height() - 15.0).abs() < 1e-4);
        for v in [r.min.x, r.min.y] {
            let px = v * 1.5;
            assert!((px - px.round()).abs() < 1e-3, "{v} is not on a pixel");
        }
    }

    /// Runs `f` in a frame of a context with tern's fonts at `pixels_per_point`; also
    /// hands it the monospace cell size, snapped to whole pixels like the window's.
    pub(crate) fn in_frame<T>(
        pixels_per_point: f32,
        mut f: impl FnMut(&egui::Context, Vec2) -> T,
    ) -> T {
        let ctx = egui::Context::default();
        crate::window::glyphs::fonts::install_fonts(&ctx);
        let mut out = None;
        for _ in 0..2 {
            // The first pass loads the fonts; the second one measures.
            let mut raw = egui::RawInput::default();
            raw.viewports
                .entry(egui::ViewportId::ROOT)
                .or_default()
                .native_pixels_per_point = Some(pixels_per_point);
            let mut output = ctx.run_ui(raw, |ui| {
                let ctx = ui.ctx();
                let font = egui::FontId::monospace(crate::window::glyphs::fonts::DEFAULT_FONT_SIZE);
                let (w, h) = ctx.fonts_mut(|f| (f.glyph_width(&font, 'M'), f.row_height(&font)));
                let snap = |v: f32| (v * pixels_per_point).round().max(1.0) / pixels_per_point;
                out = Some(f(ctx, Vec2::new(snap(w), snap(h))));
            });
            // No renderer here: nothing takes the atlas uploads.
            output.textures_delta.clear();
        }
        out.expect("a frame ran")
    }

    /// A ZWJ family, a flag, a keycap and a skin-toned emoji are each one colour glyph
    /// (the font's ligature), fitted into two cells.
    #[test]
    fn emoji_sequences_are_shaped_into_one_colour_glyph() {
        for cluster in [
            "👨\u{200D}👩\u{200D}👧",
            "🇫🇷",
            "1\u{FE0F}\u{20E3}",
            "👍\u{1F3FD}",
        ] {
            let (cell, quad, part) = in_frame(1.0, |ctx, cell| {
                let mut glyphs = crate::window::glyphs::GlyphCache::default();
                let font = egui::FontId::monospace(crate::window::glyphs::fonts::DEFAULT_FONT_SIZE);
                glyphs.begin_frame(ctx, &font);
                let two = Vec2::new(2.0 * cell.x, cell.y);
                let first = cluster.chars().next().map(String::from).unwrap_or_default();
                (
                    cell,
                    glyphs.emoji(ctx, cluster, two),
                    glyphs.emoji(ctx, &first, two),
                )
            });
            let q = quad.unwrap_or_else(|| panic!("{cluster:?} is not one colour glyph"));
            assert!(q.size.x <= 2.0 * cell.x + 0.01 && q.size.y <= cell.y + 0.01);
            if let Some(p) = part {
                assert_ne!(q.uv, p.uv, "{cluster:?} is drawn as its first code point");
            }
        }
    }

    pub(crate) fn whole_pixels(v: f32, pixels_per_point: f32) -> bool {
        let px = v * pixels_per_point;
        (px - px.round()).abs() < 0.01
    }

    /// Needs the system's colour emoji font: on Debian `fonts-noto-color-emoji`, which
    /// `scripts/test.sh` installs. Without it this fails rather than passing vacuously.
    #[test]
    fn u1f600_is_rasterized_in_colour_at_the_physical_size_of_two_cells() {
        let found = find_font().map(|(p, _)| p);
        assert!(
            found.is_some(),
            "no colour emoji font in {CANDIDATES:?}: install fonts-noto-color-emoji"
        );
        for ppp in [1.0, 1.5, 2.0] {
            let (cell, quad, atlas) = in_frame(ppp, |ctx, cell| {
                let mut glyphs = crate::window::glyphs::GlyphCache::default();
                let font = egui::FontId::monospace(crate::window::glyphs::fonts::DEFAULT_FONT_SIZE);
                glyphs.begin_frame(ctx, &font);
                let quad = glyphs.emoji(ctx, "😀", Vec2::new(2.0 * cell.x, cell.y));
                (cell, quad, ctx.fonts(|f| f.image()))
            });
            let q = quad.unwrap_or_else(|| panic!("no colour glyph for U+1F600 in {found:?}"));
            assert!(q.color, "U+1F600 is not a colour glyph at {ppp}x");
            // Fills most of its two cells without overflowing them.
            let cells = Vec2::new(2.0 * cell.x, cell.y);
            assert!(
                q.size.x <= cells.x + 0.01 && q.size.y <= cells.y + 0.01,
                "{:?} overflows {cells:?} at {ppp}x",
                q.size
            );
            assert!(
                q.size.x >= 0.75 * cells.x || q.size.y >= 0.75 * cells.y,
                "{:?} is small for {cells:?} at {ppp}x",
                q.size
            );
            // Rasterized at the physical size it is drawn: one texel per pixel.
            let [aw, ah] = atlas.size;
            let (x0, y0) = (
                (q.uv.min.x * aw as f32).round() as usize,
                (q.uv.min.y * ah as f32).round() as usize,
            );
            let (x1, y1) = (
                (q.uv.max.x * aw as f32).round() as usize,
                (q.uv.max.y * ah as f32).round() as usize,
            );
            assert_eq!(
                ((x1 - x0) as f32, (y1 - y0) as f32),
                ((q.size.x * ppp).round(), (q.size.y * ppp).round()),
                "texels vs pixels at {ppp}x"
            );
            assert!(whole_pixels(q.size.x, ppp) && whole_pixels(q.size.y, ppp));
            // Coloured: the smiley's yellow, not grey coverage.
            let (mut opaque, mut coloured) = (0, 0);
            for y in y0..y1 {
                for x in x0..x1 {
                    let c = atlas[(x, y)];
                    if c.a() > 128 {
                        opaque += 1;
                        let (hi, lo) = (c.r().max(c.g()).max(c.b()), c.r().min(c.g()).min(c.b()));
                        if hi - lo > 80 {
                            coloured += 1;
                        }
                    }
                }
            }
            let texels = (x1 - x0) * (y1 - y0);
            assert!(
                opaque * 2 > texels && coloured * 2 > opaque,
                "{coloured} coloured of {opaque} opaque texels of {texels} at {ppp}x"
            );
        }
    }
}
