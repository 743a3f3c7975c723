//! Shaping for ligatures: a run of ASCII punctuation in one face and colour (`->`,
//! `!=`, `===`, `</>`) is shaped with HarfRust (the shaper egui itself uses) with the
//! configured OpenType features, so a ligature font (Fira Code, JetBrains Mono, Cascadia
//! Code) draws its joined signs; everything else is drawn a cell at a time as before.
//!
//! egui rasterizes glyphs by character only, and a ligature's glyph has no character.
//! So a shaped glyph is asked of egui as a character of its own in the Supplementary
//! Private Use Area-A (`U+F0000 + glyph id`) in one of the [`SHAPED_FAMILIES`], and
//! [`shaped_rasterizer`] answers for those: it draws the glyph's outline from the face
//! with `skrifa` and `vello_cpu`, as egui does its own glyphs. The glyph then lives in
//! egui's atlas like any other and [`super::GlyphCache`] keeps its quad.
//!
//! A run whose shaping changes nothing (every font without ligatures, most runs in one
//! with them) is remembered as such and drawn cell by cell.

use std::sync::Arc;

use egui::{
    Color32, FontData, FontPriority, GlyphBitmap, GlyphRasterizer, GlyphRasterizerRequest,
    RasterizedGlyph, Vec2,
};
use harfrust::{Direction, Feature, ShapePlan, ShaperData, UnicodeBuffer, script};
use skrifa::MetadataProvider;
use vello_cpu::kurbo;

/// The families a shaped glyph is asked for in, by face (regular, bold, italic, bold
/// italic); each falls back to its face's chain, so its metrics are the face's.
pub const SHAPED_FAMILIES: [&str; 4] = [
    "tern-shaped",
    "tern-shaped-bold",
    "tern-shaped-italic",
    "tern-shaped-bold-italic",
];

/// Glyph `g` of a shaped face is asked of egui as the character `GLYPH_BASE + g`
/// (U+F0000..U+FFFFD, Supplementary Private Use Area-A).
const GLYPH_BASE: u32 = 0xF0000;
const GLYPH_LAST: u32 = 0xFFFFD;

/// Whether a cell's character may start or continue a shaped run.
pub fn can_ligate(c: char) -> bool {
    c.is_ascii_punctuation()
}

/// The character that stands for glyph `id` in the [`SHAPED_FAMILIES`].
pub fn glyph_char(id: u32) -> Option<char> {
    let code = GLYPH_BASE.checked_add(id)?;
    (code <= GLYPH_LAST).then(|| char::from_u32(code))?
}

/// One face text is shaped with: its file and HarfRust's parsed tables.
pub struct ShapeFace {
    font: FontData,
    data: ShaperData,
    upem: f32,
}

impl ShapeFace {
    /// `None` when the bytes are not a font.
    pub fn new(font: FontData) -> Option<ShapeFace> {
        let (data, upem) = {
            let r = skrifa::FontRef::from_index(font.font.as_ref().as_ref(), font.index).ok()?;
            let upem = r
                .metrics(
                    skrifa::instance::Size::unscaled(),
                    skrifa::instance::LocationRef::default(),
                )
                .units_per_em as f32;
            (ShaperData::new(&r), upem)
        };
        Some(ShapeFace { font, data, upem })
    }

    fn font_ref(&self) -> Option<skrifa::FontRef<'_>> {
        skrifa::FontRef::from_index(self.font.font.as_ref().as_ref(), self.font.index).ok()
    }
}

/// A glyph of a shaped run: which cell of the run it belongs to and where it sits from
/// that cell's left edge (points per point of font size: multiply by the size).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shaped {
    pub glyph: u32,
    pub cell: usize,
    pub x_em: f32,
}

/// The ASCII punctuation characters, '!' to '~', index `c - '!'` (94 slots, the
/// letters and digits among them never set).
const PAIR_SIDE: usize = 94;

fn pair_index(a: char, b: char) -> Option<usize> {
    let i = |c: char| {
        (c as usize)
            .checked_sub('!' as usize)
            .filter(|&i| i < PAIR_SIDE)
    };
    Some(i(a)? * PAIR_SIDE + i(b)?)
}

thread_local! {
    /// The shaping buffer, reused (a run is shaped on the UI thread).
    static BUFFER: std::cell::RefCell<Option<UnicodeBuffer>> = const { std::cell::RefCell::new(None) };
}

/// The faces and features in force; installed with the fonts, shared by the glyph
/// cache (which shapes) and the rasterizer (which draws the shaped glyphs).
pub struct Shaping {
    faces: [Option<ShapeFace>; 4],
    /// Per face, the shaping plan for the features (made once: making it is most of
    /// what shaping a short run costs).
    plans: [Option<ShapePlan>; 4],
    /// Per face, the pairs of punctuation characters that shape into other glyphs
    /// ([`pair_index`]): a run with none of them is not shaped. Empty when none does
    /// (DejaVu Sans Mono), so a frame in such a face costs no shaping at all.
    pairs: [Vec<bool>; 4],
    features: Vec<Feature>,
    enabled: bool,
}

impl Shaping {
    /// `features` as HarfBuzz writes them (`"ss01"`, `"-calt"`); a malformed one is
    /// left out (the config has checked them).
    pub fn new(faces: [Option<ShapeFace>; 4], features: &[String], enabled: bool) -> Shaping {
        let features: Vec<Feature> = features.iter().filter_map(|f| f.parse().ok()).collect();
        let plans = std::array::from_fn(|i| {
            let f = faces[i].as_ref()?;
            let font = f.font_ref()?;
            let shaper = f.data.shaper(&font).build();
            Some(ShapePlan::new(
                &shaper,
                Direction::LeftToRight,
                Some(script::LATIN),
                None,
                &features,
            ))
        });
        let mut shaping = Shaping {
            faces,
            plans,
            pairs: Default::default(),
            features,
            enabled,
        };
        if enabled {
            let punct: Vec<char> = ('!'..='~').filter(|c| can_ligate(*c)).collect();
            shaping.pairs = std::array::from_fn(|face| {
                let mut pairs = vec![false; PAIR_SIDE * PAIR_SIDE];
                let mut any = false;
                let mut text = String::new();
                for &a in &punct {
                    for &b in &punct {
                        text.clear();
                        text.extend([a, b]);
                        if let (Some(i), Some(_)) =
                            (pair_index(a, b), shaping.shape_any(&text, face))
                        {
                            pairs[i] = true;
                            any = true;
                        }
                    }
                }
                if any { pairs } else { Vec::new() }
            });
        }
        shaping
    }

    /// No shaping at all (ligatures off, or in tests).
    pub fn off() -> Shaping {
        Shaping::new([None, None, None, None], &[], false)
    }

    /// Whether any run may shape into something else: ligatures on and a face in which
    /// some pair of punctuation characters shapes into other glyphs.
    pub fn enabled(&self) -> bool {
        self.enabled && self.pairs.iter().any(|p| !p.is_empty())
    }

    /// Shapes `text` (one character a cell) in face `face` (0 regular .. 3 bold
    /// italic). `None` when shaping is off, the face is unknown, no two characters side
    /// by side are a pair that shapes (a ligature of three or more characters of which
    /// no two join is not looked for), or shaping changes nothing: every character its
    /// own glyph from the character map, unmoved.
    pub fn shape(&self, text: &str, face: usize) -> Option<Vec<Shaped>> {
        let pairs = self.pairs.get(face)?;
        if !self.enabled || pairs.is_empty() {
            return None;
        }
        let mut chars = text.chars();
        let mut prev = chars.next()?;
        let joins = chars.any(|c| {
            let hit = pair_index(prev, c).is_some_and(|i| pairs[i]);
            prev = c;
            hit
        });
        if !joins {
            return None;
        }
        self.shape_any(text, face)
    }

    /// [`Self::shape`] whatever the switches say.
    fn shape_any(&self, text: &str, face: usize) -> Option<Vec<Shaped>> {
        let f = self.faces.get(face)?.as_ref()?;
        let font = f.font_ref()?;
        let upem = f.upem;
        let charmap = font.charmap();
        let shaper = f.data.shaper(&font).build();
        let mut buffer = BUFFER.with(|b| b.borrow_mut().take()).unwrap_or_default();
        buffer.push_str(text);
        // The plan's properties: punctuation alone would guess no script.
        buffer.set_direction(Direction::LeftToRight);
        buffer.set_script(script::LATIN);
        let options = harfrust::ShapeOptions::new()
            .features(&self.features)
            .plan(self.plans.get(face)?.as_ref());
        let out = shaper.shape(buffer, options);
        let (infos, positions) = (out.glyph_infos(), out.glyph_positions());
        let nominal = infos.len() == text.chars().count()
            && infos
                .iter()
                .zip(text.chars())
                .zip(positions)
                .all(|((i, c), p)| {
                    charmap.map(c).map(|g| g.to_u32()) == Some(i.glyph_id)
                        && p.x_offset == 0
                        && p.y_offset == 0
                });
        if nominal {
            BUFFER.with(|b| *b.borrow_mut() = Some(out.clear()));
            return None;
        }
        // Each glyph at its cluster's cell, after the glyphs before it in that cluster.
        let mut shaped = Vec::with_capacity(infos.len());
        let mut in_cluster = 0i32;
        let mut last_cluster = None;
        for (i, p) in infos.iter().zip(positions) {
            if last_cluster != Some(i.cluster) {
                in_cluster = 0;
                last_cluster = Some(i.cluster);
            }
            // ASCII text: the cluster (a byte offset) is the cell.
            shaped.push(Shaped {
                glyph: i.glyph_id,
                cell: i.cluster as usize,
                x_em: (in_cluster + p.x_offset) as f32 / upem,
            });
            in_cluster += p.x_advance;
        }
        BUFFER.with(|b| *b.borrow_mut() = Some(out.clear()));
        Some(shaped)
    }

    /// The bitmap of glyph `id` of face `face` at `size_px` pixels per em, the way
    /// egui draws outlines (hinted, coverage in white).
    fn rasterize(&self, face: usize, id: u32, size_px: f32) -> Option<RasterizedGlyph> {
        let f = self.faces.get(face)?.as_ref()?;
        let font = f.font_ref()?;
        let outlines = font.outline_glyphs();
        let outline = outlines.get(skrifa::GlyphId::new(id))?;
        let size = skrifa::instance::Size::new(size_px);
        let location = skrifa::instance::LocationRef::default();
        let mut path = kurbo::BezPath::new();
        let mut pen = Pen(&mut path);
        let hinted = skrifa::outline::HintingInstance::new(
            &outlines,
            size,
            location,
            skrifa::outline::Target::default(),
        );
        match &hinted {
            Ok(h) => outline.draw(skrifa::outline::DrawSettings::hinted(h, false), &mut pen),
            Err(_) => outline.draw(
                skrifa::outline::DrawSettings::unhinted(size, location),
                &mut pen,
            ),
        }
        .ok()?;
        let advance_px = font
            .glyph_metrics(size, location)
            .advance_width(skrifa::GlyphId::new(id))
            .unwrap_or(0.0);
        let bounds = path.control_box().expand();
        let (width, height) = (bounds.width() as u16, bounds.height() as u16);
        if width == 0 || height == 0 {
            // A blank glyph (a space-like part of a ligature): nothing to draw.
            return Some(blank(advance_px));
        }
        let mut ctx = vello_cpu::RenderContext::new(width, height);
        ctx.set_transform(kurbo::Affine::translate((-bounds.x0, -bounds.y0)));
        ctx.set_paint(vello_cpu::color::OpaqueColor::<vello_cpu::color::Srgb>::WHITE);
        ctx.fill_path(&path);
        let mut dest = vello_cpu::Pixmap::new(width, height);
        let mut resources = vello_cpu::Resources::new();
        ctx.render(&mut dest, &mut resources);
        let pixels = dest
            .data_as_u8_slice()
            .chunks_exact(4)
            .map(|px| Color32::from_rgba_premultiplied(px[0], px[1], px[2], px[3]))
            .collect();
        Some(RasterizedGlyph {
            bitmap: GlyphBitmap {
                image: egui::ColorImage::new([width as usize, height as usize], pixels),
                offset_px: Vec2::new(bounds.x0 as f32, bounds.y0 as f32),
                is_color: false,
            },
            advance_px,
        })
    }
}

/// A glyph that draws nothing (one transparent pixel: egui would otherwise look for the
/// glyph character in a font, and draw a missing-glyph box).
fn blank(advance_px: f32) -> RasterizedGlyph {
    RasterizedGlyph {
        bitmap: GlyphBitmap {
            image: egui::ColorImage::new([1, 1], vec![Color32::TRANSPARENT]),
            offset_px: Vec2::ZERO,
            is_color: false,
        },
        advance_px,
    }
}

/// skrifa's outline into a kurbo path, y down (as egui's own pen).
struct Pen<'a>(&'a mut kurbo::BezPath);

impl skrifa::outline::OutlinePen for Pen<'_> {
    fn move_to(&mut self, x: f32, y: f32) {
        self.0.move_to((x as f64, -y as f64));
    }

    fn line_to(&mut self, x: f32, y: f32) {
        self.0.line_to((x as f64, -y as f64));
    }

    fn quad_to(&mut self, cx0: f32, cy0: f32, x: f32, y: f32) {
        self.0
            .quad_to((cx0 as f64, -cy0 as f64), (x as f64, -y as f64));
    }

    fn curve_to(&mut self, cx0: f32, cy0: f32, cx1: f32, cy1: f32, x: f32, y: f32) {
        self.0.curve_to(
            (cx0 as f64, -cy0 as f64),
            (cx1 as f64, -cy1 as f64),
            (x as f64, -y as f64),
        );
    }

    fn close(&mut self) {
        self.0.close_path();
    }
}

/// The rasterizer for shaped glyphs: asked before any font, it answers only for the
/// glyph characters of the [`SHAPED_FAMILIES`].
pub fn shaped_rasterizer(shaping: Arc<Shaping>) -> GlyphRasterizer {
    GlyphRasterizer::new("tern::shaped", move |req: &GlyphRasterizerRequest<'_>| {
        let egui::FontFamily::Name(name) = req.family else {
            return None;
        };
        let face = SHAPED_FAMILIES.iter().position(|f| *f == name.as_ref())?;
        let mut chars = req.cluster.chars();
        let code = chars.next()? as u32;
        if chars.next().is_some() || !(GLYPH_BASE..=GLYPH_LAST).contains(&code) {
            return None;
        }
        Some(
            shaping
                .rasterize(face, code - GLYPH_BASE, req.font_size_px)
                .unwrap_or_else(|| blank(0.0)),
        )
    })
    .with_priority(FontPriority::Highest)
}

/// Where the shaping in force is kept: the egui context's memory, so the glyph cache of
/// every pane finds it.
fn memory_id() -> egui::Id {
    egui::Id::unique("tern::shaping")
}

/// Makes `shaping` the one in force for `ctx`.
pub fn set(ctx: &egui::Context, shaping: Arc<Shaping>) {
    ctx.data_mut(|d| d.insert_temp(memory_id(), shaping));
}

/// The shaping in force for `ctx` (`None` before fonts were installed).
pub fn get(ctx: &egui::Context) -> Option<Arc<Shaping>> {
    ctx.data(|d| d.get_temp::<Arc<Shaping>>(memory_id()))
}

/// The runs worth shaping in a row of `len` cells: ranges of at least two cells that
/// can ligate with the same key (`key(i)`: the cell's face and colour, `None` for a
/// cell that cannot ligate). The cell `split` (the cursor's) is in none: a ligature
/// under the cursor is drawn apart, as kitty does.
pub fn runs<K: PartialEq>(
    len: usize,
    split: Option<usize>,
    key: impl Fn(usize) -> Option<K>,
) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < len {
        let Some(k) = key(i).filter(|_| Some(i) != split) else {
            i += 1;
            continue;
        };
        let start = i;
        i += 1;
        while i < len && Some(i) != split && key(i).as_ref() == Some(&k) {
            i += 1;
        }
        if i - start >= 2 {
            out.push(start..i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::glyphs::system_fonts::SystemFonts;

    /// Fira Code's regular face, through fontconfig (fonts-firacode, `scripts/test.sh`).
    pub(crate) fn fira_code() -> FontData {
        let fc = SystemFonts::open().expect("fontconfig (scripts/test.sh installs it)");
        let family = fc
            .family("Fira Code")
            .expect("Fira Code: install fonts-firacode (scripts/test.sh does)");
        fc.load(&family.faces[0]).expect("Fira Code loads")
    }

    fn shaping(font: FontData, features: &[&str], on: bool) -> Shaping {
        let features: Vec<String> = features.iter().map(|f| f.to_string()).collect();
        Shaping::new([ShapeFace::new(font), None, None, None], &features, on)
    }

    /// Catches shaping that is not done, not with the configured features, or not
    /// switched off: Fira Code joins `->` and `!=` (other glyphs than the characters'),
    /// `-calt` turns that off, `ss02` changes `<=`, and the bundled DejaVu Sans Mono,
    /// plain text, and `ligatures: false` shape into nothing to redraw.
    #[test]
    fn fira_code_ligatures_shape_and_features_change_them() {
        let fira = shaping(fira_code(), &[], true);
        for text in ["->", "!=", "===", "</>", "<!--", "-->"] {
            let run = fira
                .shape(text, 0)
                .unwrap_or_else(|| panic!("{text}: no ligature"));
            assert_eq!(run.first().map(|g| g.cell), Some(0), "{text}");
        }
        for plain in ["()", ",'", "$%"] {
            assert_eq!(fira.shape(plain, 0), None, "{plain} is no ligature");
        }
        assert!(fira.shape("->", 1).is_none(), "no bold face given");
        let no_calt = shaping(fira_code(), &["-calt"], true);
        assert!(no_calt.shape("->", 0).is_none());
        let ss02 = shaping(fira_code(), &["ss02"], true);
        assert_ne!(ss02.shape("<=", 0), fira.shape("<=", 0), "ss02 changes <=");
        assert!(shaping(fira_code(), &[], false).shape("->", 0).is_none());
        let dejavu = FontData::from_static(include_bytes!(
            "../../../../assets/fonts/DejaVuSansMono.ttf"
        ));
        let dejavu = shaping(dejavu, &[], true);
        assert!(dejavu.shape("->", 0).is_none());
        assert!(!dejavu.enabled(), "nothing in DejaVu Sans Mono ligates");
        assert!(fira.enabled());
    }

    /// Catches runs that cross the cursor, a colour or face change, or take one cell.
    #[test]
    fn runs_stop_at_the_cursor_and_at_other_keys() {
        let keys = [
            Some(1),
            Some(1),
            Some(1),
            None,
            Some(1),
            Some(2),
            Some(2),
            Some(2),
        ];
        let key = |i: usize| keys[i];
        assert_eq!(runs(keys.len(), None, key), [0..3, 5..8]);
        assert_eq!(runs(keys.len(), Some(1), key), vec![(5..8)]);
        assert_eq!(runs(keys.len(), Some(6), key), vec![(0..3)]);
        assert_eq!(runs(keys.len(), Some(2), key), [0..2, 5..8]);
    }

    #[test]
    fn glyph_characters_stay_in_the_private_use_area() {
        assert_eq!(glyph_char(0), Some('\u{F0000}'));
        assert_eq!(glyph_char(0xFFFD), Some('\u{FFFFD}'));
        assert_eq!(glyph_char(0xFFFE), None);
    }
}
