//! Colours: one place that turns model colours into pixels.

use egui::Color32;
use tern_core::model::{Color, Palette, Rgb};

/// The window's colours. Palette changes a program makes (OSC 4/10/11) live in the
/// model's palette; the theme supplies everything else.
#[derive(Clone, Debug)]
pub struct Theme {
    pub selection: Color32,
    pub cursor_text: Color32,
    /// The outline of the focused pane when a tab is split.
    pub focus_ring: Color32,
}

impl Default for Theme {
    fn default() -> Self {
        Theme {
            selection: Color32::from_rgba_unmultiplied(80, 120, 200, 110),
            cursor_text: Color32::from_rgb(0x18, 0x18, 0x18),
            focus_ring: Color32::from_rgb(90, 140, 230),
        }
    }
}

impl Theme {
    /// The window's colours for a configured theme (the model gets the palette).
    pub fn from_config(config: &tern_core::config::ThemeConfig) -> Theme {
        let base = match config.name {
            tern_core::config::ThemeName::Dark => Theme::default(),
            tern_core::config::ThemeName::Light => Theme {
                selection: Color32::from_rgba_unmultiplied(70, 120, 230, 90),
                cursor_text: Color32::from_rgb(0xfa, 0xfa, 0xf8),
                focus_ring: Color32::from_rgb(40, 100, 220),
            },
        };
        Theme {
            selection: config.selection.map_or(base.selection, |c| {
                Color32::from_rgba_unmultiplied(c.r, c.g, c.b, 110)
            }),
            ..base
        }
    }
}

pub fn rgb(c: Rgb) -> Color32 {
    Color32::from_rgb(c.r, c.g, c.b)
}

/// Resolves a cell colour; `foreground` says which default applies.
pub fn resolve(color: Color, palette: &Palette, foreground: bool) -> Color32 {
    match color {
        Color::Default if foreground => rgb(palette.foreground()),
        Color::Default => rgb(palette.background()),
        Color::Indexed(i) => rgb(palette.indexed(i)),
        Color::Rgb(r, g, b) => Color32::from_rgb(r, g, b),
    }
}

/// Half-way to the background, for SGR 2 (dim).
pub fn dim(c: Color32, bg: Color32) -> Color32 {
    let mix = |a: u8, b: u8| ((a as u16 + b as u16) / 2) as u8;
    Color32::from_rgb(mix(c.r(), bg.r()), mix(c.g(), bg.g()), mix(c.b(), bg.b()))
}
