//! The `theme` section of the config: tern's base themes, a theme named by the user,
//! colour overrides and the `#rrggbb` colour type they are written in.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::themes;
use crate::model::DynamicDefaults;

/// tern's own two themes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BaseTheme {
    #[default]
    Dark,
    Light,
}

/// A theme: `Dark` or `Light` (tern's own), or a scheme by name (`"Catppuccin
/// Mocha"`: built in, or a file in the config folder's `themes/`; see [`themes`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ThemeName {
    Base(BaseTheme),
    Named(String),
}

impl Default for ThemeName {
    fn default() -> Self {
        ThemeName::DARK
    }
}

impl ThemeName {
    pub const DARK: ThemeName = ThemeName::Base(BaseTheme::Dark);
    pub const LIGHT: ThemeName = ThemeName::Base(BaseTheme::Light);
}

/// A base theme and colours that override it (`None`: the theme's colour).
#[derive(Clone, Debug, Default, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ThemeConfig {
    pub name: ThemeName,
    /// The theme while the desktop prefers light colours (the XDG desktop portal's
    /// `color-scheme`); `None`: `name` whatever the desktop prefers.
    pub light: Option<ThemeName>,
    /// The theme while the desktop prefers dark colours, as `light`.
    pub dark: Option<ThemeName>,
    pub foreground: Option<Rgb>,
    pub background: Option<Rgb>,
    pub cursor: Option<Rgb>,
    pub selection: Option<Rgb>,
    /// ANSI colours 0-7.
    pub normal: AnsiColors,
    /// ANSI colours 8-15.
    pub bright: AnsiColors,
    /// Where theme files are looked for: `themes/` beside the config file it came from
    /// (set when it is parsed), else beside the default config file.
    #[serde(skip)]
    pub themes_dir: Option<PathBuf>,
}

/// The settings, not where their files were found: a config read from a file equals
/// the same settings written anywhere.
impl PartialEq for ThemeConfig {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.light == other.light
            && self.dark == other.dark
            && self.foreground == other.foreground
            && self.background == other.background
            && self.cursor == other.cursor
            && self.selection == other.selection
            && self.normal == other.normal
            && self.bright == other.bright
    }
}

impl ThemeConfig {
    /// The named scheme's colours (`None` for tern's own Dark and Light); an unknown
    /// name or a broken theme file is an error that says so.
    pub fn scheme(&self) -> Result<Option<themes::Scheme>, String> {
        match &self.name {
            ThemeName::Base(_) => Ok(None),
            ThemeName::Named(name) => {
                let dir = self.themes_dir.clone().or_else(themes::user_themes_dir);
                themes::find(name, dir.as_deref()).map(Some)
            }
        }
    }

    /// The model's colours for this theme: the base theme with the overrides on top.
    pub fn palette_defaults(&self) -> DynamicDefaults {
        let mut d = match &self.name {
            ThemeName::Base(BaseTheme::Light) => DynamicDefaults::light(),
            ThemeName::Base(BaseTheme::Dark) => DynamicDefaults::dark(),
            // A name that does not resolve is reported where the config is applied
            // (`ThemeName::scheme`); the colours fall back to Dark.
            ThemeName::Named(_) => match self.scheme() {
                Ok(Some(scheme)) => scheme.palette_defaults(),
                _ => DynamicDefaults::dark(),
            },
        };
        let model = |c: Rgb| crate::model::Rgb::new(c.r, c.g, c.b);
        if let Some(c) = self.foreground {
            d.foreground = model(c);
        }
        if let Some(c) = self.background {
            d.background = model(c);
        }
        if let Some(c) = self.cursor {
            d.cursor = model(c);
        }
        for (slot, c) in d.ansi.iter_mut().zip(self.ansi_overrides()) {
            if let Some(c) = c {
                *slot = model(c);
            }
        }
        d
    }

    /// The 16 ANSI overrides by index (0-7 normal, 8-15 bright).
    pub fn ansi_overrides(&self) -> [Option<Rgb>; 16] {
        let mut out = [None; 16];
        out[..8].copy_from_slice(&self.normal.as_array());
        out[8..].copy_from_slice(&self.bright.as_array());
        out
    }
}

/// Eight ANSI colours in their usual order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AnsiColors {
    pub black: Option<Rgb>,
    pub red: Option<Rgb>,
    pub green: Option<Rgb>,
    pub yellow: Option<Rgb>,
    pub blue: Option<Rgb>,
    pub magenta: Option<Rgb>,
    pub cyan: Option<Rgb>,
    pub white: Option<Rgb>,
}

impl AnsiColors {
    pub fn as_array(&self) -> [Option<Rgb>; 8] {
        [
            self.black,
            self.red,
            self.green,
            self.yellow,
            self.blue,
            self.magenta,
            self.cyan,
            self.white,
        ]
    }
}

/// A colour, written `"#rrggbb"` in the config.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rgb {
    pub r: u8,
    pub g: u8,
    pub b: u8,
}

impl FromStr for Rgb {
    type Err = String;

    fn from_str(s: &str) -> Result<Rgb, String> {
        let bad = || format!("expected a colour as \"#rrggbb\", found {s:?}");
        let hex = s.strip_prefix('#').ok_or_else(bad)?;
        if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad());
        Ok(Rgb {
            r: byte(0)?,
            g: byte(2)?,
            b: byte(4)?,
        })
    }
}

impl fmt::Display for Rgb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{:02x}{:02x}{:02x}", self.r, self.g, self.b)
    }
}

impl Serialize for Rgb {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Rgb {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}
