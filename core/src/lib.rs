//! tern-core: everything in tern that knows no window.
//!
//! - [`model`]: the terminal emulator (vte-based) the model thread runs for every pane.
//! - [`pipeline`]: ptys, the I/O pool, the model thread, flow control and delivery.
//! - [`layout`], [`workspace`]: split panes, tabs and worktree groups, without a window.
//! - [`worktree`]: git worktrees through the `git` CLI, and the [`worktree::GitWorker`]
//!   thread the UI sends them to.
//! - [`config`]: `config.ron` (RON, documented defaults) and its hot-reload watcher.
//! - [`security`]: what programs may make tern do outside a pane (links, clipboard).
//! - [`session`]: saved layouts (worktrees, tabs, split trees), written atomically.
//! - [`remote`]: the `tern msg` protocol, its socket server and client.
//! - [`tmux`]: a tmux control-mode client (remote panes through `tmux -C`), no transport.

pub mod agent;
pub mod atomic_file;
pub mod badges;
pub mod config;
pub mod desktop_appearance;
pub mod desktop_notify;
pub mod diagnostics;
pub mod escapes;
pub mod fixtures;
pub mod helper;
pub mod history;
pub mod input;
pub mod ipc;
pub mod keeper;
pub mod model;
pub mod pipeline;
pub mod resume;
pub mod security;
pub mod session;
pub mod session_file;
pub mod shell_env;
pub mod shell_integration;
pub mod text;
pub mod tmux;
pub mod workspace;
pub mod worktree;
