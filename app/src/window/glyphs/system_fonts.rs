//! The system's fonts through fontconfig, the system's own font database: families and
//! aliases by name (`DejaVu Sans Mono`, `monospace`), their bold and italic faces, faces
//! inside `.ttc` collections, and per-character fallback by coverage.
//!
//! libfontconfig is loaded at run time (the `fontconfig` crate's `dlopen` feature), so
//! the build links nothing and a system without it still runs: [`SystemFonts::open`]
//! says why it could not, and tern draws with its bundled faces only.
//!
//! Fallback ([`SystemFonts::font_for`]) asks fontconfig for its sorted list of fonts for
//! the primary family with the character in the pattern's charset (`FcFontSort`, as
//! kitty, Alacritty and WezTerm do) and takes the first one whose character map really
//! has it. The answer is cached per character and each file is read once; egui asks at
//! most once per character and family, and then rasterizes from the installed face, so
//! none of this is on the drawing path after a character's first appearance. A
//! character no font has is counted ([`SystemFonts::missing_chars`], for the
//! diagnostics) and only the first is logged, in one line; egui draws the
//! missing-glyph box for it.

use std::collections::HashMap;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use egui::{FallbackRequest, FontData, FontInsert, FontProvider};
use fontconfig::{CharSet, Fontconfig, Pattern, UnicodeCoverage};

/// Sorted fallback fonts looked at per character before giving up.
const MAX_CANDIDATES: usize = 16;

/// fontconfig's weights and slants (`fontconfig.h`).
const FC_WEIGHT_REGULAR: i32 = 80;
const FC_WEIGHT_BOLD: i32 = 200;
const FC_SLANT_ROMAN: i32 = 0;
const FC_SLANT_ITALIC: i32 = 100;

/// Generic names fontconfig resolves through its aliases rather than a family's name.
const ALIASES: &[&str] = &[
    "monospace",
    "mono",
    "sans-serif",
    "sans",
    "serif",
    "system-ui",
    "emoji",
];

/// A face on disk: the file and its index in a collection.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FaceFile {
    pub path: PathBuf,
    pub index: u32,
}

/// A family's faces: regular, bold, italic, bold italic.
#[derive(Clone, Debug)]
pub struct FamilyFaces {
    /// The family fontconfig matched, as it names it.
    pub family: String,
    pub faces: [FaceFile; 4],
}

#[derive(Default)]
struct Caches {
    /// Per character: the face that has it, or `None` (logged once).
    by_char: HashMap<char, Option<FontInsert>>,
    /// Files read so far, shared between the characters they cover.
    files: HashMap<FaceFile, Option<FontData>>,
}

/// fontconfig, opened once; shared by the window's font setup and egui's fallback.
pub struct SystemFonts {
    fc: Fontconfig,
    /// The family fallback is sorted for (the configured one, else `monospace`).
    primary: Mutex<String>,
    caches: Mutex<Caches>,
    missing: MissingChars,
}

/// Characters no font has: counted; only the first makes a line on stderr (100k such
/// codepoints made 12,501 lines).
#[derive(Default)]
struct MissingChars {
    count: std::sync::atomic::AtomicU64,
}

impl MissingChars {
    /// Counts `c`; the line to log for it, only for the first.
    fn note(&self, c: char) -> Option<String> {
        let before = self
            .count
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        (before == 0).then(|| {
            format!(
                "tern: no font has {c:?} (U+{:04X}); it and any other such character are \
                 drawn as boxes (counted in the diagnostics, not logged)",
                c as u32
            )
        })
    }

    fn count(&self) -> u64 {
        self.count.load(std::sync::atomic::Ordering::Relaxed)
    }
}

fn c_string(s: &str) -> Option<CString> {
    CString::new(s).ok()
}

fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

impl SystemFonts {
    /// Opens fontconfig (once per process). An error says why it is not there.
    pub fn open() -> Result<Arc<SystemFonts>, String> {
        static OPENED: std::sync::OnceLock<Result<Arc<SystemFonts>, String>> =
            std::sync::OnceLock::new();
        OPENED
            .get_or_init(|| {
                if std::env::var_os("TERN_NO_FONTCONFIG").is_some() {
                    return Err("fontconfig disabled by TERN_NO_FONTCONFIG".to_owned());
                }
                let fc = Fontconfig::new()
                    .ok_or("fontconfig (libfontconfig.so.1) could not be loaded or initialised")?;
                Ok(Arc::new(SystemFonts {
                    fc,
                    primary: Mutex::new("monospace".to_owned()),
                    caches: Mutex::new(Caches::default()),
                    missing: MissingChars::default(),
                }))
            })
            .clone()
    }

    /// Characters asked for that no font has (each counted once: found or not, a
    /// character is looked up once).
    pub fn missing_chars(&self) -> u64 {
        self.missing.count()
    }

    /// Sorts fallback for `family` from now on (characters already found stay).
    pub fn set_primary(&self, family: &str) {
        if let Ok(mut p) = self.primary.lock() {
            *p = family.to_owned();
        }
    }

    fn pattern(&self, family: &str) -> Option<Pattern<'_>> {
        let mut p = Pattern::new(&self.fc).ok()?;
        p.add_string(c"family", &c_string(family)?).ok()?;
        Some(p)
    }

    fn face_of(p: &Pattern<'_>) -> Option<FaceFile> {
        let path = PathBuf::from(p.filename().ok()?);
        // fontconfig puts a variable font's named instance in the upper 16 bits.
        let index = u32::try_from(p.face_index().unwrap_or(0)).unwrap_or(0) & 0xffff;
        Some(FaceFile { path, index })
    }

    /// The faces of `family` by name or alias. `None` when fontconfig has no such
    /// family (it would otherwise substitute its default).
    pub fn family(&self, family: &str) -> Option<FamilyFaces> {
        let wanted = normalized(family);
        if wanted.is_empty() {
            return None;
        }
        let face = |weight: i32, slant: i32| -> Option<(String, FaceFile, bool)> {
            let mut p = self.pattern(family)?;
            p.add_integer(c"weight", weight).ok()?;
            p.add_integer(c"slant", slant).ok()?;
            let m = p.font_match().ok()?;
            let name = m.get_string(c"family").ok()?.to_owned();
            let full = m.name().map(normalized).unwrap_or_default();
            let by_name = normalized(&name) == wanted || full == wanted;
            Some((name, Self::face_of(&m)?, by_name))
        };
        let (name, regular, by_name) = face(FC_WEIGHT_REGULAR, FC_SLANT_ROMAN)?;
        let is_alias = ALIASES.contains(&family.trim().to_lowercase().as_str());
        if !is_alias && !by_name {
            return None;
        }
        // A style the family lacks comes back as another family's: use regular then.
        let same = |r: Option<(String, FaceFile, bool)>| match r {
            Some((n, f, _)) if n == name => f,
            _ => regular.clone(),
        };
        let bold = same(face(FC_WEIGHT_BOLD, FC_SLANT_ROMAN));
        let italic = same(face(FC_WEIGHT_REGULAR, FC_SLANT_ITALIC));
        let bold_italic = same(face(FC_WEIGHT_BOLD, FC_SLANT_ITALIC));
        Some(FamilyFaces {
            family: name,
            faces: [regular, bold, italic, bold_italic],
        })
    }

    /// The bytes of a face, read once; `None` (logged) when the file is unreadable or
    /// not a font.
    pub fn load(&self, face: &FaceFile) -> Option<FontData> {
        let mut caches = self.caches.lock().ok()?;
        caches
            .files
            .entry(face.clone())
            .or_insert_with(|| read_face(&face.path, face.index))
            .clone()
    }

    /// fontconfig's sorted fallback list for `c`: the first face whose character map
    /// has it. A character presented as text by default (Emoji_Presentation=No: ⏺, ☑)
    /// takes the first such face without colour glyphs, and a colour face only when no
    /// other has it; a colour emoji is asked for apart (the window's emoji family).
    fn find_covering(&self, c: char) -> Option<FaceFile> {
        let primary = self.primary.lock().ok()?.clone();
        let mut p = self.pattern(&primary)?;
        let mut charset = CharSet::new(&self.fc).ok()?;
        charset.add_char(c).ok()?;
        p.add_charset(charset).ok()?;
        let sorted = p.sort_fonts(UnicodeCoverage::Trim).ok()?;
        let text_first = !super::presentation::emoji_presentation(c);
        let mut colour = None;
        for candidate in sorted.iter().take(MAX_CANDIDATES) {
            let Some(face) = Self::face_of(&candidate) else {
                continue;
            };
            if let Some(data) = self.load(&face)
                && has_char(&data, c)
            {
                if text_first && has_colour_glyphs(&data) {
                    colour.get_or_insert(face);
                    continue;
                }
                return Some(face);
            }
        }
        colour
    }
}

/// Reads a face; a file that is missing or does not parse is logged and skipped.
fn read_face(path: &Path, index: u32) -> Option<FontData> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("tern: font {}: {e}", path.display());
            return None;
        }
    };
    if let Err(e) = skrifa::FontRef::from_index(&bytes, index) {
        eprintln!(
            "tern: font {} (face {index}) does not parse: {e}",
            path.display()
        );
        return None;
    }
    Some(FontData::from_blob(Arc::new(bytes), index))
}

/// Whether the face draws colour glyphs (bitmap `CBDT` or `sbix`, or layered `COLR`).
pub fn has_colour_glyphs(data: &FontData) -> bool {
    let bytes: &[u8] = (*data.font).as_ref();
    skrifa::FontRef::from_index(bytes, data.index).is_ok_and(|f| {
        [b"CBDT", b"sbix", b"COLR"]
            .iter()
            .any(|tag| f.table_data(skrifa::raw::types::Tag::new(tag)).is_some())
    })
}

/// Whether the face's character map has `c`.
fn has_char(data: &FontData, c: char) -> bool {
    use skrifa::MetadataProvider as _;
    let bytes: &[u8] = (*data.font).as_ref();
    skrifa::FontRef::from_index(bytes, data.index).is_ok_and(|f| f.charmap().map(c).is_some())
}

impl FontProvider for SystemFonts {
    fn font_for(&self, request: &FallbackRequest<'_>) -> Option<FontInsert> {
        let c = request.cluster.chars().next()?;
        if let Some(found) = self.caches.lock().ok()?.by_char.get(&c) {
            return found.clone();
        }
        let insert = self.find_covering(c).and_then(|face| {
            let data = self.load(&face)?;
            let name = format!("system:{}#{}", face.path.display(), face.index);
            Some(FontInsert::new(&name, data, Vec::new()))
        });
        if insert.is_none()
            && let Some(line) = self.missing.note(c)
        {
            eprintln!("{line}");
        }
        self.caches.lock().ok()?.by_char.insert(c, insert.clone());
        insert
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Needs fontconfig and the fonts `scripts/test.sh` installs (fonts-symbola,
    /// fonts-nanum, fonts-dejavu-core, fonts-wqy-microhei).
    fn fonts() -> Arc<SystemFonts> {
        SystemFonts::open().unwrap_or_else(|e| panic!("{e}: install fontconfig"))
    }

    #[test]
    fn families_load_by_name_and_by_alias() {
        let fc = fonts();
        let dejavu = fc.family("DejaVu Sans Mono").expect("DejaVu Sans Mono");
        assert_eq!(dejavu.family, "DejaVu Sans Mono");
        assert_ne!(dejavu.faces[0], dejavu.faces[1], "a bold face of its own");
        assert!(fc.load(&dejavu.faces[0]).is_some());
        let mono = fc.family("monospace").expect("the monospace alias");
        assert!(fc.load(&mono.faces[0]).is_some());
        // The second face of a collection (fonts-wqy-microhei).
        let ttc = fc
            .family("WenQuanYi Micro Hei Mono")
            .expect("a family from a .ttc");
        assert!(ttc.faces[0].path.extension().is_some_and(|e| e == "ttc"));
        assert_eq!(ttc.faces[0].index, 1);
        let data = fc.load(&ttc.faces[0]).expect("loads");
        assert!(has_char(&data, '中'));
    }

    /// 100,000 characters no font has make one line and a count. Catches a line per
    /// character (12,501 lines for 100k codepoints).
    #[test]
    fn missing_characters_make_one_line_and_a_count() {
        let missing = MissingChars::default();
        let lines: Vec<String> = (0..100_000u32)
            .filter_map(|i| char::from_u32(0xF0000 + i))
            .filter_map(|c| missing.note(c))
            .collect();
        assert_eq!(lines.len(), 1, "{:?}", &lines[..lines.len().min(3)]);
        assert!(lines[0].contains("U+F0000"), "{}", lines[0]);
        assert_eq!(missing.count(), 100_000);
    }

    #[test]
    fn a_missing_family_is_none_not_a_substitute() {
        assert!(fonts().family("No Such Family Tern 14").is_none());
        assert!(fonts().family("  ").is_none());
    }

    #[test]
    fn fallback_finds_fonts_that_cover_the_character() {
        let fc = fonts();
        for c in ['⎿', '⧉', '⏵', '한'] {
            let face = fc
                .find_covering(c)
                .unwrap_or_else(|| panic!("no font for {c:?}"));
            let data = fc.load(&face).expect("loads");
            assert!(has_char(&data, c), "{c:?} in {face:?}");
        }
        assert!(
            fc.find_covering('\u{10FFFD}').is_none(),
            "a private-use plane char"
        );
        // Text presentation by default: a text face, though the emoji font has it too.
        let record = fc.find_covering('\u{23FA}').expect("a font for ⏺");
        let data = fc.load(&record).expect("loads");
        assert!(!has_colour_glyphs(&data), "⏺ from {record:?}");
    }
}
