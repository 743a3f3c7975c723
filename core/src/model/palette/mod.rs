//! The 256-colour palette, the special colours and the dynamic colours (OSC 4, 5, 10-19
//! and their resets 104, 105, 110-119).

mod colorspec;

/// An RGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Rgb {
    pub r: u8,
    pub g: u8,
    pub b: u8,
}

impl Rgb {
    pub const fn new(r: u8, g: u8, b: u8) -> Rgb {
        Rgb { r, g, b }
    }

    /// Whether this is a dark colour: relative luminance, roughly (sRGB weights without
    /// the curve), under half. A scheme is dark by its background, and the window's
    /// chrome follows it.
    pub fn is_dark(self) -> bool {
        0.2126 * f32::from(self.r) + 0.7152 * f32::from(self.g) + 0.0722 * f32::from(self.b) < 128.0
    }

    /// xterm's reply form: `rgb:rrrr/gggg/bbbb`.
    pub fn to_xparse(self) -> String {
        format!(
            "rgb:{0:02x}{0:02x}/{1:02x}{1:02x}/{2:02x}{2:02x}",
            self.r, self.g, self.b
        )
    }

    /// Parses a colour as xterm's `XParseColor` does: `rgb:r/g/b` (1-4 hex digits per
    /// channel, scaled to 16 bits), `#rgb`, `#rrggbb`, `#rrrgggbbb`, `#rrrrggggbbbb`
    /// (the digits are the high bits), the Xcms device-independent forms (`RGBi:`,
    /// `CIEXYZ:`, `CIEuvY:`, `CIExyY:`, `CIELab:`, `CIELuv:`, `TekHVC:`, see
    /// [`super::colorspec`]) and X11 colour names (`red`, `alice blue`). tern keeps the
    /// high 8 bits of each channel, as xterm on a 24-bit display does.
    pub fn parse(spec: &str) -> Option<Rgb> {
        if let Some(rest) = spec.strip_prefix("rgb:") {
            let channel = |p: &str| -> Option<u8> {
                if p.is_empty() || p.len() > 4 || !p.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return None;
                }
                let v = u32::from_str_radix(p, 16).ok()?;
                let max = (1u32 << (4 * p.len())) - 1;
                Some(((v * 0xffff / max) >> 8) as u8)
            };
            return Rgb::three(rest, channel);
        }
        if let Some(rgb) = colorspec::parse(spec) {
            return Some(rgb);
        }
        let Some(hex) = spec.strip_prefix('#') else {
            return super::colornames::lookup(spec).map(|(r, g, b)| Rgb::new(r, g, b));
        };
        if hex.is_empty()
            || hex.len() % 3 != 0
            || hex.len() > 12
            || !hex.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return None;
        }
        let n = hex.len() / 3;
        let chan = |i: usize| -> Option<u8> {
            let v = u32::from_str_radix(hex.get(i * n..(i + 1) * n)?, 16).ok()?;
            // The digits are the most significant bits: keep the top 8.
            Some(if n >= 2 {
                (v >> (4 * (n - 2))) as u8
            } else {
                (v << 4) as u8
            })
        };
        Some(Rgb::new(chan(0)?, chan(1)?, chan(2)?))
    }

    /// Three `/`-separated channels, each read by `channel`.
    fn three(rest: &str, channel: impl Fn(&str) -> Option<u8>) -> Option<Rgb> {
        let mut parts = rest.split('/');
        let rgb = Rgb::new(
            channel(parts.next()?)?,
            channel(parts.next()?)?,
            channel(parts.next()?)?,
        );
        parts.next().is_none().then_some(rgb)
    }
}

/// The default xterm palette colour for index `i`.
pub fn default_indexed(i: u8) -> Rgb {
    const BASE: [Rgb; 16] = [
        Rgb::new(0x00, 0x00, 0x00),
        Rgb::new(0xcd, 0x00, 0x00),
        Rgb::new(0x00, 0xcd, 0x00),
        Rgb::new(0xcd, 0xcd, 0x00),
        Rgb::new(0x00, 0x00, 0xee),
        Rgb::new(0xcd, 0x00, 0xcd),
        Rgb::new(0x00, 0xcd, 0xcd),
        Rgb::new(0xe5, 0xe5, 0xe5),
        Rgb::new(0x7f, 0x7f, 0x7f),
        Rgb::new(0xff, 0x00, 0x00),
        Rgb::new(0x00, 0xff, 0x00),
        Rgb::new(0xff, 0xff, 0x00),
        Rgb::new(0x5c, 0x5c, 0xff),
        Rgb::new(0xff, 0x00, 0xff),
        Rgb::new(0x00, 0xff, 0xff),
        Rgb::new(0xff, 0xff, 0xff),
    ];
    match i {
        0..=15 => BASE[i as usize],
        16..=231 => {
            let i = i - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            Rgb::new(level(i / 36), level((i / 6) % 6), level(i % 6))
        }
        _ => {
            let v = 8 + (i - 232) * 10;
            Rgb::new(v, v, v)
        }
    }
}

/// How many special colours there are (OSC 5 0..4, OSC 4 256..260): bold, underline,
/// blink, reverse and italic.
pub const SPECIAL_COLORS: usize = 5;

/// Palette state: 256 indexed colours plus foreground, background and cursor, the
/// special colours and the other dynamic colours (13-19).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Palette {
    indexed: Vec<Option<Rgb>>,
    pub foreground: Option<Rgb>,
    pub background: Option<Rgb>,
    pub cursor: Option<Rgb>,
    /// OSC 5: bold, underline, blink, reverse, italic (default: the text colour).
    special: [Option<Rgb>; SPECIAL_COLORS],
    /// OSC 13-19: pointer foreground and background, Tektronix foreground and
    /// background, highlight background, Tektronix cursor, highlight foreground.
    others: [Option<Rgb>; 7],
    defaults: DynamicDefaults,
}

/// The theme: what the colours are when no program has set them. Programs change
/// them with OSC 4/10/11/12 and OSC 104/110/111/112 resets back to these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DynamicDefaults {
    pub foreground: Rgb,
    pub background: Rgb,
    pub cursor: Rgb,
    /// ANSI colours 0-15.
    pub ansi: [Rgb; 16],
}

impl Default for DynamicDefaults {
    fn default() -> Self {
        DynamicDefaults::dark()
    }
}

impl DynamicDefaults {
    /// Light text on a near-black background, xterm's ANSI colours.
    pub fn dark() -> DynamicDefaults {
        DynamicDefaults {
            foreground: Rgb::new(0xd8, 0xd8, 0xd8),
            background: Rgb::new(0x18, 0x18, 0x18),
            cursor: Rgb::new(0xd8, 0xd8, 0xd8),
            ansi: std::array::from_fn(|i| default_indexed(i as u8)),
        }
    }

    /// Dark text on a near-white background, with ANSI colours dark enough to read on
    /// it (yellow and the whites especially).
    pub fn light() -> DynamicDefaults {
        let hex = |v: u32| Rgb::new((v >> 16) as u8, (v >> 8) as u8, v as u8);
        let ansi = [
            0x000000, 0xc41a16, 0x1d7a1d, 0x8a6a00, 0x1f4fc7, 0x9b2c9b, 0x0f7b84, 0xb8b8b8,
            0x606060, 0xe03a2f, 0x2f9e2f, 0xa88200, 0x3d6ce8, 0xc03cc0, 0x159aa6, 0x2a2a2a,
        ]
        .map(hex);
        DynamicDefaults {
            foreground: hex(0x1e1e1e),
            background: hex(0xfafaf8),
            cursor: hex(0x303030),
            ansi,
        }
    }
}

impl Default for Palette {
    fn default() -> Self {
        Palette::new(DynamicDefaults::default())
    }
}

impl Palette {
    pub fn new(defaults: DynamicDefaults) -> Palette {
        Palette {
            indexed: vec![None; 256],
            foreground: None,
            background: None,
            cursor: None,
            special: [None; SPECIAL_COLORS],
            others: [None; 7],
            defaults,
        }
    }

    /// Special colour `i` (0..5): what a program set, else the text colour (how tern
    /// draws bold, underlined, ... text, and what xterm reports with its default
    /// resources).
    pub fn special(&self, i: usize) -> Option<Rgb> {
        let set = *self.special.get(i)?;
        Some(set.unwrap_or_else(|| self.foreground()))
    }

    /// Sets (or with `None` resets) special colour `i`; false when there is no such
    /// colour.
    pub fn set_special(&mut self, i: usize, rgb: Option<Rgb>) -> bool {
        match self.special.get_mut(i) {
            Some(slot) => {
                *slot = rgb;
                true
            }
            None => false,
        }
    }

    /// Dynamic colour `which` (10..=19), as OSC `which` ; ? reports it. Unset, the
    /// pointer and Tektronix colours are the text colours, the highlight is the text
    /// reversed and the Tektronix cursor is the cursor colour.
    pub fn dynamic(&self, which: u16) -> Option<Rgb> {
        let fallback = match which {
            10 => return Some(self.foreground()),
            11 => return Some(self.background()),
            12 => return Some(self.cursor()),
            13 | 15 | 17 => self.foreground(),
            14 | 16 | 19 => self.background(),
            18 => self.cursor(),
            _ => return None,
        };
        Some(self.others[usize::from(which - 13)].unwrap_or(fallback))
    }

    /// Sets (or with `None` resets) dynamic colour `which` (10..=19); false for any
    /// other number.
    pub fn set_dynamic(&mut self, which: u16, rgb: Option<Rgb>) -> bool {
        match which {
            10 => self.foreground = rgb,
            11 => self.background = rgb,
            12 => self.cursor = rgb,
            13..=19 => self.others[usize::from(which - 13)] = rgb,
            _ => return false,
        }
        true
    }

    pub fn indexed(&self, i: u8) -> Rgb {
        self.indexed[i as usize].unwrap_or_else(|| match self.defaults.ansi.get(i as usize) {
            Some(theme) => *theme,
            None => default_indexed(i),
        })
    }

    /// The theme under the program's changes.
    pub fn defaults(&self) -> &DynamicDefaults {
        &self.defaults
    }

    /// A new theme: colours no program has set follow it at once.
    pub fn set_defaults(&mut self, defaults: DynamicDefaults) {
        self.defaults = defaults;
    }

    pub fn set_indexed(&mut self, i: u8, rgb: Option<Rgb>) {
        self.indexed[i as usize] = rgb;
    }

    pub fn reset_all_indexed(&mut self) {
        self.indexed.iter_mut().for_each(|c| *c = None);
    }

    pub fn foreground(&self) -> Rgb {
        self.foreground.unwrap_or(self.defaults.foreground)
    }

    pub fn background(&self) -> Rgb {
        self.background.unwrap_or(self.defaults.background)
    }

    pub fn cursor(&self) -> Rgb {
        self.cursor.unwrap_or(self.defaults.cursor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_xparse_and_hash_forms() {
        assert_eq!(Rgb::parse("rgb:ff/80/00"), Some(Rgb::new(255, 128, 0)));
        assert_eq!(
            Rgb::parse("rgb:ffff/0000/8080"),
            Some(Rgb::new(255, 0, 128))
        );
        assert_eq!(Rgb::parse("rgb:f/0/8"), Some(Rgb::new(255, 0, 136)));
        assert_eq!(Rgb::parse("#ff8000"), Some(Rgb::new(255, 128, 0)));
        assert_eq!(Rgb::parse("#f80"), Some(Rgb::new(0xf0, 0x80, 0)));
        assert_eq!(Rgb::parse("#aaabbbccc"), Some(Rgb::new(0xaa, 0xbb, 0xcc)));
        assert_eq!(
            Rgb::parse("rgb:1234/5678/9abc"),
            Some(Rgb::new(0x12, 0x56, 0x9a))
        );
        // The Xcms forms as xterm's Xlib converts them (colorspec.rs).
        assert_eq!(Rgb::parse("rgbi:0/1/0.5"), Some(Rgb::new(0, 255, 0xbb)));
        assert_eq!(
            Rgb::parse("CIELab:50/0/0"),
            Some(Rgb::new(0x83, 0x7d, 0x7e))
        );
        assert_eq!(Rgb::parse("rgbi:0/2/0"), None);
        assert_eq!(Rgb::parse("Alice Blue"), Some(Rgb::new(240, 248, 255)));
        assert_eq!(Rgb::parse("#ggg"), None);
        assert_eq!(Rgb::parse("rgb:ff/80"), None);
        assert_eq!(Rgb::parse("nonsense"), None);
    }

    #[test]
    fn default_palette_matches_xterm_cube_and_ramp() {
        assert_eq!(default_indexed(16), Rgb::new(0, 0, 0));
        assert_eq!(default_indexed(196), Rgb::new(255, 0, 0));
        assert_eq!(default_indexed(232), Rgb::new(8, 8, 8));
        assert_eq!(default_indexed(255), Rgb::new(238, 238, 238));
    }

    #[test]
    fn reply_form_doubles_each_byte() {
        assert_eq!(Rgb::new(0x12, 0xab, 0x00).to_xparse(), "rgb:1212/abab/0000");
    }
}
