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

/// Modes xterm lets a program switch that tern records without acting on: DECRQM
/// reports what was last set (xterm's "set" or "reset", not "permanently reset"), so a
/// program that sets one and asks gets a consistent answer, but the screen and the
/// keyboard behave the same either way. See `docs/CONFORMANCE.md` for why each is not
/// acted on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordedMode {
    /// KAM (ANSI 2): keyboard locked.
    Kam,
    /// SRM (ANSI 12): no local echo (set at power-on, as in xterm).
    Srm,
    /// DECSCLM (?4): smooth scroll.
    SmoothScroll,
    /// DECSCNM (?5): reverse video.
    ReverseVideo,
    /// DECPFF (?18): print form feed.
    PrintFormFeed,
    /// DECPEX (?19): print extent is the full screen.
    PrintExtent,
    /// ?35 (DECHEBM in esctest; xterm's font-shifting keys, set at power-on).
    FontShift,
    /// DECNRCM (?42): national replacement character sets.
    National,
    /// DECBKM (?67): the backarrow key sends BS.
    BackarrowBs,
}

impl RecordedMode {
    /// The recorded ANSI mode numbered `mode`, if any.
    pub fn ansi(mode: u16) -> Option<RecordedMode> {
        Some(match mode {
            2 => RecordedMode::Kam,
            12 => RecordedMode::Srm,
            _ => return None,
        })
    }

    /// The recorded DEC private mode numbered `mode`, if any.
    pub fn private(mode: u16) -> Option<RecordedMode> {
        Some(match mode {
            4 => RecordedMode::SmoothScroll,
            5 => RecordedMode::ReverseVideo,
            18 => RecordedMode::PrintFormFeed,
            19 => RecordedMode::PrintExtent,
            35 => RecordedMode::FontShift,
            42 => RecordedMode::National,
            67 => RecordedMode::BackarrowBs,
            _ => return None,
        })
    }

    fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// The set of [`RecordedMode`]s that are on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RecordedModes(u16);

impl Default for RecordedModes {
    /// xterm 379's power-on state: SRM and font shifting set, the rest reset.
    fn default() -> Self {
        RecordedModes(RecordedMode::Srm.bit() | RecordedMode::FontShift.bit())
    }
}

impl RecordedModes {
    pub fn get(self, mode: RecordedMode) -> bool {
        self.0 & mode.bit() != 0
    }

    pub fn set(&mut self, mode: RecordedMode, on: bool) {
        if on {
            self.0 |= mode.bit();
        } else {
            self.0 &= !mode.bit();
        }
    }
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
    /// ?2027: a grapheme cluster (ZWJ sequence, flag, keycap, skin tone) is one cell
    /// of its cluster's width; off, each code point takes its wcwidth. See
    /// `docs/CONFORMANCE.md`.
    #[serde(default)]
    pub grapheme_clusters: bool,
    /// The active screen's kitty keyboard protocol flags (`model::kitty`).
    #[serde(default)]
    pub keyboard_flags: u8,
    /// S8C1T (or DECSCL with 8-bit controls): replies and the keys' escape sequences start
    /// with 8-bit C1 controls (CSI 0x9B, SS3 0x8F, ...), as xterm sends them.
    #[serde(default)]
    pub eight_bit_controls: bool,
    /// Modes recorded for DECRQM but not acted on.
    #[serde(default)]
    pub recorded: RecordedModes,
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
            grapheme_clusters: false,
            keyboard_flags: 0,
            eight_bit_controls: false,
            recorded: RecordedModes::default(),
        }
    }
}

/// DECRQM answer values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModeReport {
    NotRecognized = 0,
    Set = 1,
    Reset = 2,
    PermanentlySet = 3,
    PermanentlyReset = 4,
}

/// ANSI modes xterm 379 answers DECRQM for that tern cannot switch, always off: GATM,
/// CRM, SRTM, VEM, HEM, PUM and 13..19 (FEAM .. TSM). xterm itself reports CRM as
/// switchable; tern refuses to show controls. (KAM and SRM are [`RecordedMode`]s.)
const ANSI_PERMANENTLY_RESET: &[u16] = &[1, 3, 5, 7, 10, 11, 13, 14, 15, 16, 17, 18, 19];

/// DEC private modes xterm 379 answers that tern does not implement, so they are always
/// off: auto-repeat (8), xterm's blink resources (13), scrollbar (30), Tektronix (38),
/// margin bell (44), logging (46), horizontal cursor coupling (60,
/// which xterm does not know; esctest expects it permanently reset), sixel (80, 1070,
/// 8452), highlight mouse (1001), scroll-to-bottom resources (1010, 1011), pixel mouse
/// (1016), xterm's meta, alt and keyboard-emulation resources (1034..1044,
/// 1050..1061) and the readline/paste extensions (2001..2003, 2005, 2006). (Smooth
/// scroll, reverse video, the printer modes, font shifting, NRCS and backarrow are
/// [`RecordedMode`]s.)
const PRIVATE_PERMANENTLY_RESET: &[u16] = &[
    8, 13, 30, 38, 44, 46, 60, 80, 1001, 1010, 1011, 1016, 1034, 1035, 1036, 1037, 1039, 1040,
    1041, 1042, 1043, 1044, 1050, 1051, 1052, 1053, 1060, 1061, 1070, 2001, 2002, 2003, 2005, 2006,
    8452,
];

/// DEC private modes that are always on in tern: ANSI (not VT52) mode (2), xterm's
/// cursor-blink XOR (14, permanent in xterm too) and switching to the alternate screen
/// being allowed (1046).
const PRIVATE_PERMANENTLY_SET: &[u16] = &[2, 14, 1046];

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
        if let Some(recorded) = RecordedMode::ansi(mode) {
            return ModeReport::of(self.recorded.get(recorded));
        }
        match mode {
            4 => ModeReport::of(self.insert),
            20 => ModeReport::of(self.newline),
            m if ANSI_PERMANENTLY_RESET.contains(&m) => ModeReport::PermanentlyReset,
            _ => ModeReport::NotRecognized,
        }
    }

    /// The state of DEC private mode `mode` for DECRQM (`CSI ? Ps $ p`).
    pub fn report_private(&self, mode: u16) -> ModeReport {
        if let Some(recorded) = RecordedMode::private(mode) {
            return ModeReport::of(self.recorded.get(recorded));
        }
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
            // xterm answers "set" for the save-cursor mode whatever was done with it.
            1048 => ModeReport::Set,
            2004 => ModeReport::of(self.bracketed_paste),
            2026 => ModeReport::of(self.synchronized_output),
            2027 => ModeReport::of(self.grapheme_clusters),
            m if PRIVATE_PERMANENTLY_SET.contains(&m) => ModeReport::PermanentlySet,
            m if PRIVATE_PERMANENTLY_RESET.contains(&m) => ModeReport::PermanentlyReset,
            _ => ModeReport::NotRecognized,
        }
    }
}
