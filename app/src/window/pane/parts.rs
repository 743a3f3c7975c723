//! A pane's parts, each a small state of its own (issue 44: no type of more than ~12
//! fields): what its program said of itself, its size, what it asks the app to do
//! once drawn, its keys' timing, the pointer and keyboard state, its modes, and the
//! settings it is given every frame.

use std::time::Instant;

use tern_core::input::MouseButton;
use tern_core::model::TermSize;

use super::super::search::SearchBar;
use super::{PageHold, clip, copy, found, selection};

/// What the pane's program said of itself.
#[derive(Default)]
pub struct Program {
    /// Prompts and the last command's output (OSC 133), for prompt jumps and "copy
    /// last output".
    pub marks: tern_core::model::marks::PromptMarks,
    /// Why the pane shows no live program: its exit status, or an error.
    pub exited: Option<String>,
}

/// The pane's size: what the model and pty were given, where it was drawn, what fits.
#[derive(Default)]
pub(super) struct Size {
    /// The size the model and the pty were last given.
    pub grid: Option<TermSize>,
    /// Where the pane was last drawn, and the grid that fits there.
    pub rect: Option<egui::Rect>,
    pub fits: Option<TermSize>,
    pub page_hold: Option<PageHold>,
    /// A tmux pane: its size is tmux's layout cell (the core sets it), never the
    /// rectangle's.
    pub remote: bool,
    /// The cell size in physical pixels the model was last told (`images.rs`).
    pub cell_px: Option<(u16, u16)>,
}

/// What the pane's input asked — bytes typed, pasted or reported (mouse), a new size,
/// copies, links, an editor, a search everywhere — queued and carried out at one point
/// (`PaneUi::apply_output`): typed input right after the pane's input is read and
/// before it is painted (so the frame that wrote a key can show its echo), the rest by
/// the app once the panes are drawn.
#[derive(Default)]
pub(super) struct Asks {
    pub out: Vec<u8>,
    pub out_resize: Option<TermSize>,
    /// Text copied (the app puts it on the clipboard once the panes are drawn), and
    /// copies waiting for history lines (`clip.rs`).
    pub copied: Vec<clip::Copied>,
    pub copy_jobs: Vec<clip::CopyJob>,
    /// Links to open (checked when asked for).
    pub links_out: Vec<String>,
    /// A hint asked for the editor at a line: (folder, command) for a new tab.
    pub edit_request: Option<(std::path::PathBuf, Vec<String>)>,
    /// The search bar's ask to search everywhere for its query.
    pub everywhere_request: Option<(String, bool)>,
    /// Events for the trace (`TERN_TRACE`) from parts that have none (input, hints),
    /// written at the end of the pane's frame; kept only while tracing, at most
    /// `paint::TRACE_NOTES_MAX`.
    pub trace_notes: Vec<(&'static str, String)>,
}

/// When keys, deliveries and reveals happened (the echo wait and the key trace).
pub(super) struct Timing {
    /// Keys waiting for the frame that shows their echo: (seq before, received at).
    pub pending_keys: Vec<(u64, Instant)>,
    /// When the user last typed: the blinking cursor restarts its phase (shown) then.
    pub last_key_at: Instant,
    /// When the model thread built the last snapshot this pane took.
    pub snapshot_built_at: Option<Instant>,
    /// The last delivered frame's pty read and build times (the key trace).
    pub delivered_at: Option<(Option<Instant>, Instant)>,
    /// The program echoes keys at once: a frame that wrote a key waits for the echo
    /// (`ECHO_WAIT`). Cleared when a wait runs out, set when output follows a key
    /// within `ECHO_SEEN_WITHIN`.
    pub echoes: bool,
    /// A key was written to the program in this frame.
    pub key_this_frame: bool,
    /// When the pane was last revealed, until a frame shows it (for the trace).
    pub revealed_at: Option<Instant>,
}

impl Timing {
    pub fn new() -> Timing {
        Timing {
            pending_keys: Vec::new(),
            last_key_at: Instant::now(),
            snapshot_built_at: None,
            delivered_at: None,
            echoes: true,
            key_this_frame: false,
            revealed_at: None,
        }
    }
}

/// The pointer's and the keyboard's state between events.
#[derive(Default)]
pub(super) struct Input {
    /// Mouse button held for selection or reporting.
    pub dragging: Option<MouseButton>,
    /// Fractional wheel lines not yet scrolled.
    pub wheel_rest: f32,
    /// The selection as last checked (see `check_selection`).
    pub selection_guard: Option<selection::SelectionGuard>,
    /// An Alt combination was sent as a key: its text event (if any) must not follow.
    pub swallow_text: bool,
}

/// What the pane is in besides the program's screen: search, copy mode, hints, a paste
/// waiting for the user's go-ahead.
#[derive(Default)]
pub(super) struct Modes {
    pub search: Option<SearchBar>,
    /// A match search everywhere shows here (`found.rs`).
    pub found: Option<found::Found>,
    /// Copy mode's state, while it is on (keys go to it, not to the program).
    pub copy: Option<tern_core::text::copy_mode::CopyMode>,
    /// The last search's matches, for copy mode's `n`/`N`.
    pub copy_matches: Vec<tern_core::text::copy_mode::CopyPoint>,
    /// History lines copy mode read, and keys waiting for a page of it (`copy.rs`).
    pub copy_lines: copy::CopyLines,
    pub copy_wait: Option<copy::CopyWait>,
    /// The labelled matches, while hints are shown (keys go to them).
    pub hints: Option<tern_core::text::hints::HintPicker>,
    /// A multi-line paste waiting for the user's go-ahead (the program did not turn on
    /// bracketed paste, so each line would run as typed).
    pub pending_paste: Option<String>,
}

/// What takes the focused pane's keys, in this order (`Modes::keys_to`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum KeysTo {
    /// The question whether to send a multi-line paste.
    PasteQuestion,
    SearchBar,
    Hints,
    CopyMode,
    /// The program in the pane.
    Program,
}

impl Modes {
    /// What takes the pane's keys now.
    pub(super) fn keys_to(&self) -> KeysTo {
        if self.pending_paste.is_some() {
            KeysTo::PasteQuestion
        } else if self.search.is_some() {
            KeysTo::SearchBar
        } else if self.hints.is_some() {
            KeysTo::Hints
        } else if self.copy.is_some() {
            KeysTo::CopyMode
        } else {
            KeysTo::Program
        }
    }
}

/// What the app gives the pane before each frame.
pub(super) struct Settings {
    /// The pane's folder as the workspace core knows it, for paths in hints and links.
    pub cwd: Option<std::path::PathBuf>,
    /// The config's editor.
    pub editor: Option<String>,
    /// The config's hint patterns and their compiled form (recompiled when they change).
    pub hint_patterns: (Vec<String>, tern_core::text::hints::HintPatterns),
    /// Ask before an unbracketed multi-line paste.
    pub confirm_multiline_paste: bool,
}

impl Settings {
    pub fn new() -> Settings {
        Settings {
            cwd: None,
            editor: None,
            hint_patterns: Default::default(),
            confirm_multiline_paste: true,
        }
    }
}
