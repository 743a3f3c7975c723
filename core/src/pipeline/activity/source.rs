//! Who says what a pane does: the sources in their order of trust, and the explicit
//! report an agent gives (its hook, OSC 21337 / 7501, `tern msg set-status`).

use super::ActivityState;
use crate::model::Rgb;

/// Who decided a pane's state, most trusted first (the order of trust).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ActivitySource {
    /// The agent's hooks (`tern msg agent-event`).
    Hook,
    /// OSC 21337 (iTerm2's session status), printed by the program.
    #[serde(rename = "osc-21337")]
    Osc21337,
    /// OSC 7501 (Codex's state line), printed by the program.
    #[serde(rename = "osc-7501")]
    Osc7501,
    /// `tern msg set-status`.
    SetStatus,
    /// A notification (OSC 9, 777, 99).
    Notification,
    /// OSC 9;4 progress.
    Progress,
    Bell,
    /// The shell's OSC 133 marks.
    ShellMarks,
    /// The screen asks a question.
    Screen,
    /// Output flowing, or quiet (no marks).
    Output,
    /// The program exited.
    Exit,
    /// Nothing has said anything yet.
    None,
}

/// An explicit report of what a pane's program does: the agent's own word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// `None` clears the pane's report (the other sources decide again).
    pub state: Option<ActivityState>,
    /// Why it waits, or what it does, in its words.
    pub reason: Option<String>,
    /// The colour its mark asks for.
    pub indicator: Option<Rgb>,
    /// Who said it: [`ActivitySource::Hook`], `Osc21337` or `SetStatus`.
    pub via: ActivitySource,
}
