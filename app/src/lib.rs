//! The `tern` app: the window (eframe/egui) and the headless mode. The binary's `main`
//! only parses the command line.

pub mod agents_cli;
pub mod cli;
pub mod desktop;
pub mod gpu;
pub mod headless;
pub mod msg;
pub mod present;
pub mod settings_cli;
pub mod signals;
pub mod startup;
pub mod window;
