//! The workspace, GUI-free: worktree groups, their tabs and split panes ([`tree`]),
//! the pane registry and the one place every change is applied ([`WorkspaceCore`],
//! [`Command`]), and `tern msg` requests against it ([`requests`]). The window and
//! `tern --headless` are two faces of it: each turns its input into commands and
//! carries out the [`Effect`]s that come back.

mod activity;
mod badges;
mod command;
mod core;
mod names;
mod notices;
mod panes;
mod reattach;
mod record;
pub mod remote;
mod remote_group;
pub mod remote_policy;
pub mod requests;
mod saved;
pub mod search;
mod session;
pub mod split_tree;
mod tree;

pub use command::{Applied, Command, Effect, Outcome, Source, Start};
pub use core::{PROCESS_REFRESH, PaneRecord, WorkspaceCore, dir_name};
pub use notices::should_notify;
pub use session::SaveSchedule;
pub use tree::*;
