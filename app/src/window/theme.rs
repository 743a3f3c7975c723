//! Colours: one place that turns model colours into pixels.

use egui::Color32;
use tern_core::model::{Color, Palette, Rgb};

/// The window's colours. Palette changes a program makes (OSC 4/10/11) live in the
/// model's palette; the theme supplies everything else.
#[derive(Clone, Debug)]
pub struct Theme {
    pub selection: Color32,
    /// The text of selected cells; `None`: each cell's own colour.
    pub selection_text: Option<Color32>,
    pub cursor_text: Color32,
    /// The outline of the focused pane when a tab is split.
    pub focus_ring: Color32,
    /// The window around the panes: tab bar, sidebar, dividers, dialogs.
    pub chrome: ChromeColors,
    /// Search matches in a pane (the chosen one stronger).
    pub search_match: Color32,
    pub search_current: Color32,
    /// The underline of a link under the pointer.
    pub link: Color32,
    /// "[process exited …]" and other notes drawn over a pane.
    pub pane_note: Color32,
}

/// Colours of everything that is not terminal content.
#[derive(Clone, Debug)]
pub struct ChromeColors {
    pub tab_bar: Color32,
    /// The active tab's or worktree's title.
    pub text_strong: Color32,
    pub text: Color32,
    /// Group names, tab counts and other small print.
    pub text_dim: Color32,
    pub divider: Color32,
    /// A divider under the pointer or being dragged.
    pub divider_hot: Color32,
    pub error: Color32,
    pub warning: Color32,
    pub badges: BadgeColors,
    pub changes: ChangeColors,
    /// The message shown where a tab would be when there is none.
    pub empty: Color32,
}

/// Badges: bell, command succeeded / failed, notification, unseen output.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BadgeColors {
    pub bell: Color32,
    pub succeeded: Color32,
    pub failed: Color32,
    pub notification: Color32,
    pub unseen: Color32,
}

/// A worktree's status: changed files, commits (or lines) ahead and behind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChangeColors {
    pub changed: Color32,
    pub ahead: Color32,
    pub behind: Color32,
}

impl Default for ChromeColors {
    fn default() -> Self {
        ChromeColors {
            tab_bar: Color32::from_gray(28),
            text_strong: Color32::WHITE,
            text: Color32::from_gray(180),
            text_dim: Color32::from_gray(120),
            divider: Color32::from_gray(50),
            divider_hot: Color32::from_rgb(90, 140, 230),
            error: Color32::from_rgb(235, 110, 90),
            warning: Color32::from_rgb(240, 190, 60),
            badges: BadgeColors {
                bell: Color32::from_rgb(240, 190, 60),
                succeeded: Color32::from_rgb(90, 200, 110),
                failed: Color32::from_rgb(235, 80, 80),
                notification: Color32::from_rgb(110, 160, 250),
                unseen: Color32::from_rgb(160, 160, 160),
            },
            changes: ChangeColors {
                changed: Color32::from_rgb(230, 180, 80),
                ahead: Color32::from_rgb(120, 200, 140),
                behind: Color32::from_rgb(230, 130, 110),
            },
            empty: Color32::GRAY,
        }
    }
}

impl Default for Theme {
    fn default() -> Self {
        Theme {
            selection: Color32::from_rgba_unmultiplied(80, 120, 200, 110),
            selection_text: None,
            cursor_text: Color32::from_rgb(0x18, 0x18, 0x18),
            focus_ring: Color32::from_rgb(90, 140, 230),
            chrome: ChromeColors::default(),
            search_match: Color32::from_rgba_unmultiplied(255, 220, 0, 70),
            search_current: Color32::from_rgba_unmultiplied(255, 140, 0, 110),
            link: Color32::from_rgb(120, 170, 255),
            pane_note: Color32::LIGHT_RED,
        }
    }
}

impl Theme {
    /// The window's colours for a configured theme (the model gets the palette).
    pub fn from_config(config: &tern_core::config::ThemeConfig) -> Theme {
        use tern_core::config::{BaseTheme, ThemeName};
        // A named scheme: light or dark by its background, its own selection colour.
        let scheme = config.scheme().ok().flatten();
        let light = match &config.name {
            ThemeName::Base(b) => *b == BaseTheme::Light,
            ThemeName::Named(_) => scheme.as_ref().is_some_and(|s| !s.is_dark()),
        };
        let base = if light {
            Theme {
                selection: Color32::from_rgba_unmultiplied(70, 120, 230, 90),
                cursor_text: Color32::from_rgb(0xfa, 0xfa, 0xf8),
                focus_ring: Color32::from_rgb(40, 100, 220),
                ..Theme::default()
            }
        } else {
            Theme::default()
        };
        // The theme file's own colours where it names them (issue 51: Dracula's
        // selection was tern's translucent blue over its background). A selection
        // colour the config or the theme names is painted as it is written.
        let accents = scheme
            .as_ref()
            .map(|s| s.accents.clone())
            .unwrap_or_default();
        let translucent = |c: Option<tern_core::config::Rgb>, alpha: u8, or: Color32| {
            c.map_or(or, |c| {
                Color32::from_rgba_unmultiplied(c.r, c.g, c.b, alpha)
            })
        };
        let selection = config.selection.or(accents.selection_background);
        Theme {
            selection: selection.map_or(base.selection, rgb_of),
            selection_text: accents.selection_foreground.map(rgb_of),
            cursor_text: accents
                .cursor_text
                .or(scheme.as_ref().map(|s| s.background))
                .map_or(base.cursor_text, rgb_of),
            link: accents.url.map_or(base.link, rgb_of),
            search_match: translucent(accents.search_match, 110, base.search_match),
            search_current: translucent(accents.search_focused, 150, base.search_current),
            ..base
        }
    }
}

fn rgb_of(c: tern_core::config::Rgb) -> Color32 {
    Color32::from_rgb(c.r, c.g, c.b)
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
