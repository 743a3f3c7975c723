//! Programs outlive tern (issue 50, invariant 11), through the binary: `tern
//! --headless` with the keeper it starts, `kill -9` of tern, the programs still running
//! with the same pids, the next start taking them back with every byte in order; and
//! the faults: the keeper killed while tern runs, a keeper socket open to others, a
//! detached pane flooding, a program that ends while no tern runs, and the history
//! that comes back after a (simulated) reboot.

mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use common::headless::{KeeperGuard, PATIENCE, Served, pane_id, scratch, stop_keeper};

/// Waits (polling, with a deadline far above the expected wait: a keeper started on a
/// loaded machine may take seconds) until `done` holds.
fn wait_until(what: &str, done: impl FnMut() -> bool) {
    tern_testkit::eventually(format!("never happened: {what}"), 3 * PATIENCE, done);
}

/// The process runs (and is not a zombie).
fn alive(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit(')').next().map(|r| r.trim_start().to_owned()))
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

/// The numbers of the `tick N` lines, in order.
fn ticks_in(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| l.trim_end().strip_prefix("tick ")?.parse().ok())
        .collect()
}

/// A loop printing `tick N` every 0.1 s, writing its last N to `count` too; while a
/// file `<count>.hold` exists it holds its next tick (and says so in `<count>.held`).
fn ticker(count: &Path) -> String {
    format!(
        "i=0; while true; do while [ -e '{c}.hold' ]; do : > '{c}.held'; sleep 0.02; done; \
         i=$((i+1)); echo tick $i; echo $i > '{c}'; sleep 0.1; done",
        c = count.display()
    )
}

fn count_of(path: &Path) -> u64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}

fn pid_of(served: &Served, pane: u64) -> u64 {
    served
        .list()
        .iter()
        .find(|p| p["id"] == pane)
        .and_then(|p| p["pid"].as_u64())
        .unwrap_or_else(|| panic!("pane {pane} has no pid"))
}

/// Waits until the saved session names `panes` panes with their keeper keys and the
/// keeper holds that many pty masters (so a crash from now on finds them again: on a
/// loaded machine the keeper may still be starting when the session is saved).
fn wait_saved(dir: &Path, panes: usize) {
    wait_until("the session saved with every pane's key", || {
        std::fs::read_to_string(dir.join("session.ron"))
            .is_ok_and(|s| s.matches("keeper: Some(").count() == panes)
    });
    wait_until("the keeper holds every pane's pty", || {
        keeper_masters(dir) >= panes
    });
}

/// How many pty masters the scratch folder's keeper holds (0 when none runs).
fn keeper_masters(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("run/tern/keeper.pid"))
        .ok()
        .and_then(|p| p.trim().parse::<u32>().ok())
        .map_or(0, tern_testkit::pty_masters)
}

fn worktree(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(&p).expect("worktree folder");
    p
}

#[test]
fn programs_outlive_a_killed_tern_and_come_back_with_every_tick_in_order() {
    let dir = scratch("keeper-crash");
    let _keeper = KeeperGuard(dir.clone());
    let (alpha, beta, gamma) = (
        worktree(&dir, "alpha"),
        worktree(&dir, "beta"),
        worktree(&dir, "gamma"),
    );
    let served = Served::start(&dir, &[]);
    let count = dir.join("ticks.txt");
    let open = |cwd: &Path, script: &str| {
        pane_id(&served.ok(&[
            "new-tab",
            "--cwd",
            &cwd.display().to_string(),
            "--",
            "sh",
            "-c",
            script,
        ]))
    };
    let ticks = open(&alpha, &ticker(&count));
    // The stand-in agent: asks, and waits on its input.
    let asks = open(
        &beta,
        "printf 'Proceed with the plan? [y/n] '; read a; echo \"answered: $a\"; exec sleep 600",
    );
    let beats = open(
        &gamma,
        "i=0; while true; do i=$((i+1)); echo beat $i; sleep 0.3; done",
    );
    served.wait_text(ticks, &[], |t| ticks_in(t).len() >= 5);
    served.wait_text(asks, &[], |t| t.contains("Proceed with the plan?"));
    let pids: Vec<(u64, u64)> = [ticks, asks, beats]
        .iter()
        .map(|&p| (p, pid_of(&served, p)))
        .collect();
    wait_saved(&dir, 4);

    // The kill comes between two ticks, after tern parsed the last one: a tick tern
    // read in the last moment before a kill -9 but had not written to its history
    // file yet would be lost (docs/architecture/keeper.md, "What a crash can lose").
    let hold = dir.join("ticks.txt.hold");
    std::fs::write(&hold, "").expect("hold");
    wait_until("the ticker holds", || dir.join("ticks.txt.held").exists());
    let held_at = count_of(&count);
    served.wait_text(ticks, &[], |t| ticks_in(t).last() == Some(&held_at));
    served.crash();
    std::fs::remove_file(&hold).expect("go on ticking");
    for (pane, pid) in &pids {
        assert!(
            alive(*pid),
            "pane {pane}'s program (pid {pid}) outlived tern"
        );
    }
    // Ticks printed while no tern runs.
    let at_kill = count_of(&count);
    wait_until("ten ticks while tern is gone", || {
        count_of(&count) >= at_kill + 10
    });
    for (pane, pid) in &pids {
        assert!(alive(*pid), "pane {pane}'s program (pid {pid}) still runs");
    }

    let served = Served::start(&dir, &[]);
    let listed = served.list();
    for (pane, pid) in &pids {
        let p = listed
            .iter()
            .find(|p| p["id"] == *pane)
            .unwrap_or_else(|| panic!("pane {pane} is back with its id: {listed:?}"));
        assert_eq!(p["pid"], *pid, "pane {pane} is attached to the same pid");
    }
    let ticking = listed.iter().find(|p| p["id"] == ticks).expect("ticks");
    assert_eq!(ticking["ran_detached"], true, "{ticking}");
    let goal = count_of(&count);
    let text = served.wait_text(ticks, &["--scrollback"], |t| {
        ticks_in(t).last().is_some_and(|&n| n >= goal)
    });
    let got = ticks_in(&text);
    let last = *got.last().expect("ticks");
    assert_eq!(
        got,
        (1..=last).collect::<Vec<_>>(),
        "every tick, from the first (before the kill) through those printed while tern \
         was gone, in order, none missing"
    );
    assert!(
        last > at_kill,
        "ticks from while tern was gone: {last} > {at_kill}"
    );

    // The question still waits, and answering it works.
    served.ok(&["send-text", "--pane", &asks.to_string(), "y\n"]);
    served.wait_text(asks, &[], |t| t.contains("answered: y"));

    // Ended as before: SIGTERM ends the programs, and the keeper goes with them.
    let (code, stderr) = served.stop();
    assert_eq!(code, Some(0), "{stderr}");
    for (pane, pid) in &pids {
        wait_until(&format!("pane {pane}'s program ends with tern"), || {
            !alive(*pid)
        });
    }
    wait_until("the keeper leaves", || {
        !dir.join("run/tern/keeper.sock").exists()
    });
}

#[test]
fn a_keeper_killed_while_tern_runs_is_replaced_and_the_new_one_takes_the_panes_over() {
    let dir = scratch("keeper-killed");
    let _keeper = KeeperGuard(dir.clone());
    let served = Served::start(&dir, &[]);
    let count = dir.join("ticks.txt");
    let ticks = pane_id(&served.ok(&["new-tab", "--", "sh", "-c", &ticker(&count)]));
    let pid_file = dir.join("run/tern/keeper.pid");
    wait_until("a keeper runs", || pid_file.exists());
    let first: u32 = std::fs::read_to_string(&pid_file)
        .expect("keeper.pid")
        .trim()
        .parse()
        .expect("a pid");
    std::process::Command::new("kill")
        .args(["-9", &first.to_string()])
        .status()
        .expect("kill the keeper");
    // tern carries on: the pane keeps working.
    let seen = count_of(&count);
    served.wait_text(ticks, &[], |t| {
        ticks_in(t).last().is_some_and(|&n| n > seen + 3)
    });
    wait_until("a new keeper", || {
        std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
            .is_some_and(|p| p != first && alive(p.into()))
    });
    // The new one holds the pane: a crash now leaves it running, and it comes back.
    let pid = pid_of(&served, ticks);
    wait_saved(&dir, 2);
    served.crash();
    let at_kill = count_of(&count);
    wait_until("ticks while tern is gone", || {
        count_of(&count) >= at_kill + 3
    });
    assert!(alive(pid), "the program outlived tern with the new keeper");
    let served = Served::start(&dir, &[]);
    assert_eq!(pid_of(&served, ticks), pid);
    drop(served);
    wait_until("the program ends with the kit's cleanup", || !alive(pid));
}

#[test]
fn a_keeper_socket_open_to_others_is_refused_and_tern_runs_as_without_one() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("keeper-mode");
    let _keeper = KeeperGuard(dir.clone());
    let (socket, _listener) = foreign_keeper_socket(&dir, 0o666);
    runs_refusing_the_keeper(&dir, "open to others");
    let mode = std::fs::metadata(&socket)
        .expect("left alone")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o666, "the foreign socket was left alone");
}

/// A socket at the scratch folder's keeper path that is no keeper of this tern's
/// (bound here, mode `mode`), in a private runtime folder; the listener keeps it.
fn foreign_keeper_socket(dir: &Path, mode: u32) -> (PathBuf, std::os::unix::net::UnixListener) {
    use std::os::unix::fs::PermissionsExt;
    let run = dir.join("run/tern");
    std::fs::create_dir_all(&run).expect("runtime folder");
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).expect("0700");
    let socket = run.join("keeper.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).expect("a socket");
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(mode)).expect("mode");
    (socket, listener)
}

/// tern started in `dir` runs a program as it would without a keeper, ends cleanly,
/// and says it refused the keeper, `why`.
fn runs_refusing_the_keeper(dir: &Path, why: &str) {
    let served = Served::start(dir, &[]);
    let pane = pane_id(&served.ok(&["new-tab", "--", "sh", "-c", "echo works; exec sleep 600"]));
    served.wait_text(pane, &[], |t| t.contains("works"));
    let (code, stderr) = served.stop();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("refusing the keeper") && stderr.contains(why),
        "the refusal is said: {stderr}"
    );
}

/// A keeper socket owned by another user (here `nobody`, which only root can arrange:
/// elsewhere the test says so and checks nothing) is refused before anything is sent,
/// and tern runs as it would without a keeper.
#[test]
fn a_keeper_socket_owned_by_another_user_is_refused() {
    let dir = scratch("keeper-owner");
    let _keeper = KeeperGuard(dir.clone());
    let (socket, _listener) = foreign_keeper_socket(&dir, 0o600);
    if std::os::unix::fs::lchown(&socket, Some(65534), Some(65534)).is_err() {
        eprintln!("not root: a socket of another user cannot be made here; nothing checked");
        return;
    }
    runs_refusing_the_keeper(&dir, "owned by uid 65534");
}

#[test]
fn a_detached_flood_is_capped_and_never_blocks_the_program() {
    let dir = scratch("keeper-flood");
    let _keeper = KeeperGuard(dir.clone());
    let served = Served::start(&dir, &[]);
    let done = dir.join("done.txt");
    // Started once tern is gone (so every byte goes to the keeper's ring).
    let go = dir.join("go");
    let script = format!(
        "echo waiting; while [ ! -e '{go}' ]; do sleep 0.05; done; \
         head -c 268435456 /dev/zero | tr '\\0' x; echo; echo flood-end; \
         echo finished > '{done}'; exec sleep 600",
        go = go.display(),
        done = done.display()
    );
    let pane = pane_id(&served.ok(&["new-tab", "--", "sh", "-c", &script]));
    served.wait_text(pane, &[], |t| t.contains("waiting"));
    wait_saved(&dir, 2);
    served.crash();
    let keeper: u64 = std::fs::read_to_string(dir.join("run/tern/keeper.pid"))
        .expect("keeper.pid")
        .trim()
        .parse()
        .expect("a pid");
    let started = Instant::now();
    std::fs::write(&go, "").expect("go");
    let mut peak_kib = 0u64;
    wait_until("the 256 MiB flood ends (the program never blocks)", || {
        let rss = std::fs::read_to_string(format!("/proc/{keeper}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("VmRSS:"))
                    .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            })
            .unwrap_or(0);
        peak_kib = peak_kib.max(rss);
        done.exists()
    });
    eprintln!(
        "keeper flood: 256 MiB in {:.1} s, keeper peak RSS {} KiB",
        started.elapsed().as_secs_f64(),
        peak_kib
    );
    assert!(
        peak_kib < 64 * 1024,
        "the keeper's memory stays under its caps: {peak_kib} KiB"
    );
    // History enough for the ring's 4 MiB of `x` (52,429 rows of 80): the marker at
    // its start is still there to read.
    let served = Served::start(&dir, &["-o", "scrollback_lines=100000"]);
    let text = served.wait_text(pane, &["--scrollback"], |t| t.contains("flood-end"));
    assert!(
        text.contains("bytes dropped while no window was attached"),
        "the replay says bytes were dropped"
    );
}

#[test]
fn a_program_that_ended_while_tern_was_gone_shows_its_end() {
    let dir = scratch("keeper-exited");
    let _keeper = KeeperGuard(dir.clone());
    let served = Served::start(&dir, &["-o", "exit_behavior=Hold"]);
    let go = dir.join("go");
    let script = format!(
        "echo started; while [ ! -e '{}' ]; do sleep 0.05; done; echo last-words; exit 3",
        go.display()
    );
    let pane = pane_id(&served.ok(&["new-tab", "--", "sh", "-c", &script]));
    served.wait_text(pane, &[], |t| t.contains("started"));
    let pid = pid_of(&served, pane);
    wait_saved(&dir, 2);
    served.crash();
    std::fs::write(&go, "").expect("go");
    wait_until("the program ends while tern is gone", || !alive(pid));
    let served = Served::start(&dir, &["-o", "exit_behavior=Hold"]);
    served.wait_text(pane, &[], |t| t.contains("last-words"));
    wait_until("its end is shown", || {
        served
            .list()
            .iter()
            .any(|p| p["id"] == pane && !p["exit_status"].is_null())
    });
}

/// As on a desktop, where the session's manager (systemd, or an init) adopts and reaps
/// what a killed tern leaves: the program that ended while tern was gone shows how it
/// ended (its exit code), read through its pidfd (Linux 6.15+). Here `tini -s` is that
/// reaper: tern runs under it, and it outlives tern.
#[test]
fn a_program_that_ended_while_tern_was_gone_shows_how_it_ended() {
    let dir = scratch("keeper-exit-code");
    let _keeper = KeeperGuard(dir.clone());
    let (tern_pid, sh_pid) = (dir.join("tern.pid"), dir.join("sh.pid"));
    let child = common::isolated("tini", &dir)
        .args(["-s", "--", "sh", "-c"])
        .arg(format!(
            "echo $$ > '{sh}'; \"$0\" --headless -o exit_behavior=Hold & echo $! > '{tern}'; \
             wait; exec sleep 60",
            sh = sh_pid.display(),
            tern = tern_pid.display()
        ))
        .arg(common::TERN_BIN)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tini (apt-get install tini)");
    let reaper = Served::wrap(&dir, child);
    let go = dir.join("go");
    let script = format!(
        "echo started; while [ ! -e '{}' ]; do sleep 0.05; done; echo last-words; exit 3",
        go.display()
    );
    let pane = pane_id(&reaper.ok(&["new-tab", "--", "sh", "-c", &script]));
    reaper.wait_text(pane, &[], |t| t.contains("started"));
    let pid = pid_of(&reaper, pane);
    wait_saved(&dir, 2);
    let tern: u32 = std::fs::read_to_string(&tern_pid)
        .expect("tern.pid")
        .trim()
        .parse()
        .expect("a pid");
    std::process::Command::new("kill")
        .args(["-9", &tern.to_string()])
        .status()
        .expect("kill tern");
    wait_until("tern is gone", || !alive(tern.into()));
    let _ = std::fs::remove_file(dir.join("run/tern/session.sock"));
    std::fs::write(&go, "").expect("go");
    // Gone from /proc: reaped by tini, not left a zombie.
    wait_until("the program ends and is reaped while tern is gone", || {
        !std::path::Path::new(&format!("/proc/{pid}")).exists()
    });
    let served = Served::start(&dir, &["-o", "exit_behavior=Hold"]);
    served.wait_text(pane, &[], |t| t.contains("last-words"));
    wait_until("its exit code is shown", || {
        served
            .list()
            .iter()
            .any(|p| p["id"] == pane && p["exit_status"] == 3)
    });
    drop(served);
    if let Ok(sh) = std::fs::read_to_string(&sh_pid) {
        let _ = std::process::Command::new("kill").arg(sh.trim()).status();
    }
    drop(reaper);
}

#[test]
fn after_the_keeper_is_gone_too_the_history_comes_back_above_a_new_shell() {
    let dir = scratch("keeper-reboot");
    let _keeper = KeeperGuard(dir.clone());
    // The issue's 100,000 lines.
    let args = ["-o", "scrollback_lines=200000"];
    let served = Served::start(&dir, &args);
    let pane = pane_id(&served.ok(&[
        "new-tab",
        "--",
        "sh",
        "-c",
        "seq 1 100000; echo seq-done; exec sleep 600",
    ]));
    served.wait_text(pane, &[], |t| t.contains("seq-done"));
    wait_saved(&dir, 2);
    // A reboot: tern and the keeper gone, and the programs with them.
    let pid = pid_of(&served, pane);
    served.crash();
    stop_keeper(&dir);
    wait_until("the program is gone", || !alive(pid));

    let served = Served::start(&dir, &args);
    let pane = served
        .list()
        .iter()
        .find_map(|p| (p["pid"].as_u64() != Some(pid) && p["tab"] == 1).then(|| p["id"].as_u64()))
        .flatten()
        .expect("the tab came back");
    let text = served.wait_text(pane, &["--scrollback"], |t| t.contains("seq-done"));
    let numbers: Vec<u32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
    assert_eq!(
        numbers,
        (1..=100_000).collect::<Vec<_>>(),
        "every line of history, in order"
    );
    assert!(text.contains("the history above is from before"), "said so");
}

/// An upgrade between two starts: tern is installed at a path, killed, the file at that
/// path replaced by another build (a new inode, other bytes), and started again from
/// the same path. The keeper the old build started still runs (its binary deleted) and
/// the new build takes its panes back with every tick in order.
#[test]
fn a_binary_replaced_between_two_starts_takes_the_panes_back() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("keeper-upgrade");
    let _keeper = KeeperGuard(dir.clone());
    let installed = dir.join("bin/tern");
    let install = |extra: &[u8]| {
        let _ = std::fs::remove_file(&installed);
        std::fs::create_dir_all(dir.join("bin")).expect("bin");
        let mut bytes = std::fs::read(common::TERN_BIN).expect("the build");
        // Another build's bytes (trailing data an ELF loader ignores).
        bytes.extend_from_slice(extra);
        std::fs::write(&installed, bytes).expect("install");
        std::fs::set_permissions(&installed, std::fs::Permissions::from_mode(0o755)).expect("0755");
    };
    let start = || {
        let child = common::isolated(&installed, &dir)
            .arg("--headless")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start the installed tern");
        Served::wrap(&dir, child)
    };
    install(b"build one");
    let served = start();
    let count = dir.join("ticks.txt");
    let ticks = pane_id(&served.ok(&["new-tab", "--", "sh", "-c", &ticker(&count)]));
    served.wait_text(ticks, &[], |t| ticks_in(t).len() >= 3);
    let pid = pid_of(&served, ticks);
    wait_saved(&dir, 2);
    let keeper: u32 = {
        let pid_file = dir.join("run/tern/keeper.pid");
        wait_until("a keeper runs", || pid_file.exists());
        std::fs::read_to_string(&pid_file)
            .expect("keeper.pid")
            .trim()
            .parse()
            .expect("a pid")
    };
    served.crash();
    install(b"build two");
    let exe = std::fs::read_link(format!("/proc/{keeper}/exe")).expect("the keeper's binary");
    assert!(
        exe.to_string_lossy().ends_with("(deleted)"),
        "the keeper runs the replaced build: {}",
        exe.display()
    );
    let at_kill = count_of(&count);
    wait_until("ticks while tern is gone", || {
        count_of(&count) >= at_kill + 3
    });
    let served = start();
    assert_eq!(pid_of(&served, ticks), pid, "the same program, taken back");
    let goal = count_of(&count);
    let text = served.wait_text(ticks, &["--scrollback"], |t| {
        ticks_in(t).last().is_some_and(|&n| n >= goal)
    });
    let got = ticks_in(&text);
    let last = *got.last().expect("ticks");
    assert_eq!(got, (1..=last).collect::<Vec<_>>(), "every tick in order");
    assert!(last > at_kill, "ticks from while tern was gone");
}

/// Two terns starting at once against one keeper (the real one, `tern keeper --serve`):
/// the first attaches, the second is refused with the reason and runs without it; and
/// a tern killed in the middle of handing a pane over (half a frame, then gone) leaves
/// the keeper serving, holding nothing half-made, for the next tern.
#[test]
fn two_terns_at_once_and_a_tern_killed_mid_handover_leave_one_keeper_serving() {
    use std::io::Write as _;
    use tern_core::keeper::client::{AttachError, attach};
    let dir = scratch("keeper-two");
    let _keeper = KeeperGuard(dir.clone());
    let socket = dir.join("run/tern/keeper.sock");
    std::fs::create_dir_all(socket.parent().expect("folder")).expect("runtime folder");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            socket.parent().expect("folder"),
            std::fs::Permissions::from_mode(0o700),
        )
        .expect("0700");
    }
    let mut serve = common::tern_in(&dir);
    let mut keeper = serve
        .args(["keeper", "--serve", "--socket"])
        .arg(&socket)
        .spawn()
        .expect("tern keeper --serve");
    wait_until("the keeper's socket", || {
        std::os::unix::net::UnixStream::connect(&socket).is_ok()
    });
    let first = attach(&socket).expect("the first tern attaches");
    // It hands one pane over (the keeper, holding something, outlives its tern).
    let held = tern_core::keeper::protocol::HeldPane {
        key: 7,
        pane: 1,
        pid: None,
        what: "sh".into(),
        cwd: None,
    };
    let master: std::os::fd::OwnedFd = std::fs::File::open("/dev/null").expect("fd").into();
    first.hold(&held, &master, None).expect("held");
    match attach(&socket) {
        Err(AttachError::Refused(why)) => {
            assert!(why.contains("another tern is attached"), "{why}")
        }
        other => panic!("the second tern is not refused: {other:?}"),
    }
    drop(first);
    // A tern that says hello, then dies half way through a Hold frame.
    {
        let raw = std::os::unix::net::UnixStream::connect(&socket).expect("connect");
        let hello = br#"{"op":"hello","protocol":1,"tern":"0"}"#;
        (&raw)
            .write_all(&(hello.len() as u32).to_le_bytes())
            .expect("length");
        (&raw).write_all(hello).expect("hello");
        let hold = br#"{"op":"hold","pane":{"key":9,"pane":1,"pid":null,"what":"sh"}}"#;
        (&raw)
            .write_all(&(hold.len() as u32).to_le_bytes())
            .expect("length");
        (&raw)
            .write_all(&hold[..hold.len() / 2])
            .expect("half a frame");
    }
    let next = (0..100)
        .find_map(|_| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            attach(&socket).ok()
        })
        .expect("the keeper serves the next tern");
    let keys: Vec<u64> = next.panes.iter().map(|p| p.pane.key).collect();
    assert_eq!(keys, vec![7], "the pane handed over, nothing half-made");
    assert!(
        keeper.try_wait().expect("keeper").is_none(),
        "the keeper still runs"
    );
    drop(next);
    let _ = keeper.kill();
    let _ = keeper.wait();
}
