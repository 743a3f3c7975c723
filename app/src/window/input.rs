//! egui key events → tern's toolkit-free keys (`tern_core::input`).

use egui::Key as EKey;
use tern_core::input::{Key, Mods};

pub fn mods(m: egui::Modifiers) -> Mods {
    Mods {
        shift: m.shift,
        alt: m.alt,
        ctrl: m.ctrl,
        meta: m.mac_cmd,
    }
}

/// The terminal key for an egui key, or `None` for keys whose text arrives as a text
/// event (and for keys a terminal ignores).
pub fn key(k: EKey) -> Option<Key> {
    Some(match k {
        EKey::Enter => Key::Enter,
        EKey::Tab => Key::Tab,
        EKey::Backspace => Key::Backspace,
        EKey::Escape => Key::Escape,
        EKey::ArrowUp => Key::Up,
        EKey::ArrowDown => Key::Down,
        EKey::ArrowLeft => Key::Left,
        EKey::ArrowRight => Key::Right,
        EKey::Home => Key::Home,
        EKey::End => Key::End,
        EKey::PageUp => Key::PageUp,
        EKey::PageDown => Key::PageDown,
        EKey::Insert => Key::Insert,
        EKey::Delete => Key::Delete,
        EKey::F1 => Key::F(1),
        EKey::F2 => Key::F(2),
        EKey::F3 => Key::F(3),
        EKey::F4 => Key::F(4),
        EKey::F5 => Key::F(5),
        EKey::F6 => Key::F(6),
        EKey::F7 => Key::F(7),
        EKey::F8 => Key::F(8),
        EKey::F9 => Key::F(9),
        EKey::F10 => Key::F(10),
        EKey::F11 => Key::F(11),
        EKey::F12 => Key::F(12),
        EKey::F13 => Key::F(13),
        EKey::F14 => Key::F(14),
        EKey::F15 => Key::F(15),
        EKey::F16 => Key::F(16),
        EKey::F17 => Key::F(17),
        EKey::F18 => Key::F(18),
        EKey::F19 => Key::F(19),
        EKey::F20 => Key::F(20),
        other => return char_key(other).map(Key::Char),
    })
}

/// The character a key makes without modifiers (for Ctrl and Alt combinations, which
/// egui does not turn into text).
fn char_key(k: EKey) -> Option<char> {
    let name = k.name();
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_alphanumeric() => Some(c.to_ascii_lowercase()),
        _ => Some(match k {
            EKey::Space => ' ',
            EKey::Minus => '-',
            EKey::Slash => '/',
            EKey::Backslash => '\\',
            EKey::OpenBracket => '[',
            EKey::CloseBracket => ']',
            EKey::Comma => ',',
            EKey::Period => '.',
            EKey::Semicolon => ';',
            EKey::Quote => '\'',
            EKey::Backtick => '`',
            EKey::Equals => '=',
            _ => return None,
        }),
    }
}

/// Whether this key's text arrives as a text event (plain or shifted characters).
pub fn is_text_key(k: EKey, m: egui::Modifiers) -> bool {
    !(m.ctrl || m.alt || m.mac_cmd) && char_key(k).is_some()
}

/// A key's press or release as egui-winit gives it (the physical key as the logical
/// one: a US layout), for the tests that type as a window system would.
pub fn key_event(key: EKey, pressed: bool, modifiers: egui::Modifiers) -> egui::Event {
    egui::Event::Key {
        key,
        physical_key: Some(key),
        pressed,
        repeat: false,
        modifiers,
    }
}
