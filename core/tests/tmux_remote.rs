//! Remote panes through the real pipeline: a [`Connection`] to a real tmux (a local
//! `tmux -C` on a socket of the test's own), each tmux pane shown by a pipeline pane.
//!
//! Without tmux each test fails with the command that installs it (CI installs it:
//! `scripts/test.sh`); `TERN_SKIP_MISSING_TOOLS=1` skips them instead, printed.

mod remote_support;

use std::time::Duration;

use remote_support::*;
use tern_core::pipeline::PipelineConfig;
use tern_core::pipeline::delivery::Delivery;
use tern_core::tmux::{
    CellContent, DisconnectReason, FlowConfig, RemoteCommand, RemoteEvent, SplitDirection,
    TmuxPaneId,
};
use tern_testkit::rss_bytes;

#[test]
fn output_reaches_the_model_and_typing_reaches_the_program() {
    if !tmux_available() {
        return;
    }
    let server = Server::new();
    server.new_session("s", &server.script("hex.pl"));
    let mut remote = Remote::connect(pipeline(), server.spec("s"));
    let pane = remote.wait_pane(TmuxPaneId(0));
    let connected = remote.until(DEADLINE, |r| {
        r.events
            .iter()
            .any(|e| matches!(e, RemoteEvent::Connected { name, .. } if name == "s"))
    });
    assert!(connected, "{:#?}", remote.events);
    remote.wait_screen(pane, "the program's prompt", |rows| {
        rows.first().is_some_and(|r| r.starts_with("ready"))
    });
    // Every kind of byte the keyboard sends: control characters, escape, UTF-8.
    remote.pipeline.write(pane, b"a\x03\r\x1b[A\xc3\xa9");
    remote.wait_screen(pane, "the typed bytes, in hex", |rows| {
        rows.first()
            .is_some_and(|r| r == "ready 61 03 0d 1b 5b 41 c3 a9")
    });
    assert_eq!(server.capture(TmuxPaneId(0)), remote.screen(pane));
}

#[test]
fn a_query_from_the_remote_program_gets_exactly_one_answer() {
    if !tmux_available() {
        return;
    }
    let server = Server::new();
    server.new_session("s", "sleep 1000");
    let mut remote = Remote::connect(pipeline(), server.spec("s"));
    let first = remote.wait_pane(TmuxPaneId(0));
    // A new window, so the program starts while tern is attached and its query
    // passes through tern's model too (which must not answer it: tmux did).
    remote.conn.send(RemoteCommand::NewWindow { cwd: None });
    let window_pane = {
        let ok = remote.until(DEADLINE, |r| {
            r.events.iter().any(
                |e| matches!(e, RemoteEvent::PaneAttached { remote, .. } if *remote != TmuxPaneId(0)),
            )
        });
        assert!(ok, "{:#?}", remote.events);
        remote
            .events
            .iter()
            .find_map(|e| match e {
                RemoteEvent::PaneAttached { remote, pane, .. } if *remote != TmuxPaneId(0) => {
                    Some((*remote, *pane))
                }
                _ => None,
            })
            .unwrap()
    };
    assert_ne!(window_pane.1, first);
    let (tmux_pane, pane) = window_pane;
    server.tmux(&[
        "respawn-pane",
        "-k",
        "-t",
        &tmux_pane.to_string(),
        &server.script("ask.pl"),
    ]);
    remote.wait_screen(pane, "the program's report", |rows| {
        rows.iter().any(|r| r.starts_with("got "))
    });
    let rows = remote.screen(pane);
    let got = rows.iter().find(|r| r.starts_with("got ")).unwrap();
    assert_eq!(
        got.matches("1b 5b").count(),
        1,
        "one cursor report (tmux's), not tern's as well: {got}"
    );
    assert!(got.ends_with(" 52."), "a CPR: {got}");
}

#[test]
fn a_split_and_a_new_window_arrive_as_layouts_of_attached_panes() {
    if !tmux_available() {
        return;
    }
    let server = Server::new();
    server.new_session("s", "cat");
    let mut remote = Remote::connect(pipeline(), server.spec("s"));
    let left = remote.wait_pane(TmuxPaneId(0));
    remote.conn.send(RemoteCommand::SplitPane {
        pane: TmuxPaneId(0),
        direction: SplitDirection::Right,
    });
    let two = remote.until(DEADLINE, |r| {
        r.events
            .iter()
            .any(|e| matches!(e, RemoteEvent::Layout { panes, .. } if panes.len() == 2))
    });
    assert!(two, "{:#?}", remote.events);
    let (layout, panes) = remote
        .events
        .iter()
        .find_map(|e| match e {
            RemoteEvent::Layout { layout, panes, .. } if panes.len() == 2 => {
                Some((layout.clone(), panes.clone()))
            }
            _ => None,
        })
        .unwrap();
    let CellContent::LeftRight(cells) = &layout.root.content else {
        panic!("{layout}")
    };
    assert_eq!(panes[0], (TmuxPaneId(0), left));
    let right = panes[1].1;
    assert_eq!(remote.pane_of(panes[1].0), Some(right));
    // The right pane's model has its cell's size (a reveal's snapshot says).
    let width = cells[1].width as usize;
    remote.pipeline.set_visible(right, true);
    let size = match remote.pipeline.take_within(right, DEADLINE) {
        Some(Delivery::Snapshot(s)) => s.meta.size,
        other => panic!("a snapshot, not {:?}", other.is_some()),
    };
    assert_eq!((size.cols, size.rows), (width, 24));

    remote.conn.send(RemoteCommand::NewWindow { cwd: None });
    let window = remote.until(DEADLINE, |r| {
        r.events
            .iter()
            .any(|e| matches!(e, RemoteEvent::WindowAdded { index: Some(1), .. }))
            && r.events.iter().any(|e| {
                matches!(e, RemoteEvent::Layout { index: Some(1), panes, .. } if panes.len() == 1)
            })
    });
    assert!(window, "{:#?}", remote.events);

    // Closing a tern pane kills its tmux pane; the layout follows.
    remote.pipeline.close(right);
    let closed = remote.until(DEADLINE, |r| {
        r.events
            .iter()
            .any(|e| matches!(e, RemoteEvent::PaneGone { pane, .. } if *pane == right))
    });
    assert!(closed, "{:#?}", remote.events);
    assert_eq!(
        server
            .tmux(&["list-panes", "-t", "s:0", "-F", "#{pane_id}"])
            .trim(),
        "%0"
    );
}

#[test]
fn detaching_leaves_the_program_running_and_attaching_again_shows_its_screen() {
    if !tmux_available() {
        return;
    }
    let server = Server::new();
    server.new_session("s", &server.script("hex.pl"));
    let pipeline = pipeline();
    let mut first = Remote::connect(pipeline.clone(), server.spec("s"));
    let pane = first.wait_pane(TmuxPaneId(0));
    first.wait_screen(pane, "the prompt", |rows| {
        rows.first().is_some_and(|r| r.starts_with("ready"))
    });
    pipeline.write(pane, b"ab");
    first.wait_screen(pane, "the echo", |rows| {
        rows.first().is_some_and(|r| r == "ready 61 62")
    });
    assert_eq!(first.detach(), DisconnectReason::Detached);
    let exit = wait_exited(&pipeline, pane);
    assert_eq!(exit.signal.as_deref(), Some("disconnected"));
    assert!(
        server
            .tmux(&[
                "list-panes",
                "-t",
                "s",
                "-F",
                "#{pane_dead} #{pane_current_command}"
            ])
            .starts_with("0 perl"),
        "the program runs on"
    );

    let mut second = Remote::connect(pipeline.clone(), server.spec("s"));
    let again = second.wait_pane(TmuxPaneId(0));
    assert_ne!(again, pane);
    second.wait_screen(again, "the screen, read on attach", |rows| {
        rows.first().is_some_and(|r| r == "ready 61 62")
    });
    pipeline.write(again, b"c");
    second.wait_screen(again, "the same program's echo", |rows| {
        rows.first().is_some_and(|r| r == "ready 61 62 63")
    });
}

#[test]
fn a_flooding_hidden_pane_is_paused_and_continued_and_its_screen_ends_as_tmuxs() {
    if !tmux_available() {
        return;
    }
    let server = Server::new();
    server.new_session(
        "s",
        "sh -c 'read go; seq 1 3000000; echo END-OF-FLOOD; sleep 1000'",
    );
    // A small credit window: the model reads 4 KiB at a time, so the slave fills often.
    let pipeline = pipeline_with(PipelineConfig {
        window_bytes: 4096,
        ..PipelineConfig::default()
    });
    let flow = FlowConfig {
        keep_high_bytes: 16 * 1024,
        keep_max_bytes: 64 * 1024,
    };
    let mut spec = server.spec("s");
    spec.flow = flow;
    let mut remote = Remote::connect(pipeline.clone(), spec);
    let pane = remote.wait_pane(TmuxPaneId(0));
    // The pane is parked (panes start hidden) for the whole flood.
    let rss_before = rss_bytes();
    pipeline.write(pane, b"go\r");
    let mut max_kept = 0;
    let done = remote.until(Duration::from_secs(120), |r| {
        for s in r.conn.pane_stats() {
            max_kept = max_kept.max(s.kept_bytes);
        }
        r.screen(pane).iter().any(|row| row == "END-OF-FLOOD")
    });
    assert!(
        done,
        "the flood's end never showed: {:?}",
        remote.screen(pane)
    );
    let rss_after = rss_bytes();
    let stats = remote.conn.pane_stats();
    let stats = stats.iter().find(|s| s.remote == TmuxPaneId(0)).unwrap();
    eprintln!("flow: {stats:?}, RSS {rss_before} -> {rss_after}");
    assert!(
        stats.flow.pauses_asked >= 1 && stats.flow.continues >= 1,
        "the pane was paused and continued: {stats:?}"
    );
    assert!(
        stats.flow.max_kept_bytes <= flow.keep_max_bytes + 64 * 1024,
        "kept bytes stay bounded: {stats:?}"
    );
    assert!(max_kept <= flow.keep_max_bytes + 64 * 1024);
    assert!(!stats.paused);
    assert!(
        rss_after < rss_before + 200 * 1024 * 1024,
        "memory stays bounded: {rss_before} -> {rss_after}"
    );
    // Revealed: the visible screen is tmux's, nothing lost on it.
    pipeline.set_visible(pane, true);
    let same = remote.until(DEADLINE, |r| {
        r.screen(pane) == server.capture(TmuxPaneId(0))
    });
    assert!(
        same,
        "tern {:#?}\ntmux {:#?}",
        remote.screen(pane),
        server.capture(TmuxPaneId(0))
    );
    let snapshot = pipeline.take_within(pane, Duration::from_secs(5));
    assert!(snapshot.is_some(), "a reveal delivers a snapshot");
}

#[test]
fn a_missing_tmux_and_a_dead_server_are_reported_as_disconnects() {
    if !tmux_available() {
        return;
    }
    let server = Server::new();
    let mut spec = server.spec("s");
    spec.tmux = vec!["/nonexistent/tmux".into()];
    let mut remote = Remote::connect(pipeline(), spec);
    assert!(remote.until(DEADLINE, |r| r.disconnected().is_some()));
    let reason = remote.disconnected().unwrap().clone();
    assert!(reason.to_string().contains("tmux 3.2 or newer"), "{reason}");

    server.new_session("s", "cat");
    let mut remote = Remote::connect(pipeline(), server.spec("s"));
    remote.wait_pane(TmuxPaneId(0));
    server.tmux(&["kill-server"]);
    assert!(remote.until(DEADLINE, |r| r.disconnected().is_some()));
    assert!(
        matches!(
            remote.disconnected(),
            Some(DisconnectReason::Exited { .. } | DisconnectReason::Lost { .. })
        ),
        "{:?}",
        remote.disconnected()
    );
}

/// A control-mode peer that says exactly what the test needs, in the order it needs:
/// the reply to the first screen read (`capture-pane`, then the cursor) and output the
/// program printed after that read, all in one write, so tern reads them in one chunk.
const SCRIPTED_TMUX: &str = r#"
case "$1" in -V) echo "tmux 3.3a"; exit 0;; esac
n=100
block() { n=$((n+1)); printf '%%begin 1 %s 1\n%s%%end 1 %s 1\n' "$n" "$1" "$n"; }
printf '%%begin 1 1 0\n%%end 1 1 0\n%%session-changed $0 fake\n'
read_before=0
while IFS= read -r line; do
  case "$line" in
    list-windows*) block '@0 0 1 b25d,80x24,0,0,0 b25d,80x24,0,0,0 sh
' ;;
    capture-pane*)
      if [ $read_before = 0 ]; then
        read_before=1
        # One write: cat copies the file whole.
        { block 'remote-ready
$ 
'; block '2 1 0
'; printf '%s\n' '%output %0 after-repaint\015\012'; } > "$0.out"
        cat "$0.out"
      else
        block 'remote-ready
$ after-repaint
'
        block '0 2 0
'
      fi ;;
    send-keys*) block ''; printf '%s\n' '%output %0 !' ;;
    *) block '' ;;
  esac
done
printf '%%exit\n'
"#;

#[test]
fn output_after_a_screen_read_in_the_same_chunk_is_drawn_after_its_repaint() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("tmux.sh");
    std::fs::write(&script, SCRIPTED_TMUX).expect("script");
    let mut spec = tern_core::tmux::ConnectSpec::new(tern_core::tmux::Transport::Local, "fake");
    spec.tmux = vec!["sh".into(), script.display().to_string()];
    let mut remote = Remote::connect(pipeline(), spec);
    let pane = remote.wait_pane(TmuxPaneId(0));
    // Written in tmux's order: the screen as read, its cursor, then what came after.
    // The repaint written after the chunk's output painted "after-repaint" over.
    remote.wait_screen(pane, "the output after the repaint", |rows| {
        rows == ["remote-ready", "$ after-repaint"]
    });
    // And it stays there: what is typed next is echoed below it, not over it.
    remote.pipeline.write(pane, b"!");
    remote.wait_screen(pane, "the echo below", |rows| {
        rows == ["remote-ready", "$ after-repaint", "!"]
    });
}

/// A host gives a pane 2000x1000 cells: its model is at most
/// [`MAX_REMOTE_PANE_COLS`] x [`MAX_REMOTE_PANE_ROWS`], and the user is told. Catches
/// remote panes sized to whatever tmux says (20 such panes took RSS to 2.26 GB).
#[test]
fn a_huge_remote_pane_is_shown_within_the_size_cap() {
    if !tmux_available() {
        return;
    }
    use tern_core::tmux::{MAX_REMOTE_PANE_COLS, MAX_REMOTE_PANE_ROWS};
    let server = Server::new();
    server.new_session("s", "sleep 1000");
    let mut spec = server.spec("s");
    spec.size = (2000, 1000);
    let mut remote = Remote::connect(pipeline(), spec);
    let pane = remote.wait_pane(TmuxPaneId(0));
    let told = remote.until(DEADLINE, |r| {
        r.events.iter().any(|e| {
            matches!(e, RemoteEvent::Problem(m)
                if m.contains("is 2000x1000 in tmux") && m.contains("shown as 640x240"))
        })
    });
    assert!(told, "{:#?}", remote.events);
    let dump = remote.pipeline.dump_screen(pane).expect("screen");
    assert!(
        dump.rows.len() <= MAX_REMOTE_PANE_ROWS
            && dump
                .rows
                .iter()
                .all(|r| r.chars().count() <= MAX_REMOTE_PANE_COLS),
        "{} rows",
        dump.rows.len()
    );
}

/// A host with more panes than [`MAX_REMOTE_PANES`] gets that many shown (each a pty
/// pair and a model) and the user is told once. Catches a pane per tmux pane without
/// limit (400 small panes opened 400 ptys, 1,228 fds).
#[test]
fn a_remote_session_shows_at_most_max_panes() {
    if !tmux_available() {
        return;
    }
    use tern_core::tmux::MAX_REMOTE_PANES;
    let server = Server::new();
    server.new_session("s", "sleep 1000");
    let extra = MAX_REMOTE_PANES + 4;
    let mut args = Vec::new();
    for _ in 1..extra {
        args.extend(["new-window", "-d", "sleep 1000", ";"]);
    }
    args.pop();
    server.tmux(&args);
    let mut remote = Remote::connect(pipeline(), server.spec("s"));
    let told = remote.until(DEADLINE, |r| {
        r.events.iter().any(|e| {
            matches!(e, RemoteEvent::Problem(m)
                if m.contains(&format!("at most {MAX_REMOTE_PANES} panes")))
        })
    });
    assert!(told, "{:#?}", remote.events);
    // Let every window's pane come.
    remote.until(Duration::from_secs(2), |_| false);
    let attached = remote
        .events
        .iter()
        .filter(|e| matches!(e, RemoteEvent::PaneAttached { .. }))
        .count();
    assert_eq!(attached, MAX_REMOTE_PANES);
    let problems = remote
        .events
        .iter()
        .filter(|e| matches!(e, RemoteEvent::Problem(m) if m.contains("not shown")))
        .count();
    assert_eq!(problems, 1, "told once");
}

/// A worktree folder whose name holds tmux format syntax (`#{host}`, `#(cmd)`) is
/// the folder the new session starts in: tmux expands `new-session -c` as a format,
/// so a `#(...)` there would run a command. Catches `#` not doubled in the first
/// `new-session` (it was for `new-window` only).
#[test]
fn a_start_folder_with_format_syntax_is_taken_literally() {
    if !tmux_available() {
        return;
    }
    let server = Server::new();
    let base = tempfile::tempdir().expect("temp dir");
    let dir = base.path().join("wt#{host}#(true)x");
    std::fs::create_dir(&dir).expect("folder");
    let mut spec = server.spec("fresh");
    spec.start_dir = Some(path_str(&dir));
    let mut remote = Remote::connect(pipeline(), spec);
    remote.wait_pane(TmuxPaneId(0));
    let cwd = server.tmux(&[
        "display-message",
        "-p",
        "-t",
        "fresh",
        "#{pane_current_path}",
    ]);
    assert_eq!(cwd.trim_end(), path_str(&dir));
}

/// A remote pane's OSC 7 naming this machine's host name stays a remote hint: the
/// pane (attached, so `TermConfig::far_side`) reports no local working directory.
/// Catches attached panes built like local ones (`tern msg list` showed the remote
/// path as a local folder).
#[test]
fn a_remote_panes_osc_7_never_sets_a_local_folder() {
    if !tmux_available() {
        return;
    }
    use tern_core::model::TermEvent;
    use tern_core::pipeline::PaneEvent;
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    let server = Server::new();
    let program =
        format!("sleep 0.5; printf '\\033]7;file://{host}/srv/remote\\007done'; sleep 1000");
    server.new_session("s", &program);
    let mut remote = Remote::connect(pipeline(), server.spec("s"));
    let pane = remote.wait_pane(TmuxPaneId(0));
    remote.wait_screen(pane, "the program's output", |rows| {
        rows.iter().any(|r| r.contains("done"))
    });
    let cwd_facts: Vec<_> = remote
        .pipeline
        .poll_events()
        .into_iter()
        .filter(
            |e| matches!(e, PaneEvent::Fact { pane: p, event: TermEvent::Cwd(_) } if *p == pane),
        )
        .collect();
    assert!(cwd_facts.is_empty(), "{cwd_facts:?}");
}
