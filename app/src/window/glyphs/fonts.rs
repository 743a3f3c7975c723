//! Fonts: the bundled DejaVu Sans Mono faces, a configured family and per-character
//! fallback from the system's fonts (through fontconfig, `super::system_fonts`), the
//! symbols tern draws itself (`super::symbols`), and whether an input method is
//! configured.

use std::path::PathBuf;
use std::sync::Arc;

use egui::{FontData, FontDefinitions, FontFamily};
use tern_core::config::FontConfig;

use super::shaping::{self, SHAPED_FAMILIES, ShapeFace, Shaping};
use super::system_fonts::SystemFonts;

pub const DEFAULT_FONT_SIZE: f32 = 15.0;
const FONT_NAME: &str = "tern-mono";
const BOLD_FONT_NAME: &str = "tern-mono-bold";
/// System fonts tried as fallbacks for wide scripts when fontconfig is not available.
/// The colour emoji font is found and installed by `emoji` (after these).
const SYSTEM_FALLBACKS: &[(&str, &[&str])] = &[(
    "system-cjk",
    &[
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
        "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
        "/System/Library/Fonts/PingFang.ttc",
    ],
)];

pub use super::families::{BOLD_FAMILY, BOLD_ITALIC_FAMILY, ITALIC_FAMILY};

/// The bundled faces: (font name, family for that face, bytes).
const FACES: [(&str, Option<&str>, &[u8]); 4] = [
    (
        FONT_NAME,
        None,
        include_bytes!("../../../assets/fonts/DejaVuSansMono.ttf"),
    ),
    (
        BOLD_FONT_NAME,
        Some(BOLD_FAMILY),
        include_bytes!("../../../assets/fonts/DejaVuSansMono-Bold.ttf"),
    ),
    (
        "tern-mono-italic",
        Some(ITALIC_FAMILY),
        include_bytes!("../../../assets/fonts/DejaVuSansMono-Oblique.ttf"),
    ),
    (
        "tern-mono-bold-italic",
        Some(BOLD_ITALIC_FAMILY),
        include_bytes!("../../../assets/fonts/DejaVuSansMono-BoldOblique.ttf"),
    ),
];

/// Installs the bundled monospace faces first, then system fallbacks for wide scripts,
/// then egui's own fonts.
pub fn install_fonts(ctx: &egui::Context) {
    let _ = install_fonts_with(ctx, &FontConfig::default());
}

/// Folders searched for a configured font family.
fn font_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![
        PathBuf::from("/usr/share/fonts"),
        PathBuf::from("/usr/local/share/fonts"),
        PathBuf::from("/Library/Fonts"),
        PathBuf::from("/System/Library/Fonts"),
    ];
    if let Some(home) = dirs::home_dir() {
        dirs.push(home.join(".local/share/fonts"));
        dirs.push(home.join(".fonts"));
        dirs.push(home.join("Library/Fonts"));
    }
    dirs
}

/// Without fontconfig: a family's faces found on disk: regular, bold, italic, bold
/// italic (any may be missing but regular). Matched by file name: "JetBrains Mono" finds
/// `JetBrainsMono-Regular.ttf`, `JetBrainsMono-Bold.ttf`, ...
pub fn find_family(family: &str) -> Option<[Option<PathBuf>; 4]> {
    let key: String = family
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    if key.is_empty() {
        return None;
    }
    let mut files = Vec::new();
    let mut stack = font_dirs();
    let mut visited = 0;
    while let Some(dir) = stack.pop() {
        visited += 1;
        if visited > 4096 {
            break;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("ttf") || x.eq_ignore_ascii_case("otf"))
            {
                files.push(path);
            }
        }
    }
    // File stem lowercased without separators: "jetbrainsmonobolditalic".
    let stem = |p: &PathBuf| -> String {
        p.file_stem()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default()
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let find = |suffixes: &[&str]| {
        files
            .iter()
            .filter(|p| {
                let s = stem(p);
                s.strip_prefix(&key)
                    .is_some_and(|rest| suffixes.contains(&rest))
            })
            .min()
            .cloned()
    };
    let regular = find(&["regular", "", "book", "roman"])?;
    Some([
        Some(regular),
        find(&["bold"]),
        find(&["italic", "oblique"]),
        find(&["bolditalic", "boldoblique"]),
    ])
}

/// A face named in `font.bold`, `font.italic` or `font.bold_italic`: a font file's path,
/// else a family (its regular face). An error says why it was not used.
pub fn named_face(
    system: &Result<Arc<SystemFonts>, String>,
    key: &str,
    name: &str,
) -> Result<FontData, String> {
    let path = std::path::Path::new(name);
    if path.is_absolute() || name.starts_with('~') {
        let path = match name.strip_prefix("~/") {
            Some(rest) => dirs::home_dir().unwrap_or_default().join(rest),
            None => path.to_owned(),
        };
        return std::fs::read(&path)
            .map(FontData::from_owned)
            .map_err(|e| format!("font.{key}: {}: {e}", path.display()));
    }
    let found = match system {
        Ok(fc) => fc.family(name).and_then(|f| fc.load(&f.faces[0])),
        Err(_) => find_family(name)
            .and_then(|[regular, ..]| regular)
            .and_then(|p| std::fs::read(p).ok())
            .map(FontData::from_owned),
    };
    found.ok_or_else(|| format!("font.{key}: no font family {name:?} on this system"))
}

/// Like [`install_fonts`] with the configured family first (the bundled faces stay as
/// fallbacks). Families come from fontconfig by name or alias (`DejaVu Sans Mono`,
/// `monospace`, a face in a `.ttc`), and characters no installed face has are looked up
/// in the system's fonts by coverage ([`SystemFonts`]). Without fontconfig the family
/// is looked for by file name and the wide-script fallbacks are a fixed list. Faces
/// named for bold and italic text replace the family's own; the first face of each
/// style is the one runs of punctuation are shaped with (`shaping`), with the
/// configured features. An error says why a family or face was not used.
pub fn install_fonts_with(ctx: &egui::Context, config: &FontConfig) -> Result<(), String> {
    let family = config.family.as_deref();
    let mut errors = Vec::new();
    let system = SystemFonts::open();
    match &system {
        Ok(fc) => {
            fc.set_primary(family.unwrap_or("monospace"));
            ctx.set_font_providers(vec![fc.clone() as Arc<dyn egui::FontProvider>]);
        }
        Err(why) => {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| eprintln!("tern: {why}; using the bundled fonts"));
            ctx.set_font_providers(Vec::new());
        }
    }
    let user: Option<[Option<FontData>; 4]> = family.and_then(|f| {
        let found = match &system {
            Ok(fc) => fc
                .family(f)
                .map(|family| family.faces.map(|face| fc.load(&face))),
            Err(_) => find_family(f).map(|paths| {
                paths.map(|p| {
                    p.and_then(|p| std::fs::read(p).ok())
                        .map(FontData::from_owned)
                })
            }),
        };
        if found.as_ref().is_none_or(|faces| faces[0].is_none()) {
            let how = if system.is_ok() {
                "fontconfig"
            } else {
                "the font folders"
            };
            errors.push(format!(
                "font family {f:?} not found by {how}; using DejaVu Sans Mono"
            ));
            return None;
        }
        found
    });
    // Each style's face: a named one, else the family's own (its regular face for a
    // style it lacks), else the bundled one.
    let named = [
        None,
        config.bold.as_deref(),
        config.italic.as_deref(),
        config.bold_italic.as_deref(),
    ];
    let keys = ["family", "bold", "italic", "bold_italic"];
    let mut chosen: [Option<FontData>; 4] = Default::default();
    for (i, slot) in chosen.iter_mut().enumerate() {
        if let Some(name) = named[i] {
            match named_face(&system, keys[i], name) {
                Ok(data) => *slot = Some(data),
                Err(e) => errors.push(e),
            }
        }
        if slot.is_none() {
            *slot = user
                .as_ref()
                .and_then(|faces| faces[i].clone().or_else(|| faces[0].clone()));
        }
    }
    let shape_faces = std::array::from_fn(|i| {
        let data = chosen[i]
            .clone()
            .unwrap_or_else(|| FontData::from_static(FACES[i].2));
        ShapeFace::new(data)
    });
    let features: Vec<String> = config.features.iter().map(ToString::to_string).collect();
    let shaping = Arc::new(Shaping::new(shape_faces, &features, config.ligatures));
    // Symbols tern draws itself (Braille, Powerline, legacy computing, some box drawing),
    // and the glyphs of shaped runs (ligatures).
    ctx.set_glyph_rasterizers(vec![
        super::symbol_rasterizer(),
        shaping::shaped_rasterizer(shaping.clone()),
    ]);
    shaping::set(ctx, shaping);
    let mut fonts = FontDefinitions::default();
    let egui_fallbacks = fonts
        .families
        .get(&FontFamily::Monospace)
        .cloned()
        .unwrap_or_default();
    // Wide scripts come from the system's fonts when it has them (they are too large to
    // bundle): the first of each list that exists is added as a fallback.
    let mut system_names: Vec<String> = Vec::new();
    // With fontconfig these are found by coverage like any other character.
    let fixed = if system.is_ok() {
        &[][..]
    } else {
        SYSTEM_FALLBACKS
    };
    for (name, candidates) in fixed {
        let Some(bytes) = candidates.iter().find_map(|p| std::fs::read(p).ok()) else {
            continue;
        };
        fonts
            .font_data
            .insert((*name).to_owned(), Arc::new(FontData::from_owned(bytes)));
        system_names.push((*name).to_owned());
    }
    // Colour emoji: a family of their own, for cells that ask for emoji presentation
    // (`presentation::wants_colour`), and the UI's fallback. Not in the grid's text chains: a
    // character whose Emoji_Presentation is No (⏺, ☑, ❤) is text in the cell's colour
    // unless VS16 follows, as in kitty and Ghostty, so fallback finds a text font for it.
    let mut emoji_font = None;
    if let Some((_, data)) = super::emoji::find_font() {
        let data = data.tweak(super::emoji::font_tweak());
        let name = super::emoji::EMOJI_FONT_NAME.to_owned();
        fonts.font_data.insert(name.clone(), Arc::new(data));
        fonts.families.insert(
            FontFamily::Name(super::emoji::EMOJI_FAMILY.into()),
            vec![name.clone()],
        );
        if let Some(ui) = fonts.families.get_mut(&FontFamily::Proportional) {
            ui.push(name.clone());
        }
        emoji_font = Some(name);
    }
    for (i, (name, family, bytes)) in FACES.into_iter().enumerate() {
        fonts
            .font_data
            .insert(name.to_owned(), Arc::new(FontData::from_static(bytes)));
        // Each face falls back to the regular face, the system fonts, then egui's;
        // a configured family comes first (its regular face stands in for a missing
        // bold or italic).
        let mut chain = Vec::new();
        if let Some(data) = chosen[i].clone() {
            let user_name = format!("user-{name}");
            fonts.font_data.insert(user_name.clone(), Arc::new(data));
            chain.push(user_name);
        }
        chain.push(name.to_owned());
        if name != FONT_NAME {
            chain.push(FONT_NAME.to_owned());
        }
        chain.extend(system_names.iter().cloned());
        chain.extend(egui_fallbacks.iter().cloned());
        // Last: an emoji-only character no text font has is still drawn (in colour).
        if system.is_err() {
            chain.extend(emoji_font.iter().cloned());
        }
        let family = match family {
            None => FontFamily::Monospace,
            Some(f) => FontFamily::Name(f.into()),
        };
        // The shaped glyphs' family has the face's metrics (its glyphs are drawn by
        // `shaping::shaped_rasterizer`).
        fonts
            .families
            .insert(FontFamily::Name(SHAPED_FAMILIES[i].into()), chain.clone());
        fonts.families.insert(family, chain);
    }
    // The UI's proportional text falls back to the bundled face for symbols egui's
    // own fonts lack (the badges' ⚑ ✔ ✖ ✉ ●, arrows).
    // Before the colour emoji font, so the badges keep their own colours.
    if let Some(chain) = fonts.families.get_mut(&FontFamily::Proportional) {
        let at = chain
            .iter()
            .position(|f| f == super::emoji::EMOJI_FONT_NAME)
            .unwrap_or(chain.len());
        chain.insert(at, FONT_NAME.to_owned());
    }
    ctx.set_fonts(fonts);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// Whether an input method is set up (X11: `XMODIFIERS=@im=...`; Wayland's text input
/// is always there; `TERN_IME=1` forces it on, `TERN_IME=0` off). On X11 without an
/// input method server, asking winit for IME makes key events slow to arrive.
pub fn ime_configured() -> bool {
    static CONFIGURED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CONFIGURED.get_or_init(|| match std::env::var("TERN_IME").as_deref() {
        Ok("1") => true,
        Ok("0") => false,
        _ => {
            let xim = std::env::var("XMODIFIERS")
                .is_ok_and(|m| m.contains("@im=") && !m.contains("@im=none"));
            xim || std::env::var_os("WAYLAND_DISPLAY").is_some()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Needs fontconfig, fonts-dejavu-core and fonts-wqy-microhei (`scripts/test.sh`).
    #[test]
    fn families_load_by_name_alias_and_from_a_collection_and_a_missing_one_says_so() {
        let ctx = egui::Context::default();
        let with = |family: &str| FontConfig {
            family: Some(family.to_owned()),
            ..FontConfig::default()
        };
        for family in ["DejaVu Sans Mono", "monospace", "WenQuanYi Micro Hei Mono"] {
            assert_eq!(install_fonts_with(&ctx, &with(family)), Ok(()), "{family}");
        }
        let err = install_fonts_with(&ctx, &with("No Such Family Tern 14"))
            .expect_err("a family that does not exist");
        assert!(
            err.contains("\"No Such Family Tern 14\" not found")
                && err.contains("using DejaVu Sans Mono"),
            "{err}"
        );
    }
}
