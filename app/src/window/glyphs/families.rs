//! The names of the font families the terminal's text is drawn in (a leaf: the font
//! installer and the glyph rasterizers both name them).

/// The font families for bold, italic and bold italic text (regular text is egui's
/// monospace family).
pub const BOLD_FAMILY: &str = "tern-bold";
pub const ITALIC_FAMILY: &str = "tern-italic";
pub const BOLD_ITALIC_FAMILY: &str = "tern-bold-italic";
