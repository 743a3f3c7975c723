//! A remote worktree in the workspace core, with no window: a real tmux behind a
//! stand-in for ssh (a script that runs the remote command line here, as sshd would
//! on the host), and tmux itself used as a scripted peer — windows added and killed
//! from outside come and go as tabs, a split asked of the core is tmux's, and every
//! change reaches the workspace as a command.
//!
//! Without tmux the test fails with the command that installs it (CI installs it:
//! `scripts/test.sh`); `TERN_SKIP_MISSING_TOOLS=1` skips it instead, printed.

mod remote_support;

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::time::Duration;

use tern_testkit::eventually;

use remote_support::*;
use tern_core::config::Config;
use tern_core::workspace::split_tree::Axis;
use tern_core::workspace::{Command, Source, WorkspaceCore};

/// Runs what follows `--` with sh, here: the remote side of `ssh host -- LINE`.
const FAKE_SSH: &str = "#!/bin/sh\nwhile [ \"$#\" -gt 0 ] && [ \"$1\" != \"--\" ]; do shift; done\nshift\nexec sh -c \"$1\"\n";

fn pump(core: &mut WorkspaceCore, what: &str, done: impl Fn(&WorkspaceCore) -> bool) {
    eventually(what, Duration::from_secs(20), || {
        if done(core) {
            return Ok(());
        }
        core.poll_remotes();
        for event in core.pipeline().poll_events() {
            core.on_event(&event);
        }
        Err(format!("groups {:?}", core.ws().groups))
    });
}

fn tabs(core: &WorkspaceCore, group: usize) -> usize {
    core.ws().groups.get(group).map_or(0, |g| g.tabs.len())
}

/// A config whose ssh is the stand-in (written into the server's folder) and whose
/// tmux is the test server's, and the remote folder `work` it serves.
fn remote_config(server: &Server) -> (Config, std::path::PathBuf) {
    let ssh = server.dir.path().join("ssh");
    std::fs::write(&ssh, FAKE_SSH).expect("write the ssh stand-in");
    std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let work = server.dir.path().join("work");
    std::fs::create_dir_all(&work).expect("work folder");
    let mut config = Config::default();
    config.remote.ssh = ssh.display().to_string();
    config.remote.tmux = server.tmux_words();
    (config, work)
}

#[test]
fn a_tmux_peer_adding_and_killing_windows_makes_and_closes_tabs() {
    if !tmux_available() {
        return;
    }
    let server = Server::new();
    let (config, work) = remote_config(&server);
    let mut core = WorkspaceCore::new(pipeline(), config);
    core.set_waker(Arc::new(|| {}));
    core.apply(
        Source::Chrome,
        Command::AddRemote(format!("peerhost:{}", work.display())),
    )
    .expect("a remote target");
    let group = core.ws().active;
    assert!(core.remote_of_group(group).is_some());
    pump(&mut core, "tmux's first window as a tab", |c| {
        tabs(c, group) == 1
    });
    let session = tern_core::tmux::session_name(&work.display().to_string());

    // The peer adds a window: a tab comes; it kills it: the tab goes.
    server.tmux(&["new-window", "-d", "-t", &session]);
    pump(&mut core, "the second window's tab", |c| {
        tabs(c, group) == 2
    });
    let second = core.ws().groups[group].tabs[1].layout.panes()[0];
    server.tmux(&["kill-window", "-t", &format!("{session}:1")]);
    pump(&mut core, "the killed window's tab gone", |c| {
        tabs(c, group) == 1
    });
    assert!(core.record(second).is_none(), "its pane left the registry");
    assert!(
        core.journal().any(|a| a.source == Source::Tmux
            && matches!(
                &a.change,
                Command::Tmux {
                    event: tern_core::tmux::RemoteEvent::WindowClosed(_),
                    ..
                }
            )
            && a.result.is_ok()),
        "tmux's news reached the workspace as a command"
    );

    // A split asked of the core is tmux's to make: the pane comes with the layout.
    core.apply(
        Source::Key,
        Command::Split {
            pane: None,
            axis: Axis::Horizontal,
            cwd: None,
            program: Vec::new(),
            size: None,
        },
    )
    .expect("split");
    pump(&mut core, "tmux's split in the tab", |c| {
        c.ws().groups[group].tabs[0].layout.len() == 2
    });
    let panes = server.tmux(&["list-panes", "-t", &session, "-F", "#{pane_id}"]);
    assert_eq!(panes.lines().count(), 2, "tmux has the two panes: {panes}");

    // The link drops (tmux's server is killed): its panes leave the registry while it
    // reconnects, and a `tern msg` request naming one gets a clear error and changes
    // nothing else.
    let remote_pane = core.ws().groups[group].tabs[0].layout.panes()[0];
    server.tmux(&["kill-server"]);
    pump(&mut core, "the dropped link's panes forgotten", |c| {
        c.record(remote_pane).is_none()
    });
    let before = core.ws().all_panes();
    let asked = tern_core::workspace::requests::route(
        &core,
        tern_core::ipc::Request::SendText {
            pane: remote_pane.0,
            text: "echo hi\n".into(),
        },
    );
    assert_eq!(
        asked.err(),
        Some(format!("no pane {}", remote_pane.0)),
        "a clear error"
    );
    assert_eq!(core.ws().all_panes(), before, "nothing else changed");

    // Detaching leaves the programs running in tmux; the session names the target.
    let state = core.session_state(false);
    assert_eq!(state.remotes.len(), 1);
    assert!(
        state.worktrees.is_empty(),
        "a remote group is saved as its target"
    );
    core.detach_remotes();
}

/// The journal holds every change whole, so it replays: a scenario of a restored
/// session, keys, `tern msg` requests and a tmux peer's news (windows added, renamed
/// and killed), applied again in order to a fresh core whose ssh cannot connect, gives
/// the same workspace — groups, tabs, split trees, names, focus. Catches a change to
/// the workspace that bypasses `apply` (it would be missing from the replay) or a
/// command journalled without what it carried.
#[test]
fn the_journal_replays_into_a_fresh_core_as_the_same_workspace() {
    if !tmux_available() {
        return;
    }
    let server = Server::new();
    let (mut config, work) = remote_config(&server);
    let (a, b) = (server.dir.path().join("a"), server.dir.path().join("b"));
    for dir in [&a, &b] {
        std::fs::create_dir_all(dir).expect("folder");
    }
    config.shell.program = Some("/bin/sh".into());

    // A saved session of two worktrees, one split, from an earlier run.
    let mut earlier = WorkspaceCore::new(pipeline(), config.clone());
    for dir in [&a, &b] {
        earlier
            .apply(Source::Chrome, open_group(dir))
            .expect("a group");
    }
    earlier
        .apply(Source::Key, split(Axis::Vertical))
        .expect("split");
    let saved = earlier.session_state(false);
    drop(earlier);

    let mut core = WorkspaceCore::new(pipeline(), config.clone());
    core.set_waker(Arc::new(|| {}));
    let start = tern_core::workspace::Start {
        session: Some(saved),
        last_screen: false,
        dir: a.clone(),
        started: None,
        program: Vec::new(),
        size: None,
    };
    core.apply(Source::Start, Command::Start(Box::new(start)))
        .expect("restored");
    // Keys and the chrome.
    core.apply(Source::Key, split(Axis::Horizontal))
        .expect("split");
    core.apply(Source::Key, Command::ToggleZoom).expect("zoom");
    core.apply(Source::Key, Command::CycleGroup(1))
        .expect("cycle");
    // `tern msg`, routed as the socket routes it.
    let request = tern_core::ipc::Request::NewTab {
        cwd: Some(b.clone()),
        title: Some("logs".into()),
        command: Vec::new(),
    };
    let Ok(tern_core::workspace::requests::Routed::Command(new_tab)) =
        tern_core::workspace::requests::route(&core, request)
    else {
        panic!("new-tab routes to a command");
    };
    core.apply(Source::Msg, new_tab).expect("new tab");
    core.apply(Source::Msg, Command::MoveTab(-1))
        .expect("moved");
    let first = core.ws().groups[0].tabs[0].layout.panes()[0];
    core.apply(Source::Msg, Command::Focus(first))
        .expect("focus");
    // A remote worktree; its tmux adds a window, renames it and kills another.
    core.apply(
        Source::Chrome,
        Command::AddRemote(format!("peerhost:{}", work.display())),
    )
    .expect("a remote target");
    let group = core.ws().active;
    pump(&mut core, "tmux's first window as a tab", |c| {
        tabs(c, group) == 1
    });
    let session = tern_core::tmux::session_name(&work.display().to_string());
    server.tmux(&["new-window", "-d", "-t", &session, "-n", "build"]);
    pump(&mut core, "the second window's tab", |c| {
        tabs(c, group) == 2
    });
    server.tmux(&["rename-window", "-t", &format!("{session}:1"), "tests"]);
    pump(&mut core, "the renamed tab", |c| {
        c.ws().groups[group].tabs[1].custom_title.as_deref() == Some("tests")
    });
    server.tmux(&["kill-window", "-t", &format!("{session}:0")]);
    pump(&mut core, "the killed window's tab gone", |c| {
        tabs(c, group) == 1
    });
    core.apply(Source::Key, Command::CycleGroup(-1))
        .expect("cycle");
    let journal: Vec<_> = core.journal().cloned().collect();
    let sources: std::collections::HashSet<_> = journal.iter().map(|a| a.source).collect();
    for source in [Source::Start, Source::Key, Source::Msg, Source::Tmux] {
        assert!(sources.contains(&source), "the scenario has {source:?}");
    }

    // The replay: nothing reaches this core but the journal (its ssh fails, and its
    // connection is never polled).
    let mut replayed_config = config;
    replayed_config.remote.ssh = "/bin/false".into();
    let mut fresh = WorkspaceCore::new(pipeline(), replayed_config);
    for applied in &journal {
        let again = fresh.apply(applied.source, applied.change.clone());
        assert_eq!(
            again.is_ok(),
            applied.result.is_ok(),
            "{} replays as it ran: {again:?}",
            applied.command
        );
    }
    assert_eq!(fresh.ws(), core.ws(), "the same workspace");
    core.detach_remotes();
    fresh.detach_remotes();
}

fn open_group(dir: &std::path::Path) -> Command {
    Command::OpenGroup {
        name: tern_core::workspace::dir_name(dir),
        path: dir.to_path_buf(),
        repo: None,
        start: None,
        size: None,
    }
}

fn split(axis: Axis) -> Command {
    Command::Split {
        pane: None,
        axis,
        cwd: None,
        program: Vec::new(),
        size: None,
    }
}
