//! The kitty keyboard protocol's progressive-enhancement flags: one stack per screen
//! (the main and the alternate screen keep their own, as the spec asks), set with
//! `CSI = flags ; mode u`, pushed with `CSI > flags u`, popped with `CSI < n u` and
//! queried with `CSI ? u` (answered `CSI ? flags u`). The active screen's flags are
//! mirrored into [`crate::model::Modes::keyboard_flags`], which frames carry to the UI's key
//! encoder (`crate::input::kitty`).

use super::State;

/// Flag bits (the spec's "progressive enhancements").
pub mod flags {
    /// 0b1: disambiguate escape codes.
    pub const DISAMBIGUATE: u8 = 0b1;
    /// 0b10: report event types (repeat, release).
    pub const REPORT_EVENT_TYPES: u8 = 0b10;
    /// 0b100: report alternate keys (shifted key, base layout key).
    pub const REPORT_ALTERNATE_KEYS: u8 = 0b100;
    /// 0b1000: report all keys as escape codes.
    pub const REPORT_ALL_KEYS: u8 = 0b1000;
    /// 0b10000: report associated text.
    pub const REPORT_TEXT: u8 = 0b1_0000;
    /// Every flag the spec defines; other bits are ignored.
    pub const ALL: u8 = 0b1_1111;
}

/// Most entries a screen's stack holds; a push beyond it forgets the oldest entry, so
/// a program pushing without end keeps memory flat.
pub const KEYBOARD_STACK_DEPTH: usize = 16;

/// One screen's flags: the current value and the values saved by pushes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyboardStack {
    current: u8,
    saved: [u8; KEYBOARD_STACK_DEPTH],
    saved_len: usize,
}

impl KeyboardStack {
    pub fn current(&self) -> u8 {
        self.current
    }

    /// Entries pushed and not yet popped.
    pub fn depth(&self) -> usize {
        self.saved_len
    }

    /// `CSI = flags ; mode u`: mode 1 replaces the flags, 2 sets the given bits, 3
    /// clears them; any other mode is ignored.
    pub fn set(&mut self, value: u16, mode: u16) {
        let bits = clamp(value);
        match mode {
            1 => self.current = bits,
            2 => self.current |= bits,
            3 => self.current &= !bits,
            _ => {}
        }
    }

    /// `CSI > flags u`: saves the current flags and makes `value` current.
    pub fn push(&mut self, value: u16) {
        if self.saved_len == KEYBOARD_STACK_DEPTH {
            self.saved.copy_within(1.., 0);
            self.saved_len -= 1;
        }
        self.saved[self.saved_len] = self.current;
        self.saved_len += 1;
        self.current = clamp(value);
    }

    /// `CSI < n u`: pops `n` entries (at least one); popping more than were pushed
    /// empties the stack and resets every flag.
    pub fn pop(&mut self, count: u16) {
        let count = usize::from(count.max(1));
        if count > self.saved_len {
            *self = KeyboardStack::default();
            return;
        }
        self.saved_len -= count;
        self.current = self.saved[self.saved_len];
    }
}

/// Flags outside the spec's five are dropped (a malformed request changes nothing it
/// does not name).
fn clamp(value: u16) -> u8 {
    (value & u16::from(flags::ALL)) as u8
}

/// Both screens' stacks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyboardStacks {
    pub main: KeyboardStack,
    pub alt: KeyboardStack,
}

impl State {
    fn keyboard_stack(&mut self) -> &mut KeyboardStack {
        if self.modes.alt_screen {
            &mut self.keyboard.alt
        } else {
            &mut self.keyboard.main
        }
    }

    /// Copies the active screen's flags into the modes the UI sees; called after every
    /// change and when the screen switches.
    pub(in crate::model) fn sync_keyboard_flags(&mut self) {
        self.modes.keyboard_flags = self.keyboard_stack().current();
    }

    pub(in crate::model) fn set_keyboard_flags(&mut self, value: u16, mode: u16) {
        self.keyboard_stack().set(value, mode);
        self.sync_keyboard_flags();
    }

    pub(in crate::model) fn push_keyboard_flags(&mut self, value: u16) {
        self.keyboard_stack().push(value);
        self.sync_keyboard_flags();
    }

    pub(in crate::model) fn pop_keyboard_flags(&mut self, count: u16) {
        self.keyboard_stack().pop(count);
        self.sync_keyboard_flags();
    }

    /// `CSI ? u` → `CSI ? flags u`.
    pub(in crate::model) fn report_keyboard_flags(&mut self) {
        let reply = format!("\x1b[?{}u", self.modes.keyboard_flags);
        self.reply(reply.as_bytes());
    }

    /// Both screens back to legacy keys (the pane's program exited).
    pub(in crate::model) fn reset_keyboard_flags(&mut self) {
        self.keyboard = KeyboardStacks::default();
        self.sync_keyboard_flags();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_saves_and_pop_restores() {
        let mut s = KeyboardStack::default();
        s.push(1);
        s.push(3);
        assert_eq!((s.current(), s.depth()), (3, 2));
        s.pop(1);
        assert_eq!(s.current(), 1);
        s.pop(1);
        assert_eq!((s.current(), s.depth()), (0, 0));
    }

    #[test]
    fn popping_more_than_pushed_resets_every_flag() {
        let mut s = KeyboardStack::default();
        s.set(5, 1);
        s.push(1);
        s.pop(7);
        assert_eq!((s.current(), s.depth()), (0, 0));
        s.set(1, 1);
        s.pop(0); // 0 means 1
        assert_eq!(s.current(), 0);
    }

    #[test]
    fn set_modes_replace_or_and_clear_bits() {
        let mut s = KeyboardStack::default();
        s.set(0b101, 1);
        s.set(0b10, 2);
        assert_eq!(s.current(), 0b111);
        s.set(0b1, 3);
        assert_eq!(s.current(), 0b110);
        s.set(0b1, 9);
        assert_eq!(s.current(), 0b110, "an unknown mode changes nothing");
        s.set(u16::MAX, 1);
        assert_eq!(
            s.current(),
            flags::ALL,
            "bits beyond the spec's five are dropped"
        );
    }

    #[test]
    fn endless_pushes_keep_the_newest_entries() {
        let mut s = KeyboardStack::default();
        for i in 0..10_000u16 {
            s.push(i % 32);
        }
        assert_eq!(s.depth(), KEYBOARD_STACK_DEPTH);
        let top = s.current();
        s.pop(1);
        assert_eq!(top, (9_999 % 32) as u8);
        assert_eq!(s.current(), (9_998 % 32) as u8);
    }
}
