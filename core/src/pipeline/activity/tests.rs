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
    c.on_screen_checked(t, Some("Continue? [y/N]".into()));
    assert_eq!(c.report(ms(t, 100)).state, ActivityState::Running);
    let r = c.report(ms(t, QUIET_MS));
    assert_eq!(
        (r.state, r.wait_reason),
        (ActivityState::Waiting, Some(WaitReason::Question))
    );
    c.on_output(ms(t, 2_000), &[]);
    c.on_screen_checked(ms(t, 2_000), None);
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
    assert_eq!(super::screen_asks_question(&term), None);
    term.advance("ÉTAT: DO YOU WANT TO apply 変更? [y/N] ".as_bytes());
    assert_eq!(
        super::screen_asks_question(&term).as_deref(),
        Some("ÉTAT: DO YOU WANT TO apply 変更? [y/N]")
    );
    let mut split = Terminal::new(TermSize::new(40, 6), TermConfig::default());
    split.advance(b"...... do you\r\nwant to\r\n");
    assert_eq!(
        super::screen_asks_question(&split),
        None,
        "rows are searched apart"
    );
}

fn question(c: &ActivityCell, at: Instant, line: &str) {
    c.on_screen_checked(at, Some(line.to_owned()));
}

/// `echo "would you like to enable telemetry?"` at a prompt: the question is printed by
/// a command that finished, and the prompt came back. Not waiting (the old rule said
/// waiting until the user typed).
#[test]
fn a_question_echoed_at_a_prompt_is_not_waiting() {
    let (c, t) = (ActivityCell::default(), t0());
    c.on_output(t, &[mark(ShellMark::PromptStart)]);
    c.on_input(ms(t, 5));
    c.on_output(ms(t, 10), &[mark(ShellMark::CommandExecuted)]);
    let finished = mark(ShellMark::CommandFinished { exit_code: Some(0) });
    c.on_output(ms(t, 12), &[finished, mark(ShellMark::PromptStart)]);
    question(&c, ms(t, 13), "would you like to enable telemetry?");
    let r = c.report(ms(t, 10_000));
    assert_ne!(r.state, ActivityState::Waiting, "{r:?}");
    assert_eq!(r.state, ActivityState::Done);
}

/// An agent started from the shell asks: waiting; answered: running; back at the
/// prompt: done, not waiting (the old rule kept it waiting).
#[test]
fn an_agent_waits_runs_after_the_answer_and_is_done_at_the_prompt() {
    let (c, t) = (ActivityCell::default(), t0());
    c.on_output(t, &[mark(ShellMark::PromptStart)]);
    c.on_input(ms(t, 5));
    c.on_output(
        ms(t, 10),
        &[
            TermEvent::Command("claude".into()),
            mark(ShellMark::CommandExecuted),
        ],
    );
    c.on_output(ms(t, 100), &[]);
    question(&c, ms(t, 100), "Do you want to proceed?");
    let r = c.report(ms(t, 100 + QUIET_MS));
    assert_eq!(
        (r.state, r.wait_reason, r.wait_text.as_deref()),
        (
            ActivityState::Waiting,
            Some(WaitReason::Question),
            Some("Do you want to proceed?")
        )
    );
    c.on_input(ms(t, 5_000));
    assert_eq!(c.report(ms(t, 5_001)).state, ActivityState::Running);
    // Silent while it works: still running (the command has not finished).
    assert_eq!(c.report(ms(t, 60_000)).state, ActivityState::Running);
    // It notifies it is done and exits to the prompt.
    let n = Notification::new(NotifySource::Osc9, "", "Claude is done");
    c.on_output(ms(t, 61_000), &[TermEvent::Notification(n)]);
    assert_eq!(c.report(ms(t, 61_001)).state, ActivityState::Waiting);
    let finished = mark(ShellMark::CommandFinished { exit_code: Some(0) });
    c.on_output(ms(t, 62_000), &[finished, mark(ShellMark::PromptStart)]);
    let r = c.report(ms(t, 70_000));
    assert_eq!(r.state, ActivityState::Done, "{r:?}");
    let last = r.last_command.expect("the last command");
    assert_eq!(last.command.as_deref(), Some("claude"));
    assert_eq!(last.exit_code, Some(0));
    assert!(last.finished_at.is_some_and(|f| f >= last.started_at));
}

/// A notification is answered by revealing the pane, not only by typing.
#[test]
fn a_notification_is_seen_when_the_pane_is_shown() {
    let (c, t) = (ActivityCell::default(), t0());
    let n = Notification::new(NotifySource::Osc9, "", "needs your permission");
    c.on_output(t, &[TermEvent::Notification(n)]);
    assert_eq!(
        c.report(ms(t, 1)).wait_text.as_deref(),
        Some("needs your permission")
    );
    c.on_seen(ms(t, 2));
    assert_ne!(c.report(ms(t, 3)).state, ActivityState::Waiting);
}

/// A D without a C (a prompt mark only, or marks from a program that is not a shell)
/// finishes no command.
#[test]
fn a_finish_without_a_start_records_no_command() {
    let (c, t) = (ActivityCell::default(), t0());
    let finished = mark(ShellMark::CommandFinished { exit_code: Some(1) });
    c.on_output(t, &[finished, mark(ShellMark::PromptStart)]);
    assert_eq!(c.report(ms(t, 1)).last_command, None);
}

/// With marks, the model reads only rows the running command printed: a question
/// printed before the command started does not count.
#[test]
fn the_screen_scan_reads_only_the_running_commands_output() {
    use crate::model::{TermConfig, TermSize, Terminal};
    let mut term = Terminal::new(TermSize::new(40, 8), TermConfig::default());
    term.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07echo do you want to\r\n");
    term.advance(b"\x1b]133;C\x07do you want to\r\n\x1b]133;D;0\x07");
    term.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07sleep 100\r\n\x1b]133;C\x07");
    assert_eq!(super::screen_asks_question(&term), None);
    term.advance(b"Continue? [y/N] ");
    assert_eq!(
        super::screen_asks_question(&term).as_deref(),
        Some("Continue? [y/N]")
    );
}

/// What a window reading the report at `read` would show until it is woken: the state
/// must hold until `changes_in_ms` (the window sleeps till then), and with `None` it
/// must hold for good. Catches a state that changes with time alone while the report
/// says nothing will (the idle window would show a stale mark: no timer repaints it),
/// and a wake-up promised but not needed once the pane is quiet.
#[test]
fn the_state_holds_until_the_time_the_report_names() {
    type Setup = fn(&ActivityCell, Instant);
    let scenarios: [(&str, Setup); 6] = [
        ("output", |c, t| c.on_output(t, &[])),
        ("question", |c, t| {
            c.on_output(t, &[]);
            question(c, t, "Do you want to proceed? (y/n)");
        }),
        ("prompt", |c, t| {
            c.on_output(t, &[mark(ShellMark::PromptStart)]);
        }),
        ("command", |c, t| {
            c.on_output(t, &[mark(ShellMark::PromptStart)]);
            c.on_output(ms(t, 10), &[mark(ShellMark::CommandExecuted)]);
        }),
        ("bell", |c, t| c.on_output(t, &[TermEvent::Bell])),
        ("typed", |c, t| {
            c.on_output(t, &[]);
            c.on_input(ms(t, 20));
        }),
    ];
    for (name, setup) in scenarios {
        let (c, t) = (ActivityCell::default(), t0());
        setup(&c, t);
        for read_ms in [0, 30, 700, QUIET_MS - 1, QUIET_MS, QUIET_MS + 1, 5_000] {
            let read = ms(t, read_ms);
            let r = c.report(read);
            let holds_ms = r.changes_in_ms.unwrap_or(3_600_000);
            let far = [60_000, 600_000, holds_ms - 1].into_iter();
            for d in (0..holds_ms.min(10_000))
                .step_by(7)
                .chain(far.filter(|&d| d < holds_ms))
            {
                assert_eq!(
                    c.report(ms(read, d)).state,
                    r.state,
                    "{name}: read at {read_ms} ms said {:?}, changed after {d} ms",
                    r.changes_in_ms
                );
            }
        }
        let quiet = c.report(ms(t, QUIET_MS + 10));
        assert_eq!(
            quiet.changes_in_ms, None,
            "{name}: quiet output wakes nothing"
        );
    }
    // Output going quiet is a change the window is woken for, at that moment.
    let (c, t) = (ActivityCell::default(), t0());
    c.on_output(t, &[]);
    let r = c.report(ms(t, 200));
    assert_eq!(r.changes_in_ms, Some(QUIET_MS - 200));
    assert_ne!(c.report(ms(t, QUIET_MS)).state, r.state);
}

fn report(state: Option<ActivityState>, reason: Option<&str>) -> Report {
    Report {
        state,
        reason: reason.map(str::to_owned),
        indicator: None,
        via: ActivitySource::Hook,
    }
}

fn osc21337(payload: &str) -> TermEvent {
    TermEvent::AgentStatus(crate::model::agent_status::parse_21337(payload.as_bytes()).unwrap())
}

/// Invariant 12: the agent's own word decides over a notification, the marks and the
/// screen. (Catches a break that checks attention or marks before the report.)
#[test]
fn the_agents_own_report_outranks_notifications_marks_and_the_screen() {
    let (c, t) = (ActivityCell::default(), t0());
    c.on_output(t, &[mark(ShellMark::PromptStart)]);
    c.on_output(ms(t, 10), &[mark(ShellMark::CommandExecuted)]);
    c.on_report(ms(t, 20), report(Some(ActivityState::Idle), None));
    // A bell, a notification and a question on screen: the agent said idle.
    let n = Notification::new(NotifySource::Osc9, "", "look at me");
    c.on_output(ms(t, 30), &[TermEvent::Bell, TermEvent::Notification(n)]);
    c.on_screen_checked(ms(t, 40), Some("Do you want to proceed?".into()));
    let r = c.report(ms(t, 5_000));
    assert_eq!(
        (r.state, r.source),
        (ActivityState::Idle, ActivitySource::Hook)
    );
    c.on_report(
        ms(t, 6_000),
        report(Some(ActivityState::Waiting), Some("Allow Bash?")),
    );
    let r = c.report(ms(t, 6_001));
    assert_eq!(r.state, ActivityState::Waiting);
    assert_eq!(r.wait_text.as_deref(), Some("Allow Bash?"));
    assert_eq!(r.wait_reason, Some(WaitReason::Agent));
    // Cleared: the other sources decide again (the notification was after the C).
    c.on_report(ms(t, 7_000), report(None, None));
    assert_eq!(c.report(ms(t, 7_001)).source, ActivitySource::Notification);
}

#[test]
fn a_waiting_report_answered_by_the_user_works_again_and_done_is_seen_by_typing() {
    let (c, t) = (ActivityCell::default(), t0());
    c.on_report(t, report(Some(ActivityState::Waiting), Some("Allow Bash?")));
    // Revealing the pane does not answer the agent.
    c.on_seen(ms(t, 5));
    assert_eq!(c.report(ms(t, 10)).state, ActivityState::Waiting);
    c.on_input(ms(t, 20));
    let r = c.report(ms(t, 30));
    assert_eq!((r.state, r.wait_text), (ActivityState::Running, None));
    c.on_report(ms(t, 40), report(Some(ActivityState::Done), None));
    assert_eq!(c.report(ms(t, 50)).state, ActivityState::Done);
    c.on_input(ms(t, 60));
    assert_eq!(c.report(ms(t, 70)).state, ActivityState::Idle);
}

#[test]
fn a_report_ends_with_the_program_that_made_it() {
    let (c, t) = (ActivityCell::default(), t0());
    c.on_output(t, &[mark(ShellMark::CommandExecuted)]);
    c.on_report(ms(t, 10), report(Some(ActivityState::Waiting), Some("?")));
    assert_eq!(c.report(ms(t, 20)).state, ActivityState::Waiting);
    // The agent exits: the shell finishes the command and prompts.
    let finished = mark(ShellMark::CommandFinished { exit_code: Some(0) });
    c.on_output(ms(t, 30), &[finished, mark(ShellMark::PromptStart)]);
    let r = c.report(ms(t, 40));
    assert_eq!(
        (r.state, r.source),
        (ActivityState::Done, ActivitySource::ShellMarks)
    );
    // And with the pane's own program.
    let (c, t) = (ActivityCell::default(), t0());
    c.on_report(t, report(Some(ActivityState::Running), None));
    c.on_exit(ms(t, 10), 0);
    assert_eq!(c.report(ms(t, 20)).source, ActivitySource::Exit);
}

#[test]
fn osc_21337_is_an_incremental_report_and_idle_after_work_is_done() {
    let (c, t) = (ActivityCell::default(), t0());
    c.on_output(
        t,
        &[osc21337(
            "status=Waiting;indicator=#5f87ff;detail=Run cargo test?",
        )],
    );
    let r = c.report(ms(t, 1));
    assert_eq!(
        (r.state, r.source, r.wait_text.as_deref()),
        (
            ActivityState::Waiting,
            ActivitySource::Osc21337,
            Some("Run cargo test?")
        )
    );
    assert_eq!(r.indicator, Some(Rgb::new(0x5f, 0x87, 0xff)));
    // Output does not make an explicit report "running" or "idle" by the clock.
    c.on_output(ms(t, 10), &[osc21337("status=Working;detail=")]);
    let r = c.report(ms(t, 60_000));
    assert_eq!((r.state, r.changes_in_ms), (ActivityState::Running, None));
    assert_eq!(r.indicator, Some(Rgb::new(0x5f, 0x87, 0xff)), "kept");
    c.on_output(ms(t, 70_000), &[osc21337("status=Idle")]);
    assert_eq!(c.report(ms(t, 70_001)).state, ActivityState::Done);
    c.on_output(ms(t, 80_000), &[osc21337("status=;indicator=;detail=")]);
    assert_ne!(c.report(ms(t, 80_001)).source, ActivitySource::Osc21337);
    // Idle with nothing done before is idle.
    c.on_output(ms(t, 90_000), &[osc21337("status=Idle")]);
    assert_eq!(c.report(ms(t, 90_001)).state, ActivityState::Idle);
}

#[test]
fn without_a_report_the_source_says_which_rule_decided() {
    let (c, t) = (ActivityCell::default(), t0());
    assert_eq!(c.report(t).source, ActivitySource::None);
    c.on_output(t, &[]);
    assert_eq!(c.report(ms(t, 1)).source, ActivitySource::Output);
    c.on_output(ms(t, 10), &[mark(ShellMark::CommandExecuted)]);
    assert_eq!(c.report(ms(t, 20)).source, ActivitySource::ShellMarks);
    c.on_output(ms(t, 30), &[TermEvent::Bell]);
    assert_eq!(c.report(ms(t, 40)).source, ActivitySource::Bell);
}

/// The pty and the socket are two roads: a status sequence read before the hook's
/// report is older and does not undo it; one read after it does; idle after a hook's
/// done stays done. (Catches a rule of arrival order alone: the OSC "working" a
/// program printed before its hook said "done" would leave the pane running.)
#[test]
fn a_status_read_before_the_hooks_report_does_not_undo_it() {
    let (c, t) = (ActivityCell::default(), t0());
    c.on_report(ms(t, 10), report(Some(ActivityState::Done), None));
    c.on_output_read(ms(t, 20), ms(t, 5), &[osc21337("status=Working")]);
    let r = c.report(ms(t, 30));
    assert_eq!(
        (r.state, r.source),
        (ActivityState::Done, ActivitySource::Hook)
    );
    c.on_output_read(ms(t, 40), ms(t, 35), &[osc21337("status=Idle")]);
    let r = c.report(ms(t, 50));
    assert_eq!(
        (r.state, r.source),
        (ActivityState::Done, ActivitySource::Osc21337)
    );
    c.on_output_read(ms(t, 60), ms(t, 55), &[osc21337("status=Working")]);
    assert_eq!(c.report(ms(t, 70)).state, ActivityState::Running);
}
