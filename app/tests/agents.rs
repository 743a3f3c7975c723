//! Scripted fake agents in three worktrees, driven through the real window code
//! (egui_kittest, real ptys): one streams output, one stops to ask, one exits. The
//! sidebar, the tab bar and the quick switcher show running / waiting / done, the
//! switcher lists the waiting one first, and "next waiting pane" (Ctrl+Shift+J)
//! reaches the asking agent from another worktree. Why it waits (the question's line)
//! is on its sidebar row and in the switcher, with the time in that state.

use std::path::{Path, PathBuf};
use std::time::Duration;

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use tern::window::app::{Launch, TernApp};
use tern_core::model::TermSize;
use tern_core::pipeline::activity::ActivityState;
use tern_core::pipeline::{PaneId, SpawnSpec};

mod common;
use common::Slot;
use tern::window::app::TestView as _;

const CTRL_SHIFT: Modifiers = Modifiers {
    alt: false,
    ctrl: true,
    shift: true,
    mac_cmd: false,
    command: true,
};

const STREAMING: &str =
    "i=0; while true; do i=$((i+1)); echo \"step $i: editing files\"; sleep 0.1; done\n";
const ASKING: &str = "echo 'Bash command: rm -rf target'; printf 'Do you want to proceed? [y/N] '; read answer; echo \"got $answer\"; sleep 600\n";
const EXITING: &str = "echo 'all tasks finished'; exit 0\n";

fn worktree(root: &Path, name: &str, script: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("agent.sh"), script).expect("agent script");
    dir
}

/// The window, its first pane in `first`; every new pane runs its worktree's agent.sh.
fn agents_window(root: &Path, first: &Path) -> Harness<'static, Slot> {
    let config = root.join("config.ron");
    std::fs::write(
        &config,
        "(shell: (program: \"sh\", args: [\"agent.sh\"]), shell_integration: false)\n",
    )
    .expect("config");
    let mut launch = Launch::new(
        SpawnSpec::command("sh", &["agent.sh"])
            .cwd(first)
            .size(TermSize::new(80, 24)),
    );
    launch.config = tern::window::settings::ConfigSource::File(config);
    common::app_harness(launch, egui::vec2(1100.0, 600.0))
}

fn app<'a>(h: &'a Harness<'_, Slot>) -> &'a TernApp {
    h.state().as_ref().expect("the app started")
}

fn step_until(h: &mut Harness<'_, Slot>, what: &str, done: impl Fn(&Harness<'_, Slot>) -> bool) {
    if common::step_until_or(h, Duration::from_secs(40), done) {
        return;
    }
    let states: Vec<_> = app(h)
        .switcher_entries()
        .into_iter()
        .map(|e| e.text)
        .collect();
    panic!("{what}: panes {states:?}");
}

/// The one pane of the worktree group called `name`.
fn pane_of(h: &Harness<'_, Slot>, name: &str) -> PaneId {
    let ws = &app(h).core().ws();
    let g = ws
        .groups
        .iter()
        .find(|g| g.name == name)
        .unwrap_or_else(|| panic!("no worktree {name}"));
    g.tabs[0].focused
}

fn state(h: &Harness<'_, Slot>, pane: PaneId) -> Option<ActivityState> {
    app(h).pane_badges(pane).activity
}

#[test]
fn fake_agents_show_running_waiting_and_done_and_the_waiting_one_is_reached() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    let stream = worktree(&root, "stream", STREAMING);
    let ask = worktree(&root, "ask", ASKING);
    let exit = worktree(&root, "exit", EXITING);
    let mut h = agents_window(&root, &stream);
    h.step();
    if let Some(a) = h.state_mut().as_mut() {
        a.open_group("ask".into(), ask, None);
        a.open_group("exit".into(), exit, None);
    }
    h.step();
    let (streaming, asking, exiting) = (
        pane_of(&h, "stream"),
        pane_of(&h, "ask"),
        pane_of(&h, "exit"),
    );
    step_until(&mut h, "running / waiting / done", |h| {
        state(h, streaming) == Some(ActivityState::Running)
            && state(h, asking) == Some(ActivityState::Waiting)
            // Held after its exit: `exited`, as `tern msg list` says (one rule).
            && state(h, exiting) == Some(ActivityState::Exited)
    });
    // The sidebar: each worktree's row says what its agent is doing.
    h.key_press_modifiers(CTRL_SHIFT, Key::B);
    step_until(&mut h, "the sidebar shows the states", |h| {
        h.query_by_label_contains("worktree stream · running")
            .is_some()
            && h.query_all_by_label_contains("worktree ask · waiting")
                .any(|n| {
                    n.accesskit_node()
                        .label()
                        .is_some_and(|l| l.ends_with(" — Do you want to proceed? [y/N]"))
                })
            && h.query_by_label_contains("worktree exit · exited")
                .is_some()
    });
    // The quick switcher: the waiting agent first, every state named.
    h.key_press_modifiers(CTRL_SHIFT, Key::O);
    // (The sidebar's rows say the same words; the switcher's rows are not "worktree …".)
    let in_switcher = |h: &Harness<'_, Slot>, state: &str| {
        h.query_all_by_label_contains(state).any(|n| {
            n.accesskit_node()
                .label()
                .is_some_and(|l| !l.starts_with("worktree "))
        })
    };
    step_until(&mut h, "the switcher shows the states", |h| {
        in_switcher(h, " · waiting") && in_switcher(h, " · running") && in_switcher(h, " · exited")
    });
    let entries = app(&h).switcher_entries();
    let texts: Vec<&str> = entries.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(entries[0].value, asking, "waiting first: {texts:?}");
    // Why it waits, and for how long.
    assert!(
        texts[0].starts_with("ask · ")
            && texts[0].contains(" · waiting ")
            && texts[0].ends_with("s — Do you want to proceed? [y/N]"),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("stream · ") && t.contains(" · running"))
    );
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("exit · ") && t.contains(" · exited"))
    );
    h.key_press(Key::Escape);
    h.step();
    // From the "exit" worktree, "next waiting pane" goes to the asking agent.
    assert_ne!(app(&h).pane(), Some(asking));
    h.key_press_modifiers(CTRL_SHIFT, Key::J);
    step_until(&mut h, "focus on the waiting pane", |h| {
        app(h).pane() == Some(asking)
    });
    // Answering it ends the wait.
    h.event(egui::Event::Text("y".into()));
    h.key_press(Key::Enter);
    step_until(&mut h, "the answer is taken", |h| {
        state(h, asking) != Some(ActivityState::Waiting)
    });
}

/// bash with tern's integration (as the binary starts it: the scripts written by the
/// spawn, not by the test), in a window.
fn integrated_bash(rows: usize) -> (Harness<'static, Slot>, PaneId, tempfile::TempDir) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let mut spec = SpawnSpec::command("bash", &[])
        .cwd(&home)
        .size(TermSize::new(80, rows));
    spec.env = vec![
        ("HOME".into(), home.display().to_string()),
        ("PS1".into(), "$ ".into()),
    ];
    spec.shell_integration = Some(tmp.path().join("integration"));
    let mut h = common::app_harness(Launch::new(spec), egui::vec2(800.0, 400.0));
    step_until(&mut h, "the shell starts", |h| app(h).pane().is_some());
    let pane = app(&h).pane().expect("pane");
    step_until(&mut h, "the first prompt", |h| {
        app(h)
            .core()
            .pipeline()
            .activity(pane)
            .is_some_and(|r| r.state == ActivityState::Idle)
    });
    (h, pane, tmp)
}

/// Runs `line` once the shell's line editor has it (typed earlier, the tty would echo
/// it before the prompt), and waits for the command's D mark.
fn run_line(h: &mut Harness<'static, Slot>, pane: PaneId, line: &str) {
    step_until(h, "the shell waits at its prompt", |h| {
        app(h)
            .pane_ui(pane)
            .is_some_and(|p| p.program.marks.at_input())
    });
    let before = app(h)
        .core()
        .pipeline()
        .activity(pane)
        .and_then(|r| r.last_command)
        .map(|c| c.started_at);
    h.event(egui::Event::Text(line.into()));
    h.key_press(Key::Enter);
    step_until(h, &format!("{line} finished"), |h| {
        app(h)
            .core()
            .pipeline()
            .activity(pane)
            .and_then(|r| r.last_command)
            .is_some_and(|c| {
                c.finished_at.is_some()
                    && Some(c.started_at) != before
                    && c.command.as_deref() == Some(line)
            })
    });
}

/// Ctrl+Shift+K and Ctrl+Shift+L scroll to the previous and next prompt (OSC 133 A);
/// Ctrl+Shift+Alt+Y selects the last command's output and Ctrl+Shift+Y copies it. The
/// config file promised these and none existed (the palette found nothing for
/// "prompt"): each fails without its command.
#[test]
fn prompt_jumps_and_the_last_commands_output() {
    let (mut h, pane, _tmp) = integrated_bash(10);
    run_line(&mut h, pane, "seq 1 30");
    run_line(&mut h, pane, "seq 101 130");
    run_line(&mut h, pane, "echo one; echo two");
    assert_eq!(app(&h).scroll_offset(), 0);
    // Back to the prompt of `echo`, then of `seq`: each lands at the top row (history
    // pages come from the model without the window waiting: a frame or two).
    let top_is = |h: &mut Harness<'static, Slot>, want: &str| {
        let shown = common::step_until_or(h, Duration::from_secs(10), |h| {
            h.state()
                .as_ref()
                .and_then(|a| a.pane_ui(a.pane()?))
                .is_some_and(|p| p.history_in_view())
        });
        let top = h
            .state_mut()
            .as_mut()
            .expect("app")
            .shown_rows()
            .first()
            .cloned()
            .unwrap_or_default();
        assert!(
            shown && top.ends_with(want),
            "top row {top:?}, wanted {want:?}"
        );
    };
    h.key_press_modifiers(CTRL_SHIFT, Key::K);
    h.step();
    top_is(&mut h, " seq 101 130");
    h.key_press_modifiers(CTRL_SHIFT, Key::K);
    h.step();
    top_is(&mut h, " seq 1 30");
    assert!(app(&h).scroll_offset() > 0);
    // And forward again.
    h.key_press_modifiers(CTRL_SHIFT, Key::L);
    h.step();
    top_is(&mut h, " seq 101 130");
    // The last output, selected and copied.
    const CTRL_SHIFT_ALT: Modifiers = Modifiers {
        alt: true,
        ..CTRL_SHIFT
    };
    h.key_press_modifiers(CTRL_SHIFT_ALT, Key::Y);
    h.step();
    assert_eq!(common::selected(&mut h).as_deref(), Some("one\ntwo"));
    // Ctrl+Shift+Y copies it to the clipboard (key down only: a step runs a frame per
    // event, and the output read is the last frame's).
    common::key_down(&mut h, Key::Y, CTRL_SHIFT);
    assert_eq!(
        common::step_until_copied(&mut h, "copy last output"),
        ["one\ntwo"]
    );
    // In the palette by name.
    h.key_press_modifiers(CTRL_SHIFT, Key::P);
    h.step();
    h.event(egui::Event::Text("prompt".into()));
    h.step();
    assert!(
        h.query_by_label_contains("Jump to the previous prompt")
            .is_some()
    );
}

/// A shell with tern's integration runs `sleep 1; false` in a tab that is then hidden:
/// the tab's badge turns to failed (OSC 133 D;1 from the injected hooks, no rc change).
fn failing_command_marks_the_hidden_tab(program: &str) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let scripts = tern_core::shell_integration::install(&tmp.path().join("integration"))
        .expect("install the scripts");
    let mut spec = SpawnSpec::command(program, &[])
        .cwd(&home)
        .size(TermSize::new(80, 24));
    spec.env = vec![
        ("HOME".into(), home.display().to_string()),
        ("ZDOTDIR".into(), home.display().to_string()),
        (
            "XDG_CONFIG_HOME".into(),
            home.join(".config").display().to_string(),
        ),
    ];
    spec.shell_integration = Some(scripts);
    let mut h = common::app_harness(Launch::new(spec), egui::vec2(1000.0, 600.0));
    let first = {
        step_until(&mut h, "the shell starts", |h| app(h).pane().is_some());
        app(&h).pane().expect("pane")
    };
    // The first prompt (OSC 133 A) means the hooks are in.
    step_until(&mut h, "the first prompt", |h| {
        app(h)
            .core()
            .pipeline()
            .activity(first)
            .is_some_and(|r| r.state == ActivityState::Idle)
    });
    h.event(egui::Event::Text("sleep 1; false".into()));
    h.key_press(Key::Enter);
    h.step();
    h.key_press_modifiers(CTRL_SHIFT, Key::T);
    step_until(&mut h, "a second tab", |h| app(h).pane() != Some(first));
    step_until(&mut h, "the hidden tab's badge says failed", |h| {
        app(h).pane_badges(first).finished == Some(false)
    });
}

#[test]
fn bash_failing_command_marks_its_hidden_tab_failed() {
    failing_command_marks_the_hidden_tab("bash");
}

#[test]
fn zsh_failing_command_marks_its_hidden_tab_failed() {
    failing_command_marks_the_hidden_tab("zsh");
}

#[test]
fn fish_failing_command_marks_its_hidden_tab_failed() {
    failing_command_marks_the_hidden_tab("fish");
}

/// An agent's own OSC 21337 report: its detail is why it waits on the sidebar row and
/// in the switcher, and its `indicator` colours its mark. Catches a window that reads
/// the notification or the screen rule instead of the report.
#[test]
fn an_agents_own_status_is_its_reason_on_the_sidebar_and_in_the_switcher() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    // The report says it waits; its screen says nothing that asks.
    let reporting = worktree(
        &root,
        "report",
        "printf '\\033]21337;status=Waiting;indicator=#5f87ff;detail=Allow Bash: cargo test?\\007'; echo 'working on it'; sleep 600\n",
    );
    let quiet = worktree(&root, "quiet", "sleep 600\n");
    let mut h = agents_window(&root, &quiet);
    h.step();
    if let Some(a) = h.state_mut().as_mut() {
        a.open_group("report".into(), reporting, None);
    }
    h.step();
    let pane = pane_of(&h, "report");
    step_until(&mut h, "the report waits", |h| {
        state(h, pane) == Some(ActivityState::Waiting)
    });
    assert_eq!(
        app(&h).pane_badges(pane).indicator,
        Some(tern_core::model::Rgb::new(0x5f, 0x87, 0xff))
    );
    h.key_press_modifiers(CTRL_SHIFT, Key::B);
    step_until(&mut h, "the sidebar says why", |h| {
        h.query_all_by_label_contains("worktree report · waiting")
            .any(|n| {
                n.accesskit_node()
                    .label()
                    .is_some_and(|l| l.ends_with(" — Allow Bash: cargo test?"))
            })
    });
    let entries = app(&h).switcher_entries();
    assert!(
        entries[0].value == pane
            && entries[0].text.contains(" · waiting ")
            && entries[0].text.ends_with(" — Allow Bash: cargo test?"),
        "{:?}",
        entries.iter().map(|e| &e.text).collect::<Vec<_>>()
    );
}
