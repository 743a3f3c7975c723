//! Terminal modes (SM/RM and DECSET/DECRST) and DECRQM answers.

/// Which mouse events a program asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum MouseTracking {
    #[default]
    Off,
    /// 9: presses only.
    X10,
    /// 1000: presses and releases.
    Normal,
    /// 1002: also motion while a button is held.
    ButtonMotion,
    /// 1003: all motion.
    AnyMotion,
}

/// How mouse reports are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum MouseEncoding {
    #[default]
    Default,
    /// 1005
    Utf8,
    /// 1006
    Sgr,
    /// 1015
    Urxvt,
}

/// Mode state. Names say what is on when true.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Modes {
    /// IRM (4)
    pub insert: bool,
    /// LNM (20): LF also returns the carriage.
    pub newline: bool,
    /// DECCKM (?1)
    pub app_cursor_keys: bool,
    /// DECOM (?6)
    pub origin: bool,
    /// DECAWM (?7)
    pub autowrap: bool,
    /// ?12
    pub cursor_blink: bool,
    /// DECTCEM (?25)
    pub show_cursor: bool,
    /// DECKPAM / DECKPNM (and ?66)
    pub app_keypad: bool,
    pub mouse: MouseTracking,
    pub mouse_encoding: MouseEncoding,
    /// ?1004
    pub focus_events: bool,
    /// ?1007
    pub alternate_scroll: bool,
    /// ?2004
    pub bracketed_paste: bool,
    /// ?2026
    pub synchronized_output: bool,
    /// ?47 / ?1047 / ?1049
    pub alt_screen: bool,
    /// The active screen's kitty keyboard protocol flags (`model::kitty`).
    #[serde(default)]
    pub keyboard_flags: u8,
}

impl Default for Modes {
    fn default() -> Self {
        Modes {
            insert: false,
            newline: false,
            app_cursor_keys: false,
            origin: false,
            autowrap: true,
            cursor_blink: false,
            show_cursor: true,
            app_keypad: false,
            mouse: MouseTracking::Off,
            mouse_encoding: MouseEncoding::Default,
            focus_events: false,
            alternate_scroll: false,
            bracketed_paste: false,
            synchronized_output: false,
            alt_screen: false,
            keyboard_flags: 0,
        }
    }
}

/// DECRQM answer values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModeReport {
    NotRecognized = 0,
    Set = 1,
    Reset = 2,
    PermanentlyReset = 4,
}

impl ModeReport {
    pub fn of(on: bool) -> ModeReport {
        if on {
            ModeReport::Set
        } else {
            ModeReport::Reset
        }
    }
}

impl Modes {
    /// The state of ANSI mode `mode` for DECRQM (`CSI Ps $ p`).
    pub fn report_ansi(&self, mode: u16) -> ModeReport {
        match mode {
            4 => ModeReport::of(self.insert),
            20 => ModeReport::of(self.newline),
            2 | 12 => ModeReport::PermanentlyReset,
            _ => ModeReport::NotRecognized,
        }
    }

    /// The state of DEC private mode `mode` for DECRQM (`CSI ? Ps $ p`).
    pub fn report_private(&self, mode: u16) -> ModeReport {
        match mode {
            1 => ModeReport::of(self.app_cursor_keys),
            6 => ModeReport::of(self.origin),
            7 => ModeReport::of(self.autowrap),
            9 => ModeReport::of(self.mouse == MouseTracking::X10),
            12 => ModeReport::of(self.cursor_blink),
            25 => ModeReport::of(self.show_cursor),
            47 | 1047 | 1049 => ModeReport::of(self.alt_screen),
            66 => ModeReport::of(self.app_keypad),
            1000 => ModeReport::of(self.mouse == MouseTracking::Normal),
            1002 => ModeReport::of(self.mouse == MouseTracking::ButtonMotion),
            1003 => ModeReport::of(self.mouse == MouseTracking::AnyMotion),
            1004 => ModeReport::of(self.focus_events),
            1005 => ModeReport::of(self.mouse_encoding == MouseEncoding::Utf8),
            1006 => ModeReport::of(self.mouse_encoding == MouseEncoding::Sgr),
            1007 => ModeReport::of(self.alternate_scroll),
            1015 => ModeReport::of(self.mouse_encoding == MouseEncoding::Urxvt),
            1048 => ModeReport::Reset,
            2004 => ModeReport::of(self.bracketed_paste),
            2026 => ModeReport::of(self.synchronized_output),
            _ => ModeReport::NotRecognized,
        }
    }
}
