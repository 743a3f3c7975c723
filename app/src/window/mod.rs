//! The window: one eframe app drawing panes from the pipeline's deliveries.

pub mod app;
pub mod diagnostics;
pub mod glyphs;
pub mod input;
pub mod links;
pub mod render;
pub mod search;
pub mod theme;
pub mod trace;
pub mod viewport;
