//! The window's parts, each with its own state: the keyboard, the pane set, the
//! chrome (overlays, sidebar, status), the look (fonts, theme, glyphs), session saving
//! and the frames' measures. `TernApp` holds one of each beside the workspace core and
//! the desktop's state; what a part draws comes back as `Action`s, queued and carried
//! out once per frame (`apply.rs`).

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::mpsc::Receiver;

use tern_core::model::Palette;
use tern_core::pipeline::PaneId;
use tern_core::session_file::SessionFile;
use tern_core::workspace::SaveSchedule;

use super::overlay::Overlay;
use crate::window::action::Action;
use crate::window::commands::{Chord, KeyMap};
use crate::window::diagnostics::Diagnostics;
use crate::window::glyphs::GlyphCache;
use crate::window::pane::PaneUi;
use crate::window::primary::Primary;
use crate::window::sidebar::Sidebar;
use crate::window::theme::Theme;
use crate::window::trace::Trace;

/// What the person asks for: the key map, `send_text` bindings, input that waits for
/// the next frame (a command and what followed it, when typed input came before the
/// command in the same frame; see `KeyMap::take_commands`), and the window's one queue
/// of intents: every key-map command, overlay pick, click in the chrome or a pane,
/// answered close question, sidebar news and diagnostics jump is an [`Action`] queued
/// here and carried out at one point of the frame (`TernApp::carry_out`, called by
/// `draw` after the keys and overlays, before the chrome and panes are drawn), so no
/// part changes the workspace while it is drawn.
#[derive(Default)]
pub struct Keys {
    pub map: KeyMap,
    pub send_text: Vec<(Chord, String)>,
    pub held: Vec<egui::Event>,
    pub intents: VecDeque<Action>,
}

/// The panes as the window draws them.
#[derive(Default)]
pub struct PaneSet {
    /// What the window keeps per pane to draw it (views, selection, search…).
    pub ui: HashMap<PaneId, PaneUi>,
    /// Panes shown last frame (the rest are parked).
    pub shown: HashSet<PaneId>,
    pub focused_last: Option<PaneId>,
    /// The widget ids of the panes (keyboard focus on anything else is a text field).
    pub ids: HashSet<egui::Id>,
    /// A modal form or picker was open when the panes were last drawn.
    pub modal_last: bool,
    /// The X primary selection.
    pub primary: Primary,
}

/// The chrome around the panes.
pub struct Chrome {
    pub overlay: Option<Overlay>,
    pub sidebar_open: bool,
    pub sidebar: Sidebar,
    /// A message for the user (spawn errors, refused actions).
    pub status: Option<String>,
    pub window_title: String,
    /// The window has keyboard focus.
    pub window_focused: bool,
}

impl Default for Chrome {
    fn default() -> Chrome {
        Chrome {
            overlay: None,
            sidebar_open: false,
            sidebar: Sidebar::default(),
            status: None,
            window_title: String::new(),
            window_focused: true,
        }
    }
}

/// How the window looks.
pub struct Look {
    pub font_size: f32,
    pub theme: Theme,
    /// The desktop's light/dark preference, followed while `theme.light` or
    /// `theme.dark` is set (`config.rs`).
    pub appearance: Option<tern_core::desktop_appearance::AppearanceWatcher>,
    pub desktop_scheme: tern_core::desktop_appearance::ColorScheme,
    /// Colours before a pane's first delivery.
    pub palette: Palette,
    pub glyphs: GlyphCache,
    /// The colour eframe clears the window to this frame (`None` outside eframe, as in
    /// the kittest harness): panes on it draw no background rectangle.
    pub window_clear: Option<egui::Color32>,
    /// What panes need to draw their rows into textures (`grid/`; none outside
    /// eframe's wgpu renderer).
    pub grid: crate::window::grid::GridSlot,
    /// The tab bar, drawn into a texture kept between frames (`grid/kept.rs`).
    pub tab_bar: crate::window::grid::KeptShapes,
}

impl Look {
    pub fn new(font_size: f32) -> Look {
        Look {
            font_size,
            theme: Theme::default(),
            appearance: None,
            desktop_scheme: tern_core::desktop_appearance::ColorScheme::NoPreference,
            palette: Palette::default(),
            glyphs: GlyphCache::default(),
            window_clear: None,
            grid: Default::default(),
            tab_bar: Default::default(),
        }
    }
}

/// The session file and "save as" of a pane's text.
#[derive(Default)]
pub struct Saving {
    pub file: Option<SessionFile>,
    /// When the session is saved next (the core's rule).
    pub schedule: SaveSchedule,
    /// A save of a pane's text in progress (dialog and write on their own thread).
    pub dialog: Option<Receiver<Result<PathBuf, String>>>,
}

/// What the frames measure and report.
pub struct Frames {
    /// The diagnostics panel (Ctrl+Shift+G) and the frame time histogram.
    pub diagnostics: Diagnostics,
    pub trace: Trace,
    /// eframe's measure of the last whole frame (UI, tessellation, painting), seconds.
    pub last_cpu: Option<f32>,
    /// The focused pane's search progress last frame, while one runs (for the trace).
    pub searching_last: Option<(u64, u64)>,
}
