//! What each pane is doing, for "which agent is waiting for me?": running, waiting,
//! done or idle, from facts the model thread already has (output, OSC 133 marks,
//! notifications, bells, OSC 9;4 progress, the exit, and whether the screen asks a
//! question) plus the user's input.
//!
//! **The agent's own word first** (invariant 12). An explicit report — the agent's
//! hooks through `tern msg agent-event`, OSC 21337 printed by the program, or `tern
//! msg set-status` — decides over everything below it until a newer report, the user's
//! answer to a waiting report (it works again), or the end of the program that made it
//! (the shell's next prompt, OSC 133 A or D, or the pane's exit). Below it, in order of
//! trust: notifications, OSC 9;4 progress and bells; OSC 133 marks; reading the screen
//! and the output's pace. [`ActivityReport::source`] says which decided.
//!
//! The model thread records facts as they happen; the state is derived when someone
//! reads it ([`ActivityCell::report`] with the reader's clock), so no timer ever
//! changes anything (invariant 7): "silent for a while" is a comparison at read time.
//!
//! **Facts first.** Where the shell sends OSC 133 marks (tern's shell integration, or
//! the user's own), they decide: after a prompt (A) the pane is idle, or done with the
//! last exit status until the user types; after a command starts (C) it runs, silent
//! or not, until it finishes (D) and the next prompt comes.
//!
//! **The waiting rule.** A pane is waiting when, since the user last typed into it or
//! was shown it, and since the shell's last prompt, (a) its program sent a
//! notification (OSC 9, 777, 99) or a bell, or reported progress paused or failed
//! (OSC 9;4 state 4 or 2), or (b) its output has been silent for [`QUIET_MS`] and the
//! lines at the cursor (on the alternate screen: its lowest [`ALT_SCREEN_ROWS`] rows)
//! ask a question. With marks, (b) counts only while a command
//! runs, and the model reads only the rows printed since that command started (a
//! question echoed at a prompt, or left over from an earlier command, is not one).
//! Without marks (integration off, a remote pane) the rows at the cursor are read as
//! they are, and recent output counts as running. Where (b) comes from:
//! what coding agents print when they stop for the user, taken from their sources and
//! documentation (recording them was not possible offline):
//! - Claude Code: the permission dialog "Do you want to proceed?" / "Do you want to
//!   make this edit to …?" with "1. Yes" … "No, and tell Claude what to do
//!   differently (esc)"; its notification text "Claude needs your permission to use
//!   …" / "Claude is waiting for your input" (also sent as OSC 9 / OSC 777 / BEL,
//!   depending on its `preferredNotifChannel`).
//! - Codex CLI: "Would you like to run the following command?" / "Allow command?"
//!   with "Yes (y)" … "No, and tell Codex what to do differently (esc)"; approval
//!   notifications through OSC 9 (`tui.notifications`).
//! - Aider: confirmations ending in "(Y)es/(N)o [Yes]:", e.g. "Add file to the
//!   chat? (Y)es/(N)o/(D)on't ask again [Yes]:", "Run shell command? (Y)es/(N)o".
//! - Gemini CLI: "Allow execution?" / "Apply this change?" with "Yes, allow once",
//!   and "Waiting for user confirmation…".
//! - Plain programs: `[y/N]`, `[Y/n]`, `(y/n)`, "Press Enter to continue".

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::model::agent_status::{AgentState, AgentStatus, StatusSequence, Update};
use crate::model::notify::{Progress, ProgressState};
use crate::model::{Rgb, ShellMark, TermEvent};

/// Output silent this long counts as "stopped" for the question rule, and output
/// newer than this counts as "running".
pub const QUIET_MS: u64 = 1_500;

/// Rows at and above the cursor that the question rule reads.
pub const QUESTION_ROWS: usize = 12;

/// Rows of the alternate screen, from the bottom, that the question rule reads.
pub const ALT_SCREEN_ROWS: usize = 64;

/// A pane's state, most urgent first: the one activity type (the tracker's, the
/// window's marks, and `tern msg list`'s `activity`, where it is written kebab-case).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum ActivityState {
    /// It asked for the user.
    Waiting,
    /// Output is flowing or a command runs.
    Running,
    /// A command finished (OSC 133 D) or the program exited, and the user has not
    /// typed into it since.
    Done,
    /// At a prompt, or quiet.
    Idle,
    /// The pane's program exited and the pane is held open (the workspace core says
    /// so from its registry; the tracker never does).
    Exited,
}

impl ActivityState {
    pub fn label(self) -> &'static str {
        match self {
            ActivityState::Waiting => "waiting",
            ActivityState::Running => "running",
            ActivityState::Done => "done",
            ActivityState::Idle => "idle",
            ActivityState::Exited => "exited",
        }
    }
}

/// The report that stands.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Explicit {
    at: Instant,
    state: ActivityState,
    reason: Option<String>,
    indicator: Option<Rgb>,
    via: ActivitySource,
}

/// Why a pane waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum WaitReason {
    /// The agent said so (its hook, OSC 21337, `set-status`).
    Agent,
    Notification,
    Bell,
    Progress,
    Question,
}

/// A pane's activity as read at one moment.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ActivityReport {
    pub state: ActivityState,
    /// How long it has been in that state (as far as the facts tell).
    pub since_ms: u64,
    pub wait_reason: Option<WaitReason>,
    /// The last finished command's or the program's exit status.
    pub exit_code: Option<i32>,
    /// OSC 9;4, unless hidden.
    pub progress: Option<Progress>,
    /// The last notification's text (title and body), for the sidebar and switcher.
    pub last_notification: Option<String>,
    /// The last command the shell ran (OSC 133 C, then D).
    pub last_command: Option<LastCommand>,
    /// Why it waits, in words: the agent's reason, the notification's text or the
    /// question's line.
    pub wait_text: Option<String>,
    /// Who decided the state (the order of trust: the agent's own word first).
    pub source: ActivitySource,
    /// The colour the agent asked its mark to be drawn in (OSC 21337 `indicator=`).
    pub indicator: Option<Rgb>,
    /// When the state may next change with time alone (output going quiet, after
    /// [`QUIET_MS`]), from the moment read; `None`: only a new fact changes it. A
    /// window repaints then, not on a timer.
    #[serde(skip)]
    pub changes_in_ms: Option<u64>,
}

/// A command a shell ran, from its OSC 133 marks. Times are Unix milliseconds.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LastCommand {
    /// The command line (what the shell said, or what was typed at the prompt).
    pub command: Option<String>,
    /// `None` while it runs, or when the shell did not say.
    pub exit_code: Option<i32>,
    pub started_at: u64,
    pub finished_at: Option<u64>,
}

/// `at` on the wall clock, in Unix milliseconds.
fn unix_ms(at: Instant) -> u64 {
    let ago = Instant::now().saturating_duration_since(at);
    std::time::SystemTime::now()
        .checked_sub(ago)
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as u64)
}

/// The facts, written by the model thread (and the UI's input).
#[derive(Clone, Debug, Default)]
struct Facts {
    last_output: Option<Instant>,
    last_input: Option<Instant>,
    /// A notification, bell or paused/failed progress, and when.
    attention: Option<(Instant, WaitReason)>,
    last_notification: Option<String>,
    /// OSC 133 C came after the last D or A: a command runs.
    command_running: bool,
    prompt_at: Option<Instant>,
    finished: Option<(Instant, Option<i32>)>,
    exited: Option<(Instant, i32)>,
    progress: Option<(Instant, Progress)>,
    /// The screen at the cursor asked a question when last read (when, and the line).
    question: Option<(Instant, String)>,
    /// The shell sends OSC 133 marks: they decide (see the module's doc).
    marked: bool,
    /// When the running command started (OSC 133 C).
    command_at: Option<Instant>,
    /// The command line that came with the next C.
    command_text: Option<String>,
    last_command: Option<LastCommand>,
    /// The pane was last revealed.
    seen: Option<Instant>,
    /// The agent's own report, until a newer one or its program ends.
    explicit: Option<Explicit>,
}

/// One pane's activity, shared by the model thread (writer) and readers.
#[derive(Debug, Default)]
pub struct ActivityCell {
    facts: Mutex<Facts>,
}

impl ActivityCell {
    fn with(&self, f: impl FnOnce(&mut Facts)) {
        if let Ok(mut facts) = self.facts.lock() {
            f(&mut facts);
        }
    }

    /// After a parse step: output arrived, and these facts came out of it.
    pub fn on_output(&self, at: Instant, events: &[TermEvent]) {
        self.on_output_read(at, at, events);
    }

    /// [`Self::on_output`] for bytes read from the pty at `read_at`: a status sequence
    /// read before the agent's hook last reported is older than that report and does
    /// not undo it (the two come by different roads: the pty, and the socket).
    pub fn on_output_read(&self, at: Instant, read_at: Instant, events: &[TermEvent]) {
        self.with(|f| {
            f.last_output = Some(at);
            for e in events {
                f.apply(at, read_at, e);
            }
        });
    }

    /// The user typed, pasted or clicked into the pane.
    pub fn on_input(&self, at: Instant) {
        self.with(|f| f.last_input = Some(at));
    }

    /// The screen was read after output: the line at the cursor that asks, if any.
    pub fn on_screen_checked(&self, at: Instant, asks: Option<String>) {
        self.with(|f| f.question = asks.map(|line| (at, line)));
    }

    /// The pane was revealed: what asked for attention has been seen.
    pub fn on_seen(&self, at: Instant) {
        self.with(|f| f.seen = Some(at));
    }

    pub fn on_exit(&self, at: Instant, code: i32) {
        self.with(|f| {
            f.exited = Some((at, code));
            f.command_running = false;
            f.explicit = None;
        });
    }

    /// The agent's own report (a hook or `set-status`; OSC 21337 comes with output).
    pub fn on_report(&self, at: Instant, report: Report) {
        self.with(|f| f.report_explicit(at, report));
    }

    /// The state at `now`.
    pub fn report(&self, now: Instant) -> ActivityReport {
        let facts = self.facts.lock().map(|f| f.clone()).unwrap_or_default();
        facts.report(now)
    }
}

impl Facts {
    fn report_explicit(&mut self, at: Instant, report: Report) {
        self.explicit = report.state.map(|state| Explicit {
            at,
            state,
            reason: report.reason,
            indicator: report.indicator,
            via: report.via,
        });
    }

    /// OSC 21337 / 7501, an incremental update of the report: Working runs, Waiting
    /// waits, Idle is done after work (idle when nothing ran since the last report).
    /// A key the sequence leaves out keeps its value.
    fn agent_status(&mut self, at: Instant, read_at: Instant, status: &AgentStatus) {
        let before = self.explicit.as_ref();
        if before.is_some_and(|e| {
            matches!(e.via, ActivitySource::Hook | ActivitySource::SetStatus) && read_at < e.at
        }) {
            return;
        }
        // Idle after work (or after a hook said done) is done.
        let worked = before.is_some_and(|e| {
            matches!(
                e.state,
                ActivityState::Running | ActivityState::Waiting | ActivityState::Done
            )
        });
        let state = match &status.state {
            Update::Keep => before.map(|e| e.state),
            Update::Clear => None,
            Update::Set(s) => Some(match s {
                AgentState::Working => ActivityState::Running,
                AgentState::Waiting => ActivityState::Waiting,
                AgentState::Idle if worked => ActivityState::Done,
                AgentState::Idle => ActivityState::Idle,
            }),
        };
        let report = Report {
            state,
            reason: status.detail.over(before.and_then(|e| e.reason.clone())),
            indicator: status.indicator.over(before.and_then(|e| e.indicator)),
            via: match status.sequence {
                StatusSequence::Osc21337 => ActivitySource::Osc21337,
                StatusSequence::Osc7501 => ActivitySource::Osc7501,
            },
        };
        // A state that did not change keeps its time (a detail updated while working
        // is not a new start).
        let at = match before {
            Some(e) if e.state == ActivityState::Running && state == Some(e.state) => e.at,
            _ => at,
        };
        self.report_explicit(at, report);
    }

    fn apply(&mut self, at: Instant, read_at: Instant, event: &TermEvent) {
        match event {
            TermEvent::AgentStatus(status) => self.agent_status(at, read_at, status),
            TermEvent::Bell => self.attention = Some((at, WaitReason::Bell)),
            TermEvent::Notification(n) => {
                self.attention = Some((at, WaitReason::Notification));
                self.last_notification = Some(match (n.title.is_empty(), n.body.is_empty()) {
                    (true, _) => n.body.clone(),
                    (_, true) => n.title.clone(),
                    _ => format!("{}: {}", n.title, n.body),
                });
            }
            TermEvent::Progress(p) => {
                self.progress = (p.state != ProgressState::Hidden).then_some((at, *p));
                if matches!(p.state, ProgressState::Paused | ProgressState::Error) {
                    self.attention = Some((at, WaitReason::Progress));
                } else if self
                    .attention
                    .is_some_and(|(_, r)| r == WaitReason::Progress)
                {
                    self.attention = None;
                }
            }
            TermEvent::Command(text) => self.command_text = Some(text.clone()),
            TermEvent::Shell { mark, .. } => match mark {
                ShellMark::PromptStart => {
                    // The program that reported has ended: the shell is back.
                    self.explicit = None;
                    self.marked = true;
                    self.prompt_at = Some(at);
                    self.command_running = false;
                    self.command_at = None;
                }
                ShellMark::CommandStart => {}
                ShellMark::CommandExecuted => {
                    self.marked = true;
                    self.command_running = true;
                    self.command_at = Some(at);
                    self.finished = None;
                    self.last_command = Some(LastCommand {
                        command: self.command_text.take(),
                        exit_code: None,
                        started_at: unix_ms(at),
                        finished_at: None,
                    });
                }
                ShellMark::CommandFinished { exit_code } => {
                    self.explicit = None;
                    self.marked = true;
                    self.command_running = false;
                    self.command_at = None;
                    self.finished = Some((at, *exit_code));
                    // A D without a C (a prompt mark only) finishes nothing we saw.
                    if let Some(last) = self
                        .last_command
                        .as_mut()
                        .filter(|l| l.finished_at.is_none())
                    {
                        last.exit_code = *exit_code;
                        last.finished_at = Some(unix_ms(at));
                    }
                }
            },
            _ => {}
        }
    }

    fn report(&self, now: Instant) -> ActivityReport {
        let ms = |t: Instant| now.saturating_duration_since(t).as_millis() as u64;
        let after_input = |t: Instant| self.last_input.is_none_or(|i| t > i);
        // Attention stands until the user typed, was shown the pane, or the shell
        // came back to its prompt.
        let unanswered = |t: Instant| {
            after_input(t)
                && self.seen.is_none_or(|s| t > s)
                && self.prompt_at.is_none_or(|p| t >= p)
        };
        let quiet = Duration::from_millis(QUIET_MS);
        let progress = self.progress.map(|(_, p)| p);
        let mut report = ActivityReport {
            state: ActivityState::Idle,
            since_ms: 0,
            wait_reason: None,
            exit_code: self
                .exited
                .map(|(_, c)| c)
                .or(self.finished.and_then(|f| f.1)),
            progress,
            last_notification: self.last_notification.clone(),
            last_command: self.last_command.clone(),
            wait_text: None,
            source: ActivitySource::None,
            indicator: None,
            // The only rules that read the clock compare the time since the last
            // output with `quiet` ("running", and the question asked once output
            // stopped): the state can change with time alone only when that passes.
            changes_in_ms: self
                .last_output
                .map(ms)
                .filter(|&since| since < QUIET_MS)
                .map(|since| QUIET_MS - since),
        };
        let mut set = |state, at: Instant, reason, source| {
            report.state = state;
            report.since_ms = ms(at);
            report.wait_reason = reason;
            report.source = source;
        };
        if let Some((at, _)) = self.exited {
            set(ActivityState::Done, at, None, ActivitySource::Exit);
            return report;
        }
        if let Some(e) = &self.explicit {
            // The agent's word stands; only the time that passed is not its to say, so
            // no clock rule applies.
            report.changes_in_ms = None;
            let answered = self.last_input.filter(|&i| i > e.at);
            match (e.state, answered) {
                // The user answered what it waited for: it works again.
                (ActivityState::Waiting, Some(i)) => {
                    set(ActivityState::Running, i, None, e.via);
                }
                (ActivityState::Waiting, None) => {
                    set(ActivityState::Waiting, e.at, Some(WaitReason::Agent), e.via);
                    report.wait_text = e.reason.clone();
                }
                // What it finished was seen once the user typed.
                (ActivityState::Done, Some(i)) => set(ActivityState::Idle, i, None, e.via),
                (state, _) => set(state, e.at, None, e.via),
            }
            report.indicator = e.indicator;
            return report;
        }
        if let Some((at, reason)) = self.attention.filter(|(t, _)| unanswered(*t)) {
            let source = match reason {
                WaitReason::Bell => ActivitySource::Bell,
                WaitReason::Progress => ActivitySource::Progress,
                _ => ActivitySource::Notification,
            };
            set(ActivityState::Waiting, at, Some(reason), source);
            report.wait_text = match reason {
                WaitReason::Notification => self.last_notification.clone(),
                WaitReason::Bell => Some("bell".to_owned()),
                WaitReason::Progress => Some(match progress.map(|p| p.state) {
                    Some(ProgressState::Error) => "progress: error".to_owned(),
                    _ => "progress: paused".to_owned(),
                }),
                WaitReason::Question | WaitReason::Agent => None,
            };
            return report;
        }
        let silent_since = self
            .last_output
            .filter(|t| now.saturating_duration_since(*t) >= quiet);
        // With marks, only a question a running command printed (the model reads the
        // rows since its start) counts.
        let question_allowed = |asked: Instant| {
            !self.marked || (self.command_running && self.command_at.is_some_and(|c| asked > c))
        };
        if let (Some((asked, line)), Some(out)) = (&self.question, silent_since)
            && *asked >= out
            && after_input(out)
            && question_allowed(*asked)
        {
            set(
                ActivityState::Waiting,
                out,
                Some(WaitReason::Question),
                ActivitySource::Screen,
            );
            report.wait_text = Some(line.clone());
            return report;
        }
        let at_prompt_after_output = self
            .prompt_at
            .zip(self.last_output)
            .is_some_and(|(p, o)| o.saturating_duration_since(p) < Duration::from_millis(50));
        if let Some(out) = self.last_output
            && !self.marked
            && now.saturating_duration_since(out) < quiet
            && !at_prompt_after_output
            && after_input(out)
        {
            set(ActivityState::Running, out, None, ActivitySource::Output);
            return report;
        }
        if self.command_running || progress.is_some() {
            let at = self
                .command_at
                .or(self.progress.map(|(t, _)| t))
                .or(self.last_output)
                .unwrap_or(now);
            let source = if self.command_running {
                ActivitySource::ShellMarks
            } else {
                ActivitySource::Progress
            };
            set(ActivityState::Running, at, None, source);
            return report;
        }
        if let Some((at, _)) = self.finished.filter(|(t, _)| after_input(*t)) {
            set(ActivityState::Done, at, None, ActivitySource::ShellMarks);
            return report;
        }
        let at = self
            .last_input
            .max(self.prompt_at)
            .or(self.last_output)
            .unwrap_or(now);
        let source = if self.marked {
            ActivitySource::ShellMarks
        } else if self.last_output.is_some() {
            ActivitySource::Output
        } else {
            ActivitySource::None
        };
        set(ActivityState::Idle, at, None, source);
        report
    }
}

mod question;
mod source;
pub use question::{asks_question, screen_asks_question};
pub use source::{ActivitySource, Report};

#[cfg(test)]
mod tests;
