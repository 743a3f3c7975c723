//! An agent's own word about what it does, as programs print it:
//!
//! - **OSC 21337**, iTerm2's session status (iTerm2 3.7, `VT100Terminal.m`
//!   `executeSetTabStatus:`): `OSC 21337 ; status=TEXT ; indicator=COLOUR ;
//!   status-color=COLOUR ; detail=TEXT ST`. The payload splits at each unescaped `;`
//!   (`\;` is a `;`, `\\` a `\`), each token at its first `=`; keys may come in any
//!   order and unknown ones are skipped. Each sequence is an incremental update: a key
//!   that is absent leaves its value, a key with an empty value clears it. Codex prints
//!   it (`status=Working|Waiting|Idle`), and agent hook scripts write it.
//! - **OSC 7501**, Codex's own state line, printed to every terminal:
//!   `OSC 7501 ; state=idle|working|blocked|clear : app=NAME ST`.
//!
//! Text is data: [`super::notify::clean_text`] strips control and bidi characters, and
//! every value is capped.

use super::notify::clean_text;
use crate::model::palette::Rgb;

/// Most characters of a status or detail kept.
pub const MAX_DETAIL_CHARS: usize = 200;

/// What the agent says it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AgentState {
    /// It works on its own (`Working`, or any status text tern does not know:
    /// "Compiling").
    Working,
    /// It needs the user (`Waiting`; OSC 7501 `blocked`).
    Waiting,
    /// It has nothing to do (after work: done).
    Idle,
}

/// One key of an incremental update.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Update<T> {
    /// Absent: the value stays.
    #[default]
    Keep,
    /// Present and empty: the value goes.
    Clear,
    Set(T),
}

impl<T: Clone> Update<T> {
    /// The value after this update, given the one before.
    pub fn over(&self, before: Option<T>) -> Option<T> {
        match self {
            Update::Keep => before,
            Update::Clear => None,
            Update::Set(v) => Some(v.clone()),
        }
    }
}

/// Which sequence reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusSequence {
    Osc21337,
    Osc7501,
}

/// One status report: each key's update.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentStatus {
    pub sequence: StatusSequence,
    pub state: Update<AgentState>,
    /// What it does or why it waits, in its words (`detail=`, else the status text
    /// when tern reads that as "working").
    pub detail: Update<String>,
    /// The colour its mark asks for (`indicator=`).
    pub indicator: Update<Rgb>,
}

impl AgentStatus {
    fn new(sequence: StatusSequence) -> AgentStatus {
        AgentStatus {
            sequence,
            state: Update::Keep,
            detail: Update::Keep,
            indicator: Update::Keep,
        }
    }
}

/// OSC 21337's payload (everything after `21337;`, as the parser joined it back).
/// `None` when no token names a key tern reads.
pub fn parse_21337(payload: &[u8]) -> Option<AgentStatus> {
    let mut status = AgentStatus::new(StatusSequence::Osc21337);
    let mut known = false;
    let mut status_text = None;
    for token in unescaped_tokens(payload) {
        let (key, value) = match token.split_once('=') {
            Some((k, v)) => (k.trim().to_ascii_lowercase(), v.to_owned()),
            None => (token.trim().to_ascii_lowercase(), String::new()),
        };
        match key.as_str() {
            "status" => {
                known = true;
                let text = clean(&value);
                status.state = match text.as_deref().map(str::to_ascii_lowercase) {
                    None => Update::Clear,
                    Some(t) if t.starts_with("wait") => Update::Set(AgentState::Waiting),
                    Some(t) if t.starts_with("idle") => Update::Set(AgentState::Idle),
                    Some(t) => {
                        // "Working…", or a program's own word for it.
                        if !t.starts_with("work") {
                            status_text = text.clone();
                        }
                        Update::Set(AgentState::Working)
                    }
                };
            }
            "detail" => {
                known = true;
                status.detail = match clean(&value) {
                    Some(d) => Update::Set(d),
                    None => Update::Clear,
                };
            }
            "indicator" => {
                known = true;
                status.indicator = if value.trim().is_empty() {
                    Update::Clear
                } else {
                    // An unparsable colour leaves the field as it was (iTerm2).
                    colour(value.trim()).map_or(Update::Keep, Update::Set)
                };
            }
            _ => {}
        }
    }
    if let (Some(text), Update::Keep) = (status_text, &status.detail) {
        status.detail = Update::Set(text);
    }
    known.then_some(status)
}

/// OSC 7501's payload: `state=WORD` and `app=NAME`, separated by `:`.
pub fn parse_7501(payload: &[u8]) -> Option<AgentStatus> {
    let text = String::from_utf8_lossy(payload);
    let mut status = AgentStatus::new(StatusSequence::Osc7501);
    let mut app = None;
    for part in text.split(':') {
        match part.split_once('=') {
            Some(("state", v)) => {
                (status.state, status.detail) = match v.trim() {
                    "working" => (Update::Set(AgentState::Working), Update::Clear),
                    "blocked" => (Update::Set(AgentState::Waiting), Update::Keep),
                    "idle" => (Update::Set(AgentState::Idle), Update::Clear),
                    "clear" => (Update::Clear, Update::Clear),
                    _ => return None,
                }
            }
            Some(("app", v)) => app = clean(v),
            _ => {}
        }
    }
    if status.state == Update::Keep {
        return None;
    }
    if status.state == Update::Set(AgentState::Waiting) {
        let who = app.unwrap_or_else(|| "the agent".to_owned());
        status.detail = Update::Set(format!("{who} is waiting for you"));
    }
    Some(status)
}

/// The payload split at each unescaped `;`, with `\;` and `\\` read; a backslash
/// before anything else stays as it is. Bounded by the OSC cap on the input.
fn unescaped_tokens(payload: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(payload);
    let mut tokens = Vec::new();
    let mut token = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(';') => token.push(';'),
                Some('\\') => token.push('\\'),
                Some(other) => {
                    token.push('\\');
                    token.push(other);
                }
                None => token.push('\\'),
            },
            ';' => tokens.push(std::mem::take(&mut token)),
            c => token.push(c),
        }
    }
    tokens.push(token);
    tokens
}

fn clean(text: &str) -> Option<String> {
    clean_text(text, MAX_DETAIL_CHARS)
}

/// `#rgb`, `#rrggbb` or `rgb:r/g/b` (xterm's forms; no colour names: a mark's colour
/// is the agent's choice, not a lookup).
fn colour(value: &str) -> Option<Rgb> {
    let hex = value.strip_prefix('#');
    if hex.is_some_and(|h| !matches!(h.len(), 3 | 6)) {
        return None;
    }
    if hex.is_none() && !value.starts_with("rgb:") {
        return None;
    }
    Rgb::parse(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn osc(s: &str) -> Option<AgentStatus> {
        parse_21337(s.as_bytes())
    }

    #[test]
    fn status_detail_and_indicator_are_read_as_iterm2_writes_them() {
        let s =
            osc("status=Waiting;indicator=#5f87ff;status-color=;detail=Run cargo test").unwrap();
        assert_eq!(s.state, Update::Set(AgentState::Waiting));
        assert_eq!(s.detail, Update::Set("Run cargo test".into()));
        assert_eq!(s.indicator, Update::Set(Rgb::new(0x5f, 0x87, 0xff)));
        // Codex's form, and Claude Code's "Working…".
        let s = osc("status=Working;indicator=#ff9500;status-color=;detail=").unwrap();
        assert_eq!(
            (s.state, s.detail),
            (Update::Set(AgentState::Working), Update::Clear)
        );
        let s = osc("indicator=rgb:ff/95/00;status=Working\u{2026}").unwrap();
        assert_eq!(s.state, Update::Set(AgentState::Working));
        assert_eq!(s.indicator, Update::Set(Rgb::new(0xff, 0x95, 0)));
        assert_eq!(s.detail, Update::Keep);
    }

    #[test]
    fn an_update_keeps_absent_keys_and_clears_empty_ones() {
        let s = osc("detail=still going").unwrap();
        assert_eq!((s.state, s.indicator), (Update::Keep, Update::Keep));
        let s = osc("status=;indicator=;status-color=;detail=").unwrap();
        assert_eq!(
            (s.state, s.detail, s.indicator),
            (Update::Clear, Update::Clear, Update::Clear)
        );
        assert_eq!(osc(""), None);
        assert_eq!(osc("foo=bar;x"), None);
        // A colour that does not parse leaves the one before.
        assert_eq!(
            osc("status=Idle;indicator=red").unwrap().indicator,
            Update::Keep
        );
        assert_eq!(
            osc("status=Idle;indicator=#12").unwrap().indicator,
            Update::Keep
        );
    }

    #[test]
    fn escaped_semicolons_and_backslashes_stay_in_the_text_controls_do_not() {
        let s = osc("status=Waiting;detail=ran a\\; b \\\\ c \\x\x1b[31m").unwrap();
        assert_eq!(s.detail, Update::Set(r"ran a; b \ c \x[31m".into()));
        let s = osc("status=Waiting;detail=x\u{202E}y\u{7}z").unwrap();
        assert_eq!(s.detail, Update::Set("xyz".into()));
    }

    #[test]
    fn a_status_tern_does_not_know_is_working_and_says_so() {
        let s = osc("status=Compiling").unwrap();
        assert_eq!(s.state, Update::Set(AgentState::Working));
        assert_eq!(s.detail, Update::Set("Compiling".into()));
    }

    #[test]
    fn a_huge_detail_is_capped() {
        let s = osc(&format!("status=Waiting;detail={}", "d".repeat(100_000))).unwrap();
        let Update::Set(d) = s.detail else {
            panic!("no detail")
        };
        assert_eq!(d.chars().count(), MAX_DETAIL_CHARS);
    }

    #[test]
    fn codex_state_lines_are_read() {
        let s = parse_7501(b"state=blocked:app=codex").unwrap();
        assert_eq!(s.state, Update::Set(AgentState::Waiting));
        assert_eq!(s.detail, Update::Set("codex is waiting for you".into()));
        assert_eq!(
            parse_7501(b"state=working:app=codex").unwrap().state,
            Update::Set(AgentState::Working)
        );
        assert_eq!(parse_7501(b"state=clear").unwrap().state, Update::Clear);
        assert_eq!(parse_7501(b"state=dancing:app=codex"), None);
        assert_eq!(parse_7501(b"app=codex"), None);
    }
}
