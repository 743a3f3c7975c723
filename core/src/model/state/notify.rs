//! Notifications and progress from programs: OSC 9 (iTerm2's notify), OSC 9;4
//! (ConEmu's progress, as Windows Terminal and Ghostty read it), OSC 777;notify (rxvt's)
//! and OSC 99 (kitty's, in parts). Text is data: control and bidi characters are
//! stripped and every part is capped, so a program cannot forge the desktop's UI.

use super::State;
use crate::model::TermEvent;

/// Most characters of a notification's title or body.
pub const MAX_NOTIFY_CHARS: usize = 1024;
/// Most bytes an OSC 99 id keeps.
pub const MAX_NOTIFY_ID_BYTES: usize = 64;

/// Which escape sequence asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NotifySource {
    /// OSC 9 ; body
    Osc9,
    /// OSC 777 ; notify ; title ; body
    Osc777,
    /// OSC 99 ; metadata ; payload
    Osc99,
    /// An agent's report that it waits (its hook, `tern msg set-status`).
    Agent,
}

/// How urgent (OSC 99's `u=`; the others are normal).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Urgency {
    Low,
    #[default]
    Normal,
    Critical,
}

/// A finished notification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    pub source: NotifySource,
    pub title: String,
    pub body: String,
    pub urgency: Urgency,
    /// OSC 99's `i=`: a later notification with the same id replaces this one.
    pub id: Option<String>,
    /// How many notifications this one stands for (those before it in the same read
    /// are merged into it, its text kept): 1 for one.
    pub count: u32,
}

impl Notification {
    pub fn new(source: NotifySource, title: &str, body: &str) -> Notification {
        Notification {
            source,
            title: sanitize(title),
            body: sanitize(body),
            urgency: Urgency::Normal,
            id: None,
            count: 1,
        }
    }
}

/// OSC 9;4 progress states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ProgressState {
    /// 0: no progress (the bar goes away).
    Hidden,
    /// 1: running, with a percentage.
    Normal,
    /// 2: failed.
    Error,
    /// 3: busy, no percentage.
    Indeterminate,
    /// 4: paused (waiting).
    Paused,
}

/// A progress report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    pub state: ProgressState,
    /// 0..=100 where the state has one.
    pub percent: Option<u8>,
}

fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
    )
}

/// Drops control and bidi-override characters (a newline or tab becomes a space) and
/// caps the length.
pub fn sanitize(text: &str) -> String {
    text.chars()
        .filter_map(|c| match c {
            '\n' | '\t' | '\r' => Some(' '),
            c if c.is_control() || is_bidi_control(c) => None,
            c => Some(c),
        })
        .take(MAX_NOTIFY_CHARS)
        .collect::<String>()
        .trim()
        .to_owned()
}

/// [`sanitize`]d and cut to `max` characters; `None` when nothing is left (an agent's
/// status, detail or reason).
pub fn clean_text(text: &str, max: usize) -> Option<String> {
    let text: String = sanitize(text).chars().take(max).collect();
    (!text.is_empty()).then_some(text)
}

/// OSC 9;4;state;percent. Anything malformed is ignored.
pub fn parse_progress(params: &[&[u8]]) -> Option<Progress> {
    let num = |i: usize| -> Option<u16> {
        let p = params.get(i)?;
        if p.is_empty() {
            return Some(0);
        }
        std::str::from_utf8(p).ok()?.parse::<u16>().ok()
    };
    let state_param = match params.get(2) {
        None => Some(0),
        Some(_) => num(2),
    };
    let state = match state_param? {
        0 => ProgressState::Hidden,
        1 => ProgressState::Normal,
        2 => ProgressState::Error,
        3 => ProgressState::Indeterminate,
        4 => ProgressState::Paused,
        _ => return None,
    };
    let percent = match state {
        ProgressState::Hidden | ProgressState::Indeterminate => None,
        // Error and paused keep a percentage when one is given.
        _ => num(3).map(|p| p.min(100) as u8),
    };
    Some(Progress { state, percent })
}

/// An OSC 99 notification being received in parts (`d=0`).
#[derive(Clone, Debug, Default)]
pub struct PendingNotification {
    id: Option<String>,
    title: String,
    body: String,
    urgency: Urgency,
}

impl PendingNotification {
    pub fn heap_bytes(&self) -> usize {
        self.title.capacity() + self.body.capacity() + self.id.as_ref().map_or(0, String::capacity)
    }
}

fn push_capped(to: &mut String, text: &str) {
    let room = MAX_NOTIFY_CHARS.saturating_sub(to.chars().count());
    to.extend(text.chars().take(room));
}

/// OSC 99 ; key=value:key=value ; payload.
pub fn osc99(st: &mut State, params: &[&[u8]]) {
    let meta = params.get(1).copied().unwrap_or(b"");
    let payload = super::osc_params::joined(params, 2);
    let mut id = None;
    let mut done = true;
    let mut part_is_title = true;
    let mut base64 = false;
    let mut urgency = None;
    for kv in meta.split(|b| *b == b':') {
        let Some(eq) = kv.iter().position(|b| *b == b'=') else {
            continue;
        };
        let (key, value) = (&kv[..eq], &kv[eq + 1..]);
        match key {
            b"i" => {
                let v: String = String::from_utf8_lossy(value)
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '.'))
                    .collect();
                id = Some(v).filter(|v| !v.is_empty() && v.len() <= MAX_NOTIFY_ID_BYTES);
            }
            b"d" => done = value != b"0",
            b"p" => match value {
                b"title" => part_is_title = true,
                b"body" => part_is_title = false,
                // Icons, buttons, queries: not shown; the part is skipped.
                _ => return,
            },
            b"e" => base64 = value == b"1",
            b"u" => {
                urgency = Some(match value {
                    b"0" => Urgency::Low,
                    b"2" => Urgency::Critical,
                    _ => Urgency::Normal,
                })
            }
            _ => {}
        }
    }
    let text = if base64 {
        use base64::Engine as _;
        match base64::engine::general_purpose::STANDARD.decode(payload.trim()) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(_) => return,
        }
    } else {
        payload
    };
    // A part with another id starts afresh (the spec lets one stream replace another).
    let pending = st.notify_pending.get_or_insert_with(Default::default);
    if pending.id != id {
        *pending = PendingNotification {
            id: id.clone(),
            ..Default::default()
        };
    }
    if part_is_title {
        push_capped(&mut pending.title, &text);
    } else {
        push_capped(&mut pending.body, &text);
    }
    if let Some(u) = urgency {
        pending.urgency = u;
    }
    if !done {
        return;
    }
    let Some(p) = st.notify_pending.take() else {
        return;
    };
    let mut n = Notification::new(NotifySource::Osc99, &p.title, &p.body);
    n.urgency = p.urgency;
    n.id = p.id;
    if !(n.title.is_empty() && n.body.is_empty()) {
        st.events.push(TermEvent::Notification(n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_strips_controls_and_bidi_overrides() {
        assert_eq!(sanitize("a\x1b[31mb\u{202E}c\u{2066}d\x07"), "a[31mbcd");
        assert_eq!(sanitize("two\nlines\r"), "two lines");
        assert_eq!(sanitize(&"x".repeat(5000)).len(), MAX_NOTIFY_CHARS);
    }

    #[test]
    fn progress_states_and_percent() {
        let p = |s: &str| {
            let parts: Vec<&[u8]> = s.split(';').map(str::as_bytes).collect();
            parse_progress(&parts)
        };
        assert_eq!(
            p("9;4;1;42"),
            Some(Progress {
                state: ProgressState::Normal,
                percent: Some(42)
            })
        );
        assert_eq!(p("9;4;1;420").and_then(|p| p.percent), Some(100));
        assert_eq!(p("9;4;0").map(|p| p.state), Some(ProgressState::Hidden));
        assert_eq!(p("9;4;2;10").map(|p| p.state), Some(ProgressState::Error));
        assert_eq!(p("9;4;3").map(|p| p.percent), Some(None));
        assert_eq!(p("9;4;4;70").map(|p| p.state), Some(ProgressState::Paused));
        assert_eq!(p("9;4;9;1"), None);
        assert_eq!(p("9;4;x"), None);
    }
}
