//! `font`: the family and size, the faces for bold and italic text, ligatures and
//! OpenType features, and the cell's height and width. Values that cannot work (a
//! feature that is not a tag, a cell scale out of range) are errors of the file, with
//! their line and column, like a misspelt option.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FontConfig {
    /// A system font family; `None`: the bundled DejaVu Sans Mono.
    pub family: Option<String>,
    /// Points.
    pub size: f32,
    /// The face for bold text: a family fontconfig knows (its regular face is used) or
    /// a font file's path. `None`: the family's own bold face, else its regular face.
    pub bold: Option<String>,
    /// The face for italic text, as `bold`.
    pub italic: Option<String>,
    /// The face for bold italic text, as `bold`.
    pub bold_italic: Option<String>,
    /// Shape runs of punctuation with the font's OpenType rules, so that programming
    /// ligatures (`->`, `!=`, `===` in Fira Code, JetBrains Mono, Cascadia Code) show.
    /// Off: every cell is drawn on its own.
    pub ligatures: bool,
    /// OpenType features on top of the font's defaults, as HarfBuzz writes them:
    /// `"ss01"`, `"-calt"`, `"cv01=2"`.
    pub features: Vec<FontFeature>,
    /// The cell's height as a multiple of the font's line height.
    pub line_height: CellScale,
    /// The cell's width as a multiple of the font's advance.
    pub cell_width: CellScale,
}

impl Default for FontConfig {
    fn default() -> Self {
        FontConfig {
            family: None,
            size: 15.0,
            bold: None,
            italic: None,
            bold_italic: None,
            ligatures: true,
            features: Vec::new(),
            line_height: CellScale::ONE,
            cell_width: CellScale::ONE,
        }
    }
}

/// One OpenType feature setting: an optional `+` or `-`, a tag of four printable ASCII
/// characters, an optional `=VALUE` (`"ss01"`, `"-liga"`, `"cv01=2"`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct FontFeature(String);

impl FontFeature {
    /// The tag (`liga`), without sign or value.
    pub fn tag(&self) -> &str {
        let s = self.0.trim_start_matches(['+', '-']);
        s.split('=').next().unwrap_or(s)
    }

    /// The value it sets: 0 for `-tag`, the number after `=`, else 1.
    pub fn value(&self) -> u32 {
        if self.0.starts_with('-') {
            return 0;
        }
        self.0
            .split_once('=')
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(1)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for FontFeature {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        let bad = || {
            format!(
                "font feature {s:?}: expected a 4-letter OpenType tag, like \"ss01\", \"-liga\" or \"cv01=2\""
            )
        };
        let body = s.strip_prefix(['+', '-']).unwrap_or(&s);
        let (tag, value) = match body.split_once('=') {
            Some((tag, value)) => (tag, Some(value)),
            None => (body, None),
        };
        let tag_ok = tag.len() == 4 && tag.bytes().all(|b| b.is_ascii_graphic());
        let value_ok = value.is_none_or(|v| v.parse::<u32>().is_ok())
            && !(s.starts_with('-') && value.is_some());
        if !tag_ok || !value_ok {
            return Err(bad());
        }
        Ok(FontFeature(s))
    }
}

impl From<FontFeature> for String {
    fn from(f: FontFeature) -> String {
        f.0
    }
}

impl fmt::Display for FontFeature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A multiplier of a cell's height or width, from 0.5 to 3.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "f32", into = "f32")]
pub struct CellScale(f32);

impl CellScale {
    pub const ONE: CellScale = CellScale(1.0);
    pub const MIN: f32 = 0.5;
    pub const MAX: f32 = 3.0;

    pub fn get(self) -> f32 {
        self.0
    }
}

impl TryFrom<f32> for CellScale {
    type Error = String;

    fn try_from(v: f32) -> Result<Self, String> {
        if (CellScale::MIN..=CellScale::MAX).contains(&v) {
            Ok(CellScale(v))
        } else {
            Err(format!(
                "{v} is not a cell scale: a multiplier from {} to {} (1.0: the font's own)",
                CellScale::MIN,
                CellScale::MAX
            ))
        }
    }
}

impl From<CellScale> for f32 {
    fn from(s: CellScale) -> f32 {
        s.0
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    /// Catches a feature list or a cell scale taken without checking: each bad value is
    /// an error at its own line and column, as `tern config check` prints it.
    #[test]
    fn bad_features_and_cell_scales_are_errors_at_their_place() {
        let cases = [
            (
                "(font: (features: [\"ss01\", \"-ligature\"]))",
                1,
                "\"-ligature\"",
            ),
            ("(font: (features: [\"liga=x\"]))", 1, "\"liga=x\""),
            (
                "(\n  font: (\n    line_height: 9.0,\n  ),\n)",
                3,
                "9 is not a cell scale",
            ),
            ("(font: (cell_width: 0.1))", 1, "0.1 is not a cell scale"),
        ];
        for (text, line, says) in cases {
            let e = Config::parse(text, "/tmp/c.ron").expect_err(text);
            let shown = e.to_string();
            assert!(shown.contains(says), "{text}: {shown}");
            assert!(
                shown.starts_with(&format!("/tmp/c.ron:{line}:")),
                "{text}: {shown}"
            );
        }
    }

    #[test]
    fn features_and_cell_scales_read_as_written() {
        let c = Config::parse(
            "(font: (features: [\"ss01\", \"-calt\", \"cv01=2\", \"+zero\"], ligatures: false, line_height: 1.2, cell_width: 0.9))",
            "c.ron",
        )
        .expect("parses");
        let got: Vec<(&str, u32)> = c
            .font
            .features
            .iter()
            .map(|f| (f.tag(), f.value()))
            .collect();
        assert_eq!(got, [("ss01", 1), ("calt", 0), ("cv01", 2), ("zero", 1)]);
        assert!(!c.font.ligatures);
        assert_eq!(c.font.line_height.get(), 1.2);
        assert_eq!(c.font.cell_width.get(), 0.9);
        let (o, errors) =
            Config::default().with_overrides(&["font.line_height=1.5", "font.cell_width=7"]);
        assert_eq!(o.font.line_height.get(), 1.5);
        assert_eq!(errors.len(), 1, "{errors:?}");
    }
}
