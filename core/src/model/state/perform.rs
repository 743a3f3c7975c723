//! The one place that implements `vte::Perform`: it decodes control functions and calls
//! the typed operations on [`State`].

use vte::{Params, Perform};

use super::osc;
use super::reports::{self, DcsKind, DcsRequest};
use super::{CursorShape, MAX_CONFORMANCE_LEVEL, Protection, State};
use crate::model::TermEvent;
use crate::model::charset::Charset;
use crate::model::modes::RecordedMode;

/// Version reported by DA2 and XTVERSION.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Borrows the state for one `advance`. Printable ASCII is gathered into `run` and
/// written in one go when anything else arrives (or the batch ends); other characters
/// are written one at a time.
pub struct Performer<'a> {
    pub st: &'a mut State,
    pub run: &'a mut Vec<u8>,
    /// Set when a dispatch left vte in its ground state, so that the fast path in
    /// `ground.rs` can take over again (see `Terminal::parse`).
    pub back_to_ground: bool,
    /// Inside a sixel image vte stops once the work count reaches this (see
    /// [`Performer::paused_in_sixel`]).
    pub until_work_cells: u64,
}

impl Performer<'_> {
    #[inline]
    pub fn flush(&mut self) {
        if !self.run.is_empty() {
            self.st.print_ascii_run(self.run);
            self.run.clear();
        }
    }

    /// A sixel image is being received and the work reached the bound: vte stops in
    /// the middle of its DCS, which the next parse continues (the decoder and vte keep
    /// their state), so a large image is decoded a slice at a time.
    #[inline]
    pub fn paused_in_sixel(&self) -> bool {
        self.st.sixel.is_some() && self.st.work_cells >= self.until_work_cells
    }
}

/// Parameter `i`'s first value, with 0 or missing read as `default`.
#[inline]
fn param(params: &Params, i: usize, default: u16) -> u16 {
    match params.iter().nth(i).and_then(|p| p.first().copied()) {
        Some(0) | None => default,
        Some(v) => v,
    }
}

/// DA1: a level-5 terminal (65, a VT520 as xterm with `decTerminalID: 520`) with 132
/// columns (1), selective erase (6), ANSI colour (22) and rectangular editing (28):
/// only what tern has. Like xterm it stays the same whatever level DECSCL selects.
pub const DA1_REPLY: &[u8] = b"\x1b[?65;1;4;6;22;28c";

/// DA2: a VT520 (64), as xterm with `decTerminalID: 520`; its firmware version is the
/// xterm patch level whose behaviour tern reproduces (programs such as vim read it to
/// learn which xterm features to use). tern's own version is XTVERSION's.
pub const DA2_REPLY: &[u8] = b"\x1b[>64;379;0c";

/// Every parameter's first value (missing read as 0).
fn values(params: &Params) -> Vec<u16> {
    params
        .iter()
        .map(|p| p.first().copied().unwrap_or(0))
        .collect()
}

/// Parameters `from..from + 4` as a rectangle's `Pt;Pl;Pb;Pr` (missing read as 0).
fn rect_params(v: &[u16], from: usize) -> [u16; 4] {
    let p = |i: usize| v.get(from + i).copied().unwrap_or(0);
    [p(0), p(1), p(2), p(3)]
}

/// Parameter `i`'s first value, missing read as 0.
#[inline]
fn param0(params: &Params, i: usize) -> u16 {
    params
        .iter()
        .nth(i)
        .and_then(|p| p.first().copied())
        .unwrap_or(0)
}

impl Perform for Performer<'_> {
    #[inline]
    fn print(&mut self, c: char) {
        if matches!(c, ' '..='~') {
            self.run.push(c as u8);
        } else {
            self.flush();
            self.st.print(c);
        }
    }

    fn execute(&mut self, byte: u8) {
        self.flush();
        execute(self.st, byte);
    }

    /// vte stops `advance_until_terminated` here once a dispatch returned it to ground,
    /// or inside a sixel image once the work reached the bound.
    fn terminated(&self) -> bool {
        self.back_to_ground || self.paused_in_sixel()
    }

    fn hook(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        self.flush();
        self.st.last_printed = None;
        if !ignore && intermediates.is_empty() && action == 'q' {
            let params: Vec<u16> = params.iter().map(|p| p[0]).collect();
            self.st.sixel = Some(Box::new(crate::model::images::sixel::Decoder::new(&params)));
            self.st.dcs = None;
            return;
        }
        let kind = match (intermediates, action) {
            _ if ignore || params.iter().any(|p| p.iter().any(|&v| v != 0)) => None,
            ([b'$'], 'q') => Some(DcsKind::Decrqss),
            ([b'+'], 'q') => Some(DcsKind::Xtgettcap),
            _ => None,
        };
        self.st.dcs = kind.map(DcsRequest::new);
    }

    fn put(&mut self, byte: u8) {
        let st = &mut *self.st;
        if let Some(sixel) = st.sixel.as_mut() {
            sixel.put(byte);
            st.work_cells += sixel.take_work_cells();
            return;
        }
        if let Some(dcs) = self.st.dcs.as_mut() {
            dcs.push(byte);
        }
    }

    fn unhook(&mut self) {
        if let Some(sixel) = self.st.sixel.take() {
            self.st.sixel_done(*sixel);
            return;
        }
        if let Some(request) = self.st.dcs.take() {
            reports::finish_dcs(self.st, request);
        }
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], bell_terminated: bool) {
        self.flush();
        self.st.last_printed = None;
        // After BEL vte is in ground; after ESC it waits for the `\` of ST.
        self.back_to_ground = bell_terminated;
        if std::mem::take(&mut self.st.osc_truncated) {
            self.st.events.push(TermEvent::Dropped {
                what: "over-long OSC string",
            });
            return;
        }
        osc::dispatch(self.st, params, bell_terminated);
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        self.flush();
        // REP repeats only a character printed right before it (xterm): anything else
        // in between, REP included, ends that.
        let last_printed = self.st.last_printed.take();
        self.back_to_ground = true;
        if ignore {
            return;
        }
        let st = &mut *self.st;
        let n = |i| param(params, i, 1) as usize;
        match (intermediates, action) {
            // xterm's conformance levels: `CSI ... $` (DECRQM, the rectangle operations,
            // DECSCPP) is a VT320 (level 3) family, `CSI ... *` (DECRQCRA, DECSACE,
            // DECSNLS) and DECIC/DECDC VT420 (level 4) ones; below those levels they
            // are ignored. Only sequences with these intermediates reach the guards.
            ([b'$'] | [b'?', b'$'], _) if !st.at_level(3) => {}
            ([b'*'], _) | ([b'\''], '}' | '~') if !st.at_level(4) => {}
            ([], '@') => st.insert_blanks(n(0)),
            ([], 'A') => st.move_up(n(0)),
            ([], 'B') | ([], 'e') => st.move_down(n(0)),
            ([], 'C') | ([], 'a') => st.move_forward(n(0)),
            ([], 'D') => st.move_backward(n(0)),
            ([], 'E') => {
                st.move_down(n(0));
                st.carriage_return();
            }
            ([], 'F') => {
                st.move_up(n(0));
                st.carriage_return();
            }
            ([], 'G') | ([], '`') => st.goto_col(n(0) - 1),
            ([], 'H') | ([], 'f') => st.goto(n(0) - 1, n(1) - 1),
            ([], 'I') => st.tab_forward(n(0)),
            ([], 'J') => st.erase_in_display(param0(params, 0)),
            ([], 'K') => st.erase_in_line(param0(params, 0)),
            ([b'?'], 'J') => st.selective_erase_display(param0(params, 0)),
            ([b'?'], 'K') => st.selective_erase_line(param0(params, 0)),
            ([], 'L') => st.insert_lines(n(0)),
            ([], 'M') => st.delete_lines(n(0)),
            ([], 'P') => st.delete_chars(n(0)),
            ([], 'S') => st.scroll_up(n(0)),
            ([], 'T') if params.len() <= 1 => st.scroll_down(n(0)),
            ([], 'X') => st.erase_chars(n(0)),
            ([], 'Z') => st.tab_backward(n(0)),
            ([], 'b') => {
                st.last_printed = last_printed;
                st.repeat_last(n(0));
                st.last_printed = None;
            }
            ([], 'c') if param0(params, 0) == 0 => st.reply(DA1_REPLY),
            // DA3: the unit id, zeros as xterm sends (a VT420 request).
            ([b'='], 'c') if param0(params, 0) == 0 && st.at_level(4) => {
                st.reply(b"\x1bP!|00000000\x1b\\")
            }
            ([b'>'], 'c') if param0(params, 0) == 0 => st.reply(DA2_REPLY),
            ([], 'd') => st.goto_row(n(0) - 1),
            ([], 'g') => st.clear_tab_stops(param0(params, 0)),
            ([], 'h') => set_ansi_modes(st, params, true),
            ([], 'l') => set_ansi_modes(st, params, false),
            ([b'?'], 'h') => set_private_modes(st, params, true),
            ([b'?'], 'l') => set_private_modes(st, params, false),
            ([], 'm') => super::sgr::sgr(st, params),
            ([], 'n') => reports::device_status(st, &values(params), false),
            ([b'?'], 'n') => reports::device_status(st, &values(params), true),
            ([], 'r') => {
                let bottom = params
                    .iter()
                    .nth(1)
                    .and_then(|p| p.first().copied())
                    .map(usize::from);
                st.set_scroll_region(param(params, 0, 1) as usize, bottom);
            }
            // DECSLRM while DECLRMM is set, else SCOSC.
            ([], 's') if st.lr_margin_mode => {
                let right = params
                    .iter()
                    .nth(1)
                    .and_then(|p| p.first().copied())
                    .map(usize::from);
                st.set_lr_margins(param(params, 0, 1) as usize, right);
            }
            ([], 's') => st.save_cursor(),
            ([], 'u') => st.restore_cursor(),
            ([b'?'], 'u') => st.report_keyboard_flags(),
            ([b'='], 'u') => st.set_keyboard_flags(param0(params, 0), param(params, 1, 1)),
            ([b'>'], 'u') => st.push_keyboard_flags(param0(params, 0)),
            ([b'<'], 'u') => st.pop_keyboard_flags(param(params, 0, 1)),
            ([], 't') => reports::window_ops(st, &values(params)),
            ([b'?'], 'S') => reports::xtsmgraphics(st, &values(params)),
            // xterm's title modes: only 0 (titles in hex) changes anything; tern always
            // takes UTF-8 (2) and never reports titles (1, 3).
            ([b'>'], 't') | ([b'>'], 'T') if params.iter().any(|p| p.first() == Some(&0)) => {
                st.title_hex = action == 't';
            }
            ([b' '], 'q') => set_cursor_style(st, param0(params, 0)),
            ([b'>'], 'q') if param0(params, 0) == 0 => {
                let reply = format!("\x1bP>|tern {VERSION}\x1b\\");
                st.reply(reply.as_bytes());
            }
            ([b'$'], 'p') => {
                let mode = param0(params, 0);
                let report = st.modes.report_ansi(mode);
                let reply = format!("\x1b[{mode};{}$y", report as u8);
                st.reply(reply.as_bytes());
            }
            ([b'?', b'$'], 'p') => {
                let mode = param0(params, 0);
                let report = st.private_mode_report(mode);
                let reply = format!("\x1b[?{mode};{}$y", report as u8);
                st.reply(reply.as_bytes());
            }
            // XTSAVE / XTRESTORE: save and restore DEC private modes.
            ([b'?'], 's') => st.save_private_modes(&values(params)),
            ([b'?'], 'r') => st.restore_private_modes(&values(params)),
            ([b'!'], 'p') => st.soft_reset(),
            ([b'"'], 'p') => {
                // DECSCL: 61..=65 select the level, up to the VT520 tern is (xterm
                // ignores a level above its own), and soft-reset; the second parameter
                // picks 8-bit (0, 2) or 7-bit (1) controls from level 62 up.
                let level = param0(params, 0);
                if (61..=MAX_CONFORMANCE_LEVEL).contains(&level) {
                    st.soft_reset();
                    st.conformance_level = level;
                    st.modes.eight_bit_controls =
                        level > 61 && matches!(params.iter().nth(1), None | Some([0 | 2, ..]));
                }
            }
            // DECSCA: 1 protects, 0 and 2 do not, anything else changes nothing but
            // still chooses DEC protection (xterm).
            ([b'"'], 'q') => {
                st.protection = Protection::Dec;
                match param0(params, 0) {
                    0 | 2 => st.pen.protected = false,
                    1 => st.pen.protected = true,
                    _ => {}
                }
                st.pen_changed();
            }
            ([b'\''], '}') => st.insert_columns(n(0)),
            ([b'\''], '~') => st.delete_columns(n(0)),
            ([b'$'], 'v') => {
                let v = values(params);
                let at = |i: usize| v.get(i).copied().unwrap_or(0);
                st.copy_rect(rect_params(&v, 0), at(5), at(6));
            }
            ([b'$'], 'x') => {
                let v = values(params);
                st.fill_rect(v.first().copied().unwrap_or(0), rect_params(&v, 1));
            }
            ([b'$'], 'z') => st.erase_rect(rect_params(&values(params), 0)),
            ([b'$'], '{') => st.selective_erase_rect(rect_params(&values(params), 0)),
            ([b'$'], 'r') => {
                let v = values(params);
                st.change_rect_attrs(rect_params(&v, 0), v.get(4..).unwrap_or(&[]), false);
            }
            ([b'$'], 't') => {
                let v = values(params);
                st.change_rect_attrs(rect_params(&v, 0), v.get(4..).unwrap_or(&[]), true);
            }
            ([b'$'], '|') => st.set_columns_per_page(param0(params, 0)),
            ([b'*'], '|') => st.set_lines_per_screen(param0(params, 0)),
            ([b'*'], 'x') => st.attr_change_extent = param0(params, 0),
            ([b'*'], 'y') => {
                // DECRQCRA: Pi ; Pg ; rectangle. Like xterm, the rectangle starts at the
                // third parameter only when there are more than two.
                let v = values(params);
                let from = if v.len() > 2 { 2 } else { 0 };
                let checksum = if st.config.rect_checksum_reports {
                    if let Some(rect) = st.rect_from(rect_params(&v, from)) {
                        st.charge_cells(rect.area_cells());
                    }
                    st.rect_checksum(rect_params(&v, from))
                } else {
                    0
                };
                let reply = format!("\x1bP{}!~{checksum:04X}\x1b\\", param0(params, 0));
                st.reply(reply.as_bytes());
            }
            _ => {}
        }
    }

    fn esc_dispatch(&mut self, intermediates: &[u8], _ignore: bool, byte: u8) {
        self.flush();
        self.back_to_ground = true;
        let st = &mut *self.st;
        st.last_printed = None;
        match (intermediates, byte) {
            ([], b'D') => st.index(),
            ([], b'E') => {
                st.linefeed();
                st.carriage_return();
            }
            ([], b'H') => st.set_tab_stop(),
            ([], b'M') => st.reverse_index(),
            ([], b'Z') => st.reply(DA1_REPLY),
            // SPA / EPA: start and end an ISO protected area.
            ([], b'V') => {
                st.protection = Protection::Iso;
                st.pen.protected = true;
                st.pen_changed();
            }
            ([], b'W') => {
                st.pen.protected = false;
                st.pen_changed();
            }
            // DECBI / DECFI are VT420 controls.
            ([], b'6') if st.at_level(4) => st.back_index(),
            ([], b'9') if st.at_level(4) => st.forward_index(),
            ([], b'7') => st.save_cursor(),
            ([], b'8') => st.restore_cursor(),
            ([], b'c') => st.full_reset(),
            ([], b'=') => st.modes.app_keypad = true,
            ([], b'>') => st.modes.app_keypad = false,
            ([b'#'], b'8') => st.screen_alignment(),
            // S7C1T, S8C1T (a VT100 has no 8-bit controls).
            ([b' '], b'F') => st.modes.eight_bit_controls = false,
            ([b' '], b'G') => st.modes.eight_bit_controls = st.conformance_level > 61,
            ([slot @ (b'(' | b')' | b'*' | b'+')], set) => {
                let charset = if set == b'0' {
                    Charset::DecSpecial
                } else {
                    Charset::Ascii
                };
                st.designate_charset((slot - b'(') as usize, charset);
            }
            _ => {}
        }
    }
}

/// C0 controls (from vte, and from the fast path in `ground.rs`).
pub(in crate::model) fn execute(st: &mut State, byte: u8) {
    st.last_printed = None;
    match byte {
        0x07 => st.bell(),
        0x08 => st.backspace(),
        0x09 => st.tab_forward(1),
        0x0a..=0x0c => st.newline(),
        0x0d => st.carriage_return(),
        0x0e => st.invoke_charset(1),
        0x0f => st.invoke_charset(0),
        // C1 controls (0x80..=0x9f) are not acted on in a UTF-8 stream, as in xterm's
        // UTF-8 mode: vte hands over raw bytes of invalid UTF-8 here too.
        _ => {}
    }
}

fn set_ansi_modes(st: &mut State, params: &Params, on: bool) {
    for p in params.iter() {
        let mode = p.first().copied().unwrap_or(0);
        if let Some(recorded) = RecordedMode::ansi(mode) {
            st.modes.recorded.set(recorded, on);
            continue;
        }
        match mode {
            4 => st.modes.insert = on,
            20 => st.modes.newline = on,
            _ => {}
        }
    }
}

fn set_private_modes(st: &mut State, params: &Params, on: bool) {
    for p in params.iter() {
        st.set_private_mode(p.first().copied().unwrap_or(0), on);
    }
}

fn set_cursor_style(st: &mut State, style: u16) {
    let (shape, blink) = match style {
        // The user's configured cursor.
        0 => (st.config.cursor_shape, st.config.cursor_blink),
        1 => (CursorShape::Block, true),
        2 => (CursorShape::Block, false),
        3 => (CursorShape::Underline, true),
        4 => (CursorShape::Underline, false),
        5 => (CursorShape::Beam, true),
        6 => (CursorShape::Beam, false),
        _ => return,
    };
    st.cursor_shape = shape;
    st.modes.cursor_blink = blink;
}
