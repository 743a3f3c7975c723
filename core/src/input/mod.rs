//! Input encoding: keys, mouse, focus and paste into the bytes a program expects, as
//! pure functions of the event and the terminal's modes (xterm's conventions).

pub mod keys;
pub mod kitty;
pub mod mouse;
pub mod paste;

pub use keys::{Key, KeyModes, Mods, encode_key};
pub use kitty::{KeyEvent, KeyEventKind, KeypadKey, KittyKey, MoreMods, encode_kitty_key};
pub use mouse::{
    MouseButton, MouseEvent, MouseEventKind, encode_focus, encode_mouse, focus_report, mouse_report,
};
pub use paste::{encode_paste, paste_line_count, paste_preview, sanitize_paste};
