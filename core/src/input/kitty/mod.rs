//! The kitty keyboard protocol's key encoding
//! (<https://sw.kovidgoyal.net/kitty/keyboard-protocol/>), beside the legacy xterm
//! encoder in `keys.rs`, which it falls back to where the spec keeps legacy bytes.
//!
//! The general form is `CSI code[:shifted[:base]] ; mods[:event] ; text u`, or
//! `CSI 1 ; mods [ABCDEFHPQS]` / `CSI n ; mods ~` for the keys that had those forms.
//! Which parts appear depends on the program's flags (`crate::model::kitty::flags`).

use super::keys::{Key, KeyModes, Mods, encode_key};
use crate::model::kitty::flags::{
    DISAMBIGUATE, REPORT_ALL_KEYS, REPORT_ALTERNATE_KEYS, REPORT_EVENT_TYPES, REPORT_TEXT,
};

/// Press, auto-repeat or release.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyEventKind {
    #[default]
    Press,
    Repeat,
    Release,
}

impl KeyEventKind {
    fn number(self) -> u8 {
        match self {
            KeyEventKind::Press => 1,
            KeyEventKind::Repeat => 2,
            KeyEventKind::Release => 3,
        }
    }
}

/// Keypad keys (reported apart from the main keys once a program asks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeypadKey {
    /// 0..=9.
    Digit(u8),
    Decimal,
    Divide,
    Multiply,
    Subtract,
    Add,
    Enter,
    Equal,
    Separator,
    Left,
    Right,
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    Insert,
    Delete,
    Begin,
}

impl KeypadKey {
    /// The spec's code (57399 = KP_0 ... 57427 = KP_BEGIN).
    fn code(self) -> u32 {
        match self {
            KeypadKey::Digit(d) => 57399 + u32::from(d.min(9)),
            KeypadKey::Decimal => 57409,
            KeypadKey::Divide => 57410,
            KeypadKey::Multiply => 57411,
            KeypadKey::Subtract => 57412,
            KeypadKey::Add => 57413,
            KeypadKey::Enter => 57414,
            KeypadKey::Equal => 57415,
            KeypadKey::Separator => 57416,
            KeypadKey::Left => 57417,
            KeypadKey::Right => 57418,
            KeypadKey::Up => 57419,
            KeypadKey::Down => 57420,
            KeypadKey::PageUp => 57421,
            KeypadKey::PageDown => 57422,
            KeypadKey::Home => 57423,
            KeypadKey::End => 57424,
            KeypadKey::Insert => 57425,
            KeypadKey::Delete => 57426,
            KeypadKey::Begin => 57427,
        }
    }

    /// The main key a keypad key stands for when the program does not tell them apart.
    fn main_key(self) -> Option<Key> {
        Some(match self {
            KeypadKey::Digit(d) => Key::Char(char::from(b'0' + d.min(9))),
            KeypadKey::Decimal => Key::Char('.'),
            KeypadKey::Divide => Key::Char('/'),
            KeypadKey::Multiply => Key::Char('*'),
            KeypadKey::Subtract => Key::Char('-'),
            KeypadKey::Add => Key::Char('+'),
            KeypadKey::Equal => Key::Char('='),
            KeypadKey::Separator => Key::Char(','),
            KeypadKey::Enter => Key::Enter,
            KeypadKey::Left => Key::Left,
            KeypadKey::Right => Key::Right,
            KeypadKey::Up => Key::Up,
            KeypadKey::Down => Key::Down,
            KeypadKey::PageUp => Key::PageUp,
            KeypadKey::PageDown => Key::PageDown,
            KeypadKey::Home => Key::Home,
            KeypadKey::End => Key::End,
            KeypadKey::Insert => Key::Insert,
            KeypadKey::Delete => Key::Delete,
            KeypadKey::Begin => return None,
        })
    }
}

/// Every key the kitty protocol can report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KittyKey {
    /// A key the legacy encoder knows too (`Key::F` goes up to F35 here).
    Main(Key),
    Keypad(KeypadKey),
    CapsLock,
    ScrollLock,
    NumLock,
    PrintScreen,
    Pause,
    Menu,
}

/// The modifiers beyond [`Mods`] (whose `meta` is the Super/Command key, bit 8 in both
/// xterm's and kitty's numbering).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoreMods {
    pub hyper: bool,
    /// The Meta key proper (kitty's bit 32).
    pub meta: bool,
    pub caps_lock: bool,
    pub num_lock: bool,
}

/// One key event as the kitty encoder needs it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyEvent<'a> {
    pub key: Option<KittyKey>,
    pub mods: Mods,
    pub more_mods: MoreMods,
    pub kind: KeyEventKind,
    /// The text the key makes with the current modifiers (shifted, layout applied),
    /// when the UI knows it.
    pub text: Option<&'a str>,
}

impl<'a> KeyEvent<'a> {
    pub fn press(key: KittyKey, mods: Mods) -> KeyEvent<'a> {
        KeyEvent {
            key: Some(key),
            mods,
            ..KeyEvent::default()
        }
    }
}

const SHIFT: u8 = 1;
const ALT: u8 = 2;
const CTRL: u8 = 4;
const SUPER: u8 = 8;
const HYPER: u8 = 16;
const META: u8 = 32;
const CAPS_LOCK: u8 = 64;
const NUM_LOCK: u8 = 128;
const LOCKS: u8 = CAPS_LOCK | NUM_LOCK;

fn mod_bits(m: Mods, more: MoreMods) -> u8 {
    let mut bits = 0;
    for (on, bit) in [
        (m.shift, SHIFT),
        (m.alt, ALT),
        (m.ctrl, CTRL),
        (m.meta, SUPER),
        (more.hyper, HYPER),
        (more.meta, META),
        (more.caps_lock, CAPS_LOCK),
        (more.num_lock, NUM_LOCK),
    ] {
        if on {
            bits |= bit;
        }
    }
    bits
}

/// The parts of one `CSI ... trailer` report.
struct Report<'a> {
    code: u32,
    shifted: Option<u32>,
    mods: u8,
    kind: Option<KeyEventKind>,
    text: Option<&'a str>,
    trailer: char,
}

impl Report<'_> {
    fn bytes(&self) -> Vec<u8> {
        use std::fmt::Write;
        let mut s = String::from("\x1b[");
        let second = self.mods != 0 || self.kind.is_some();
        let third = self.text.is_some_and(|t| !t.is_empty());
        if self.code != 1 || self.shifted.is_some() || second || third {
            let _ = write!(s, "{}", self.code);
        }
        if let Some(shifted) = self.shifted {
            let _ = write!(s, ":{shifted}");
        }
        if second || third {
            s.push(';');
            if second {
                let _ = write!(s, "{}", u16::from(self.mods) + 1);
                if let Some(kind) = self.kind {
                    let _ = write!(s, ":{}", kind.number());
                }
            }
        }
        if let Some(text) = self.text.filter(|_| third) {
            for (i, c) in text.chars().enumerate() {
                let sep = if i == 0 { ';' } else { ':' };
                let _ = write!(s, "{sep}{}", c as u32);
            }
        }
        s.push(self.trailer);
        s.into_bytes()
    }
}

/// The `CSI number trailer` form of a functional key, or `None` for text keys.
fn functional(key: KittyKey) -> Option<(u32, char)> {
    Some(match key {
        KittyKey::Main(k) => match k {
            Key::Char(_) => return None,
            Key::Escape => (27, 'u'),
            Key::Enter => (13, 'u'),
            Key::Tab => (9, 'u'),
            Key::Backspace => (127, 'u'),
            Key::Insert => (2, '~'),
            Key::Delete => (3, '~'),
            Key::Left => (1, 'D'),
            Key::Right => (1, 'C'),
            Key::Up => (1, 'A'),
            Key::Down => (1, 'B'),
            Key::PageUp => (5, '~'),
            Key::PageDown => (6, '~'),
            Key::Home => (1, 'H'),
            Key::End => (1, 'F'),
            Key::F(1) => (1, 'P'),
            Key::F(2) => (1, 'Q'),
            // Not `CSI R`: that is a cursor position report.
            Key::F(3) => (13, '~'),
            Key::F(4) => (1, 'S'),
            Key::F(n @ 5..=12) => {
                const CODES: [u32; 8] = [15, 17, 18, 19, 20, 21, 23, 24];
                (CODES[usize::from(n - 5)], '~')
            }
            Key::F(n @ 13..=35) => (57376 + u32::from(n - 13), 'u'),
            Key::F(_) => return None,
        },
        KittyKey::Keypad(k) => (k.code(), 'u'),
        KittyKey::CapsLock => (57358, 'u'),
        KittyKey::ScrollLock => (57359, 'u'),
        KittyKey::NumLock => (57360, 'u'),
        KittyKey::PrintScreen => (57361, 'u'),
        KittyKey::Pause => (57362, 'u'),
        KittyKey::Menu => (57363, 'u'),
    })
}

/// The bytes for a key event under the program's kitty keyboard `flags` (0 is the
/// legacy encoding), or `None` when the event sends nothing.
pub fn encode_kitty_key(ev: &KeyEvent<'_>, flags: u8, modes: KeyModes) -> Option<Vec<u8>> {
    let key = ev.key?;
    let disambiguate = flags & DISAMBIGUATE != 0;
    let event_types = flags & REPORT_EVENT_TYPES != 0;
    let all_keys = flags & REPORT_ALL_KEYS != 0;
    if ev.kind == KeyEventKind::Release && !event_types {
        return None;
    }
    // Without "disambiguate", keypad keys are the main keys they stand for.
    let key = match key {
        KittyKey::Keypad(k) if !disambiguate && !all_keys => KittyKey::Main(k.main_key()?),
        other => other,
    };
    if flags == 0 {
        return match key {
            KittyKey::Main(k) => encode_key(k, ev.mods, modes),
            _ => None,
        };
    }
    let mods = mod_bits(ev.mods, ev.more_mods);
    let kind = (event_types && ev.kind != KeyEventKind::Press).then_some(ev.kind);
    match functional(key) {
        Some((code, trailer)) => {
            encode_functional(ev, key, code, trailer, mods, kind, flags, modes)
        }
        None => {
            let KittyKey::Main(Key::Char(c)) = key else {
                return None;
            };
            encode_text_key(ev, c, mods, kind, flags, modes)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn encode_functional(
    ev: &KeyEvent<'_>,
    key: KittyKey,
    code: u32,
    trailer: char,
    mods: u8,
    kind: Option<KeyEventKind>,
    flags: u8,
    modes: KeyModes,
) -> Option<Vec<u8>> {
    let disambiguate = flags & DISAMBIGUATE != 0;
    let all_keys = flags & REPORT_ALL_KEYS != 0;
    let KittyKey::Main(main) = key else {
        return Some(report(code, None, mods, kind, None, trailer));
    };
    let legacy = || encode_key(main, ev.mods, modes);
    let is_text_like = matches!(main, Key::Enter | Key::Tab | Key::Backspace);
    if is_text_like && !all_keys {
        // Enter, Tab and Backspace keep their bytes (so `reset` can be typed after a
        // program dies with the flags set) and have no release events.
        if ev.kind == KeyEventKind::Release {
            return None;
        }
        if mods & !LOCKS == 0 {
            return legacy();
        }
        if !disambiguate {
            let legacy_kept = matches!(
                (main, mods & !LOCKS),
                (_, ALT) | (Key::Tab, SHIFT) | (Key::Backspace, CTRL)
            );
            if legacy_kept {
                return legacy();
            }
        }
    }
    if main == Key::Escape && mods == 0 && !disambiguate && !all_keys && kind.is_none() {
        return legacy();
    }
    if modes.app_cursor
        && !disambiguate
        && kind.is_none()
        && mods == 0
        && matches!(
            main,
            Key::Up | Key::Down | Key::Left | Key::Right | Key::Home | Key::End
        )
    {
        return legacy();
    }
    Some(report(code, None, mods, kind, None, trailer))
}

fn report(
    code: u32,
    shifted: Option<u32>,
    mods: u8,
    kind: Option<KeyEventKind>,
    text: Option<&str>,
    trailer: char,
) -> Vec<u8> {
    Report {
        code,
        shifted,
        mods,
        kind,
        text,
        trailer,
    }
    .bytes()
}

fn encode_text_key(
    ev: &KeyEvent<'_>,
    c: char,
    mods: u8,
    kind: Option<KeyEventKind>,
    flags: u8,
    modes: KeyModes,
) -> Option<Vec<u8>> {
    let disambiguate = flags & DISAMBIGUATE != 0;
    let all_keys = flags & REPORT_ALL_KEYS != 0;
    let makes_text = mods & !(SHIFT | LOCKS) == 0;
    let shifted_char = || c.to_uppercase().next().unwrap_or(c);
    let text: String = match ev.text {
        Some(t) => t.chars().filter(|c| !c.is_control()).collect(),
        None if mods & SHIFT != 0 => shifted_char().to_string(),
        None => c.to_string(),
    };
    if !all_keys && ev.kind != KeyEventKind::Release {
        if makes_text && !text.is_empty() {
            return Some(text.into_bytes());
        }
        if !disambiguate && kind.is_none() && mods & (SUPER | HYPER | META) == 0 {
            // Ctrl and Alt combinations keep their legacy bytes.
            if let Some(bytes) = encode_key(Key::Char(c), ev.mods, modes) {
                return Some(bytes);
            }
        }
    }
    // Lock modifiers are reported for text keys only in "all keys" mode.
    let mods = if all_keys { mods } else { mods & !LOCKS };
    let shifted = (flags & REPORT_ALTERNATE_KEYS != 0 && mods & SHIFT != 0)
        .then(shifted_char)
        .filter(|s| *s != c)
        .map(|s| s as u32);
    let with_text =
        flags & REPORT_TEXT != 0 && all_keys && ev.kind != KeyEventKind::Release && makes_text;
    let text = with_text.then_some(text.as_str());
    Some(report(
        c.to_lowercase().next().unwrap_or(c) as u32,
        shifted,
        mods,
        kind,
        text,
        'u',
    ))
}

#[cfg(test)]
mod tests;
