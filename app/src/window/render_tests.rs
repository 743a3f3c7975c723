//! The renderer with a ligature font: shaped runs, and the cursor splitting them.

use egui::{Pos2, Rect, Shape, epaint::Vertex};
use tern_core::config::FontConfig;
use tern_core::model::{CursorShape, TermConfig, TermSize, Terminal};
use tern_core::pipeline::delivery::{self, PaneView};

use crate::window::glyphs::GlyphCache;
use crate::window::render::{self, CellScale, Metrics, RowCache, Scene};
use crate::window::theme::Theme;

/// The pane's text mesh for `text` on one row in Fira Code with `ligatures`, with a
/// block cursor at column `cursor` (two passes: the first loads the fonts).
fn text_mesh(text: &str, ligatures: bool, cursor: Option<usize>) -> Vec<Vertex> {
    let config = FontConfig {
        family: Some("Fira Code".into()),
        ligatures,
        ..FontConfig::default()
    };
    pane_mesh(text, &config, cursor).0
}

/// The pane's mesh for `text` with the font settings `config`, and its metrics.
fn pane_mesh(text: &str, config: &FontConfig, cursor: Option<usize>) -> (Vec<Vertex>, Metrics) {
    let ctx = egui::Context::default();
    crate::window::glyphs::fonts::install_fonts_with(&ctx, config)
        .expect("Fira Code: install fonts-firacode (scripts/test.sh does)");
    CellScale {
        height: config.line_height.get(),
        width: config.cell_width.get(),
    }
    .set(&ctx);
    let mut t = Terminal::new(TermSize::new(20, 2), TermConfig::default());
    t.advance(text.as_bytes());
    let view = PaneView::from_snapshot(delivery::snapshot(&t, 0));
    let rows: Vec<&tern_core::model::Row> = view.rows.iter().collect();
    let (mut glyphs, mut cache) = (GlyphCache::default(), RowCache::default());
    let theme = Theme::default();
    let mut mesh = Vec::new();
    let mut measured = None;
    for _ in 0..2 {
        let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
            let metrics = Metrics::new(ui.ctx(), 15.0);
            measured = Some(metrics.clone());
            let mut c = view.meta.cursor;
            c.row = 0;
            let none = |_: usize, _: usize| false;
            let scene = Scene {
                rows: &rows,
                cursor: cursor.map(|col| {
                    c.col = col;
                    (c, CursorShape::Block)
                }),
                selected: &none,
                any_selected: false,
                scroll: (0, 0),
                images: &[],
            };
            let style = render::Style {
                metrics: &metrics,
                palette: &view.palette,
                theme: &theme,
                focused: true,
                window_clear: None,
                grid: None,
            };
            let rect = Rect::from_min_size(Pos2::ZERO, metrics.cell * egui::vec2(20.0, 2.0));
            render::paint(ui.painter(), &mut glyphs, &mut cache, rect, &scene, &style);
        });
        // No renderer here: nothing takes the atlas uploads.
        out.textures_delta.clear();
        mesh = std::mem::take(&mut out.shapes)
            .into_iter()
            .find_map(|s| match s.shape {
                Shape::Mesh(m) => Some(m.vertices.clone()),
                _ => None,
            })
            .expect("the pane's mesh");
    }
    (mesh, measured.expect("a pass ran"))
}

/// The textured (glyph) quads' positions and texture corners, in drawing order.
fn glyph_quads(mesh: &[Vertex]) -> Vec<[(Pos2, Pos2); 4]> {
    mesh.chunks(4)
        .filter(|q| q.iter().any(|v| v.uv != egui::epaint::WHITE_UV) && q.len() == 4)
        .map(|q| std::array::from_fn(|i| (q[i].pos, q[i].uv)))
        .collect()
}

/// Catches ligatures not drawn (the run drawn from the characters' own glyphs), drawn
/// with ligatures off, or drawn under the cursor: `a->b` in Fira Code draws other
/// glyphs than with `ligatures: false`; with the cursor on `>`, its cell and `-` are
/// drawn from their own glyphs again, as kitty does.
#[test]
fn a_ligature_is_drawn_and_the_cursor_splits_it() {
    let plain = glyph_quads(&text_mesh("a->b", false, None));
    let joined = glyph_quads(&text_mesh("a->b", true, None));
    assert_eq!(plain.len(), 4, "a, -, >, b");
    assert_ne!(joined, plain, "-> drawn as Fira Code's arrow");
    let split = glyph_quads(&text_mesh("a->b", true, Some(2)));
    assert_eq!(split, plain, "the cursor on > splits the arrow");
    // Elsewhere on the row, the cursor leaves the ligature alone.
    let away = glyph_quads(&text_mesh("a->b", true, Some(6)));
    assert_eq!(away, joined);
}

/// Catches `font.line_height` / `font.cell_width` not applied to the cell, or the text
/// left at the top-left of the bigger cell: the cell grows by the multipliers (whole
/// pixels) and every glyph moves by half of what was added.
#[test]
fn line_height_and_cell_width_scale_the_cell_and_centre_its_text() {
    let plain = FontConfig::default();
    let tall = FontConfig {
        line_height: 1.5.try_into().expect("a scale"),
        cell_width: 1.25.try_into().expect("a scale"),
        ..FontConfig::default()
    };
    let (mesh1, m1) = pane_mesh("a=b", &plain, None);
    let (mesh2, m2) = pane_mesh("a=b", &tall, None);
    assert_eq!(m1.inset, egui::Vec2::ZERO);
    assert_eq!(m2.cell.y, (m1.cell.y * 1.5).round());
    assert_eq!(m2.cell.x, (m1.cell.x * 1.25).round());
    let inset = egui::vec2(
        ((m2.cell.x - m1.cell.x) / 2.0).round(),
        ((m2.cell.y - m1.cell.y) / 2.0).round(),
    );
    assert_eq!(m2.inset, inset);
    let (q1, q2) = (glyph_quads(&mesh1), glyph_quads(&mesh2));
    assert_eq!(q1.len(), 3);
    assert_eq!(q2.len(), 3);
    for (i, (a, b)) in q1.iter().zip(&q2).enumerate() {
        // Cell i moved by i cells' growth, and the glyph by the inset within it.
        let moved = egui::vec2(i as f32 * (m2.cell.x - m1.cell.x), 0.0) + inset;
        assert_eq!(b[0].0, a[0].0 + moved, "glyph {i}");
    }
}

/// Catches the pane's full-size background drawn over a window eframe already
/// cleared to that colour (a whole-window fill each frame on a software renderer),
/// and one left out where the window is another colour (a program's OSC 11
/// background) or its clear is not known (the kittest harness).
#[test]
fn the_background_rectangle_only_where_the_window_is_another_colour() {
    let rect = Rect::from_min_size(Pos2::ZERO, egui::vec2(720.0, 408.0));
    let bg = egui::Color32::from_rgb(24, 24, 24);
    assert_eq!(render::background_rect(rect, bg, Some(bg)), None);
    let osc11 = egui::Color32::from_rgb(0, 0, 80);
    assert_eq!(render::background_rect(rect, osc11, Some(bg)), Some(rect));
    assert_eq!(render::background_rect(rect, bg, None), Some(rect));
}
