//! The window: one eframe app drawing worktrees, tabs and split panes from the
//! pipeline's deliveries.
//!
//! Dependencies point one way: `app` (the coordinator) uses the panels (`chrome`,
//! `sidebar`, `pane`, `palette`, `dialogs`, `diagnostics`), which return [`action::Action`]s
//! and use the leaves (`render`, `glyphs`, `fonts`, `theme`, `badges`, `viewport`, …);
//! nothing below `app` imports it.

pub mod action;
pub mod activity;
pub mod app;
pub mod badges;
pub mod boxes;
pub mod chrome;
pub mod commands;
pub mod diagnostics;
pub mod dialogs;
pub mod everywhere;
pub mod glyphs;
pub mod grid;
pub mod input;
pub mod kitty_keys;
pub mod links;
pub mod metrics;
pub mod palette;
pub mod pane;
pub mod primary;
pub mod quads;
pub mod render;
pub mod row_cache;
pub mod search;
pub mod settings;
pub mod sidebar;
pub mod theme;
pub mod trace;
pub mod viewport;
