//! egui key events (press, repeat, release) → the kitty keyboard protocol's bytes
//! (`tern_core::input::kitty`), for programs that pushed keyboard flags.

use tern_core::input::{KeyEvent, KeyEventKind, KeyModes, KittyKey, encode_kitty_key};
use tern_core::model::kitty::flags::{REPORT_ALL_KEYS, REPORT_EVENT_TYPES};

use super::input;

/// What to send for one key event under the program's `flags` (non-zero).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct KittyOutcome {
    pub bytes: Option<Vec<u8>>,
    /// The text event egui sends after this key must not be typed as well.
    pub swallow_text: bool,
}

/// Encodes an egui key event; `None` bytes when the key's text arrives as a text
/// event (plain and shifted characters, unless all keys are reported) or when the
/// event sends nothing.
pub fn encode(
    key: egui::Key,
    pressed: bool,
    repeat: bool,
    modifiers: egui::Modifiers,
    flags: u8,
    modes: KeyModes,
) -> KittyOutcome {
    let Some(k) = input::key(key) else {
        return KittyOutcome::default();
    };
    let kind = match (pressed, repeat) {
        (false, _) => KeyEventKind::Release,
        (true, true) => KeyEventKind::Repeat,
        (true, false) => KeyEventKind::Press,
    };
    let all_keys = flags & REPORT_ALL_KEYS != 0;
    if input::is_text_key(key, modifiers) && !all_keys {
        // Its text comes as a text event; only a reported release is ours to send.
        if kind != KeyEventKind::Release || flags & REPORT_EVENT_TYPES == 0 {
            return KittyOutcome::default();
        }
    }
    let event = KeyEvent {
        kind,
        ..KeyEvent::press(KittyKey::Main(k), input::mods(modifiers))
    };
    let bytes = encode_kitty_key(&event, flags, modes);
    KittyOutcome {
        swallow_text: pressed && bytes.is_some() && (all_keys || modifiers.alt),
        bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::{Key, Modifiers};

    fn bytes(key: Key, pressed: bool, m: Modifiers, flags: u8) -> String {
        let out = encode(key, pressed, false, m, flags, KeyModes::default());
        String::from_utf8_lossy(&out.bytes.unwrap_or_default()).replace('\x1b', "^[")
    }

    #[test]
    fn the_done_when_keys() {
        assert_eq!(bytes(Key::Enter, true, Modifiers::SHIFT, 1), "^[[13;2u");
        assert_eq!(bytes(Key::Enter, true, Modifiers::CTRL, 1), "^[[13;5u");
        assert_eq!(bytes(Key::Escape, true, Modifiers::NONE, 1), "^[[27u");
        assert_eq!(bytes(Key::Enter, true, Modifiers::NONE, 1), "\r");
    }

    #[test]
    fn plain_text_keys_wait_for_their_text_event() {
        let out = encode(Key::A, true, false, Modifiers::NONE, 1, KeyModes::default());
        assert_eq!(out, KittyOutcome::default());
        let all = encode(Key::A, true, false, Modifiers::NONE, 9, KeyModes::default());
        assert_eq!(all.bytes.as_deref(), Some(&b"\x1b[97u"[..]));
        assert!(all.swallow_text, "the text event must not be typed too");
    }

    #[test]
    fn releases_only_with_event_types() {
        assert_eq!(bytes(Key::A, false, Modifiers::NONE, 1), "");
        assert_eq!(bytes(Key::A, false, Modifiers::NONE, 3), "^[[97;1:3u");
        assert_eq!(bytes(Key::ArrowUp, false, Modifiers::NONE, 3), "^[[1;1:3A");
    }
}
