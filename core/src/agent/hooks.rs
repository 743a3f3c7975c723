//! An agent's hook input, read into the [`AgentReport`] `tern msg agent-event` sends.
//!
//! **Claude Code** runs each configured hook command with one JSON object on stdin:
//! `session_id`, `transcript_path`, `cwd`, `hook_event_name` and the event's own
//! fields. tern reads:
//!
//! | event | state | reason | conversation |
//! |---|---|---|---|
//! | `SessionStart` | idle (at its prompt) | | `session_id` |
//! | `UserPromptSubmit`, `PostToolUse` | running | | `session_id` |
//! | `PermissionRequest` | waiting | "Allow `tool_name`?" | `session_id` |
//! | `Notification`, `notification_type` `permission_prompt`, `worker_permission_prompt`, `elicitation_dialog`, `elicitation_url_dialog` or none | waiting | `message` | `session_id` |
//! | `Notification`, any other type (`idle_prompt`, `auth_success`, …) | (unchanged) | | |
//! | `Stop` | done | | `session_id` |
//! | `SessionEnd` | cleared | | ended |
//!
//! (Claude Code 2.1.197, read in its binary: `PermissionRequest` fires when the dialog
//! shows, `Notification` `permission_prompt` only after 6 s without input, and
//! `idle_prompt` 60 s after a turn ended, when the pane is done already.)
//!
//! **Codex** runs its `notify` program with the JSON as its last argument: `type`
//! (`agent-turn-complete`), `thread-id`, `turn-id`, `cwd`, `input-messages`,
//! `last-assistant-message`. A finished turn is done, in conversation `thread-id`.
//!
//! Input is untrusted: at most [`MAX_HOOK_INPUT_BYTES`], anything that is not such an
//! object is `None` (the hook command then does nothing, silently).

use serde_json::Value;

use super::{AgentKind, AgentReport, AgentSession, SessionNews, clean_reason};
use crate::pipeline::activity::{ActivitySource, ActivityState};

/// The most hook input read (Claude's prompts and Codex's messages can be long; what
/// tern needs is small).
pub const MAX_HOOK_INPUT_BYTES: usize = 1 << 20;

/// What changed, read from one hook's input. `Ok(None)`: an event that changes
/// nothing tern shows (kept apart from input that is not a hook's).
pub fn read(agent: Option<AgentKind>, input: &[u8]) -> Result<Option<AgentReport>, String> {
    if input.len() > MAX_HOOK_INPUT_BYTES {
        return Err(format!("hook input over {MAX_HOOK_INPUT_BYTES} bytes"));
    }
    let value: Value =
        serde_json::from_slice(input).map_err(|e| format!("hook input is not JSON: {e}"))?;
    let Value::Object(_) = value else {
        return Err("hook input is not a JSON object".to_owned());
    };
    let agent = match agent {
        Some(a) => a,
        None if value.get("hook_event_name").is_some() => AgentKind::Claude,
        None if value.get("type").is_some() => AgentKind::Codex,
        None => return Err("hook input names no event".to_owned()),
    };
    match agent {
        AgentKind::Claude => claude(&value),
        AgentKind::Codex => codex(&value),
    }
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

fn report(
    state: Option<ActivityState>,
    reason: Option<&str>,
    session: SessionNews,
) -> Option<AgentReport> {
    Some(AgentReport {
        state,
        reason: reason.and_then(clean_reason),
        via: ActivitySource::Hook,
        session,
    })
}

fn claude(value: &Value) -> Result<Option<AgentReport>, String> {
    let event = text(value, "hook_event_name").ok_or("no hook_event_name")?;
    let session = text(value, "session_id")
        .and_then(|id| AgentSession::new(AgentKind::Claude, id))
        .map_or(SessionNews::None, SessionNews::Current);
    Ok(match event {
        "SessionStart" => report(Some(ActivityState::Idle), None, session),
        "UserPromptSubmit" | "PostToolUse" => report(Some(ActivityState::Running), None, session),
        "PermissionRequest" => {
            let reason = text(value, "tool_name").map(|t| format!("Allow {t}?"));
            report(
                Some(ActivityState::Waiting),
                reason.as_deref().or(Some("needs your permission")),
                session,
            )
        }
        "Notification" => match text(value, "notification_type") {
            None
            | Some(
                "permission_prompt"
                | "worker_permission_prompt"
                | "elicitation_dialog"
                | "elicitation_url_dialog",
            ) => report(
                Some(ActivityState::Waiting),
                text(value, "message").or(Some("needs your attention")),
                session,
            ),
            // Informational: the agent does not stop for the user.
            Some(_) => None,
        },
        "Stop" => report(Some(ActivityState::Done), None, session),
        "SessionEnd" => report(None, None, SessionNews::Ended),
        _ => None,
    })
}

fn codex(value: &Value) -> Result<Option<AgentReport>, String> {
    let kind = text(value, "type").ok_or("no type")?;
    let session = text(value, "thread-id")
        .and_then(|id| AgentSession::new(AgentKind::Codex, id))
        .map_or(SessionNews::None, SessionNews::Current);
    Ok(match kind {
        "agent-turn-complete" => report(Some(ActivityState::Done), None, session),
        // Codex names approvals in its TUI notifications; should its `notify` ever
        // carry them, they wait.
        "approval-requested" => report(
            Some(ActivityState::Waiting),
            text(value, "message").or(Some("approval requested")),
            session,
        ),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = "abc123de-0000-4000-8000-00000000beef";

    fn claude_event(json: &str) -> Option<AgentReport> {
        read(None, json.as_bytes()).expect("read")
    }

    #[test]
    fn claude_code_events_become_states() {
        let base = format!(r#""session_id":"{SESSION}","transcript_path":"/t.jsonl","cwd":"/w""#);
        let start = claude_event(&format!(
            r#"{{{base},"hook_event_name":"SessionStart","source":"startup"}}"#
        ))
        .unwrap();
        assert_eq!(start.state, Some(ActivityState::Idle));
        assert_eq!(
            start.session,
            SessionNews::Current(AgentSession::new(AgentKind::Claude, SESSION).unwrap())
        );
        let ask = claude_event(&format!(
            r#"{{{base},"hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}}"#
        ))
        .unwrap();
        assert_eq!(ask.state, Some(ActivityState::Waiting));
        assert_eq!(
            ask.reason.as_deref(),
            Some("Claude needs your permission to use Bash")
        );
        let idle = claude_event(&format!(
            r#"{{{base},"hook_event_name":"Notification","message":"Claude is waiting for your input","notification_type":"idle_prompt"}}"#
        ));
        assert_eq!(idle, None);
        let stop = claude_event(&format!(
            r#"{{{base},"hook_event_name":"Stop","stop_hook_active":false}}"#
        ))
        .unwrap();
        assert_eq!(stop.state, Some(ActivityState::Done));
        let end = claude_event(&format!(
            r#"{{{base},"hook_event_name":"SessionEnd","reason":"prompt_input_exit"}}"#
        ))
        .unwrap();
        assert_eq!((end.state, end.session), (None, SessionNews::Ended));
        let prompt = claude_event(&format!(
            r#"{{{base},"hook_event_name":"UserPromptSubmit","prompt":"fix it"}}"#
        ))
        .unwrap();
        assert_eq!(prompt.state, Some(ActivityState::Running));
        let permission = claude_event(&format!(
            r#"{{{base},"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{{"command":"rm -rf build"}}}}"#
        ))
        .unwrap();
        assert_eq!(
            (permission.state, permission.reason.as_deref()),
            (Some(ActivityState::Waiting), Some("Allow Bash?"))
        );
    }

    #[test]
    fn a_codex_turn_complete_is_done_in_its_thread() {
        let json = r#"{"type":"agent-turn-complete","thread-id":"b5f6c1e2-1111-2222-3333-444455556666","turn-id":"12345","cwd":"/w","input-messages":["Rename foo"],"last-assistant-message":"Renamed."}"#;
        let r = read(Some(AgentKind::Codex), json.as_bytes())
            .unwrap()
            .unwrap();
        assert_eq!(r.state, Some(ActivityState::Done));
        assert_eq!(
            r.session,
            SessionNews::Current(
                AgentSession::new(AgentKind::Codex, "b5f6c1e2-1111-2222-3333-444455556666")
                    .unwrap()
            )
        );
    }

    #[test]
    fn bad_input_is_refused_not_acted_on() {
        assert!(read(None, b"not json").is_err());
        assert!(read(None, b"[1,2]").is_err());
        assert!(read(None, b"{}").is_err());
        let huge = vec![b' '; MAX_HOOK_INPUT_BYTES + 1];
        assert!(read(None, &huge).is_err());
        // An unknown event changes nothing; a session id that is not safe is dropped.
        assert_eq!(
            read(None, br#"{"hook_event_name":"PreCompact"}"#).unwrap(),
            None
        );
        let r = read(
            None,
            br#"{"hook_event_name":"Stop","session_id":"--dangerously-skip-permissions"}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(r.session, SessionNews::None);
        // A message full of escapes is cleaned and capped.
        let long = format!(
            r#"{{"hook_event_name":"Notification","message":"\u001b]0;x\u0007{}"}}"#,
            "m".repeat(5000)
        );
        let r = read(None, long.as_bytes()).unwrap().unwrap();
        let reason = r.reason.unwrap();
        assert!(
            !reason.contains('\u{1b}') && reason.chars().count() == super::super::MAX_REASON_CHARS
        );
    }
}
