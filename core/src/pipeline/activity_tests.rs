//! The activity rules, with a hand-driven clock.

use super::*;
use crate::model::notify::{Notification, NotifySource};

fn t0() -> Instant {
    Instant::now()
}

fn ms(base: Instant, n: u64) -> Instant {
    base + Duration::from_millis(n)
}

fn mark(mark: ShellMark) -> TermEvent {
    TermEvent::Shell { mark, line: 0 }
}

#[test]
fn output_flowing_is_running_then_quiet_is_idle() {
    let (c, t) = (ActivityCell::default(), t0());
    c.on_output(t, &[]);
    assert_eq!(c.report(ms(t, 100)).state, ActivityState::Running);
    assert_eq!(c.report(ms(t, QUIET_MS + 1)).state, ActivityState::Idle);
}

#[test]
fn a_command_between_c_and_d_runs_even_when_silent() {
    let (c, t) = (ActivityCell::default(), t0());
    c.on_output(t, &[mark(ShellMark::PromptStart)]);
    c.on_output(ms(t, 10), &[mark(ShellMark::CommandExecuted)]);
    assert_eq!(c.report(ms(t, 60_000)).state, ActivityState::Running);
    let finished = mark(ShellMark::CommandFinished { exit_code: Some(2) });
    c.on_output(ms(t, 70_000), &[finished, mark(ShellMark::PromptStart)]);
    let r = c.report(ms(t, 70_010));
    assert_eq!((r.state, r.exit_code), (ActivityState::Done, Some(2)));
    c.on_input(ms(t, 80_000));
    assert_eq!(c.report(ms(t, 80_001)).state, ActivityState::Idle, "seen");
}

#[test]
fn a_notification_waits_until_the_user_types() {
    let (c, t) = (ActivityCell::default(), t0());
    let n = Notification::new(NotifySource::Osc9, "", "needs your permission");
    c.on_output(t, &[TermEvent::Notification(n)]);
    let r = c.report(ms(t, 5));
    assert_eq!(r.state, ActivityState::Waiting);
    assert_eq!(r.wait_reason, Some(WaitReason::Notification));
    assert_eq!(
        r.last_notification.as_deref(),
        Some("needs your permission")
    );
    c.on_input(ms(t, 10));
    assert_ne!(c.report(ms(t, 20)).state, ActivityState::Waiting);
}

#[test]
fn a_bell_and_paused_progress_wait() {
    let (c, t) = (ActivityCell::default(), t0());
    c.on_output(t, &[TermEvent::Bell]);
    assert_eq!(c.report(t).wait_reason, Some(WaitReason::Bell));
    let (c, t) = (ActivityCell::default(), t0());
    let paused = Progress {
        state: ProgressState::Paused,
        percent: Some(40),
    };
    c.on_output(t, &[TermEvent::Progress(paused)]);
    let r = c.report(ms(t, 5));
    assert_eq!(
        (r.state, r.progress),
        (ActivityState::Waiting, Some(paused))
    );
    let normal = Progress {
        state: ProgressState::Normal,
        percent: Some(50),
    };
    c.on_output(ms(t, 10), &[TermEvent::Progress(normal)]);
    assert_eq!(c.report(ms(t, 60_000)).state, ActivityState::Running);
}

#[test]
fn a_question_on_a_silent_screen_waits() {
    let (c, t) = (ActivityCell::default(), t0());
    c.on_output(t, &[]);
    c.on_screen_checked(t, true);
    assert_eq!(c.report(ms(t, 100)).state, ActivityState::Running);
    let r = c.report(ms(t, QUIET_MS));
    assert_eq!(
        (r.state, r.wait_reason),
        (ActivityState::Waiting, Some(WaitReason::Question))
    );
    c.on_output(ms(t, 2_000), &[]);
    c.on_screen_checked(ms(t, 2_000), false);
    assert_eq!(c.report(ms(t, 9_000)).state, ActivityState::Idle);
}

#[test]
fn an_exit_is_done_with_its_status() {
    let (c, t) = (ActivityCell::default(), t0());
    c.on_output(t, &[]);
    c.on_exit(ms(t, 1), 3);
    let r = c.report(ms(t, 2));
    assert_eq!((r.state, r.exit_code), (ActivityState::Done, Some(3)));
}

#[test]
fn the_question_rule_matches_what_agents_print() {
    for line in [
        " Do you want to proceed?",
        " Do you want to make this edit to main.rs?",
        "   3. No, and tell Claude what to do differently (esc)",
        "Would you like to run the following command?",
        "Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]:",
        "Run shell command? (Y)es/(N)o [Yes]:",
        "Allow execution of: 'rm'?",
        "Continue? [y/N] ",
        "Overwrite (y/n)?",
        "Claude needs your permission to use Bash",
        "Press Enter to continue",
    ] {
        assert!(asks_question([line]), "{line:?}");
    }
    for line in [
        "Compiling tern v0.1.0",
        "$ ls",
        "test result: ok. 12 passed",
        "Thinking…",
    ] {
        assert!(!asks_question([line]), "{line:?}");
    }
}

/// The screen scan finds a question among rows of CJK and emoji (the pattern folds
/// ASCII case only, and stays on the fast automaton for any text) and not in one line
/// split over two rows' ends.
#[test]
fn the_screen_scan_finds_a_question_among_wide_text() {
    use crate::model::{TermConfig, TermSize, Terminal};
    let mut term = Terminal::new(TermSize::new(40, 6), TermConfig::default());
    term.advance("漢字かな交じり文 🦀 テスト\r\n── 変更を適用しますか ──\r\n".as_bytes());
    assert!(!super::screen_asks_question(&term));
    term.advance("ÉTAT: DO YOU WANT TO apply 変更? [y/N] ".as_bytes());
    assert!(super::screen_asks_question(&term));
    let mut split = Terminal::new(TermSize::new(40, 6), TermConfig::default());
    split.advance(b"...... do you\r\nwant to\r\n");
    assert!(
        !super::screen_asks_question(&split),
        "rows are searched apart"
    );
}
