//! tern-core: everything in tern that knows no window.
//!
//! - [`model`]: the terminal emulator (vte-based) the model thread runs for every pane.

pub mod diagnostics;
pub mod escapes;
pub mod fixtures;
pub mod input;
pub mod model;
pub mod pipeline;
