//! The window: one eframe app drawing worktrees, tabs and split panes from the
//! pipeline's deliveries.

pub mod agents;
pub mod app;
pub mod chrome;
pub mod commands;
pub mod diagnostics;
pub mod emoji;
pub mod fonts;
pub mod glyphs;
pub mod input;
pub mod kitty_keys;
pub mod links;
pub mod palette;
pub mod pane;
pub mod primary;
pub mod render;
pub mod search;
pub mod settings;
pub mod sidebar;
pub mod theme;
pub mod trace;
pub mod viewport;
