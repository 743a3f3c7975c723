//! Reports a program can ask for that need more than one line of code: DECRQSS and
//! XTGETTCAP (DCS requests), DECRQCRA, XTWINOPS size reports and the resize request.
//!
//! Security rule for every reply here: it is built only from model state and from
//! numbers parsed out of the request, never from the request's bytes, so a program
//! cannot make the terminal "type" text it chose (xterm's old DECRQSS echo problem).

use std::fmt::Write as _;

use super::{CursorShape, Pen, Protection, State};
use crate::model::TermSize;
use crate::model::cell::{Color, Flags, Underline};

/// Longest DCS request body kept; a longer one is answered as invalid.
pub const MAX_DCS_BYTES: usize = 256;

/// Which DCS request is being received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DcsKind {
    /// `DCS $ q Pt ST`
    Decrqss,
    /// `DCS + q Pt ST`
    Xtgettcap,
}

/// A DCS request being received (between `hook` and `unhook`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DcsRequest {
    pub kind: DcsKind,
    pub body: Vec<u8>,
    pub overflowed: bool,
}

impl DcsRequest {
    pub fn new(kind: DcsKind) -> DcsRequest {
        DcsRequest {
            kind,
            body: Vec::new(),
            overflowed: false,
        }
    }

    pub fn push(&mut self, byte: u8) {
        if self.body.len() < MAX_DCS_BYTES {
            self.body.push(byte);
        } else {
            self.overflowed = true;
        }
    }
}

/// The reply for DECRQSS "not a setting tern reports".
const DECRQSS_INVALID: &[u8] = b"\x1bP0$r\x1b\\";

/// Answers a finished DCS request.
pub fn finish_dcs(st: &mut State, request: DcsRequest) {
    match request.kind {
        // A VT100 (DECSCL 61) has no DECRQSS.
        DcsKind::Decrqss if st.conformance_level == 61 => {}
        DcsKind::Decrqss => {
            let setting = if request.overflowed {
                None
            } else {
                decrqss_setting(st, &request.body)
            };
            match setting {
                Some(value) => {
                    let reply = format!("\x1bP1$r{value}\x1b\\");
                    st.reply(reply.as_bytes());
                }
                None => st.reply(DECRQSS_INVALID),
            }
        }
        DcsKind::Xtgettcap => {
            if request.overflowed {
                st.reply(b"\x1bP0+r\x1b\\");
                return;
            }
            xtgettcap(st, &request.body);
        }
    }
}

/// The DECRPSS body (setting and its final characters) for a DECRQSS request, or
/// `None` when tern does not report that setting. The settings and formats are xterm
/// 379's (`misc.c`, `do_dcs`), with two deliberate differences: DECSLPP reports the
/// page's lines (xterm reports one less above 24), and DECSASD/DECSSDT always report
/// the main display and no status line, which tern does not have.
fn decrqss_setting(st: &State, request: &[u8]) -> Option<String> {
    Some(match request {
        b"m" => format!("{}m", sgr_report(&st.pen)),
        b"r" => format!("{};{}r", st.scroll_top + 1, st.scroll_bottom),
        // DECSLRM is a VT420 setting.
        b"s" if st.conformance_level < 64 => return None,
        b"s" => format!("{};{}s", st.margin_left + 1, st.margin_right),
        // DECSLPP: lines per page (never under 24, as xterm says); DECSNLS: lines
        // per screen.
        b"t" => format!("{}t", st.rows.max(super::geometry::MIN_PAGE_LINES)),
        b"*|" => format!("{}*|", st.rows),
        // DECSCPP: columns per page, 80 or 132.
        b"$|" => format!("{}$|", if st.columns_132 { 132 } else { 80 }),
        // DECSASD (active display: 0 the main one) and DECSSDT (status line type: 0
        // none).
        b"$}" => "0$}".to_string(),
        b"$~" => "0$~".to_string(),
        // DECSACE: the parameter as given.
        b"*x" => format!("{}*x", st.attr_change_extent),
        b" q" => {
            let base = match st.cursor_shape {
                CursorShape::Block => 1,
                CursorShape::Underline => 3,
                CursorShape::Beam => 5,
            };
            let style = if st.modes.cursor_blink {
                base
            } else {
                base + 1
            };
            format!("{style} q")
        }
        // DECSCA: 1 only for DEC protection (SPA's ISO protection reports 0).
        b"\"q" => format!(
            "{}\"q",
            u8::from(st.protection == Protection::Dec && st.pen.protected)
        ),
        b"\"p" => format!(
            "{};{}\"p",
            st.conformance_level,
            if st.modes.eight_bit_controls { 0 } else { 1 }
        ),
        _ => return None,
    })
}

fn color_params(out: &mut String, color: Color, base: u16, bright_base: u16, extended: u16) {
    match color {
        Color::Default => {}
        Color::Indexed(i) if i < 8 => {
            let _ = write!(out, ";{}", base + i as u16);
        }
        Color::Indexed(i) if i < 16 => {
            let _ = write!(out, ";{}", bright_base + (i - 8) as u16);
        }
        Color::Indexed(i) => {
            let _ = write!(out, ";{extended};5;{i}");
        }
        Color::Rgb(r, g, b) => {
            let _ = write!(out, ";{extended};2;{r};{g};{b}");
        }
    }
}

/// The pen as SGR parameters, starting from 0 as xterm does (`0;1;31` ...).
pub fn sgr_report(pen: &Pen) -> String {
    let mut out = String::from("0");
    let flag = |f: Flags| pen.flags.contains(f);
    for (on, code) in [
        (flag(Flags::BOLD), "1"),
        (flag(Flags::DIM), "2"),
        (flag(Flags::ITALIC), "3"),
    ] {
        if on {
            out.push(';');
            out.push_str(code);
        }
    }
    match pen.underline {
        Underline::None => {}
        Underline::Single => out.push_str(";4"),
        Underline::Double => out.push_str(";21"),
        other => {
            let _ = write!(out, ";4:{}", other as u8);
        }
    }
    for (on, code) in [
        (flag(Flags::BLINK), "5"),
        (flag(Flags::INVERSE), "7"),
        (flag(Flags::HIDDEN), "8"),
        (flag(Flags::STRIKE), "9"),
    ] {
        if on {
            out.push(';');
            out.push_str(code);
        }
    }
    color_params(&mut out, pen.fg, 30, 90, 38);
    color_params(&mut out, pen.bg, 40, 100, 48);
    match pen.underline_color {
        None | Some(Color::Default) => {}
        Some(Color::Indexed(i)) => {
            let _ = write!(out, ";58:5:{i}");
        }
        Some(Color::Rgb(r, g, b)) => {
            let _ = write!(out, ";58:2::{r}:{g}:{b}");
        }
    }
    out
}

/// The capabilities XTGETTCAP answers: a small fixed set, enough for programs that
/// ask for the terminal's name and colour support.
const CAPABILITIES: &[(&str, &str)] = &[
    ("TN", "xterm-256color"),
    ("name", "xterm-256color"),
    ("Co", "256"),
    ("colors", "256"),
    ("RGB", "8/8/8"),
];

pub(in crate::model) fn hex_decode(hex: &[u8]) -> Option<Vec<u8>> {
    if hex.len() % 2 != 0 {
        return None;
    }
    hex.chunks(2)
        .map(|pair| {
            let digit = |b: u8| (b as char).to_digit(16);
            Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8)
        })
        .collect()
}

fn hex_encode(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02X}")).collect()
}

/// XTGETTCAP: `DCS + q name;name ST`, names hex-encoded. Each known name is answered
/// `DCS 1 + r name=value ST` (both re-encoded from tern's own table); the first unknown
/// one ends the reply with `DCS 0 + r ST`, as xterm stops there.
fn xtgettcap(st: &mut State, body: &[u8]) {
    for hex in body.split(|&b| b == b';') {
        let known = hex_decode(hex).and_then(|name| {
            CAPABILITIES
                .iter()
                .find(|(cap, _)| cap.as_bytes() == name.as_slice())
        });
        match known {
            Some((cap, value)) => {
                let reply = format!("\x1bP1+r{}={}\x1b\\", hex_encode(cap), hex_encode(value));
                st.reply(reply.as_bytes());
            }
            None => {
                st.reply(b"\x1bP0+r\x1b\\");
                return;
            }
        }
    }
}

/// DSR (`CSI Ps n`) and DEC DSR (`CSI ? Ps n`) with xterm 379's answers: 5 status OK, 6
/// cursor position (DECXCPR with the page, always 1), no printer (?15), user-defined
/// keys unlocked (?25), a North American LK201 keyboard (?26), no locator
/// (?53, ?55, ?56), no macro space (?62), memory checksum 0 (?63), data integrity OK
/// (?75) and no multi-session (?85). Anything else gets no answer.
pub fn device_status(st: &mut State, params: &[u16], private: bool) {
    let request = params.first().copied().unwrap_or(0);
    // The DEC requests belong to VT levels, as in xterm (with `decTerminalID: 520`):
    // below its level a request is not answered.
    let level = |vt: u16| private && st.at_level(vt);
    let reply = match request {
        5 if private => "\x1b[?0n".to_string(),
        5 => "\x1b[0n".to_string(),
        6 => {
            let (row, col) = (st.origin_row() + 1, st.origin_col() + 1);
            if level(3) {
                // DECXCPR carries the page from the VT330 on.
                format!("\x1b[?{row};{col};1R")
            } else if private {
                format!("\x1b[?{row};{col}R")
            } else {
                format!("\x1b[{row};{col}R")
            }
        }
        15 if level(2) => "\x1b[?13n".to_string(),
        25 if level(2) => "\x1b[?20n".to_string(),
        // Keyboard: North American; ready from the VT320, an LK201 from the VT420.
        26 if level(4) => "\x1b[?27;1;0;0n".to_string(),
        26 if level(3) => "\x1b[?27;1;0n".to_string(),
        26 if level(2) => "\x1b[?27;1n".to_string(),
        53 | 55 if level(3) => "\x1b[?53n".to_string(),
        56 if level(3) => "\x1b[?57;0n".to_string(),
        62 if level(4) => "\x1b[0000*{".to_string(),
        63 if level(4) => {
            let id = params.get(1).copied().unwrap_or(0);
            format!("\x1bP{id}!~0000\x1b\\")
        }
        75 if level(4) => "\x1b[?70n".to_string(),
        85 if level(4) => "\x1b[?83n".to_string(),
        _ => return,
    };
    st.reply(reply.as_bytes());
}

/// XTWINOPS. Answered: 11 (not iconified), 13 (position: always 0,0, the model does
/// not know where the window is and a program has no need to), 14 (text area in
/// pixels), 15 (screen in pixels: tern's screen is the text area), 16 (cell size in
/// pixels), 18 (text area in characters), 19 (screen in characters), all numbers only;
/// 8 (resize to rows;cols) becomes a request for the app, which may ignore it; 22/23
/// push and pop the title stack by type (0 and 2 the title; 1 only the icon label,
/// which tern does not keep: the entry holds no title, and 23;1 pops without
/// restoring); 24 and more is DECSLPP. Not answered: 20/21 (icon label
/// and title reports) because a title set by one program would be typed into another's
/// input; the other window operations belong to the app's window, not to a program.
pub fn window_ops(st: &mut State, params: &[u16]) {
    let p = |i: usize| params.get(i).copied().unwrap_or(0) as usize;
    let (cell_w, cell_h) = st.cell_pixels;
    let reply = match p(0) {
        11 => "\x1b[1t".to_string(),
        13 => "\x1b[3;0;0t".to_string(),
        15 => format!("\x1b[5;{};{}t", st.rows * cell_h, st.cols * cell_w),
        lines if lines >= super::geometry::MIN_PAGE_LINES => {
            st.set_lines_per_page(lines);
            return;
        }
        8 => {
            // 0 or missing keeps that dimension.
            let rows = if p(1) == 0 { st.rows } else { p(1) };
            let cols = if p(2) == 0 { st.cols } else { p(2) };
            let max = super::geometry::MAX_PAGE_LINES;
            st.resize_request = Some(TermSize::new(cols.min(max), rows.min(max)));
            return;
        }
        14 => format!("\x1b[4;{};{}t", st.rows * cell_h, st.cols * cell_w),
        16 => format!("\x1b[6;{cell_h};{cell_w}t"),
        18 => format!("\x1b[8;{};{}t", st.rows, st.cols),
        19 => format!("\x1b[9;{};{}t", st.rows, st.cols),
        22 => {
            st.push_title(p(1) != 1);
            return;
        }
        23 => {
            st.pop_title(p(1) != 1);
            return;
        }
        _ => return,
    };
    st.reply(reply.as_bytes());
}

/// XTSMGRAPHICS (`CSI ? Pi ; Pa ; Pv S`) as xterm answers it, for the graphics tern
/// has: `Pi` 1 the sixel colour registers (1024, fixed: setting or resetting answers
/// what is in effect), 2 the sixel geometry (the screen in pixels, at most
/// [`MAX_SIXEL_SIDE`] a side; its maximum for `Pa` 4); ReGIS (3) and anything else
/// "error in Pi". `Pa`: 1 read, 2 reset, 3 set, 4 read the maximum; anything else
/// "error in Pa".
pub fn xtsmgraphics(st: &mut State, params: &[u16]) {
    use crate::model::images::sixel::{MAX_SIXEL_SIDE, REGISTERS};
    let item = params.first().copied().unwrap_or(0);
    let action = params.get(1).copied().unwrap_or(0);
    let reply = match (item, action) {
        (1, 1..=4) => format!("\x1b[?1;0;{REGISTERS}S"),
        (2, 1..=3) => {
            let (cell_w, cell_h) = st.cell_pixels;
            let w = (st.cols * cell_w).min(MAX_SIXEL_SIDE);
            let h = (st.rows * cell_h).min(MAX_SIXEL_SIDE);
            format!("\x1b[?2;0;{w};{h}S")
        }
        (2, 4) => format!("\x1b[?2;0;{MAX_SIXEL_SIDE};{MAX_SIXEL_SIDE}S"),
        (1 | 2, _) => format!("\x1b[?{item};2;0S"),
        _ => format!("\x1b[?{item};1;0S"),
    };
    st.reply(reply.as_bytes());
}
