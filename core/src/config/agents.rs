//! The config for agents: when notifications reach the desktop (per source), and
//! bindings that send text.

use serde::{Deserialize, Serialize};

use super::KeyChord;

/// When a program's notification is sent to the desktop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NotifyWhen {
    /// While tern's window is not focused, or the pane is not on screen.
    Unfocused,
    Always,
    Never,
}

/// Per source: OSC 9, OSC 777;notify, OSC 99, an agent's own report that it waits
/// (its hook, `tern msg set-status`) and BEL.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NotifyConfig {
    pub osc9: NotifyWhen,
    pub osc777: NotifyWhen,
    pub osc99: NotifyWhen,
    /// An agent's hook or `tern msg set-status` saying it waits for the user.
    pub agent: NotifyWhen,
    pub bell: NotifyWhen,
    /// At most one desktop notification per pane in this many milliseconds (the rest
    /// are counted and summed into the next one).
    pub min_interval_ms: u64,
}

impl Default for NotifyConfig {
    fn default() -> Self {
        NotifyConfig {
            osc9: NotifyWhen::Unfocused,
            osc777: NotifyWhen::Unfocused,
            osc99: NotifyWhen::Unfocused,
            agent: NotifyWhen::Unfocused,
            bell: NotifyWhen::Never,
            min_interval_ms: 5_000,
        }
    }
}

impl NotifyConfig {
    /// The setting for a notification's source.
    pub fn when(&self, source: crate::model::notify::NotifySource) -> NotifyWhen {
        use crate::model::notify::NotifySource;
        match source {
            NotifySource::Osc9 => self.osc9,
            NotifySource::Osc777 => self.osc777,
            NotifySource::Osc99 => self.osc99,
            NotifySource::Agent => self.agent,
        }
    }
}

/// A binding that types text into the focused pane (Alacritty's `chars`, kitty's
/// `send_text`, WezTerm's `SendString`). Escapes such as `\u{1b}` or `\r` are written
/// the RON way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SendText {
    /// One or more chords that send it.
    pub keys: Vec<KeyChord>,
    pub text: String,
}
