//! tern-core: everything in tern that knows no window.
//!
//! - [`model`]: the terminal emulator (vte-based) the model thread runs for every pane.

pub mod atomic_file;
pub mod config;
pub mod escapes;
pub mod fixtures;
pub mod input;
pub mod model;
pub mod pipeline;
pub mod session;
pub mod worktree;
