//! Where a pane's prompts and commands are, from its OSC 133 marks, for "previous /
//! next prompt" and "the last command's output". Lines are absolute (scrollback lines
//! dropped so far + the line's index), as the marks carry them.
//!
//! ```text
//!   A  $ make          <- prompt line (kept, newest last, at most MAX_PROMPTS)
//!   C  cc -o tern ...  <- output starts on the line the cursor is on at C
//!      ...
//!   D  $ ...           <- finished: the output ends before the D line
//! ```
//!
//! A resize that reflows the scrollback moves lines; marks recorded before it may then
//! point a few lines off (the view still lands near the prompt).

use std::collections::VecDeque;

use super::ShellMark;

/// Prompts remembered per pane (older ones are forgotten first).
pub const MAX_PROMPTS: usize = 4096;

/// One pane's prompt and command positions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PromptMarks {
    prompts: VecDeque<u64>,
    /// The running command's first output line (its C).
    running: Option<u64>,
    /// The last finished command's output: first line, and the line of its D.
    last_output: Option<(u64, u64)>,
    /// The shell's prompt ended (B) and no command has started since (C).
    at_input: bool,
}

impl PromptMarks {
    pub fn record(&mut self, mark: ShellMark, line: u64) {
        match mark {
            ShellMark::PromptStart => {
                // A redrawn prompt (a resize, Ctrl+L) repeats its line: keep one.
                if self.prompts.back() != Some(&line) {
                    // Lines only grow, unless the screen was cleared under the marks.
                    while self.prompts.back().is_some_and(|l| *l > line) {
                        self.prompts.pop_back();
                    }
                    if self.prompts.len() == MAX_PROMPTS {
                        self.prompts.pop_front();
                    }
                    self.prompts.push_back(line);
                }
            }
            ShellMark::CommandStart => self.at_input = true,
            ShellMark::CommandExecuted => {
                self.at_input = false;
                self.running = Some(line);
            }
            ShellMark::CommandFinished { .. } => {
                if let Some(start) = self.running.take() {
                    self.last_output = Some((start, line.max(start)));
                }
            }
        }
    }

    /// Whether the shell waits at its prompt for a command line (OSC 133 B came, and
    /// no C since): what is typed now goes to its line editor.
    pub fn at_input(&self) -> bool {
        self.at_input
    }

    /// The nearest prompt above `line`.
    pub fn previous(&self, line: u64) -> Option<u64> {
        self.prompts.iter().rev().find(|l| **l < line).copied()
    }

    /// The nearest prompt below `line`.
    pub fn next(&self, line: u64) -> Option<u64> {
        self.prompts.iter().find(|l| **l > line).copied()
    }

    /// The last finished command's output: its first line and its last (inclusive);
    /// `None` before any, or when it printed nothing.
    pub fn last_output(&self) -> Option<(u64, u64)> {
        let (start, finished) = self.last_output?;
        (finished > start).then(|| (start, finished - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(seq: &[(ShellMark, u64)]) -> PromptMarks {
        let mut m = PromptMarks::default();
        for (mark, line) in seq {
            m.record(*mark, *line);
        }
        m
    }

    const A: ShellMark = ShellMark::PromptStart;
    const C: ShellMark = ShellMark::CommandExecuted;
    const D: ShellMark = ShellMark::CommandFinished { exit_code: Some(0) };

    #[test]
    fn prompts_are_found_above_and_below_a_line() {
        let m = marks(&[(A, 0), (C, 1), (D, 5), (A, 5), (C, 6), (D, 9), (A, 9)]);
        assert_eq!(m.previous(9), Some(5));
        assert_eq!(m.previous(5), Some(0));
        assert_eq!(m.previous(0), None);
        assert_eq!(m.next(0), Some(5));
        assert_eq!(m.next(7), Some(9));
        assert_eq!(m.next(9), None);
        assert!(!m.at_input());
        let mut m = m;
        m.record(ShellMark::CommandStart, 9);
        assert!(m.at_input());
        m.record(C, 10);
        assert!(!m.at_input());
    }

    #[test]
    fn the_last_output_runs_from_c_to_the_line_before_d() {
        let m = marks(&[(A, 0), (C, 1), (D, 5), (A, 5)]);
        assert_eq!(m.last_output(), Some((1, 4)));
        // A command that printed nothing has no output; one still running is not last.
        let m = marks(&[(A, 0), (C, 1), (D, 1), (A, 1), (C, 2)]);
        assert_eq!(m.last_output(), None);
        // A D without a C finishes nothing.
        assert_eq!(marks(&[(A, 0), (D, 3)]).last_output(), None);
    }

    #[test]
    fn a_redrawn_prompt_is_kept_once_and_a_clear_forgets_those_below() {
        let m = marks(&[(A, 3), (A, 3), (A, 8), (A, 2)]);
        assert_eq!(m.prompts, [2]);
        let mut m = PromptMarks::default();
        for i in 0..(MAX_PROMPTS as u64 + 10) {
            m.record(A, i);
        }
        assert_eq!(m.prompts.len(), MAX_PROMPTS);
        assert_eq!(m.prompts.front(), Some(&10));
    }
}
