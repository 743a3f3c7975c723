//! Agents speak for themselves: what their own reports mean to tern.
//!
//! - [`hooks`]: an agent's hook input (Claude Code's hook JSON on stdin, Codex's
//!   `notify` JSON argument) read into an [`AgentReport`], the report `tern msg
//!   agent-event` sends.
//! - [`setup`]: `tern agents setup claude|codex`, the agent's own configuration edited
//!   so that it reports to tern (merged into the user's file, undone exactly).
//!
//! OSC 21337 (the program's own status sequence) is the model's
//! ([`crate::model::agent_status`]); all three end in the pane's one activity state
//! ([`crate::pipeline::activity`]).

pub mod hooks;
pub mod setup;

use serde::{Deserialize, Serialize};

use crate::pipeline::activity::{ActivitySource, ActivityState, Report};

/// Most characters of a reason kept.
pub const MAX_REASON_CHARS: usize = 200;
/// Most bytes of a session id kept (Claude's and Codex's are UUIDs).
pub const MAX_SESSION_ID_BYTES: usize = 128;

/// The agents whose reports tern reads and whose configuration it can set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentKind {
    Claude,
    Codex,
}

impl AgentKind {
    /// The program's file name.
    pub fn program(self) -> &'static str {
        match self {
            AgentKind::Claude => "claude",
            AgentKind::Codex => "codex",
        }
    }

    /// The arguments that resume conversation `id` (`claude --resume ID`, `codex
    /// resume ID`).
    pub fn resume_args(self, id: &str) -> Vec<String> {
        match self {
            AgentKind::Claude => vec!["--resume".to_owned(), id.to_owned()],
            AgentKind::Codex => vec!["resume".to_owned(), id.to_owned()],
        }
    }
}

/// A conversation an agent reported (Claude's `session_id`, Codex's `thread-id`): a
/// restored tab resumes exactly this one.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AgentSession {
    pub agent: AgentKind,
    pub id: String,
}

impl AgentSession {
    /// A session whose id is safe to pass as an argument and to save: 1 to
    /// [`MAX_SESSION_ID_BYTES`] of ASCII letters, digits, `-`, `_` and `.`, not starting
    /// with `-` (it could read as a flag). `None` otherwise.
    pub fn new(agent: AgentKind, id: &str) -> Option<AgentSession> {
        let ok = !id.is_empty()
            && id.len() <= MAX_SESSION_ID_BYTES
            && !id.starts_with('-')
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        ok.then(|| AgentSession {
            agent,
            id: id.to_owned(),
        })
    }
}

/// What a report says about the agent's conversation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SessionNews {
    /// Nothing.
    #[default]
    None,
    /// The agent works in this conversation.
    Current(AgentSession),
    /// The agent's conversation ended (it exits).
    Ended,
}

/// One explicit report for a pane: its state (`None` clears it), why, who said it, and
/// the agent's conversation. What `tern msg agent-event` and `set-status` send.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentReport {
    pub state: Option<ActivityState>,
    #[serde(default)]
    pub reason: Option<String>,
    pub via: ActivitySource,
    #[serde(default)]
    pub session: SessionNews,
}

impl AgentReport {
    /// Checks a report from outside (a socket client): only the explicit sources a
    /// client may claim, no `exited` (the core's to say), the reason cleaned and
    /// capped, a session id that is safe.
    pub fn validated(mut self) -> Result<AgentReport, String> {
        if !matches!(self.via, ActivitySource::Hook | ActivitySource::SetStatus) {
            return Err("a report comes from a hook or set-status".to_owned());
        }
        if self.state == Some(ActivityState::Exited) {
            return Err("\"exited\" is not a state a program reports".to_owned());
        }
        self.reason = self.reason.as_deref().and_then(clean_reason);
        if let SessionNews::Current(s) = &self.session {
            self.session = match AgentSession::new(s.agent, &s.id) {
                Some(s) => SessionNews::Current(s),
                None => return Err("the session id is not one an agent gives".to_owned()),
            };
        }
        Ok(self)
    }

    /// The part the pane's activity keeps.
    pub fn activity(&self) -> Report {
        Report {
            state: self.state,
            reason: self.reason.clone(),
            indicator: None,
            via: self.via,
        }
    }
}

/// A reason as tern shows it: control and bidi characters dropped, at most
/// [`MAX_REASON_CHARS`]; `None` when nothing is left.
pub fn clean_reason(text: &str) -> Option<String> {
    crate::model::notify::clean_text(text, MAX_REASON_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_must_be_safe_to_pass_as_an_argument() {
        let uuid = "0d5c7b0e-4a8b-4f7e-9b1a-7c2e3f4a5b6c";
        assert!(AgentSession::new(AgentKind::Claude, uuid).is_some());
        for bad in ["", "-rf", "a b", "a;b", "x/../y", &"a".repeat(129), "é"] {
            assert_eq!(AgentSession::new(AgentKind::Claude, bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_client_cannot_claim_what_only_tern_says() {
        let report = |via, state| AgentReport {
            state,
            reason: Some("\x1b[31mhi\u{202E}".into()),
            via,
            session: SessionNews::None,
        };
        let ok = report(ActivitySource::Hook, Some(ActivityState::Waiting));
        assert_eq!(ok.validated().unwrap().reason.as_deref(), Some("[31mhi"));
        assert!(report(ActivitySource::Osc21337, None).validated().is_err());
        assert!(report(ActivitySource::Screen, None).validated().is_err());
        let exited = report(ActivitySource::SetStatus, Some(ActivityState::Exited));
        assert!(exited.validated().is_err());
        let mut bad_id = report(ActivitySource::Hook, None);
        bad_id.session = SessionNews::Current(AgentSession {
            agent: AgentKind::Codex,
            id: "--last".into(),
        });
        assert!(bad_id.validated().is_err());
    }
}
