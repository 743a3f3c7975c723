//! Colour schemes by name: tern's own Dark and Light, a built-in set of the schemes
//! people ask for by name (their colours as the schemes' authors publish them, in
//! Ghostty's theme format under `assets/themes/`), and theme files the user keeps in
//! `<config folder>/themes/`: Alacritty's TOML (`NAME.toml`), kitty's `NAME.conf` or a
//! Ghostty theme (`NAME`, no extension). Names match without regard to case, spaces,
//! dashes or underscores (`catppuccin-mocha` is "Catppuccin Mocha").

use std::path::{Path, PathBuf};

use super::Rgb;
use crate::model::palette::DynamicDefaults;

/// A scheme's colours.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheme {
    pub foreground: Rgb,
    pub background: Rgb,
    pub cursor: Option<Rgb>,
    /// ANSI colours 0-15.
    pub ansi: [Rgb; 16],
    /// The window's colours the file names, beyond the palette.
    pub accents: Accents,
}

/// Colours a theme file may name for what the window draws over the cells; `None`:
/// the file does not name it (or names the cell's own colour), tern's own is used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Accents {
    /// The text under the block cursor.
    pub cursor_text: Option<Rgb>,
    pub selection_background: Option<Rgb>,
    pub selection_foreground: Option<Rgb>,
    /// Links (kitty's `url_color`).
    pub url: Option<Rgb>,
    /// Search matches, and the match search is on (Alacritty's `[colors.search]`).
    pub search_match: Option<Rgb>,
    pub search_focused: Option<Rgb>,
}

impl Scheme {
    pub fn palette_defaults(&self) -> DynamicDefaults {
        let model = |c: Rgb| crate::model::Rgb::new(c.r, c.g, c.b);
        DynamicDefaults {
            foreground: model(self.foreground),
            background: model(self.background),
            cursor: model(self.cursor.unwrap_or(self.foreground)),
            ansi: self.ansi.map(model),
        }
    }

    /// Whether the background is dark (the window's chrome follows it).
    pub fn is_dark(&self) -> bool {
        let b = self.background;
        crate::model::Rgb::new(b.r, b.g, b.b).is_dark()
    }
}

/// The built-in schemes: (file stem, display name, Ghostty-format text).
const BUILT_IN: &[(&str, &str, &str)] = &[
    (
        "catppuccin-latte",
        "Catppuccin Latte",
        include_str!("../../assets/themes/catppuccin-latte"),
    ),
    (
        "catppuccin-frappe",
        "Catppuccin Frappé",
        include_str!("../../assets/themes/catppuccin-frappe"),
    ),
    (
        "catppuccin-macchiato",
        "Catppuccin Macchiato",
        include_str!("../../assets/themes/catppuccin-macchiato"),
    ),
    (
        "catppuccin-mocha",
        "Catppuccin Mocha",
        include_str!("../../assets/themes/catppuccin-mocha"),
    ),
    (
        "dracula",
        "Dracula",
        include_str!("../../assets/themes/dracula"),
    ),
    (
        "everforest-dark",
        "Everforest Dark",
        include_str!("../../assets/themes/everforest-dark"),
    ),
    (
        "gruvbox-dark",
        "Gruvbox Dark",
        include_str!("../../assets/themes/gruvbox-dark"),
    ),
    (
        "gruvbox-light",
        "Gruvbox Light",
        include_str!("../../assets/themes/gruvbox-light"),
    ),
    (
        "kanagawa",
        "Kanagawa",
        include_str!("../../assets/themes/kanagawa"),
    ),
    ("nord", "Nord", include_str!("../../assets/themes/nord")),
    (
        "one-dark",
        "One Dark",
        include_str!("../../assets/themes/one-dark"),
    ),
    (
        "rose-pine",
        "Rosé Pine",
        include_str!("../../assets/themes/rose-pine"),
    ),
    (
        "solarized-dark",
        "Solarized Dark",
        include_str!("../../assets/themes/solarized-dark"),
    ),
    (
        "solarized-light",
        "Solarized Light",
        include_str!("../../assets/themes/solarized-light"),
    ),
    (
        "tokyo-night",
        "Tokyo Night",
        include_str!("../../assets/themes/tokyo-night"),
    ),
];

/// The names of the built-in schemes, for the palette and the docs.
pub fn built_in_names() -> impl Iterator<Item = &'static str> {
    ["Dark", "Light"]
        .into_iter()
        .chain(BUILT_IN.iter().map(|(_, name, _)| *name))
}

/// A name as compared: lower case, letters and digits only, accents dropped from the
/// few the built-in names have.
fn key(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            'é' | 'É' => 'e',
            other => other,
        })
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Theme files parsed, kept while unchanged.
static THEMES: super::theme_cache::FileCache<Result<Scheme, String>> =
    super::theme_cache::FileCache::new();

/// The scheme called `name`: a built-in one, else a file in `themes_dir`. An error
/// names what was looked for.
pub fn find(name: &str, themes_dir: Option<&Path>) -> Result<Scheme, String> {
    let wanted = key(name);
    if let Some((_, _, text)) = BUILT_IN
        .iter()
        .find(|(stem, display, _)| key(stem) == wanted || key(display) == wanted)
    {
        return parse_ghostty(text).map_err(|e| format!("built-in theme {name}: {e}"));
    }
    let Some(dir) = themes_dir else {
        return Err(unknown(name, None));
    };
    // Looked up and parsed again only when the folder or the file changed
    // (`theme_cache`): a light/dark flip reads nothing.
    let found = THEMES.find_in(dir, &wanted, || {
        std::fs::read_dir(dir)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|path| {
                let stem = path.file_stem().map(|s| s.to_string_lossy());
                stem.is_some_and(|s| key(&s) == wanted)
            })
    });
    match found {
        Some(path) => THEMES.parsed(&path, read_theme_file),
        None => Err(unknown(name, Some(dir))),
    }
}

fn unknown(name: &str, dir: Option<&Path>) -> String {
    let names: Vec<&str> = built_in_names().collect();
    // The nearest built-in name or theme file, when one is near.
    let files: Vec<String> = dir
        .and_then(|d| std::fs::read_dir(d).ok())
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some(e.path().file_stem()?.to_string_lossy().into_owned()))
        .collect();
    let hint = super::suggest::did_you_mean(
        name,
        names
            .iter()
            .copied()
            .chain(files.iter().map(String::as_str)),
    );
    match dir {
        Some(d) => format!(
            "no theme {name:?}{hint}: not built in ({}) and no file for it in {}",
            names.join(", "),
            d.display()
        ),
        None => format!("no theme {name:?}{hint} (built in: {})", names.join(", ")),
    }
}

/// The user's theme folder: `<config folder>/themes`.
pub fn user_themes_dir() -> Option<PathBuf> {
    super::Config::default_path().and_then(|p| p.parent().map(|d| d.join("themes")))
}

/// A theme file by its format: `.toml` Alacritty, `.conf` kitty, else Ghostty.
pub fn read_theme_file(path: &Path) -> Result<Scheme, String> {
    // Regular files within the cap only: a FIFO or `/dev/zero` named as a theme is
    // an error, never a hang or a flood.
    let text = super::settings_file::read_settings_file(path)
        .map_err(|e| format!("theme {}: {e}", path.display()))?;
    let parsed = match path.extension().and_then(|e| e.to_str()) {
        Some("toml") => parse_alacritty(&text),
        Some("conf") => parse_kitty(&text),
        _ => parse_ghostty(&text),
    };
    parsed.map_err(|e| format!("theme {}: {e}", path.display()))
}

/// `#rrggbb` or `0xrrggbb` (Alacritty writes both).
fn colour(text: &str) -> Result<Rgb, String> {
    let t = text.trim().trim_matches(|c| c == '\'' || c == '"');
    let hex = t
        .strip_prefix('#')
        .or_else(|| t.strip_prefix("0x"))
        .unwrap_or(t);
    format!("#{hex}").parse()
}

/// What a scheme file set, before the missing parts are checked.
#[derive(Default)]
struct Partial {
    foreground: Option<Rgb>,
    background: Option<Rgb>,
    cursor: Option<Rgb>,
    accents: Accents,
    ansi: [Option<Rgb>; 16],
}

/// A colour that may instead name the cell's own (`none`, `CellForeground`,
/// `background`...): `None` then.
fn optional_colour(text: &str) -> Option<Rgb> {
    colour(text).ok()
}

impl Partial {
    fn finish(self) -> Result<Scheme, String> {
        let missing = |what: &str| format!("no {what} colour");
        let mut ansi = [Rgb { r: 0, g: 0, b: 0 }; 16];
        for (i, c) in self.ansi.iter().enumerate() {
            ansi[i] = c.ok_or_else(|| missing(&format!("palette {i}")))?;
        }
        Ok(Scheme {
            foreground: self.foreground.ok_or_else(|| missing("foreground"))?,
            background: self.background.ok_or_else(|| missing("background"))?,
            cursor: self.cursor,
            ansi,
            accents: self.accents,
        })
    }
}

/// Ghostty: `palette = N=#rrggbb`, `background = #rrggbb`, `foreground`,
/// `cursor-color`, `cursor-text`, `selection-background`, `selection-foreground`; `#`
/// starts a comment line.
pub fn parse_ghostty(text: &str) -> Result<Scheme, String> {
    let mut p = Partial::default();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            return Err(format!("line {}: expected KEY = VALUE", n + 1));
        };
        let at = |e: String| format!("line {}: {e}", n + 1);
        match k.trim() {
            "palette" => {
                let (i, c) = v
                    .split_once('=')
                    .ok_or_else(|| at("expected palette = N=#rrggbb".into()))?;
                let i: usize = i
                    .trim()
                    .parse()
                    .map_err(|_| at(format!("not a palette index: {i}")))?;
                if let Some(slot) = p.ansi.get_mut(i) {
                    *slot = Some(colour(c).map_err(at)?);
                }
            }
            "background" => p.background = Some(colour(v).map_err(at)?),
            "foreground" => p.foreground = Some(colour(v).map_err(at)?),
            "cursor-color" => p.cursor = Some(colour(v).map_err(at)?),
            "cursor-text" => p.accents.cursor_text = optional_colour(v),
            "selection-background" => {
                p.accents.selection_background = Some(colour(v).map_err(at)?);
            }
            "selection-foreground" => p.accents.selection_foreground = optional_colour(v),
            _ => {}
        }
    }
    p.finish()
}

/// kitty: `colorN #rrggbb`, `foreground`, `background`, `cursor`,
/// `cursor_text_color`, `selection_background`, `selection_foreground`, `url_color`.
pub fn parse_kitty(text: &str) -> Result<Scheme, String> {
    let mut p = Partial::default();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(k), Some(v)) = (words.next(), words.next()) else {
            continue;
        };
        let at = |e: String| format!("line {}: {e}", n + 1);
        let slot = match k {
            "foreground" => &mut p.foreground,
            "background" => &mut p.background,
            "cursor" => &mut p.cursor,
            "cursor_text_color" => &mut p.accents.cursor_text,
            "selection_background" => &mut p.accents.selection_background,
            "selection_foreground" => &mut p.accents.selection_foreground,
            "url_color" => &mut p.accents.url,
            _ => match k
                .strip_prefix("color")
                .and_then(|i| i.parse::<usize>().ok())
            {
                Some(i) if i < 16 => &mut p.ansi[i],
                _ => continue,
            },
        };
        // kitty writes `none` (and `background` for the cursor's text) for "the
        // cell's own colour".
        if v != "none" && v != "background" {
            *slot = Some(colour(v).map_err(at)?);
        }
    }
    p.finish()
}

/// Alacritty's TOML: `[colors.primary]` foreground and background,
/// `[colors.normal]` / `[colors.bright]` by colour name, `[colors.cursor]` cursor and
/// text, `[colors.selection]` background and text, `[colors.search.matches]` and
/// `[colors.search.focused_match]` background (`CellForeground` / `CellBackground`:
/// the cell's own colour).
/// A TOML error as "line L, column C: message", without TOML's quoted line (a theme's
/// line can be any length; the error names the place, it does not echo the file).
fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let message: String = e.message().chars().take(200).collect();
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}: {message}")
        }
        None => message,
    }
}

pub fn parse_alacritty(text: &str) -> Result<Scheme, String> {
    let doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| toml_error(text, &e))?;
    let colors = doc
        .get("colors")
        .and_then(|c| c.as_table())
        .ok_or("no [colors] table")?;
    let get = |table: &str, key: &str| -> Result<Option<Rgb>, String> {
        match colors.get(table).and_then(|t| t.get(key)) {
            Some(v) => {
                let s = v
                    .as_str()
                    .ok_or_else(|| format!("colors.{table}.{key} is not a string"))?;
                colour(s)
                    .map(Some)
                    .map_err(|e| format!("colors.{table}.{key}: {e}"))
            }
            None => Ok(None),
        }
    };
    let cell_or = |path: &[&str]| -> Option<Rgb> {
        let mut at = colors.get(path[0])?;
        for key in &path[1..] {
            at = at.get(key)?;
        }
        optional_colour(at.as_str()?)
    };
    let mut p = Partial {
        foreground: get("primary", "foreground")?,
        background: get("primary", "background")?,
        cursor: cell_or(&["cursor", "cursor"]),
        accents: Accents {
            cursor_text: cell_or(&["cursor", "text"]),
            selection_background: cell_or(&["selection", "background"]),
            selection_foreground: cell_or(&["selection", "text"]),
            url: None,
            search_match: cell_or(&["search", "matches", "background"]),
            search_focused: cell_or(&["search", "focused_match", "background"]),
        },
        ..Partial::default()
    };
    let names = [
        "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
    ];
    for (i, name) in names.iter().enumerate() {
        p.ansi[i] = get("normal", name)?;
        p.ansi[i + 8] = get("bright", name)?;
    }
    p.finish()
}

/// Which theme the settings use for the desktop's light/dark preference, and the
/// names they give that name nothing.
impl super::ThemeConfig {
    /// The settings with the theme for the desktop's preference `scheme` as `name`
    /// (`light` or `dark` when set; otherwise unchanged).
    pub fn for_scheme(&self, scheme: crate::desktop_appearance::ColorScheme) -> super::ThemeConfig {
        use crate::desktop_appearance::ColorScheme;
        let chosen = match scheme {
            ColorScheme::Light => self.light.as_ref(),
            ColorScheme::Dark => self.dark.as_ref(),
            ColorScheme::NoPreference => None,
        };
        let mut theme = self.clone();
        if let Some(name) = chosen {
            theme.name = name.clone();
        }
        theme
    }

    /// Every theme name these settings may use: `name`, `light`, `dark`.
    pub fn names(&self) -> impl Iterator<Item = (&'static str, &super::ThemeName)> {
        [
            ("theme.name", Some(&self.name)),
            ("theme.light", self.light.as_ref()),
            ("theme.dark", self.dark.as_ref()),
        ]
        .into_iter()
        .filter_map(|(key, name)| Some((key, name?)))
    }

    /// Each named theme that names nothing, with the key it is under.
    pub fn unknown_names(&self) -> Vec<(&'static str, String, String)> {
        self.names()
            .filter_map(|(key, name)| {
                let super::ThemeName::Named(n) = name else {
                    return None;
                };
                let probe = super::ThemeConfig {
                    name: name.clone(),
                    themes_dir: self.themes_dir.clone(),
                    ..super::ThemeConfig::default()
                };
                probe.scheme().err().map(|e| (key, n.clone(), e))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rgb(s: &str) -> Rgb {
        s.parse().unwrap()
    }

    #[test]
    fn every_built_in_scheme_parses_and_is_found_by_its_names() {
        for (stem, name, _) in BUILT_IN {
            let by_stem = find(stem, None).unwrap();
            assert_eq!(find(name, None).unwrap(), by_stem, "{name}");
        }
        let mocha = find("catppuccin mocha", None).unwrap();
        assert_eq!(mocha.background, rgb("#1e1e2e"));
        assert_eq!(mocha.ansi[1], rgb("#f38ba8"));
        assert!(mocha.is_dark());
        assert!(!find("Solarized Light", None).unwrap().is_dark());
        assert_eq!(find("Rose Pine", None), find("rosé-pine", None));
        let err = find("Nonexistent", None).unwrap_err();
        assert!(err.contains("Catppuccin Mocha"), "{err}");
    }

    /// The same scheme in the three formats people bring gives the same colours.
    #[test]
    fn alacritty_kitty_and_ghostty_files_read_alike() {
        let ghostty = find("catppuccin-mocha", None).unwrap();
        let mut kitty = String::from(
            "# Catppuccin Mocha\nforeground #cdd6f4\nbackground #1e1e2e\ncursor #f5e0dc\nselection_background #f5e0dc\nselection_foreground none\n",
        );
        let mut alacritty = String::from(
            "[colors.primary]\nforeground = '#cdd6f4'\nbackground = '0x1e1e2e'\n[colors.cursor]\ncursor = '#f5e0dc'\n[colors.selection]\nbackground = '#f5e0dc'\n",
        );
        let names = [
            "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
        ];
        let hex = |c: Rgb| format!("#{:02x}{:02x}{:02x}", c.r, c.g, c.b);
        for (i, c) in ghostty.ansi.iter().enumerate() {
            kitty.push_str(&format!("color{i} {}\n", hex(*c)));
        }
        for (table, offset) in [("normal", 0), ("bright", 8)] {
            alacritty.push_str(&format!("[colors.{table}]\n"));
            for (i, name) in names.iter().enumerate() {
                alacritty.push_str(&format!("{name} = '{}'\n", hex(ghostty.ansi[i + offset])));
            }
        }
        assert_eq!(parse_kitty(&kitty).unwrap(), ghostty);
        assert_eq!(parse_alacritty(&alacritty).unwrap(), ghostty);
        // A file in the user's folder, by its name.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("My Theme.conf"), &kitty).unwrap();
        assert_eq!(find("my-theme", Some(dir.path())).unwrap(), ghostty);
    }

    #[test]
    fn a_broken_theme_file_says_where() {
        let err = parse_ghostty("background = #1e1e2e\npalette = 3=#zz0000\n").unwrap_err();
        assert!(err.starts_with("line 2:"), "{err}");
        let err = parse_kitty("foreground #ffffff\nbackground #000000\n").unwrap_err();
        assert!(err.contains("palette 0"), "{err}");
        assert!(parse_alacritty("colors = 3").is_err());
    }

    /// Catches `theme.light` / `theme.dark` ignored, used without a preference, or a
    /// misspelt one accepted: the desktop's preference picks the theme, and a name
    /// that names nothing is an error at its line.
    #[test]
    fn light_and_dark_follow_the_desktop_and_bad_names_are_errors() {
        use crate::config::{Config, ThemeName};
        use crate::desktop_appearance::ColorScheme;
        let c = Config::parse(
            "(theme: (name: Dark, light: \"Catppuccin Latte\", dark: \"Tokyo Night\"))",
            "c.ron",
        )
        .expect("parses");
        let named = |s: ColorScheme| c.theme.for_scheme(s).name;
        assert_eq!(
            named(ColorScheme::Light),
            ThemeName::Named("Catppuccin Latte".into())
        );
        assert_eq!(
            named(ColorScheme::Dark),
            ThemeName::Named("Tokyo Night".into())
        );
        assert_eq!(named(ColorScheme::NoPreference), ThemeName::DARK);
        let only_dark =
            Config::parse("(theme: (name: Light, dark: Dark))", "c.ron").expect("parses");
        assert_eq!(
            only_dark.theme.for_scheme(ColorScheme::Light).name,
            ThemeName::LIGHT
        );
        assert_eq!(
            only_dark.theme.for_scheme(ColorScheme::Dark).name,
            ThemeName::DARK
        );
        let e = Config::parse("(theme: (\n  light: \"Catpuccin Late\"))", "/tmp/c.ron")
            .expect_err("no such theme");
        assert!(e.to_string().starts_with("/tmp/c.ron:2:"), "{e}");
    }
}
