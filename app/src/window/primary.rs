//! The X11 PRIMARY selection: selecting text puts it there and a middle click pastes
//! it, as in every X terminal. egui only knows the clipboard, so this goes through
//! arboard; where there is no PRIMARY (no display, other platforms) middle click
//! pastes the clipboard instead.

#[derive(Default)]
pub struct Primary {
    /// Opened on first use; `None` inside when no display can be reached.
    clipboard: Option<Option<arboard::Clipboard>>,
}

impl Primary {
    fn clipboard(&mut self) -> Option<&mut arboard::Clipboard> {
        self.clipboard
            .get_or_insert_with(|| arboard::Clipboard::new().ok())
            .as_mut()
    }

    /// Makes `text` the PRIMARY selection. Returns false where there is none.
    pub fn set(&mut self, text: &str) -> bool {
        #[cfg(target_os = "linux")]
        {
            use arboard::{LinuxClipboardKind, SetExtLinux};
            if let Some(cb) = self.clipboard() {
                return cb
                    .set()
                    .clipboard(LinuxClipboardKind::Primary)
                    .text(text.to_owned())
                    .is_ok();
            }
        }
        let _ = text;
        false
    }

    /// The PRIMARY selection's text, if there is one.
    pub fn get(&mut self) -> Option<String> {
        #[cfg(target_os = "linux")]
        {
            use arboard::{GetExtLinux, LinuxClipboardKind};
            if let Some(cb) = self.clipboard() {
                return cb.get().clipboard(LinuxClipboardKind::Primary).text().ok();
            }
        }
        None
    }
}
