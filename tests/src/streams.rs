//! Seeded generator of random "TUI-like" pty output for the differential tests.
//!
//! A stream is a list of [`Item`]s, each one [`Construct`]: a run of text, a control
//! character, an SGR, a cursor move, an erase, a mode switch, ... Items are picked by
//! weight ([`Weights`]), so a failing category can be isolated (`only` one group) or
//! switched off. Items that would run into one of the
//! [`KNOWN_DIFFERENCES`](crate::known::KNOWN_DIFFERENCES) (where tern deliberately behaves
//! unlike the reference emulator) are never generated: the generator follows the stream in
//! the reference emulator and drops them.
//!
//! The same seed and [`StreamConfig`] always give the same stream.

use std::fmt::Write as _;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::known::Tracker;

/// One kind of thing a stream can contain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Construct {
    /// A short run of printable ASCII.
    Text,
    /// A run of ASCII long enough to wrap at the right margin.
    WrapText,
    /// Double-width characters (CJK, emoji).
    Wide,
    /// A base character followed by combining marks (rarely a mark on its own).
    Combining,
    /// CR, LF, CRLF, BS, VT, FF.
    Control,
    /// HT.
    Tab,
    /// HTS (`ESC H`) and TBC (`CSI g`, `CSI 3 g`).
    TabStops,
    /// SGR bold/dim/italic/underline/inverse/hidden/strike and their resets, several
    /// parameters in one sequence.
    SgrFlags,
    /// SGR `4:0` .. `4:5`: underline styles, curly included.
    SgrUnderlineStyle,
    /// SGR 30-37, 39, 40-47, 49, 90-97, 100-107.
    SgrColor16,
    /// SGR `38;5;n` / `48;5;n` and the colon form `38:5:n`.
    SgrColor256,
    /// SGR `38;2;r;g;b` and the colon forms `38:2:r:g:b`, `38:2::r:g:b`.
    SgrTruecolor,
    /// SGR `0` or the empty SGR.
    SgrReset,
    /// CUU CUD CUF CUB CNL CPL CHA VPA CUP HVP.
    CursorMove,
    /// ED 0/1/2.
    EraseDisplay,
    /// EL 0/1/2.
    EraseLine,
    /// ECH.
    EraseChars,
    /// ICH, DCH.
    InsertDeleteChars,
    /// IL, DL.
    InsertDeleteLines,
    /// SU, SD.
    ScrollUpDown,
    /// DECSTBM, valid or not, and its reset.
    ScrollRegion,
    /// DECOM on/off.
    OriginMode,
    /// IND, NEL, RI.
    Index,
    /// DECSC, DECRC.
    SaveRestore,
    /// Mode 1049 on/off.
    AltScreen,
    /// IRM on/off.
    InsertMode,
    /// DECAWM on/off.
    Autowrap,
    /// LNM, automatic newline, on/off.
    NewlineMode,
    /// REP.
    Repeat,
    /// DSR 5 and 6 (cursor position report): checks the replies.
    StatusReport,
    /// DECRQM for a few modes: checks the replies.
    ModeQuery,
    /// XTWINOPS 18, the text area size in characters: checks the reply.
    SizeQuery,
    /// Sequences that leave the screen alone: OSC titles (BEL and ST terminated), DCS
    /// strings, mouse/paste/cursor-style modes, unknown CSI and ESC sequences.
    Ignored,
    /// Malformed UTF-8: stray continuation bytes, truncated sequences, overlong forms,
    /// bytes that never occur in UTF-8.
    InvalidUtf8,
    /// Character set designation and shifts: `ESC ( 0` (DEC line drawing) and `ESC ( B`
    /// into G0 and G1, SO and SI.
    Charset,
    /// DECALN, the screen alignment test (`ESC # 8`).
    Decaln,
    /// RIS, the full reset (`ESC c`).
    Reset,
    /// Sequences cut short or interrupted: a C0 control inside a CSI (which executes
    /// there), CAN aborting a sequence, ESC starting over.
    Interrupted,
}

impl Construct {
    /// Every construct, in a fixed order.
    pub const ALL: &'static [Construct] = &[
        Construct::Text,
        Construct::WrapText,
        Construct::Wide,
        Construct::Combining,
        Construct::Control,
        Construct::Tab,
        Construct::TabStops,
        Construct::SgrFlags,
        Construct::SgrUnderlineStyle,
        Construct::SgrColor16,
        Construct::SgrColor256,
        Construct::SgrTruecolor,
        Construct::SgrReset,
        Construct::CursorMove,
        Construct::EraseDisplay,
        Construct::EraseLine,
        Construct::EraseChars,
        Construct::InsertDeleteChars,
        Construct::InsertDeleteLines,
        Construct::ScrollUpDown,
        Construct::ScrollRegion,
        Construct::OriginMode,
        Construct::Index,
        Construct::SaveRestore,
        Construct::AltScreen,
        Construct::InsertMode,
        Construct::Autowrap,
        Construct::NewlineMode,
        Construct::Repeat,
        Construct::StatusReport,
        Construct::ModeQuery,
        Construct::SizeQuery,
        Construct::Ignored,
        Construct::InvalidUtf8,
        Construct::Charset,
        Construct::Decaln,
        Construct::Reset,
        Construct::Interrupted,
    ];

    /// The name used in weight specs (`FUZZ_WEIGHTS`) and reports.
    pub fn name(self) -> &'static str {
        match self {
            Construct::Text => "text",
            Construct::WrapText => "wrap-text",
            Construct::Wide => "wide",
            Construct::Combining => "combining",
            Construct::Control => "control",
            Construct::Tab => "tab",
            Construct::TabStops => "tab-stops",
            Construct::SgrFlags => "sgr-flags",
            Construct::SgrUnderlineStyle => "sgr-underline-style",
            Construct::SgrColor16 => "sgr-color16",
            Construct::SgrColor256 => "sgr-color256",
            Construct::SgrTruecolor => "sgr-truecolor",
            Construct::SgrReset => "sgr-reset",
            Construct::CursorMove => "cursor-move",
            Construct::EraseDisplay => "erase-display",
            Construct::EraseLine => "erase-line",
            Construct::EraseChars => "erase-chars",
            Construct::InsertDeleteChars => "insert-delete-chars",
            Construct::InsertDeleteLines => "insert-delete-lines",
            Construct::ScrollUpDown => "scroll-up-down",
            Construct::ScrollRegion => "scroll-region",
            Construct::OriginMode => "origin-mode",
            Construct::Index => "index",
            Construct::SaveRestore => "save-restore",
            Construct::AltScreen => "alt-screen",
            Construct::InsertMode => "insert-mode",
            Construct::Autowrap => "autowrap",
            Construct::NewlineMode => "newline-mode",
            Construct::Repeat => "repeat",
            Construct::StatusReport => "status-report",
            Construct::ModeQuery => "mode-query",
            Construct::SizeQuery => "size-query",
            Construct::Ignored => "ignored",
            Construct::InvalidUtf8 => "invalid-utf8",
            Construct::Charset => "charset",
            Construct::Decaln => "decaln",
            Construct::Reset => "reset",
            Construct::Interrupted => "interrupted",
        }
    }

    /// The group a construct belongs to, so a whole family can be weighted at once.
    pub fn group(self) -> &'static str {
        match self {
            Construct::Text | Construct::WrapText | Construct::Repeat => "text",
            Construct::Wide | Construct::Combining => "unicode",
            Construct::Control | Construct::Tab | Construct::TabStops => "controls",
            Construct::SgrFlags
            | Construct::SgrUnderlineStyle
            | Construct::SgrColor16
            | Construct::SgrColor256
            | Construct::SgrTruecolor
            | Construct::SgrReset => "sgr",
            Construct::CursorMove | Construct::SaveRestore | Construct::Index => "cursor",
            Construct::EraseDisplay | Construct::EraseLine | Construct::EraseChars => "erase",
            Construct::InsertDeleteChars | Construct::InsertDeleteLines => "edit",
            Construct::ScrollUpDown | Construct::ScrollRegion | Construct::OriginMode => "scroll",
            Construct::AltScreen
            | Construct::InsertMode
            | Construct::Autowrap
            | Construct::NewlineMode => "modes",
            Construct::StatusReport | Construct::ModeQuery | Construct::SizeQuery => "reports",
            Construct::Ignored | Construct::InvalidUtf8 | Construct::Interrupted => "junk",
            Construct::Charset => "unicode",
            Construct::Decaln | Construct::Reset => "modes",
        }
    }

    /// How often the construct appears by default, relative to the others.
    pub fn default_weight(self) -> u32 {
        match self {
            Construct::Text => 30,
            Construct::WrapText => 4,
            Construct::Wide => 6,
            Construct::Combining => 3,
            Construct::Control => 14,
            Construct::Tab => 4,
            Construct::TabStops => 2,
            Construct::SgrFlags => 8,
            Construct::SgrUnderlineStyle => 2,
            Construct::SgrColor16 => 6,
            Construct::SgrColor256 => 3,
            Construct::SgrTruecolor => 3,
            Construct::SgrReset => 4,
            Construct::CursorMove => 14,
            Construct::EraseDisplay => 2,
            Construct::EraseLine => 4,
            Construct::EraseChars => 3,
            Construct::InsertDeleteChars => 4,
            Construct::InsertDeleteLines => 3,
            Construct::ScrollUpDown => 2,
            Construct::ScrollRegion => 2,
            Construct::OriginMode => 1,
            Construct::Index => 3,
            Construct::SaveRestore => 3,
            Construct::AltScreen => 1,
            Construct::InsertMode => 2,
            Construct::Autowrap => 2,
            Construct::NewlineMode => 1,
            Construct::Repeat => 2,
            Construct::StatusReport => 1,
            Construct::ModeQuery => 1,
            Construct::SizeQuery => 1,
            Construct::Ignored => 2,
            Construct::InvalidUtf8 => 1,
            Construct::Charset => 2,
            Construct::Decaln => 1,
            Construct::Reset => 1,
            Construct::Interrupted => 2,
        }
    }

    /// Looks a construct up by [`Construct::name`].
    pub fn from_name(name: &str) -> Option<Construct> {
        Construct::ALL.iter().copied().find(|c| c.name() == name)
    }
}

/// Relative weights of the constructs. A weight of 0 switches a construct off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    weights: Vec<(Construct, u32)>,
}

impl Default for Weights {
    fn default() -> Self {
        let weights = Construct::ALL
            .iter()
            .map(|&c| (c, c.default_weight()))
            .collect();
        Weights { weights }
    }
}

impl Weights {
    /// The weight of one construct.
    pub fn get(&self, construct: Construct) -> u32 {
        self.weights
            .iter()
            .find(|(c, _)| *c == construct)
            .map_or(0, |&(_, w)| w)
    }

    /// Sets the weight of one construct.
    pub fn set(&mut self, construct: Construct, weight: u32) {
        for entry in &mut self.weights {
            if entry.0 == construct {
                entry.1 = weight;
            }
        }
    }

    /// Keeps only the named constructs or groups (at their current weights), switching
    /// every other construct off.
    pub fn only(&mut self, names: &[&str]) -> Result<(), String> {
        let mut keep = Vec::new();
        for name in names {
            keep.extend(resolve(name)?);
        }
        for entry in &mut self.weights {
            if !keep.contains(&entry.0) {
                entry.1 = 0;
            }
        }
        Ok(())
    }

    /// Applies a spec such as `sgr=0,text=50` or `only=cursor+erase,wide=10`: each entry
    /// sets the weight of a construct or a whole group (see [`Construct::name`] and
    /// [`Construct::group`]); `only=a+b` first switches off everything but `a` and `b`.
    pub fn apply_spec(&mut self, spec: &str) -> Result<(), String> {
        for entry in spec.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (key, value) = entry
                .split_once('=')
                .ok_or_else(|| format!("weight entry `{entry}` is not NAME=VALUE"))?;
            if key == "only" {
                let names: Vec<&str> = value.split('+').map(str::trim).collect();
                self.only(&names)?;
                continue;
            }
            let weight: u32 = value
                .parse()
                .map_err(|_| format!("weight `{value}` for `{key}` is no number"))?;
            for construct in resolve(key)? {
                self.set(construct, weight);
            }
        }
        Ok(())
    }

    /// The default weights adjusted by the spec in the environment variable `var`, if set.
    pub fn from_env(var: &str) -> Result<Weights, String> {
        let mut weights = Weights::default();
        if let Ok(spec) = std::env::var(var) {
            weights.apply_spec(&spec)?;
        }
        Ok(weights)
    }

    /// The constructs with a weight above 0.
    fn effective(&self) -> Vec<(Construct, u32)> {
        self.weights
            .iter()
            .filter(|(_, w)| *w > 0)
            .copied()
            .collect()
    }
}

/// The constructs a name stands for: one construct, or all of a group.
fn resolve(name: &str) -> Result<Vec<Construct>, String> {
    if let Some(construct) = Construct::from_name(name) {
        return Ok(vec![construct]);
    }
    let group: Vec<Construct> = Construct::ALL
        .iter()
        .copied()
        .filter(|c| c.group() == name)
        .collect();
    if group.is_empty() {
        Err(format!("`{name}` is neither a construct nor a group"))
    } else {
        Ok(group)
    }
}

/// What kind of stream to make.
#[derive(Clone, Debug)]
pub struct StreamConfig {
    /// Screen width, so that wrapping text and cursor targets fit the screen.
    pub cols: usize,
    /// Screen height.
    pub rows: usize,
    /// The stream ends at the first item boundary at or past a length drawn from this range.
    pub min_len: usize,
    pub max_len: usize,
    pub weights: Weights,
}

impl StreamConfig {
    pub fn new(cols: usize, rows: usize) -> StreamConfig {
        StreamConfig {
            cols,
            rows,
            min_len: 200,
            max_len: 3000,
            weights: Weights::default(),
        }
    }
}

/// One generated piece of a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub construct: Construct,
    pub bytes: Vec<u8>,
}

/// A generated stream, kept as items so that a failing stream can be minimised item by
/// item.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stream {
    pub items: Vec<Item>,
}

impl Stream {
    /// All bytes, in order.
    pub fn bytes(&self) -> Vec<u8> {
        join(&self.items)
    }

    /// The total length in bytes.
    pub fn len(&self) -> usize {
        self.items.iter().map(|item| item.bytes.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.items.iter().all(|item| item.bytes.is_empty())
    }
}

/// The bytes of `items`, in order.
pub fn join(items: &[Item]) -> Vec<u8> {
    items
        .iter()
        .flat_map(|item| item.bytes.iter().copied())
        .collect()
}

/// Generates the stream for `seed`. With every weight 0 the stream is empty.
///
/// Items a known difference applies to are drawn again; after many rejections in a row
/// the stream ends early.
pub fn generate(seed: u64, config: &StreamConfig) -> Stream {
    const MAX_REJECTIONS: usize = 1000;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let weights = config.weights.effective();
    let total: u32 = weights.iter().map(|(_, w)| w).sum();
    let mut stream = Stream::default();
    if total == 0 {
        return stream;
    }
    let (low, high) = (
        config.min_len.min(config.max_len),
        config.max_len.max(config.min_len),
    );
    let target = rng.random_range(low..=high);
    let mut generator = Generator {
        rng,
        cols: config.cols.max(1),
        rows: config.rows.max(1),
    };
    let mut tracker = Tracker::new(generator.cols, generator.rows);
    let mut len = 0;
    let mut rejections = 0;
    while len < target && rejections < MAX_REJECTIONS {
        let construct = pick(&mut generator.rng, &weights, total);
        let item = Item {
            construct,
            bytes: generator.emit(construct),
        };
        if tracker.hit(&item).is_some() {
            rejections += 1;
            continue;
        }
        rejections = 0;
        tracker.advance(&item);
        len += item.bytes.len();
        stream.items.push(item);
    }
    stream
}

fn pick(rng: &mut ChaCha8Rng, weights: &[(Construct, u32)], total: u32) -> Construct {
    let mut roll = rng.random_range(0..total);
    for &(construct, weight) in weights {
        if roll < weight {
            return construct;
        }
        roll -= weight;
    }
    // Unreachable while `total` is the sum of the weights; text is a harmless fallback.
    Construct::Text
}

const PRINTABLE: &[u8] =
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;-_=+*/#@!?()[]{}<>|~";
const WIDE: &[char] = &[
    '中', '文', '字', '日', '本', '語', '한', '국', '😀', '🎉', '👍', '🚀', 'ｗ',
];
const COMBINING: &[char] = &['\u{301}', '\u{308}', '\u{323}', '\u{30a}', '\u{332}'];

struct Generator {
    rng: ChaCha8Rng,
    cols: usize,
    rows: usize,
}

impl Generator {
    fn emit(&mut self, construct: Construct) -> Vec<u8> {
        match construct {
            Construct::Text => {
                let n = self.rng.random_range(1..=20);
                self.ascii(n)
            }
            Construct::WrapText => {
                let n = self.rng.random_range(self.cols / 2..=self.cols * 2 + 1);
                self.ascii(n)
            }
            Construct::Wide => {
                let n = self.rng.random_range(1..=6);
                let mut s = String::new();
                for _ in 0..n {
                    s.push(self.choose_char(WIDE));
                    if self.rng.random_bool(0.2) {
                        s.push(self.printable());
                    }
                }
                s.into_bytes()
            }
            Construct::Combining => self.combining(),
            Construct::Control => {
                let choices: &[&[u8]] =
                    &[b"\r", b"\n", b"\r\n", b"\r\n", b"\x08", b"\x0b", b"\x0c"];
                self.choose(choices).to_vec()
            }
            Construct::Tab => match self.rng.random_range(0..8) {
                // CHT and CBT: forward and backward by tab stops.
                0 => csi(&self.count(4), 'I'),
                1 => csi(&self.count(4), 'Z'),
                _ => {
                    let n = self.rng.random_range(1..=3);
                    vec![b'\t'; n]
                }
            },
            Construct::TabStops => {
                let choices: &[&[u8]] = &[b"\x1bH", b"\x1bH", b"\x1b[g", b"\x1b[0g", b"\x1b[3g"];
                self.choose(choices).to_vec()
            }
            Construct::SgrFlags => self.sgr_flags(),
            Construct::SgrUnderlineStyle => {
                let style = self.rng.random_range(0..=5);
                csi(&format!("4:{style}"), 'm')
            }
            Construct::SgrColor16 => {
                let bases = [30, 40, 90, 100];
                let base = bases[self.rng.random_range(0..bases.len())];
                let param = if self.rng.random_bool(0.15) {
                    // 39 / 49: back to the default colour.
                    if self.rng.random_bool(0.5) { 39 } else { 49 }
                } else {
                    base + self.rng.random_range(0..8)
                };
                csi(&param.to_string(), 'm')
            }
            Construct::SgrColor256 => {
                let which = if self.rng.random_bool(0.5) { 38 } else { 48 };
                let index: u8 = self.rng.random();
                let params = if self.rng.random_bool(0.5) {
                    format!("{which};5;{index}")
                } else {
                    format!("{which}:5:{index}")
                };
                csi(&self.with_flag(params), 'm')
            }
            Construct::SgrTruecolor => {
                let which = if self.rng.random_bool(0.5) { 38 } else { 48 };
                let (r, g, b): (u8, u8, u8) =
                    (self.rng.random(), self.rng.random(), self.rng.random());
                let params = match self.rng.random_range(0..3) {
                    0 => format!("{which};2;{r};{g};{b}"),
                    1 => format!("{which}:2:{r}:{g}:{b}"),
                    _ => format!("{which}:2::{r}:{g}:{b}"),
                };
                csi(&self.with_flag(params), 'm')
            }
            Construct::SgrReset => {
                if self.rng.random_bool(0.5) {
                    csi("", 'm')
                } else {
                    csi("0", 'm')
                }
            }
            Construct::CursorMove => self.cursor_move(),
            Construct::EraseDisplay => {
                let params = ["", "0", "1", "2", "3"];
                csi(self.choose(&params), 'J')
            }
            Construct::EraseLine => {
                let params = ["", "0", "1", "2"];
                csi(self.choose(&params), 'K')
            }
            Construct::EraseChars => {
                let n = self.count(self.cols);
                csi(&n, 'X')
            }
            Construct::InsertDeleteChars => {
                let n = self.count(self.cols);
                csi(&n, if self.rng.random_bool(0.5) { '@' } else { 'P' })
            }
            Construct::InsertDeleteLines => {
                let n = self.count(self.rows);
                csi(&n, if self.rng.random_bool(0.5) { 'L' } else { 'M' })
            }
            Construct::ScrollUpDown => {
                let n = self.count(self.rows);
                csi(&n, if self.rng.random_bool(0.5) { 'S' } else { 'T' })
            }
            Construct::ScrollRegion => {
                if self.rng.random_bool(0.2) {
                    csi("", 'r')
                } else {
                    let top = self.rng.random_range(1..=self.rows);
                    let bottom = self.rng.random_range(1..=self.rows);
                    csi(&format!("{top};{bottom}"), 'r')
                }
            }
            Construct::OriginMode => self.mode_switch("?6"),
            Construct::Index => {
                let choices: &[&[u8]] = &[b"\x1bD", b"\x1bE", b"\x1bM", b"\x1bM"];
                self.choose(choices).to_vec()
            }
            Construct::SaveRestore => {
                // DECSC and DECRC, and their ANSI.SYS spellings.
                let choices: &[&[u8]] =
                    &[b"\x1b7", b"\x1b8", b"\x1b7", b"\x1b8", b"\x1b[s", b"\x1b[u"];
                self.choose(choices).to_vec()
            }
            Construct::AltScreen => self.mode_switch("?1049"),
            Construct::InsertMode => self.mode_switch("4"),
            Construct::Autowrap => {
                // Mostly on, so that wrapping still gets exercised.
                if self.rng.random_bool(0.6) {
                    csi("?7", 'h')
                } else {
                    csi("?7", 'l')
                }
            }
            Construct::NewlineMode => self.mode_switch("20"),
            Construct::Repeat => {
                let mut bytes = vec![self.printable() as u8];
                bytes.extend(csi(&self.count(self.cols * 2), 'b'));
                bytes
            }
            Construct::StatusReport => {
                let choices: &[&[u8]] = &[b"\x1b[6n", b"\x1b[6n", b"\x1b[5n"];
                self.choose(choices).to_vec()
            }
            Construct::ModeQuery => {
                let choices: &[&[u8]] = &[
                    b"\x1b[?7$p",
                    b"\x1b[?6$p",
                    b"\x1b[?25$p",
                    b"\x1b[?1049$p",
                    b"\x1b[?2004$p",
                    b"\x1b[4$p",
                ];
                self.choose(choices).to_vec()
            }
            Construct::SizeQuery => b"\x1b[18t".to_vec(),
            Construct::Ignored => {
                let choices: &[&[u8]] = &[
                    b"\x1b]0;a title\x07",
                    b"\x1b]2;another title\x1b\\",
                    b"\x1b]8;;http://example.com\x1b\\",
                    b"\x1bP1$r0m\x1b\\",
                    b"\x1b[?1000h",
                    b"\x1b[?1006h",
                    b"\x1b[?1000l",
                    b"\x1b[?2004h",
                    b"\x1b[?2004l",
                    b"\x1b[?25l",
                    b"\x1b[?25h",
                    b"\x1b[?12h",
                    b"\x1b[2 q",
                    b"\x1b[5 q",
                    b"\x1b[?1h",
                    b"\x1b[?1l",
                    b"\x1b=",
                    b"\x1b>",
                    b"\x1b[>4;1m",
                    b"\x1b[12y",
                    b"\x1b[?9999h",
                    b"\x07",
                    b"\x00",
                    b"\x7f",
                ];
                self.choose(choices).to_vec()
            }
            Construct::Charset => {
                let choices: &[&[u8]] = &[
                    b"\x1b(0", b"\x1b(0", b"\x1b(B", b"\x1b)0", b"\x1b)B", b"\x0e", b"\x0f",
                ];
                let mut bytes = self.choose(choices).to_vec();
                // Line-drawing characters live in `j`..`x` and a few around them.
                let drawing = b"jklmnqtuvwx`afgy~_";
                for _ in 0..self.rng.random_range(0..=6) {
                    bytes.push(drawing[self.rng.random_range(0..drawing.len())]);
                }
                bytes
            }
            Construct::Decaln => b"\x1b#8".to_vec(),
            Construct::Reset => b"\x1bc".to_vec(),
            Construct::Interrupted => {
                let count = self.count(self.cols);
                let control = self.choose(&["\r", "\n", "\x08", "\t", "\x0b"]);
                let text = match self.rng.random_range(0..4) {
                    // A C0 control executes in the middle of the sequence.
                    0 => format!("\x1b[{control}{count}C"),
                    1 => format!("\x1b[{count}{control}D"),
                    // CAN aborts it.
                    2 => format!("\x1b[{count}\x18C"),
                    // ESC starts a new one.
                    _ => format!("\x1b[{count}\x1b[B"),
                };
                text.into_bytes()
            }
            Construct::InvalidUtf8 => {
                let choices: &[&[u8]] = &[
                    b"\x80",
                    b"\xbf\xbf",
                    b"\xc3",
                    b"\xe4\xb8",
                    b"\xf0\x9f\x98",
                    b"\xc0\x80",
                    b"\xed\xa0\x80",
                    b"\xff",
                    b"\xfe",
                    b"\xf8\x88\x80\x80\x80",
                ];
                let mut bytes = self.choose(choices).to_vec();
                // Often followed by something valid, which the decoder must not swallow.
                if self.rng.random_bool(0.7) {
                    bytes.push(self.printable() as u8);
                }
                bytes
            }
        }
    }

    fn choose<'a, T: ?Sized>(&mut self, choices: &[&'a T]) -> &'a T {
        choices[self.rng.random_range(0..choices.len())]
    }

    fn choose_char(&mut self, choices: &[char]) -> char {
        choices[self.rng.random_range(0..choices.len())]
    }

    fn printable(&mut self) -> char {
        char::from(PRINTABLE[self.rng.random_range(0..PRINTABLE.len())])
    }

    fn ascii(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.printable() as u8).collect()
    }

    fn combining(&mut self) -> Vec<u8> {
        let mut s = String::new();
        if self.rng.random_bool(0.9) {
            // Most marks sit on a letter; some on a wide character.
            if self.rng.random_bool(0.8) {
                s.push(self.printable());
            } else {
                s.push(self.choose_char(WIDE));
            }
        }
        for _ in 0..self.rng.random_range(1..=2) {
            s.push(self.choose_char(COMBINING));
        }
        s.into_bytes()
    }

    /// Sometimes puts a flag or a 16-colour parameter before or after a colour parameter,
    /// as programs combine them in one SGR.
    fn with_flag(&mut self, params: String) -> String {
        const EXTRA: &[&str] = &["1", "3", "4", "7", "22", "31", "39", "44", "49", "0"];
        match self.rng.random_range(0..6) {
            0 => format!("{};{params}", EXTRA[self.rng.random_range(0..EXTRA.len())]),
            1 => format!("{params};{}", EXTRA[self.rng.random_range(0..EXTRA.len())]),
            _ => params,
        }
    }

    fn sgr_flags(&mut self) -> Vec<u8> {
        const FLAGS: &[u16] = &[1, 2, 3, 4, 5, 6, 7, 8, 9, 21, 22, 23, 24, 25, 27, 28, 29];
        let n = self.rng.random_range(1..=3);
        let mut params: Vec<String> = (0..n)
            .map(|_| FLAGS[self.rng.random_range(0..FLAGS.len())].to_string())
            .collect();
        if self.rng.random_bool(0.1) {
            // An empty parameter means 0, a reset, wherever it stands.
            let at = self.rng.random_range(0..=params.len());
            params.insert(at, String::new());
        }
        csi(&params.join(";"), 'm')
    }

    /// A count parameter: omitted, 0, 1, small, or past the screen edge.
    fn count(&mut self, size: usize) -> String {
        if self.rng.random_bool(0.02) {
            // Far beyond any screen: must clamp, not overflow.
            return self.choose(&["9999", "65535", "4294967297"]).to_string();
        }
        match self.rng.random_range(0..10) {
            0 => String::new(),
            1 => "0".to_string(),
            2 | 3 => "1".to_string(),
            4 => (size + self.rng.random_range(0..=10)).to_string(),
            _ => self.rng.random_range(1..=size.max(1)).to_string(),
        }
    }

    /// A 1-based position parameter: mostly on screen, sometimes 0, omitted or beyond.
    fn position(&mut self, size: usize) -> String {
        if self.rng.random_bool(0.02) {
            return self.choose(&["9999", "65535", "4294967297"]).to_string();
        }
        match self.rng.random_range(0..12) {
            0 => String::new(),
            1 => "0".to_string(),
            2 => (size + self.rng.random_range(1..=5)).to_string(),
            _ => self.rng.random_range(1..=size).to_string(),
        }
    }

    fn cursor_move(&mut self) -> Vec<u8> {
        match self.rng.random_range(0..12) {
            // HPR, VPR, HPA: the rarer spellings of CUF, CUD and CHA.
            10 => {
                let (params, action) = match self.rng.random_range(0..3) {
                    0 => (self.count(self.cols), 'a'),
                    1 => (self.count(self.rows), 'e'),
                    _ => (self.position(self.cols), '`'),
                };
                csi(&params, action)
            }
            0 => csi(&self.count(self.rows), 'A'),
            1 => csi(&self.count(self.rows), 'B'),
            2 => csi(&self.count(self.cols), 'C'),
            3 => csi(&self.count(self.cols), 'D'),
            4 => csi(&self.count(self.rows), 'E'),
            5 => csi(&self.count(self.rows), 'F'),
            6 => csi(&self.position(self.cols), 'G'),
            7 => csi(&self.position(self.rows), 'd'),
            _ => {
                let final_byte = if self.rng.random_bool(0.8) { 'H' } else { 'f' };
                let params = match self.rng.random_range(0..8) {
                    0 => String::new(),
                    1 => self.position(self.rows),
                    _ => format!("{};{}", self.position(self.rows), self.position(self.cols)),
                };
                csi(&params, final_byte)
            }
        }
    }

    fn mode_switch(&mut self, mode: &str) -> Vec<u8> {
        csi(mode, if self.rng.random_bool(0.5) { 'h' } else { 'l' })
    }
}

/// `ESC [ params final`.
fn csi(params: &str, final_byte: char) -> Vec<u8> {
    let mut s = String::with_capacity(params.len() + 3);
    s.push_str("\x1b[");
    s.push_str(params);
    s.push(final_byte);
    s.into_bytes()
}

/// A readable, copy-pasteable form of a byte stream: ESC as `\e`, CR, LF, HT and BS as
/// `\r`, `\n`, `\t`, `\b`, other control bytes and invalid UTF-8 as `\xNN`, backslash as
/// `\\`, everything else as itself.
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\x1b' => out.push_str("\\e"),
                '\r' => out.push_str("\\r"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\x08' => out.push_str("\\b"),
                '\\' => out.push_str("\\\\"),
                c if c.is_control() => {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                }
                c => out.push(c),
            }
        }
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
}

/// [`escape`], cut to about `max` characters by keeping the start and the end.
pub fn escape_shortened(bytes: &[u8], max: usize) -> String {
    let full = escape(bytes);
    let chars: Vec<char> = full.chars().collect();
    if chars.len() <= max {
        return full;
    }
    let half = max / 2;
    let head: String = chars[..half].iter().collect();
    let tail: String = chars[chars.len() - half..].iter().collect();
    format!("{head} [... {} chars ...] {tail}", chars.len() - 2 * half)
}

/// The inverse of [`escape`]: reads `\e`, `\r`, `\n`, `\t`, `\b`, `\\` and `\xNN`, so that a
/// reported stream can be pasted back in.
pub use tern_core::escapes::unescape;
