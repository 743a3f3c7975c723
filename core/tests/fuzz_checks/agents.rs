//! The checks behind the `agent_status` and `hooks` fuzz targets
//! (`fuzz/fuzz_targets/`), replayed over `tests/fuzz-corpus/{agent_status,hooks}/` by
//! `fuzz_regressions.rs`.
//!
//! - `agent_status`: one header byte (even: OSC 21337, odd: OSC 7501; bit 1: terminated
//!   by BEL, else ST), then the payload. The payload is parsed directly and inside a
//!   model (`ESC ] code ; payload terminator`, then the same split in two reads at the
//!   header's position). Checks: no panic; a detail at most `MAX_DETAIL_CHARS` with no
//!   control character; the model's facts are the same whichever way the bytes came.
//! - `hooks`: one header byte (0: auto, 1: Claude, 2: Codex, by the byte mod 3), then the
//!   hook's input. Checks: no panic; a report's reason at most `MAX_REASON_CHARS` with no
//!   control character, a session id safe to pass as an argument, and every report one
//!   the socket would accept (`AgentReport::validated`).

use tern_core::agent::{AgentKind, AgentSession, MAX_REASON_CHARS, SessionNews, hooks};
use tern_core::model::agent_status::{MAX_DETAIL_CHARS, Update, parse_7501, parse_21337};
use tern_core::model::{TermConfig, TermEvent, TermSize, Terminal};

fn clean(text: &str, cap: usize) -> bool {
    text.chars().count() <= cap && !text.chars().any(char::is_control)
}

fn statuses(term: &mut Terminal) -> Vec<String> {
    term.drain_events()
        .filter_map(|e| match e {
            TermEvent::AgentStatus(s) => Some(format!("{s:?}")),
            _ => None,
        })
        .collect()
}

pub fn agent_status(data: &[u8]) {
    let Some((&header, payload)) = data.split_first() else {
        return;
    };
    let seven = header % 2 == 1;
    let parsed = if seven {
        parse_7501(payload)
    } else {
        parse_21337(payload)
    };
    if let Some(s) = parsed
        && let Update::Set(d) = &s.detail
    {
        assert!(clean(d, MAX_DETAIL_CHARS), "detail {d:?}");
    }
    let mut bytes = b"\x1b]".to_vec();
    bytes.extend_from_slice(if seven { b"7501;" } else { b"21337;" });
    bytes.extend_from_slice(payload);
    bytes.extend_from_slice(if header & 2 == 0 { b"\x1b\\" } else { b"\x07" });
    let size = TermSize::new(20, 4);
    let mut whole = Terminal::new(size, TermConfig::default());
    whole.advance(&bytes);
    let at = usize::from(header) % bytes.len().max(1);
    let mut split = Terminal::new(size, TermConfig::default());
    split.advance(&bytes[..at]);
    split.advance(&bytes[at..]);
    assert_eq!(statuses(&mut whole), statuses(&mut split), "split at {at}");
}

pub fn hooks(data: &[u8]) {
    let Some((&header, input)) = data.split_first() else {
        return;
    };
    let agent = match header % 3 {
        1 => Some(AgentKind::Claude),
        2 => Some(AgentKind::Codex),
        _ => None,
    };
    let Ok(Some(report)) = hooks::read(agent, input) else {
        return;
    };
    if let Some(r) = &report.reason {
        assert!(clean(r, MAX_REASON_CHARS), "reason {r:?}");
    }
    if let SessionNews::Current(s) = &report.session {
        assert!(AgentSession::new(s.agent, &s.id).is_some(), "session {s:?}");
    }
    assert!(report.clone().validated().is_ok(), "{report:?}");
}
