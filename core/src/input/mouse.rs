//! Mouse and focus reporting (xterm): which events each tracking mode reports and how
//! each encoding (X10 default, UTF-8 1005, SGR 1006, URXVT 1015) writes them.

use crate::model::{MouseEncoding, MouseTracking};

use super::keys::Mods;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MouseButton {
    Left,
    Middle,
    Right,
    WheelUp,
    WheelDown,
    /// Motion with no button held.
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MouseEventKind {
    Press,
    Release,
    Motion,
}

/// A mouse event at a 0-based cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MouseEvent {
    pub kind: MouseEventKind,
    pub button: MouseButton,
    pub col: usize,
    pub row: usize,
    pub mods: Mods,
}

/// The report for `event`, or `None` when the mode does not report it.
pub fn encode_mouse(
    event: MouseEvent,
    tracking: MouseTracking,
    encoding: MouseEncoding,
) -> Option<Vec<u8>> {
    use MouseEventKind::*;
    let wheel = matches!(event.button, MouseButton::WheelUp | MouseButton::WheelDown);
    let reported = match tracking {
        MouseTracking::Off => false,
        MouseTracking::X10 => event.kind == Press,
        MouseTracking::Normal => event.kind != Motion,
        MouseTracking::ButtonMotion => event.kind != Motion || event.button != MouseButton::None,
        MouseTracking::AnyMotion => true,
    };
    if !reported || (wheel && event.kind == Release) {
        return None;
    }
    let mut code: u32 = match event.button {
        MouseButton::Left => 0,
        MouseButton::Middle => 1,
        MouseButton::Right => 2,
        MouseButton::None => 3,
        MouseButton::WheelUp => 64,
        MouseButton::WheelDown => 65,
    };
    if event.kind == Motion {
        code += 32;
    }
    if tracking != MouseTracking::X10 {
        let m = event.mods;
        code += 4 * m.shift as u32 + 8 * (m.alt || m.meta) as u32 + 16 * m.ctrl as u32;
    }
    // 1-based; a coordinate no real screen has saturates rather than wrapping (the
    // fixed-width encodings then refuse it below).
    let one_based = |c: usize| u32::try_from(c).unwrap_or(u32::MAX).saturating_add(1);
    let (x, y) = (one_based(event.col), one_based(event.row));
    let sgr_release = event.kind == Release;
    // The legacy encodings report a release as button 3.
    let legacy_code = if event.kind == Release && !wheel {
        (code & !0b11) | 3
    } else {
        code
    };
    match encoding {
        MouseEncoding::Sgr => {
            let end = if sgr_release { 'm' } else { 'M' };
            Some(format!("\x1b[<{code};{x};{y}{end}").into_bytes())
        }
        MouseEncoding::Urxvt => Some(format!("\x1b[{};{x};{y}M", legacy_code + 32).into_bytes()),
        MouseEncoding::Utf8 => {
            let mut out = b"\x1b[M".to_vec();
            for v in [legacy_code, x, y] {
                let v = v.saturating_add(32);
                let c = char::from_u32(v).filter(|_| v < 2048)?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Some(out)
        }
        MouseEncoding::Default => {
            if x > 255 - 32 || y > 255 - 32 {
                return None; // not representable in one byte
            }
            Some(vec![
                0x1b,
                b'[',
                b'M',
                (legacy_code + 32) as u8,
                (x + 32) as u8,
                (y + 32) as u8,
            ])
        }
    }
}

/// Focus in/out report (mode 1004).
pub fn encode_focus(focused: bool) -> &'static [u8] {
    if focused { b"\x1b[I" } else { b"\x1b[O" }
}

/// The report a window sends for `event`: [`encode_mouse`], introduced by the 8-bit CSI
/// after S8C1T (`eight_bit`), as xterm 379 sends it (measured: an SGR press
/// `9b 3c 30 3b 39 3b 34 4d`, an X10 one `9b 4d 20 29 24`).
pub fn mouse_report(
    event: MouseEvent,
    tracking: MouseTracking,
    encoding: MouseEncoding,
    eight_bit: bool,
) -> Option<Vec<u8>> {
    encode_mouse(event, tracking, encoding).map(|b| super::keys::introduced(b, eight_bit))
}

/// The focus report a window sends: [`encode_focus`], with the 8-bit CSI after S8C1T
/// (xterm 379: `9b 49`, `9b 4f`).
pub fn focus_report(focused: bool, eight_bit: bool) -> Vec<u8> {
    super::keys::introduced(encode_focus(focused).to_vec(), eight_bit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: MouseEventKind, button: MouseButton, col: usize, row: usize) -> MouseEvent {
        MouseEvent {
            kind,
            button,
            col,
            row,
            mods: Mods::NONE,
        }
    }

    #[test]
    fn sgr_reports_press_release_and_coordinates_beyond_223() {
        let e = ev(MouseEventKind::Press, MouseButton::Left, 0, 0);
        assert_eq!(
            encode_mouse(e, MouseTracking::Normal, MouseEncoding::Sgr),
            Some(b"\x1b[<0;1;1M".to_vec())
        );
        let e = ev(MouseEventKind::Release, MouseButton::Right, 299, 99);
        assert_eq!(
            encode_mouse(e, MouseTracking::Normal, MouseEncoding::Sgr),
            Some(b"\x1b[<2;300;100m".to_vec())
        );
        let e = MouseEvent {
            mods: Mods {
                ctrl: true,
                shift: true,
                ..Mods::NONE
            },
            ..ev(MouseEventKind::Press, MouseButton::Middle, 4, 2)
        };
        assert_eq!(
            encode_mouse(e, MouseTracking::Normal, MouseEncoding::Sgr),
            Some(b"\x1b[<21;5;3M".to_vec())
        );
    }

    #[test]
    fn legacy_encoding_reports_release_as_button_3() {
        let e = ev(MouseEventKind::Press, MouseButton::Left, 9, 4);
        assert_eq!(
            encode_mouse(e, MouseTracking::Normal, MouseEncoding::Default),
            Some(vec![0x1b, b'[', b'M', 32, 42, 37])
        );
        let e = ev(MouseEventKind::Release, MouseButton::Left, 9, 4);
        assert_eq!(
            encode_mouse(e, MouseTracking::Normal, MouseEncoding::Default),
            Some(vec![0x1b, b'[', b'M', 35, 42, 37])
        );
        let far = ev(MouseEventKind::Press, MouseButton::Left, 230, 0);
        assert_eq!(
            encode_mouse(far, MouseTracking::Normal, MouseEncoding::Default),
            None
        );
        assert_eq!(
            encode_mouse(far, MouseTracking::Normal, MouseEncoding::Utf8),
            Some("\x1b[M \u{107}!".as_bytes().to_vec())
        );
        assert_eq!(
            encode_mouse(far, MouseTracking::Normal, MouseEncoding::Urxvt),
            Some(b"\x1b[32;231;1M".to_vec())
        );
    }

    #[test]
    fn tracking_modes_filter_events() {
        let motion = ev(MouseEventKind::Motion, MouseButton::None, 1, 1);
        let drag = ev(MouseEventKind::Motion, MouseButton::Left, 1, 1);
        let release = ev(MouseEventKind::Release, MouseButton::Left, 1, 1);
        assert_eq!(
            encode_mouse(motion, MouseTracking::Off, MouseEncoding::Sgr),
            None
        );
        assert_eq!(
            encode_mouse(release, MouseTracking::X10, MouseEncoding::Sgr),
            None
        );
        assert_eq!(
            encode_mouse(drag, MouseTracking::Normal, MouseEncoding::Sgr),
            None
        );
        assert_eq!(
            encode_mouse(drag, MouseTracking::ButtonMotion, MouseEncoding::Sgr),
            Some(b"\x1b[<32;2;2M".to_vec())
        );
        assert_eq!(
            encode_mouse(motion, MouseTracking::ButtonMotion, MouseEncoding::Sgr),
            None
        );
        assert_eq!(
            encode_mouse(motion, MouseTracking::AnyMotion, MouseEncoding::Sgr),
            Some(b"\x1b[<35;2;2M".to_vec())
        );
    }

    #[test]
    fn wheel_is_64_and_65_and_never_released() {
        let up = ev(MouseEventKind::Press, MouseButton::WheelUp, 0, 0);
        assert_eq!(
            encode_mouse(up, MouseTracking::Normal, MouseEncoding::Sgr),
            Some(b"\x1b[<64;1;1M".to_vec())
        );
        let down = ev(MouseEventKind::Press, MouseButton::WheelDown, 0, 0);
        assert_eq!(
            encode_mouse(down, MouseTracking::Normal, MouseEncoding::Default),
            Some(vec![0x1b, b'[', b'M', 97, 33, 33])
        );
        assert_eq!(
            encode_mouse(
                ev(MouseEventKind::Release, MouseButton::WheelUp, 0, 0),
                MouseTracking::Normal,
                MouseEncoding::Sgr
            ),
            None
        );
    }

    #[test]
    fn after_s8c1t_reports_start_with_the_8_bit_csi_as_xterm_sends_them() {
        // Bytes xterm 379 sent for a left press at cell (8, 3) and for focus, after
        // `ESC SP G`, read from its pty under Xvfb.
        let press = ev(MouseEventKind::Press, MouseButton::Left, 8, 3);
        let release = ev(MouseEventKind::Release, MouseButton::Left, 8, 3);
        let sgr = |e| mouse_report(e, MouseTracking::Normal, MouseEncoding::Sgr, true);
        assert_eq!(sgr(press), Some(b"\x9b<0;9;4M".to_vec()));
        assert_eq!(sgr(release), Some(b"\x9b<0;9;4m".to_vec()));
        let x10 = |e| mouse_report(e, MouseTracking::Normal, MouseEncoding::Default, true);
        assert_eq!(x10(press), Some(vec![0x9b, b'M', 0x20, 0x29, 0x24]));
        assert_eq!(x10(release), Some(vec![0x9b, b'M', 0x23, 0x29, 0x24]));
        assert_eq!(focus_report(true, true), [0x9b, b'I']);
        assert_eq!(focus_report(false, true), [0x9b, b'O']);
        // 7-bit until then.
        let seven = mouse_report(press, MouseTracking::Normal, MouseEncoding::Sgr, false);
        assert_eq!(seven, Some(b"\x1b[<0;9;4M".to_vec()));
        assert_eq!(focus_report(true, false), b"\x1b[I");
    }

    #[test]
    fn focus_reports() {
        assert_eq!(encode_focus(true), b"\x1b[I");
        assert_eq!(encode_focus(false), b"\x1b[O");
    }
}
