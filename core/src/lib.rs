//! tern-core: everything in tern that knows no window.
//!
//! - [`model`]: the terminal emulator (vte-based) the model thread runs for every pane.
//! - [`pipeline`]: pty I/O, the model thread, flow control and deliveries.
//! - [`layout`], [`workspace`]: split panes, tabs and worktree groups, without a window.

pub mod escapes;
pub mod fixtures;
pub mod input;
pub mod layout;
pub mod model;
pub mod pipeline;
pub mod workspace;
