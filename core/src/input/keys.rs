//! Key encoding, after xterm: cursor keys in normal and application mode, the
//! `CSI 1;m X` / `CSI n;m ~` forms with modifiers, SS3 function keys, Ctrl combinations
//! as C0 controls, and Alt as an ESC prefix.

/// A key, independent of any UI toolkit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// A key that produces a character (what it produces without modifiers, lower case
    /// for letters).
    Char(char),
    Enter,
    Tab,
    Backspace,
    Escape,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    Insert,
    Delete,
    /// F1..=F20.
    F(u8),
}

/// Modifier keys held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mods {
    pub shift: bool,
    pub alt: bool,
    pub ctrl: bool,
    pub meta: bool,
}

impl Mods {
    pub const NONE: Mods = Mods {
        shift: false,
        alt: false,
        ctrl: false,
        meta: false,
    };

    fn any(self) -> bool {
        self.shift || self.alt || self.ctrl || self.meta
    }

    /// xterm's modifier parameter: 1 + shift·1 + alt·2 + ctrl·4 + meta·8.
    pub fn param(self) -> u8 {
        1 + self.shift as u8 + 2 * self.alt as u8 + 4 * self.ctrl as u8 + 8 * self.meta as u8
    }
}

/// The terminal modes that change key encoding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyModes {
    /// DECCKM: cursor keys send SS3 instead of CSI.
    pub app_cursor: bool,
    /// LNM: Enter sends CR LF.
    pub newline: bool,
    /// S8C1T: escape sequences start with 8-bit CSI (0x9B) and SS3 (0x8F) instead of
    /// `ESC [` and `ESC O`, as xterm sends them (as raw bytes, in UTF-8 mode too).
    pub eight_bit_controls: bool,
}

impl KeyModes {
    pub fn from_modes(m: &crate::model::Modes) -> KeyModes {
        KeyModes {
            app_cursor: m.app_cursor_keys,
            newline: m.newline,
            eight_bit_controls: m.eight_bit_controls,
        }
    }
}

/// `CSI 1;m X`, or the plain form without modifiers (SS3 in application mode).
fn cursor_like(final_byte: u8, mods: Mods, ss3: bool) -> Vec<u8> {
    if mods.any() {
        format!("\x1b[1;{}{}", mods.param(), final_byte as char).into_bytes()
    } else if ss3 {
        vec![0x1b, b'O', final_byte]
    } else {
        vec![0x1b, b'[', final_byte]
    }
}

/// `CSI n ~` or `CSI n;m ~`.
fn tilde(n: u8, mods: Mods) -> Vec<u8> {
    if mods.any() {
        format!("\x1b[{n};{}~", mods.param()).into_bytes()
    } else {
        format!("\x1b[{n}~").into_bytes()
    }
}

/// An escape sequence with its `ESC [` or `ESC O` turned into the 8-bit CSI or SS3 when
/// `eight_bit` is set.
pub(crate) fn introduced(mut bytes: Vec<u8>, eight_bit: bool) -> Vec<u8> {
    let c1 = match bytes.get(..2) {
        Some([0x1b, b'[']) => 0x9b,
        Some([0x1b, b'O']) => 0x8f,
        _ => return bytes,
    };
    if eight_bit {
        bytes.splice(..2, [c1]);
    }
    bytes
}

/// The C0 control Ctrl+`c` sends, if any.
fn ctrl_char(c: char) -> Option<u8> {
    Some(match c {
        'a'..='z' => c as u8 - b'a' + 1,
        'A'..='Z' => c as u8 - b'A' + 1,
        '@' | ' ' | '2' => 0x00,
        '[' | '3' => 0x1b,
        '\\' | '4' => 0x1c,
        ']' | '5' => 0x1d,
        '^' | '6' | '~' => 0x1e,
        '_' | '7' | '/' | '-' => 0x1f,
        '?' | '8' => 0x7f,
        _ => return None,
    })
}

/// The bytes for a key press, or `None` for keys that send nothing.
pub fn encode_key(key: Key, mods: Mods, modes: KeyModes) -> Option<Vec<u8>> {
    let alt_prefixed = |mut bytes: Vec<u8>| {
        if mods.alt {
            bytes.insert(0, 0x1b);
        }
        bytes
    };
    let seq = |bytes: Vec<u8>| introduced(bytes, modes.eight_bit_controls);
    let bytes = match key {
        Key::Char(c) => {
            if mods.ctrl {
                let code = ctrl_char(c)?;
                alt_prefixed(vec![code])
            } else {
                let c = if mods.shift {
                    c.to_uppercase().next().unwrap_or(c)
                } else {
                    c
                };
                let mut buf = [0u8; 4];
                alt_prefixed(c.encode_utf8(&mut buf).as_bytes().to_vec())
            }
        }
        Key::Enter => alt_prefixed(if modes.newline {
            b"\r\n".to_vec()
        } else {
            b"\r".to_vec()
        }),
        Key::Tab if mods.shift => seq(b"\x1b[Z".to_vec()),
        Key::Tab => alt_prefixed(b"\t".to_vec()),
        Key::Backspace if mods.ctrl => alt_prefixed(vec![0x08]),
        Key::Backspace => alt_prefixed(vec![0x7f]),
        Key::Escape => alt_prefixed(vec![0x1b]),
        Key::Up => seq(cursor_like(b'A', mods, modes.app_cursor)),
        Key::Down => seq(cursor_like(b'B', mods, modes.app_cursor)),
        Key::Right => seq(cursor_like(b'C', mods, modes.app_cursor)),
        Key::Left => seq(cursor_like(b'D', mods, modes.app_cursor)),
        Key::Home => seq(cursor_like(b'H', mods, modes.app_cursor)),
        Key::End => seq(cursor_like(b'F', mods, modes.app_cursor)),
        Key::Insert => seq(tilde(2, mods)),
        Key::Delete => seq(tilde(3, mods)),
        Key::PageUp => seq(tilde(5, mods)),
        Key::PageDown => seq(tilde(6, mods)),
        Key::F(n @ 1..=4) => {
            let final_byte = b'P' + (n - 1);
            seq(if mods.any() {
                format!("\x1b[1;{}{}", mods.param(), final_byte as char).into_bytes()
            } else {
                vec![0x1b, b'O', final_byte]
            })
        }
        Key::F(n @ 5..=20) => {
            const CODES: [u8; 16] = [
                15, 17, 18, 19, 20, 21, 23, 24, 25, 26, 28, 29, 31, 32, 33, 34,
            ];
            seq(tilde(CODES[(n - 5) as usize], mods))
        }
        Key::F(_) => return None,
    };
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(key: Key, mods: Mods) -> Vec<u8> {
        encode_key(key, mods, KeyModes::default()).unwrap_or_default()
    }

    const SHIFT: Mods = Mods {
        shift: true,
        alt: false,
        ctrl: false,
        meta: false,
    };
    const ALT: Mods = Mods {
        shift: false,
        alt: true,
        ctrl: false,
        meta: false,
    };
    const CTRL: Mods = Mods {
        shift: false,
        alt: false,
        ctrl: true,
        meta: false,
    };

    #[test]
    fn characters_and_alt_prefix() {
        assert_eq!(enc(Key::Char('a'), Mods::NONE), b"a");
        assert_eq!(enc(Key::Char('a'), SHIFT), b"A");
        assert_eq!(enc(Key::Char('é'), Mods::NONE), "é".as_bytes());
        assert_eq!(enc(Key::Char('x'), ALT), b"\x1bx");
    }

    #[test]
    fn ctrl_combinations_are_c0_controls() {
        assert_eq!(enc(Key::Char('c'), CTRL), b"\x03");
        assert_eq!(enc(Key::Char('a'), CTRL), b"\x01");
        assert_eq!(enc(Key::Char('z'), CTRL), b"\x1a");
        assert_eq!(enc(Key::Char(' '), CTRL), b"\x00");
        assert_eq!(enc(Key::Char('['), CTRL), b"\x1b");
        assert_eq!(enc(Key::Char('\\'), CTRL), b"\x1c");
        assert_eq!(enc(Key::Char(']'), CTRL), b"\x1d");
        assert_eq!(enc(Key::Char('/'), CTRL), b"\x1f");
        assert_eq!(enc(Key::Char('c'), Mods { alt: true, ..CTRL }), b"\x1b\x03");
        assert_eq!(encode_key(Key::Char('é'), CTRL, KeyModes::default()), None);
    }

    #[test]
    fn editing_keys() {
        assert_eq!(enc(Key::Enter, Mods::NONE), b"\r");
        assert_eq!(
            encode_key(
                Key::Enter,
                Mods::NONE,
                KeyModes {
                    newline: true,
                    ..KeyModes::default()
                }
            ),
            Some(b"\r\n".to_vec())
        );
        assert_eq!(enc(Key::Tab, Mods::NONE), b"\t");
        assert_eq!(enc(Key::Tab, SHIFT), b"\x1b[Z");
        assert_eq!(enc(Key::Backspace, Mods::NONE), b"\x7f");
        assert_eq!(enc(Key::Backspace, CTRL), b"\x08");
        assert_eq!(enc(Key::Backspace, ALT), b"\x1b\x7f");
        assert_eq!(enc(Key::Escape, Mods::NONE), b"\x1b");
    }

    #[test]
    fn cursor_keys_in_normal_and_application_mode() {
        assert_eq!(enc(Key::Up, Mods::NONE), b"\x1b[A");
        assert_eq!(enc(Key::Left, Mods::NONE), b"\x1b[D");
        let app = KeyModes {
            app_cursor: true,
            ..KeyModes::default()
        };
        assert_eq!(
            encode_key(Key::Up, Mods::NONE, app),
            Some(b"\x1bOA".to_vec())
        );
        assert_eq!(
            encode_key(Key::Home, Mods::NONE, app),
            Some(b"\x1bOH".to_vec())
        );
        assert_eq!(enc(Key::End, Mods::NONE), b"\x1b[F");
        // Modifiers always use the CSI 1;m form, whatever the mode.
        assert_eq!(encode_key(Key::Up, CTRL, app), Some(b"\x1b[1;5A".to_vec()));
        assert_eq!(enc(Key::Right, SHIFT), b"\x1b[1;2C");
        assert_eq!(
            enc(
                Key::Right,
                Mods {
                    shift: true,
                    alt: true,
                    ctrl: true,
                    meta: false
                }
            ),
            b"\x1b[1;8C"
        );
    }

    #[test]
    fn tilde_keys_and_function_keys() {
        assert_eq!(enc(Key::Insert, Mods::NONE), b"\x1b[2~");
        assert_eq!(enc(Key::Delete, Mods::NONE), b"\x1b[3~");
        assert_eq!(enc(Key::PageUp, Mods::NONE), b"\x1b[5~");
        assert_eq!(enc(Key::PageDown, SHIFT), b"\x1b[6;2~");
        assert_eq!(enc(Key::F(1), Mods::NONE), b"\x1bOP");
        assert_eq!(enc(Key::F(4), Mods::NONE), b"\x1bOS");
        assert_eq!(enc(Key::F(1), CTRL), b"\x1b[1;5P");
        assert_eq!(enc(Key::F(5), Mods::NONE), b"\x1b[15~");
        assert_eq!(enc(Key::F(10), Mods::NONE), b"\x1b[21~");
        assert_eq!(enc(Key::F(11), Mods::NONE), b"\x1b[23~");
        assert_eq!(enc(Key::F(12), ALT), b"\x1b[24;3~");
        assert_eq!(enc(Key::F(20), Mods::NONE), b"\x1b[34~");
        assert_eq!(
            encode_key(Key::F(21), Mods::NONE, KeyModes::default()),
            None
        );
    }

    /// xterm 379 after S8C1T and DECCKM, keys pressed under Xvfb: Up `8f 41`, Ctrl+Up
    /// `9b 31 3b 35 41`, Shift+Tab `9b 5a`, Insert `9b 32 7e`, F1 `8f 50`, F5 `9b 31 35 7e`;
    /// Enter and characters unchanged.
    #[test]
    fn eight_bit_controls_introduce_the_sequences_with_csi_and_ss3() {
        let modes = KeyModes {
            eight_bit_controls: true,
            app_cursor: true,
            ..KeyModes::default()
        };
        let enc8 = |key, mods| encode_key(key, mods, modes).unwrap_or_default();
        assert_eq!(enc8(Key::Up, Mods::NONE), b"\x8fA");
        assert_eq!(enc8(Key::Up, CTRL), b"\x9b1;5A");
        assert_eq!(enc8(Key::Tab, SHIFT), b"\x9bZ");
        assert_eq!(enc8(Key::Insert, Mods::NONE), b"\x9b2~");
        assert_eq!(enc8(Key::F(1), Mods::NONE), b"\x8fP");
        assert_eq!(enc8(Key::F(5), Mods::NONE), b"\x9b15~");
        assert_eq!(enc8(Key::Enter, Mods::NONE), b"\r");
        // An ESC that prefixes a character for Alt is not an introducer.
        assert_eq!(enc8(Key::Char('['), ALT), b"\x1b[");
        assert_eq!(enc8(Key::Char('o'), ALT), b"\x1bo");
        let normal = KeyModes {
            eight_bit_controls: true,
            ..KeyModes::default()
        };
        assert_eq!(
            encode_key(Key::Left, Mods::NONE, normal),
            Some(b"\x9bD".to_vec())
        );
    }
}
