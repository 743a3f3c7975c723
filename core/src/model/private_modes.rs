//! DEC private modes by number: DECSET/DECRST, their DECRQM answers and XTSAVE /
//! XTRESTORE (`CSI ? Pm s`, `CSI ? Pm r`), which save and restore them one slot each.

use super::modes::{ModeReport, MouseEncoding, MouseTracking, RecordedMode};
use super::state::State;

impl State {
    /// The DECRQM answer for DEC private mode `mode`.
    pub(super) fn private_mode_report(&self, mode: u16) -> ModeReport {
        match mode {
            3 => ModeReport::of(self.columns_132),
            40 => ModeReport::of(self.allow_column_switch),
            41 => ModeReport::of(self.tab_wraps_pending),
            45 => ModeReport::of(self.reverse_wrap),
            80 => ModeReport::of(self.sixel_display_mode),
            // DECLRMM and DECNCSM are unknown below their levels (xterm answers 0).
            69 if !self.at_level(4) => ModeReport::NotRecognized,
            69 => ModeReport::of(self.lr_margin_mode),
            95 if !self.at_level(5) => ModeReport::NotRecognized,
            95 => ModeReport::of(self.no_clear_on_column_switch),
            _ => self.modes.report_private(mode),
        }
    }

    /// DECSET / DECRST of one DEC private mode.
    pub(super) fn set_private_mode(&mut self, mode: u16, on: bool) {
        if let Some(recorded) = RecordedMode::private(mode) {
            self.modes.recorded.set(recorded, on);
            return;
        }
        let (vt420, vt510) = (self.at_level(4), self.at_level(5));
        let m = &mut self.modes;
        let mouse = |t: MouseTracking| if on { t } else { MouseTracking::Off };
        let encoding = |e: MouseEncoding| if on { e } else { MouseEncoding::Default };
        match mode {
            1 => m.app_cursor_keys = on,
            3 => self.set_column_mode(on),
            40 => self.allow_column_switch = on,
            41 => self.tab_wraps_pending = on,
            45 => self.reverse_wrap = on,
            80 => self.sixel_display_mode = on,
            6 => {
                m.origin = on;
                self.goto(0, 0);
            }
            7 => m.autowrap = on,
            9 => m.mouse = mouse(MouseTracking::X10),
            12 => m.cursor_blink = on,
            25 => m.show_cursor = on,
            66 => m.app_keypad = on,
            // DECLRMM is a VT420 mode, DECNCSM a VT510 one (xterm ignores them below).
            69 if vt420 => self.set_lr_margin_mode(on),
            95 if vt510 => self.no_clear_on_column_switch = on,
            1000 => m.mouse = mouse(MouseTracking::Normal),
            1002 => m.mouse = mouse(MouseTracking::ButtonMotion),
            1003 => m.mouse = mouse(MouseTracking::AnyMotion),
            1004 => m.focus_events = on,
            1005 => m.mouse_encoding = encoding(MouseEncoding::Utf8),
            1006 => m.mouse_encoding = encoding(MouseEncoding::Sgr),
            1015 => m.mouse_encoding = encoding(MouseEncoding::Urxvt),
            1007 => m.alternate_scroll = on,
            2004 => m.bracketed_paste = on,
            2026 => m.synchronized_output = on,
            2027 => m.grapheme_clusters = on,
            47 => {
                if on {
                    self.enter_alt_screen(false, false)
                } else {
                    self.leave_alt_screen(false, false)
                }
            }
            1047 => {
                if on {
                    self.enter_alt_screen(false, false)
                } else {
                    self.leave_alt_screen(false, true)
                }
            }
            1048 => {
                if on {
                    self.save_cursor()
                } else {
                    self.restore_cursor()
                }
            }
            1049 => {
                if on {
                    self.enter_alt_screen(true, true)
                } else {
                    self.leave_alt_screen(true, false)
                }
            }
            _ => {}
        }
    }

    /// XTSAVE: remembers whether each listed mode is set (modes tern does not switch
    /// are skipped).
    pub(super) fn save_private_modes(&mut self, modes: &[u16]) {
        for &mode in modes {
            let on = match self.private_mode_report(mode) {
                ModeReport::Set => true,
                ModeReport::Reset => false,
                _ => continue,
            };
            self.saved_private_modes.retain(|&(m, _)| m != mode);
            self.saved_private_modes.push((mode, on));
        }
    }

    /// XTRESTORE: sets each listed mode back to what XTSAVE saw; a mode never saved is
    /// left alone.
    pub(super) fn restore_private_modes(&mut self, modes: &[u16]) {
        for &mode in modes {
            let saved = self.saved_private_modes.iter().find(|&&(m, _)| m == mode);
            if let Some(&(_, on)) = saved {
                self.set_private_mode(mode, on);
            }
        }
    }
}
