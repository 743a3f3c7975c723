//! The kitty encoder against the spec's tables and examples.

use super::*;
use crate::model::kitty::flags::ALL;

const D: u8 = DISAMBIGUATE;

fn mods(shift: bool, alt: bool, ctrl: bool) -> Mods {
    Mods {
        shift,
        alt,
        ctrl,
        meta: false,
    }
}
const NONE: Mods = Mods::NONE;
fn shift() -> Mods {
    mods(true, false, false)
}
fn alt() -> Mods {
    mods(false, true, false)
}
fn ctrl() -> Mods {
    mods(false, false, true)
}

fn enc_kind(key: KittyKey, m: Mods, kind: KeyEventKind, flags: u8) -> String {
    let ev = KeyEvent {
        kind,
        ..KeyEvent::press(key, m)
    };
    let bytes = encode_kitty_key(&ev, flags, KeyModes::default()).unwrap_or_default();
    String::from_utf8_lossy(&bytes).replace('\x1b', "^[")
}

fn enc(key: Key, m: Mods, flags: u8) -> String {
    enc_kind(KittyKey::Main(key), m, KeyEventKind::Press, flags)
}

#[test]
fn disambiguate_tells_escape_and_modified_enter_apart() {
    assert_eq!(enc(Key::Escape, NONE, D), "^[[27u");
    assert_eq!(enc(Key::Enter, shift(), D), "^[[13;2u");
    assert_eq!(enc(Key::Enter, ctrl(), D), "^[[13;5u");
    assert_eq!(enc(Key::Enter, alt(), D), "^[[13;3u");
    assert_eq!(enc(Key::Tab, shift(), D), "^[[9;2u");
    assert_eq!(enc(Key::Backspace, ctrl(), D), "^[[127;5u");
}

#[test]
fn enter_tab_and_backspace_keep_legacy_bytes_without_modifiers() {
    assert_eq!(enc(Key::Enter, NONE, D), "\r");
    assert_eq!(enc(Key::Tab, NONE, D), "\t");
    assert_eq!(enc(Key::Backspace, NONE, D), "\x7f");
    let release = |k| enc_kind(KittyKey::Main(k), NONE, KeyEventKind::Release, D | 2);
    assert_eq!(
        release(Key::Enter),
        "",
        "no release unless all keys are reported"
    );
    assert_eq!(release(Key::Backspace), "");
}

#[test]
fn disambiguate_reports_ctrl_and_alt_text_keys_as_csi_u() {
    assert_eq!(enc(Key::Char('a'), ctrl(), D), "^[[97;5u");
    assert_eq!(enc(Key::Char('a'), alt(), D), "^[[97;3u");
    assert_eq!(enc(Key::Char('a'), mods(true, false, true), D), "^[[97;6u");
    assert_eq!(enc(Key::Char('c'), mods(false, true, true), D), "^[[99;7u");
    assert_eq!(enc(Key::Char(' '), ctrl(), D), "^[[32;5u");
}

#[test]
fn plain_and_shifted_text_is_sent_as_text() {
    assert_eq!(enc(Key::Char('a'), NONE, D), "a");
    assert_eq!(enc(Key::Char('a'), shift(), D), "A");
    let ev = KeyEvent {
        text: Some("é"),
        ..KeyEvent::press(KittyKey::Main(Key::Char('e')), NONE)
    };
    assert_eq!(
        encode_kitty_key(&ev, D, KeyModes::default()),
        Some("é".as_bytes().to_vec())
    );
}

#[test]
fn cursor_and_tilde_keys_use_their_legacy_shapes() {
    assert_eq!(enc(Key::Up, NONE, D), "^[[A");
    assert_eq!(enc(Key::Up, shift(), D), "^[[1;2A");
    assert_eq!(enc(Key::Home, ctrl(), D), "^[[1;5H");
    assert_eq!(enc(Key::End, NONE, D), "^[[F");
    assert_eq!(enc(Key::Delete, NONE, D), "^[[3~");
    assert_eq!(enc(Key::Delete, ctrl(), D), "^[[3;5~");
    assert_eq!(enc(Key::PageUp, NONE, D), "^[[5~");
    assert_eq!(enc(Key::Insert, alt(), D), "^[[2;3~");
}

#[test]
fn function_keys_follow_the_spec_table() {
    assert_eq!(enc(Key::F(1), NONE, D), "^[[P");
    assert_eq!(enc(Key::F(2), ctrl(), D), "^[[1;5Q");
    assert_eq!(enc(Key::F(3), NONE, D), "^[[13~", "F3 is not CSI R (a CPR)");
    assert_eq!(enc(Key::F(4), NONE, D), "^[[S");
    assert_eq!(enc(Key::F(5), NONE, D), "^[[15~");
    assert_eq!(enc(Key::F(12), shift(), D), "^[[24;2~");
    assert_eq!(enc(Key::F(13), NONE, D), "^[[57376u");
    assert_eq!(enc(Key::F(35), NONE, D), "^[[57398u");
}

#[test]
fn other_functional_keys_have_private_use_codes() {
    let press = |k| enc_kind(k, NONE, KeyEventKind::Press, D);
    assert_eq!(press(KittyKey::CapsLock), "^[[57358u");
    assert_eq!(press(KittyKey::ScrollLock), "^[[57359u");
    assert_eq!(press(KittyKey::NumLock), "^[[57360u");
    assert_eq!(press(KittyKey::PrintScreen), "^[[57361u");
    assert_eq!(press(KittyKey::Pause), "^[[57362u");
    assert_eq!(press(KittyKey::Menu), "^[[57363u");
    assert_eq!(enc_kind(KittyKey::Menu, NONE, KeyEventKind::Press, 0), "");
}

#[test]
fn keypad_keys_are_distinct_only_when_asked() {
    let kp = |k, flags| enc_kind(KittyKey::Keypad(k), NONE, KeyEventKind::Press, flags);
    assert_eq!(kp(KeypadKey::Digit(0), D), "^[[57399u");
    assert_eq!(kp(KeypadKey::Digit(9), D), "^[[57408u");
    assert_eq!(kp(KeypadKey::Enter, D), "^[[57414u");
    assert_eq!(kp(KeypadKey::Begin, D), "^[[57427u");
    assert_eq!(kp(KeypadKey::Digit(5), 0), "5");
    assert_eq!(kp(KeypadKey::Enter, 0), "\r");
    assert_eq!(kp(KeypadKey::Up, 0), "^[[A");
    assert_eq!(kp(KeypadKey::Add, 2), "+");
}

#[test]
fn event_types_mark_repeats_and_releases() {
    let f = D | REPORT_EVENT_TYPES;
    let a = KittyKey::Main(Key::Char('a'));
    assert_eq!(enc_kind(a, NONE, KeyEventKind::Press, f), "a");
    assert_eq!(enc_kind(a, NONE, KeyEventKind::Repeat, f), "a");
    assert_eq!(enc_kind(a, NONE, KeyEventKind::Release, f), "^[[97;1:3u");
    assert_eq!(enc_kind(a, ctrl(), KeyEventKind::Repeat, f), "^[[97;5:2u");
    let up = KittyKey::Main(Key::Up);
    assert_eq!(enc_kind(up, NONE, KeyEventKind::Repeat, f), "^[[1;1:2A");
    assert_eq!(enc_kind(up, shift(), KeyEventKind::Release, f), "^[[1;2:3A");
    assert_eq!(
        enc_kind(up, NONE, KeyEventKind::Release, D),
        "",
        "no releases without flag 2"
    );
    let esc = KittyKey::Main(Key::Escape);
    assert_eq!(enc_kind(esc, NONE, KeyEventKind::Release, f), "^[[27;1:3u");
}

#[test]
fn all_keys_as_escape_codes_covers_text_and_enter() {
    let f = D | REPORT_ALL_KEYS;
    assert_eq!(enc(Key::Char('a'), NONE, f), "^[[97u");
    assert_eq!(enc(Key::Char('a'), shift(), f), "^[[97;2u");
    assert_eq!(enc(Key::Enter, NONE, f), "^[[13u");
    assert_eq!(enc(Key::Tab, NONE, f), "^[[9u");
    assert_eq!(enc(Key::Backspace, NONE, f), "^[[127u");
    let release = enc_kind(
        KittyKey::Main(Key::Enter),
        NONE,
        KeyEventKind::Release,
        f | REPORT_EVENT_TYPES,
    );
    assert_eq!(release, "^[[13;1:3u");
}

#[test]
fn lock_modifiers_reach_text_keys_only_in_all_keys_mode() {
    let ev = |flags| {
        let e = KeyEvent {
            more_mods: MoreMods {
                caps_lock: true,
                num_lock: true,
                ..MoreMods::default()
            },
            ..KeyEvent::press(KittyKey::Main(Key::Char('a')), ctrl())
        };
        let bytes = encode_kitty_key(&e, flags, KeyModes::default()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).replace('\x1b', "^[")
    };
    assert_eq!(ev(D), "^[[97;5u");
    assert_eq!(ev(D | REPORT_ALL_KEYS), "^[[97;197u");
}

#[test]
fn alternate_keys_carry_the_shifted_key() {
    let f = D | REPORT_ALL_KEYS | REPORT_ALTERNATE_KEYS;
    assert_eq!(enc(Key::Char('a'), shift(), f), "^[[97:65;2u");
    assert_eq!(enc(Key::Char('a'), NONE, f), "^[[97u");
    assert_eq!(
        enc(Key::Char('a'), mods(true, false, true), f),
        "^[[97:65;6u"
    );
}

#[test]
fn associated_text_is_sent_as_code_points() {
    let f = D | REPORT_ALL_KEYS | REPORT_TEXT;
    assert_eq!(enc(Key::Char('a'), NONE, f), "^[[97;;97u");
    assert_eq!(enc(Key::Char('a'), shift(), f), "^[[97;2;65u");
    assert_eq!(
        enc(Key::Char('a'), ctrl(), f),
        "^[[97;5u",
        "ctrl+a makes no text"
    );
    assert_eq!(enc(Key::Char('a'), shift(), ALL), "^[[97:65;2;65u");
    let release = enc_kind(
        KittyKey::Main(Key::Char('a')),
        NONE,
        KeyEventKind::Release,
        ALL,
    );
    assert_eq!(release, "^[[97;1:3u", "releases carry no text");
}

#[test]
fn flags_without_disambiguate_keep_legacy_combinations() {
    let f = REPORT_EVENT_TYPES;
    assert_eq!(enc(Key::Char('a'), ctrl(), f), "\x01");
    assert_eq!(enc(Key::Char('x'), alt(), f), "^[x");
    assert_eq!(enc(Key::Escape, NONE, f), "^[");
    assert_eq!(enc(Key::Tab, shift(), f), "^[[Z");
    assert_eq!(enc(Key::Backspace, ctrl(), f), "\x08");
    assert_eq!(enc(Key::Enter, alt(), f), "^[\r");
}

#[test]
fn application_cursor_mode_gives_way_to_disambiguate() {
    let app = KeyModes {
        app_cursor: true,
        ..KeyModes::default()
    };
    let up = KeyEvent::press(KittyKey::Main(Key::Up), NONE);
    assert_eq!(encode_kitty_key(&up, 0, app), Some(b"\x1bOA".to_vec()));
    assert_eq!(encode_kitty_key(&up, D, app), Some(b"\x1b[A".to_vec()));
}

#[test]
fn no_flags_is_exactly_the_legacy_encoder() {
    let keys = [
        Key::Char('a'),
        Key::Char('/'),
        Key::Enter,
        Key::Tab,
        Key::Backspace,
        Key::Escape,
        Key::Up,
        Key::Home,
        Key::Delete,
        Key::F(1),
        Key::F(12),
        Key::F(20),
    ];
    for key in keys {
        for bits in 0..8u8 {
            let m = mods(bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
            let ev = KeyEvent::press(KittyKey::Main(key), m);
            assert_eq!(
                encode_kitty_key(&ev, 0, KeyModes::default()),
                encode_key(key, m, KeyModes::default()),
                "{key:?} {m:?}"
            );
        }
        let release = KeyEvent {
            kind: KeyEventKind::Release,
            ..KeyEvent::press(KittyKey::Main(key), NONE)
        };
        assert_eq!(encode_kitty_key(&release, 0, KeyModes::default()), None);
    }
}
