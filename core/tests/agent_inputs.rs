//! What agents and programs send tern about themselves is untrusted input: OSC 21337 /
//! 7501 from any program, hook JSON from any process that can reach the socket. Seeded
//! property tests (CI runs a fixed seed; `PROPTEST_CASES=N` deepens a run and
//! `PROPTEST_RNG_SEED=S` picks another seed): nothing panics, what is kept is bounded and
//! free of control characters, and a session id is always one safe to pass as an
//! argument.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use tern_core::agent::{MAX_REASON_CHARS, SessionNews, hooks};
use tern_core::model::agent_status::{MAX_DETAIL_CHARS, Update};
use tern_core::model::{TermConfig, TermEvent, TermSize, Terminal};

fn config() -> Config {
    let mut c = Config::default();
    if matches!(c.rng_seed, RngSeed::Random) {
        c.rng_seed = RngSeed::Fixed(0x2133_7501);
    }
    c.failure_persistence = None;
    c
}

/// Pieces that steer random payloads into the status parser's states.
fn status_payload() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"status=".to_vec()),
        Just(b"detail=".to_vec()),
        Just(b"indicator=".to_vec()),
        Just(b"status-color=".to_vec()),
        Just(b"Working".to_vec()),
        Just(b"Waiting".to_vec()),
        Just(b"Idle".to_vec()),
        Just(b"#5f87ff".to_vec()),
        Just(b"rgb:ff/95/00".to_vec()),
        Just(b";".to_vec()),
        Just(b"\\".to_vec()),
        Just(b"\\;".to_vec()),
        Just(b":".to_vec()),
        Just(b"state=".to_vec()),
        Just(b"blocked".to_vec()),
        Just("\u{202E}\u{7}\u{1b}".as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..12),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|p| p.concat())
}

fn clean_text(text: &str) -> bool {
    !text.chars().any(|c| c.is_control())
}

/// A JSON object whose fields a hook reader looks at, with values of any type.
fn hook_json() -> impl Strategy<Value = Vec<u8>> {
    let key = prop_oneof![
        Just("hook_event_name"),
        Just("session_id"),
        Just("message"),
        Just("notification_type"),
        Just("tool_name"),
        Just("type"),
        Just("thread-id"),
        Just("prompt"),
    ];
    let value = prop_oneof![
        Just(serde_json::json!("SessionStart")),
        Just(serde_json::json!("Notification")),
        Just(serde_json::json!("PermissionRequest")),
        Just(serde_json::json!("Stop")),
        Just(serde_json::json!("SessionEnd")),
        Just(serde_json::json!("agent-turn-complete")),
        Just(serde_json::json!("permission_prompt")),
        Just(serde_json::json!(null)),
        Just(serde_json::json!(42)),
        Just(serde_json::json!(["a"])),
        ".{0,300}".prop_map(serde_json::Value::String),
    ];
    prop::collection::vec((key, value), 0..8).prop_map(|fields| {
        let map: serde_json::Map<String, serde_json::Value> =
            fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        serde_json::to_vec(&serde_json::Value::Object(map)).unwrap_or_default()
    })
}

proptest! {
    #![proptest_config(config())]

    /// Any OSC 21337 or 7501 a program prints: no panic, and a status whose texts are
    /// capped and clean. Catches a parser that keeps the raw detail or indexes past a
    /// trailing backslash.
    #[test]
    fn any_status_sequence_is_bounded_and_clean(payload in status_payload(), seven in any::<bool>()) {
        let mut term = Terminal::new(TermSize::new(40, 5), TermConfig::default());
        let code: &[u8] = if seven { b"7501" } else { b"21337" };
        let mut bytes = b"\x1b]".to_vec();
        bytes.extend_from_slice(code);
        bytes.push(b';');
        bytes.extend_from_slice(&payload);
        bytes.extend_from_slice(b"\x1b\\");
        term.advance(&bytes);
        for event in term.drain_events() {
            if let TermEvent::AgentStatus(s) = event
                && let Update::Set(d) = &s.detail
            {
                prop_assert!(d.chars().count() <= MAX_DETAIL_CHARS);
                prop_assert!(clean_text(d), "{d:?}");
            }
        }
    }

    /// Any bytes or JSON on a hook's stdin: no panic; a report's reason is capped and
    /// clean and its session id safe.
    #[test]
    fn any_hook_input_reads_to_a_bounded_report_or_none(
        json in hook_json(),
        raw in prop::collection::vec(any::<u8>(), 0..64),
        use_raw in any::<bool>(),
    ) {
        let input = if use_raw { raw } else { json };
        for agent in [None, Some(tern_core::agent::AgentKind::Claude), Some(tern_core::agent::AgentKind::Codex)] {
            if let Ok(Some(report)) = hooks::read(agent, &input) {
                if let Some(r) = &report.reason {
                    prop_assert!(r.chars().count() <= MAX_REASON_CHARS && clean_text(r), "{r:?}");
                }
                if let SessionNews::Current(s) = &report.session {
                    prop_assert!(tern_core::agent::AgentSession::new(s.agent, &s.id).is_some());
                }
                prop_assert!(report.clone().validated().is_ok());
            }
        }
    }
}
