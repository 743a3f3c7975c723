//! Every action tern has, in one table: its name (for the command palette), its default
//! key binding, and how a chord like `ctrl+shift+t` matches egui's key events. The
//! palette, the key map and the docs all read this one list.

use egui::{Key, Modifiers};
use tern_core::config::{ChordError, KeyChord};

/// What the user can ask tern to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    NewTab,
    ClosePane,
    CloseTab,
    NextTab,
    PreviousTab,
    /// Alt+1..9 (0-based index).
    Tab(u8),
    MoveTabLeft,
    MoveTabRight,
    RenameTab,
    SplitRight,
    SplitDown,
    FocusLeft,
    FocusRight,
    FocusUp,
    FocusDown,
    ResizeLeft,
    ResizeRight,
    ResizeUp,
    ResizeDown,
    ZoomPane,
    Equalize,
    NextWorktree,
    PreviousWorktree,
    QuickSwitcher,
    CommandPalette,
    ToggleSidebar,
    AddRepository,
    NewWorktree,
    /// A tab in the active worktree running `review_command` (its changes against
    /// the main branch).
    ReviewChanges,
    Copy,
    Paste,
    Search,
    SearchEverywhere,
    ScrollPageUp,
    ScrollPageDown,
    ScrollToTop,
    ScrollToBottom,
    FontBigger,
    FontSmaller,
    FontReset,
    SaveScrollback,
    Diagnostics,
    NextWaitingPane,
    PreviousPrompt,
    NextPrompt,
    SelectLastOutput,
    CopyLastOutput,
    CopyMode,
    Hints,
    /// Use the n-th theme of `tern_core::config::themes::built_in_names` until the
    /// config changes (the palette lists them).
    Theme(u8),
}

/// One row of the table.
pub struct CommandInfo {
    pub command: Command,
    /// The stable name used in the config's key bindings (`"new_tab"`).
    pub id: &'static str,
    /// What the palette shows.
    pub title: &'static str,
    /// Default chords (the first is shown in the palette).
    pub keys: &'static [&'static str],
}

macro_rules! table {
    ($($cmd:expr, $id:literal, $title:literal, [$($key:literal),*];)*) => {
        pub const COMMANDS: &[CommandInfo] = &[
            $(CommandInfo { command: $cmd, id: $id, title: $title, keys: &[$($key),*] },)*
        ];
    };
}

use Command::*;

table! {
    NewTab, "new_tab", "New tab", ["ctrl+shift+t"];
    ClosePane, "close_pane", "Close pane", ["ctrl+shift+w"];
    CloseTab, "close_tab", "Close tab", ["ctrl+alt+shift+w"];
    NextTab, "next_tab", "Next tab", ["ctrl+tab"];
    PreviousTab, "previous_tab", "Previous tab", ["ctrl+shift+tab"];
    Tab(0), "tab_1", "Go to tab 1", ["alt+1"];
    Tab(1), "tab_2", "Go to tab 2", ["alt+2"];
    Tab(2), "tab_3", "Go to tab 3", ["alt+3"];
    Tab(3), "tab_4", "Go to tab 4", ["alt+4"];
    Tab(4), "tab_5", "Go to tab 5", ["alt+5"];
    Tab(5), "tab_6", "Go to tab 6", ["alt+6"];
    Tab(6), "tab_7", "Go to tab 7", ["alt+7"];
    Tab(7), "tab_8", "Go to tab 8", ["alt+8"];
    Tab(8), "tab_9", "Go to tab 9", ["alt+9"];
    MoveTabLeft, "move_tab_left", "Move tab left", ["ctrl+shift+alt+pageup"];
    MoveTabRight, "move_tab_right", "Move tab right", ["ctrl+shift+alt+pagedown"];
    RenameTab, "rename_tab", "Rename tab", ["ctrl+shift+r"];
    SplitRight, "split_right", "Split right", ["ctrl+shift+d"];
    SplitDown, "split_down", "Split down", ["ctrl+shift+e"];
    FocusLeft, "focus_left", "Focus pane to the left", ["ctrl+shift+left", "ctrl+alt+left"];
    FocusRight, "focus_right", "Focus pane to the right", ["ctrl+shift+right", "ctrl+alt+right"];
    FocusUp, "focus_up", "Focus pane above", ["ctrl+shift+up", "ctrl+alt+up"];
    FocusDown, "focus_down", "Focus pane below", ["ctrl+shift+down", "ctrl+alt+down"];
    ResizeLeft, "resize_left", "Move pane edge left", ["ctrl+shift+alt+left"];
    ResizeRight, "resize_right", "Move pane edge right", ["ctrl+shift+alt+right"];
    ResizeUp, "resize_up", "Move pane edge up", ["ctrl+shift+alt+up"];
    ResizeDown, "resize_down", "Move pane edge down", ["ctrl+shift+alt+down"];
    ZoomPane, "zoom_pane", "Zoom pane (toggle)", ["ctrl+shift+z"];
    Equalize, "equalize", "Equalize pane sizes", ["ctrl+shift+x"];
    NextWorktree, "next_worktree", "Next worktree", ["ctrl+shift+pagedown"];
    PreviousWorktree, "previous_worktree", "Previous worktree", ["ctrl+shift+pageup"];
    QuickSwitcher, "quick_switcher", "Quick switcher: find any pane", ["ctrl+shift+o"];
    CommandPalette, "command_palette", "Command palette", ["ctrl+shift+p"];
    ToggleSidebar, "toggle_sidebar", "Show or hide the worktree sidebar", ["ctrl+shift+b"];
    AddRepository, "add_repository", "Add repository…", ["ctrl+shift+a"];
    NewWorktree, "new_worktree", "New worktree…", ["ctrl+shift+alt+n"];
    ReviewChanges, "review_changes", "Review changes (against the main branch)", ["ctrl+shift+alt+d"];
    Copy, "copy", "Copy selection", ["ctrl+shift+c"];
    Paste, "paste", "Paste", ["ctrl+shift+v", "shift+insert"];
    Search, "search", "Search scrollback", ["ctrl+shift+f"];
    SearchEverywhere, "search_everywhere", "Search everywhere (every pane's history)", ["ctrl+shift+alt+f"];
    ScrollPageUp, "scroll_page_up", "Scroll up a page", ["shift+pageup"];
    ScrollPageDown, "scroll_page_down", "Scroll down a page", ["shift+pagedown"];
    ScrollToTop, "scroll_to_top", "Scroll to the top", ["ctrl+shift+home"];
    ScrollToBottom, "scroll_to_bottom", "Scroll to the bottom", ["ctrl+shift+end"];
    FontBigger, "font_bigger", "Bigger text", ["ctrl+=", "ctrl+plus"];
    FontSmaller, "font_smaller", "Smaller text", ["ctrl+minus"];
    FontReset, "font_reset", "Reset text size", ["ctrl+0"];
    SaveScrollback, "save_scrollback", "Save scrollback to a file…", ["ctrl+shift+s"];
    Diagnostics, "diagnostics", "Diagnostics panel", ["ctrl+shift+g"];
    NextWaitingPane, "next_waiting_pane", "Go to the pane waiting longest (any worktree)", ["ctrl+shift+j"];
    PreviousPrompt, "previous_prompt", "Jump to the previous prompt", ["ctrl+shift+k"];
    NextPrompt, "next_prompt", "Jump to the next prompt", ["ctrl+shift+l"];
    SelectLastOutput, "select_last_output", "Select the last command's output", ["ctrl+shift+alt+y"];
    CopyLastOutput, "copy_last_output", "Copy the last command's output", ["ctrl+shift+y"];
    CopyMode, "copy_mode", "Copy mode: select with vi keys (y copies, Escape leaves)", ["ctrl+shift+space"];
    Hints, "hints", "Hints: label URLs, paths, hashes and IPs (type a label: copy; Shift: open; Ctrl: type it)", ["ctrl+shift+h"];
}

pub fn info(command: Command) -> &'static CommandInfo {
    COMMANDS
        .iter()
        .find(|c| c.command == command)
        .unwrap_or(&COMMANDS[0])
}

/// A key with exact modifiers (Ctrl+Tab does not match Ctrl+Shift+Tab), parsed by the
/// config's chord parser (`tern_core::config::KeyChord`) and mapped onto egui's keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chord {
    pub ctrl: bool,
    pub shift: bool,
    pub alt: bool,
    /// The logo key (egui reports it as `mac_cmd`, which only macOS sets: elsewhere a
    /// chord with `super` is accepted but never pressed).
    pub super_: bool,
    pub key: Key,
}

impl Chord {
    /// Parses `ctrl+shift+t`, `alt+1`, `ctrl+shift+pagedown`, `super+1` (the config's
    /// syntax, any case).
    pub fn parse(text: &str) -> Result<Chord, String> {
        let chord: KeyChord = text.parse().map_err(|e: ChordError| e.to_string())?;
        Chord::from_config(&chord)
    }

    /// The window's key for a chord from the config.
    pub fn from_config(chord: &KeyChord) -> Result<Chord, String> {
        let key = egui_key(&chord.key)
            .ok_or_else(|| format!("`{chord}`: the window has no key `{}`", chord.key))?;
        Ok(Chord {
            ctrl: chord.ctrl,
            shift: chord.shift,
            alt: chord.alt,
            super_: chord.super_,
            key,
        })
    }

    pub fn matches(&self, key: Key, m: Modifiers) -> bool {
        self.key == key
            && self.ctrl == m.ctrl
            && self.shift == m.shift
            && self.alt == m.alt
            && self.super_ == m.mac_cmd
    }

    /// As the palette shows it: `Ctrl+Shift+T`.
    pub fn label(&self) -> String {
        let mut s = String::new();
        for (on, name) in [
            (self.ctrl, "Ctrl+"),
            (self.shift, "Shift+"),
            (self.alt, "Alt+"),
            (self.super_, "Super+"),
        ] {
            if on {
                s.push_str(name);
            }
        }
        s.push_str(self.key.name());
        s
    }
}

/// egui's key for a canonical chord key (`"t"`, `"pageup"`, `"f5"`, `"="`).
fn egui_key(name: &str) -> Option<Key> {
    let named = match name {
        "enter" => Key::Enter,
        "tab" => Key::Tab,
        "space" => Key::Space,
        "backspace" => Key::Backspace,
        "escape" => Key::Escape,
        "insert" => Key::Insert,
        "delete" => Key::Delete,
        "home" => Key::Home,
        "end" => Key::End,
        "pageup" => Key::PageUp,
        "pagedown" => Key::PageDown,
        "up" => Key::ArrowUp,
        "down" => Key::ArrowDown,
        "left" => Key::ArrowLeft,
        "right" => Key::ArrowRight,
        "plus" => Key::Plus,
        "minus" => Key::Minus,
        other => {
            return Key::ALL
                .iter()
                .copied()
                .find(|k| k.name().eq_ignore_ascii_case(other) || k.symbol_or_name() == other);
        }
    };
    Some(named)
}

/// The key map: chords to commands, defaults overridden by the config's bindings.
#[derive(Clone, Debug)]
pub struct KeyMap {
    bindings: Vec<(Chord, Command)>,
}

impl Default for KeyMap {
    fn default() -> Self {
        let bindings = COMMANDS
            .iter()
            .flat_map(|c| {
                c.keys.iter().filter_map(move |k| match Chord::parse(k) {
                    Ok(chord) => Some((chord, c.command)),
                    Err(_) => None,
                })
            })
            .collect();
        KeyMap { bindings }
    }
}

impl KeyMap {
    /// The defaults with `overrides` (command id → chords; an empty list unbinds).
    /// Unknown command ids and bad chords are errors, returned with the rest applied.
    pub fn with_overrides<'a>(
        overrides: impl IntoIterator<Item = (&'a str, &'a [String])>,
    ) -> (KeyMap, Vec<String>) {
        let mut map = KeyMap::default();
        let mut errors = Vec::new();
        for (id, chords) in overrides {
            let Some(info) = COMMANDS.iter().find(|c| c.id == id) else {
                let hint =
                    tern_core::config::suggest::did_you_mean(id, COMMANDS.iter().map(|c| c.id));
                errors.push(format!("key binding for unknown command `{id}`{hint}"));
                continue;
            };
            map.bindings.retain(|(_, c)| *c != info.command);
            for text in chords {
                match Chord::parse(text) {
                    Ok(chord) => {
                        // A chord belongs to one command: the override wins.
                        map.bindings.retain(|(k, _)| *k != chord);
                        map.bindings.push((chord, info.command));
                    }
                    Err(e) => errors.push(e),
                }
            }
        }
        (map, errors)
    }

    /// The key map of the config's `key_bindings`, and its problems as the window and
    /// `tern config check` both say them.
    pub fn from_config(config: &tern_core::config::Config) -> (KeyMap, Vec<String>) {
        let overrides: Vec<(String, Vec<String>)> = config
            .key_bindings
            .iter()
            .map(|(action, binding)| {
                let chords = binding.chords().iter().map(ToString::to_string).collect();
                (action.clone(), chords)
            })
            .collect();
        let (map, errors) =
            KeyMap::with_overrides(overrides.iter().map(|(a, c)| (a.as_str(), c.as_slice())));
        let errors = errors
            .into_iter()
            .map(|e| format!("key_bindings: {e}"))
            .collect();
        (map, errors)
    }

    pub fn command_for(&self, key: Key, m: Modifiers) -> Option<Command> {
        self.bindings
            .iter()
            .find(|(chord, _)| chord.matches(key, m))
            .map(|(_, c)| *c)
    }

    /// The first chord bound to `command`, for the palette.
    pub fn chord_of(&self, command: Command) -> Option<Chord> {
        self.bindings
            .iter()
            .find(|(_, c)| *c == command)
            .map(|(k, _)| *k)
    }

    /// Takes this frame's key presses that are bound to commands out of egui's input
    /// (so the terminal never sees them) and returns the commands in order.
    /// Takes the commands bound in the key map out of this frame's input. Input that
    /// comes before the first command in the same frame (a typed line's Enter, then a
    /// chord that switches tabs) belongs to the pane focused before it: then the command
    /// and everything after it are returned as `later`, to be put back at the start of
    /// the next frame's input, and no command runs now.
    pub fn take_commands(&self, ctx: &egui::Context) -> (Vec<Command>, Vec<egui::Event>) {
        let later = ctx.input_mut(|i| {
            // A modifier pressed alone is not typing: Ctrl's own press comes in the same
            // frame as the Tab of Ctrl+Tab, and holding the Tab back for it cost a switch
            // a whole frame (issue 32).
            let typed = |e: &egui::Event| match e {
                egui::Event::Text(_) | egui::Event::Paste(_) | egui::Event::Ime(_) => true,
                egui::Event::Key {
                    pressed: true, key, ..
                } => !is_modifier_key(*key),
                _ => false,
            };
            let first = i.events.iter().position(|e| match e {
                egui::Event::Key {
                    key,
                    pressed: true,
                    modifiers,
                    ..
                } => self.command_for(*key, *modifiers).is_some(),
                _ => false,
            });
            match first {
                Some(at) if i.events[..at].iter().any(typed) => i.events.split_off(at),
                _ => Vec::new(),
            }
        });
        if !later.is_empty() {
            return (Vec::new(), later);
        }
        let mut out = Vec::new();
        ctx.input_mut(|i| {
            let mut swallow_text = false;
            i.events.retain(|e| match e {
                egui::Event::Key {
                    key,
                    pressed,
                    modifiers,
                    ..
                } => match self.command_for(*key, *modifiers) {
                    Some(c) => {
                        if *pressed {
                            out.push(c);
                            // Alt+digit may also produce a text event.
                            swallow_text = modifiers.alt && !modifiers.ctrl;
                        }
                        false
                    }
                    None => true,
                },
                egui::Event::Text(_) if swallow_text => {
                    swallow_text = false;
                    false
                }
                _ => true,
            });
        });
        (out, Vec::new())
    }
}

/// Shift, Ctrl, Alt or Super on either side (egui reports their presses as keys).
pub fn is_modifier_key(key: egui::Key) -> bool {
    matches!(
        key,
        Key::ShiftLeft
            | Key::ShiftRight
            | Key::ControlLeft
            | Key::ControlRight
            | Key::AltLeft
            | Key::AltRight
            | Key::SuperLeft
            | Key::SuperRight
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chords_parse_with_exact_modifiers() {
        let c = Chord::parse("Ctrl+Shift+T").expect("parses");
        assert!(c.ctrl && c.shift && !c.alt && !c.super_);
        assert_eq!(c.key, Key::T);
        assert!(c.matches(Key::T, Modifiers::CTRL | Modifiers::SHIFT));
        assert!(!c.matches(Key::T, Modifiers::CTRL), "shift is required");
        let tab = Chord::parse("ctrl+tab").expect("parses");
        assert!(!tab.matches(Key::Tab, Modifiers::CTRL | Modifiers::SHIFT));
        assert_eq!(Chord::parse("alt+left").map(|c| c.key), Ok(Key::ArrowLeft));
        assert_eq!(
            Chord::parse("ctrl+shift+pagedown").map(|c| c.key),
            Ok(Key::PageDown)
        );
        assert_eq!(Chord::parse("ctrl+=").map(|c| c.key), Ok(Key::Equals));
        assert_eq!(Chord::parse("ctrl+plus").map(|c| c.key), Ok(Key::Plus));
        // One parser with the config: `super` (and its aliases) parse.
        let logo = Chord::parse("super+t").expect("super parses");
        assert!(logo.super_ && logo.matches(Key::T, Modifiers::MAC_CMD));
        assert!(!logo.matches(Key::T, Modifiers::NONE));
        assert_eq!(
            Chord::parse("cmd+shift+k").map(|c| c.label()),
            Ok("Shift+Super+K".into())
        );
        assert!(Chord::parse("ctrl+shift").is_err());
        assert!(Chord::parse("ctrl+nosuchkey").is_err());
        assert!(Chord::parse("a+b").is_err());
        assert_eq!(
            Chord::parse("ctrl+shift+t").map(|c| c.label()),
            Ok("Ctrl+Shift+T".into())
        );
    }

    /// The keys of one frame: `events`, taken by the key map.
    fn commands_of(events: Vec<egui::Event>) -> (Vec<Command>, Vec<egui::Event>) {
        let ctx = egui::Context::default();
        let raw = egui::RawInput {
            events,
            ..Default::default()
        };
        let mut got = None;
        let mut output = ctx.run_ui(raw, |ui| {
            got = Some(KeyMap::default().take_commands(ui.ctx()))
        });
        // No renderer here: nothing takes the atlas uploads.
        output.textures_delta.clear();
        got.expect("the pass ran")
    }

    fn key(key: Key, modifiers: Modifiers) -> egui::Event {
        crate::window::input::key_event(key, true, modifiers)
    }

    /// Ctrl's own press arrives in the frame of Ctrl+Tab's Tab: the switch runs in that
    /// frame, not the next (it cost a tab switch a whole painted frame, issue 32); text
    /// typed before a command still reaches the pane before the command runs.
    #[test]
    fn a_modifier_pressed_alone_does_not_hold_back_the_command_after_it() {
        let ctrl_tab = vec![
            key(Key::ControlLeft, Modifiers::NONE),
            egui::Event::ModifiersChanged(Modifiers::CTRL),
            key(Key::Tab, Modifiers::CTRL),
        ];
        let (commands, later) = commands_of(ctrl_tab);
        assert_eq!(commands, vec![Command::NextTab]);
        assert!(later.is_empty(), "nothing held back: {later:?}");

        let typed_first = vec![
            egui::Event::Text("l".into()),
            key(Key::ControlLeft, Modifiers::NONE),
            key(Key::Tab, Modifiers::CTRL),
        ];
        let (commands, later) = commands_of(typed_first);
        assert!(commands.is_empty(), "the command waits for the typed text");
        assert_eq!(
            later.len(),
            1,
            "the Tab is held for the next frame: {later:?}"
        );
    }

    #[test]
    fn super_is_a_modifier_of_its_own() {
        // The config's parser and the window's agree: `super+t` is not `t`.
        let c = Chord::parse("super+t").expect("parses");
        assert!(c.super_ && !c.ctrl);
        assert!(!c.matches(Key::T, Modifiers::NONE));
        assert!(c.matches(Key::T, Modifiers::MAC_CMD));
        assert_eq!(c.label(), "Super+T");
        assert!(
            !Chord::parse("ctrl+t")
                .expect("parses")
                .matches(Key::T, Modifiers::MAC_CMD | Modifiers::CTRL)
        );
    }

    #[test]
    fn every_default_binding_parses_and_no_chord_is_bound_twice() {
        let mut seen = std::collections::HashSet::new();
        for c in COMMANDS {
            assert!(!c.keys.is_empty(), "{} has a key", c.id);
            for k in c.keys {
                let chord = Chord::parse(k).unwrap_or_else(|e| panic!("{}: {e}", c.id));
                assert!(seen.insert(chord), "{k} bound twice");
            }
        }
        let ids: std::collections::HashSet<_> = COMMANDS.iter().map(|c| c.id).collect();
        assert_eq!(ids.len(), COMMANDS.len(), "command ids are unique");
    }

    /// Keys every readline and agent prompt uses (word motion, Alt+. and friends), and
    /// Ctrl+Shift+N (a new window in kitty, WezTerm, Ghostty, foot), stay unbound.
    #[test]
    fn default_keys_leave_the_shells_keys_alone() {
        let map = KeyMap::default();
        for key in [
            Key::ArrowLeft,
            Key::ArrowRight,
            Key::ArrowUp,
            Key::ArrowDown,
        ] {
            for m in [
                Modifiers::ALT,
                Modifiers::ALT | Modifiers::SHIFT,
                Modifiers::CTRL,
            ] {
                assert_eq!(map.command_for(key, m), None, "{key:?} {m:?}");
            }
        }
        for key in [Key::B, Key::F, Key::D, Key::Period, Key::Backspace] {
            assert_eq!(map.command_for(key, Modifiers::ALT), None, "alt+{key:?}");
        }
        let ctrl_shift = Modifiers::CTRL | Modifiers::SHIFT;
        assert_eq!(map.command_for(Key::N, ctrl_shift), None);
        // Several chords per action: WezTerm's and Ghostty's pane focus keys.
        assert_eq!(
            map.command_for(Key::ArrowLeft, ctrl_shift),
            Some(Command::FocusLeft)
        );
        let ctrl_alt = Modifiers::CTRL | Modifiers::ALT;
        assert_eq!(
            map.command_for(Key::ArrowLeft, ctrl_alt),
            Some(Command::FocusLeft)
        );
    }

    #[test]
    fn overrides_rebind_unbind_and_report_errors() {
        let split = vec!["ctrl+alt+s".to_string()];
        let none: Vec<String> = Vec::new();
        let bad = vec!["ctrl+bogus".to_string()];
        let (map, errors) = KeyMap::with_overrides([
            ("split_right", split.as_slice()),
            ("new_tab", none.as_slice()),
            ("no_such_command", none.as_slice()),
            ("zoom_pane", bad.as_slice()),
        ]);
        let ctrl_alt = Modifiers::CTRL | Modifiers::ALT;
        assert_eq!(map.command_for(Key::S, ctrl_alt), Some(Command::SplitRight));
        let ctrl_shift = Modifiers::CTRL | Modifiers::SHIFT;
        assert_eq!(map.command_for(Key::D, ctrl_shift), None, "old chord gone");
        assert_eq!(map.command_for(Key::T, ctrl_shift), None, "unbound");
        assert_eq!(
            map.command_for(Key::O, ctrl_shift),
            Some(Command::QuickSwitcher)
        );
        assert_eq!(errors.len(), 2, "{errors:?}");
    }
}
