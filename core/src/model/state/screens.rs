//! Saving and restoring the cursor, the alternate screen, and the resets.

use super::*;

impl State {
    // ---- cursor save/restore, alternate screen ----

    pub fn save_cursor(&mut self) {
        let saved = SavedCursor {
            cursor: self.cursor,
            pen: self.pen.clone(),
            charsets: self.charsets,
            origin: self.modes.origin,
        };
        if self.modes.alt_screen {
            self.saved_alt = saved;
        } else {
            self.saved_primary = saved;
        }
    }

    pub fn restore_cursor(&mut self) {
        let saved = if self.modes.alt_screen {
            self.saved_alt.clone()
        } else {
            self.saved_primary.clone()
        };
        self.cursor = saved.cursor;
        self.cursor.row = self.cursor.row.min(self.rows - 1);
        self.cursor.col = self.cursor.col.min(self.cols - 1);
        self.pen = saved.pen;
        self.pen_changed();
        self.charsets = saved.charsets;
        self.modes.origin = saved.origin;
    }

    /// Enters the alternate screen. `save_cursor` for 1049, `clear` for 1047/1049.
    pub fn enter_alt_screen(&mut self, save_cursor: bool, clear: bool) {
        if self.modes.alt_screen {
            return;
        }
        if save_cursor {
            self.save_cursor();
        }
        self.modes.alt_screen = true;
        self.sync_keyboard_flags();
        if clear {
            self.images_alt.clear();
            let blank = self.erase_cell();
            for r in 0..self.rows {
                self.reset_row(r, blank);
            }
        }
        self.damage.mark_all();
    }

    /// Leaves the alternate screen. `restore_cursor` for 1049, `clear` for 1047.
    pub fn leave_alt_screen(&mut self, restore_cursor: bool, clear: bool) {
        if !self.modes.alt_screen {
            return;
        }
        if clear {
            self.images_alt.clear();
            let blank = self.erase_cell();
            for r in 0..self.rows {
                self.reset_row(r, blank);
            }
        }
        self.modes.alt_screen = false;
        self.sync_keyboard_flags();
        if restore_cursor {
            self.restore_cursor();
        }
        self.damage.mark_all();
    }

    // ---- resets ----

    /// DECSTR: soft reset, xterm's list: cursor shown with the configured shape and
    /// blink, replace mode, absolute origin, autowrap on, reverse wraparound off,
    /// keyboard unlocked, normal cursor keys and keypad, full margins (top/bottom and
    /// left/right) and DECLRMM off, default pen (SGR and DECSCA) and no protection
    /// mode, default charsets, the ANSI colours (OSC 4), the active screen's saved
    /// cursor back to home. The screen, the cursor position, tab stops, the special
    /// and dynamic colours and the other modes are kept.
    pub fn soft_reset(&mut self) {
        self.reverse_wrap = false;
        self.protection = Protection::Off;
        self.cursor_shape = self.config.cursor_shape;
        self.modes.cursor_blink = self.config.cursor_blink;
        self.modes.recorded.set(RecordedMode::Kam, false);
        // xterm's ReallyReset resets the ANSI colours (OSC 4) on DECSTR too; the
        // special and dynamic colours (OSC 5, 10-19) are kept.
        let palette_before = self.palette.clone();
        self.palette.reset_all_indexed();
        if self.palette != palette_before {
            self.palette_generation += 1;
            self.damage.mark_all();
        }
        self.modes.insert = false;
        self.modes.origin = false;
        self.modes.autowrap = true;
        self.modes.show_cursor = true;
        self.modes.app_cursor_keys = false;
        self.modes.app_keypad = false;
        self.scroll_top = 0;
        self.scroll_bottom = self.rows;
        self.margin_left = 0;
        self.margin_right = self.cols;
        self.pen = Pen::default();
        self.pen_changed();
        self.charsets = Charsets::default();
        // xterm's ReallyReset: resetMarginMode, then CursorSave of the reset state with
        // the position set to home, into the active screen's slot only.
        self.lr_margin_mode = false;
        if self.modes.alt_screen {
            self.saved_alt = SavedCursor::default();
        } else {
            self.saved_primary = SavedCursor::default();
        }
        self.cursor.pending_wrap = false;
    }

    /// RIS: everything back to power-on, scrollback included, except the special and
    /// dynamic colours (OSC 5, 10-19), which xterm keeps.
    pub fn full_reset(&mut self) {
        let size = TermSize {
            cols: self.cols,
            rows: self.rows,
        };
        let config = self.config.clone();
        let events = std::mem::take(&mut self.events);
        let generation = self.palette_generation;
        let replies = std::mem::take(&mut self.replies);
        let cell_pixels = self.cell_pixels;
        let resize_request = self.resize_request.take();
        // xterm: RIS goes back to 80 columns when 132 were selected while ?40 allowed
        // switching.
        let back_to_80 = self.allow_column_switch && self.columns_132;
        // Hyperlink ids and absolute line numbers must never be reused: rows the UI
        // still holds (and marks, search results) refer to them. So the link table
        // survives, and the scrollback is cleared in place (its drop count goes on).
        let hyperlinks = std::mem::take(&mut self.hyperlinks);
        // As in xterm 379, RIS resets the ANSI colours (OSC 4) but keeps the special
        // and dynamic colours a program set (OSC 5, 10-19).
        let mut palette = self.palette.clone();
        palette.reset_all_indexed();
        let mut scrollback = std::mem::replace(&mut self.scrollback, Scrollback::new(0, 0));
        let had_history = !scrollback.is_empty();
        scrollback.clear();
        *self = State::new(size, config);
        self.palette = palette;
        self.hyperlinks = hyperlinks;
        self.scrollback = scrollback;
        // What the app told the model, and a request the app has not read yet, outlive
        // the reset.
        self.cell_pixels = cell_pixels;
        self.resize_request = resize_request;
        if back_to_80 && self.cols != geometry::NORMAL_COLUMNS {
            self.program_resize(TermSize::new(geometry::NORMAL_COLUMNS, self.rows));
        }
        // A reset palette is a change too.
        self.palette_generation = generation + 1;
        // Answers to queries that came before the reset still go out.
        self.events = events;
        self.replies = replies;
        self.events.push(TermEvent::Title(String::new()));
        if had_history {
            self.events.push(TermEvent::ScrollbackCleared);
        }
    }

    pub fn designate_charset(&mut self, slot: usize, charset: Charset) {
        if let Some(s) = self.charsets.slots.get_mut(slot) {
            *s = charset;
        }
    }

    pub fn invoke_charset(&mut self, slot: usize) {
        if slot < 4 {
            self.charsets.active = slot;
        }
    }

    pub fn set_title(&mut self, title: &str) {
        let title: String = title
            .chars()
            .filter(|c| !c.is_control())
            .take(MAX_TITLE_CHARS)
            .collect();
        if title != self.title {
            self.title = title.clone();
            self.events.push(TermEvent::Title(title));
        }
    }

    /// XTWINOPS 22: pushes an entry; it holds the title unless only the icon label
    /// (which tern does not keep) was to be saved.
    pub fn push_title(&mut self, save_title: bool) {
        if self.title_stack.len() >= MAX_TITLE_STACK {
            self.title_stack.remove(0);
        }
        self.title_stack
            .push(save_title.then(|| self.title.clone()));
    }

    /// XTWINOPS 23: pops an entry (whatever `restore_title` says, as xterm) and restores
    /// its title when asked to and it holds one.
    pub fn pop_title(&mut self, restore_title: bool) {
        if let Some(Some(title)) = self.title_stack.pop()
            && restore_title
        {
            self.set_title(&title);
        }
    }

    /// Interns an OSC 8 hyperlink, returning its id; `None` when the table is full
    /// of links cells still use.
    pub fn intern_hyperlink(&mut self, id: Option<&str>, uri: &str) -> Option<u32> {
        if uri.len() > MAX_URI_BYTES {
            return None;
        }
        let id = id.filter(|id| id.len() <= MAX_LINK_ID_BYTES);
        if let Some(found) = self.hyperlinks.find(id, uri) {
            return Some(found);
        }
        if !self.hyperlinks.has_room() && !self.collect_links() {
            return None;
        }
        Some(self.hyperlinks.insert(Hyperlink {
            id: id.map(str::to_owned),
            uri: uri.to_owned(),
        }))
    }

    /// Drops the links nothing refers to (both screens, the scrollback, the pen, the
    /// saved cursors); returns whether a new one has room. The scan counts as work
    /// ([`State::work_cells`]).
    pub(super) fn collect_links(&mut self) -> bool {
        if !self.hyperlinks.collection_due() {
            return false;
        }
        let mut used = std::collections::HashSet::new();
        let pens = [&self.pen, &self.saved_primary.pen, &self.saved_alt.pen];
        used.extend(pens.iter().filter_map(|p| p.hyperlink));
        let mut note = |row: &crate::model::grid::Row| {
            used.extend(row.extras().iter().filter_map(|(_, e)| e.hyperlink));
        };
        let mut rows = 0;
        for row in self.primary.iter().chain(self.alt.iter()) {
            note(row);
            rows += 1;
        }
        for row in self.scrollback.iter() {
            note(&row);
            rows += 1;
        }
        self.charge_cells(rows * self.cols);
        self.hyperlinks.retain(&used);
        self.hyperlinks.has_room()
    }
}
