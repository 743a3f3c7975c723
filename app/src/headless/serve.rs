//! `tern --headless` with no program: the workspace with no window. The same
//! [`WorkspaceCore`] the window draws — groups, tabs, splits, exit policy, session
//! restore and save — served over the `tern msg` socket until SIGTERM or SIGHUP.
//! Agents can run on a machine with no display, and every workflow can be driven end
//! to end through the binary (`tern msg new-tab`, `split`, `send-text`, `get-text`…).
//!
//! The loop sleeps until something happens: a pipeline event, a request, a signal,
//! a remote worktree's news or the desktop's answer to a notification (bells and
//! notifications go to the desktop as the config says: no pane is ever seen here).
//! No timer wakes it, except a remote worktree's reconnect. Panes are never shown, so the model thread keeps their screens
//! and sends nothing (invariant 2); `get-text` reads them on a thread of its own.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use tern_core::config::Config;
use tern_core::ipc::SOCKET_ENV;
use tern_core::ipc::server::BindError;
use tern_core::model::TermSize;
use tern_core::pipeline::{Pipeline, PipelineConfig};
use tern_core::session::LoadOutcome;
use tern_core::session_file::SessionFile;
use tern_core::workspace::remote_policy;
use tern_core::workspace::{Command, Effect, SaveSchedule, Source, Start, WorkspaceCore};

use crate::desktop::{Ipc, LateWaker};

pub struct ServeArgs {
    pub size: TermSize,
    pub cwd: Option<PathBuf>,
    pub config: Config,
    /// `--hold`: panes stay after their program exits.
    pub hold: bool,
    /// The session file to restore from and save to (`None`: no session).
    pub session: Option<PathBuf>,
}

/// Wakes the loop: set by the pipeline, the socket and the signal watcher.
#[derive(Default)]
struct Wake {
    pending: Mutex<bool>,
    cv: Condvar,
}

impl Wake {
    fn notify(&self) {
        if let Ok(mut p) = self.pending.lock() {
            *p = true;
            self.cv.notify_one();
        }
    }

    /// Sleeps until a notify that came after the last wait returned, or until
    /// `until` (a remote worktree's reconnect) has come.
    fn wait(&self, until: Option<Instant>) {
        let Ok(mut p) = self.pending.lock() else {
            return;
        };
        while !*p {
            p = match until {
                None => match self.cv.wait(p) {
                    Ok(p) => p,
                    Err(_) => return,
                },
                Some(at) => {
                    let left = at.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    match self.cv.wait_timeout(p, left) {
                        Ok((p, _)) => p,
                        Err(_) => return,
                    }
                }
            };
        }
        *p = false;
    }
}

/// Serves the workspace until SIGTERM/SIGHUP; returns tern's exit code.
pub fn serve(args: ServeArgs) -> Result<i32, String> {
    let wake = Arc::new(Wake::default());
    let pipeline_wake = wake.clone();
    let pipeline = Arc::new(
        Pipeline::start(
            PipelineConfig {
                default_size: args.size,
                ..args.config.pipeline_config()
            },
            Arc::new(move || pipeline_wake.notify()),
        )
        .map_err(|e| format!("cannot start: {e}"))?,
    );
    let remote = if args.config.remote_control {
        Some(bind(args.session.is_some(), &wake)?)
    } else {
        None
    };
    let signal_wake = wake.clone();
    crate::signals::on_termination(move || signal_wake.notify())
        .map_err(|e| format!("cannot catch SIGTERM/SIGHUP: {e}"))?;

    let last_screen = args.config.session.restore_last_screen;
    // The programs of the session's panes outlive this tern (a keeper holds them);
    // those it held for the last one come back as they are.
    let reattach = match &args.session {
        Some(file) => tern_core::keeper::start_face(&pipeline, &args.config.session, file),
        None => Vec::new(),
    };
    let mut core = WorkspaceCore::new(pipeline.clone(), args.config);
    core.set_reattach(reattach);
    let core_wake = wake.clone();
    core.set_waker(Arc::new(move || core_wake.notify()));
    core.set_hold(args.hold);
    if let Some(r) = &remote {
        core.set_child_env(vec![(
            SOCKET_ENV.to_owned(),
            r.path().display().to_string(),
        )]);
    }
    let mut session = args
        .session
        .map(|p| SessionFile::new(p).remembering(crate::signals::remember_session));
    let mut saved = None;
    if let Some(file) = session.as_mut() {
        match file.load() {
            LoadOutcome::Restored(state) => saved = Some(state),
            LoadOutcome::Corrupt { kept_aside, error } => eprintln!(
                "tern: the saved session could not be read ({error}); it was kept as {}",
                kept_aside.display()
            ),
            LoadOutcome::Unreadable { error } => {
                // Saving would replace a file that may be fine: no session this run.
                eprintln!("tern: the saved session was left alone: {error}");
                session = None;
            }
            LoadOutcome::Fresh => {}
        }
    }
    // Start-up is the core's, as in the window: the session, else a first tab.
    let start = Start {
        session: saved,
        last_screen,
        dir: args
            .cwd
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/")),
        started: None,
        program: Vec::new(),
        size: Some(args.size),
    };
    if let Err(e) = core.apply(Source::Start, Command::Start(Box::new(start))) {
        eprintln!("tern: {e}");
    }
    match &remote {
        Some(r) => eprintln!("tern: serving the workspace on {}", r.path().display()),
        None => eprintln!("tern: serving the workspace (remote_control is off: no socket)"),
    }
    let mut saves = SaveSchedule::default();
    loop {
        for event in pipeline.poll_events() {
            core.on_event(&event);
        }
        core.refresh_processes();
        // Remote worktrees' tmux news; the time of the next reconnect, if one waits.
        let reconnect = core.poll_remotes();
        // Clicked desktop notifications focus their pane.
        core.poll_notices();
        if let Some(r) = &remote {
            for call in r.take_calls() {
                // Worktrees are named by their groups (no sidebar reads git here); a
                // new pane starts at the size this face was given.
                remote_policy::answer(&mut core, call, Some(args.size), |_| None);
            }
        }
        for effect in core.take_effects() {
            // No window: nothing to open, raise or ask attention for.
            if let Effect::Status(message) = effect {
                eprintln!("tern: {message}");
            }
        }
        // Saved when its layout changed (and every pane's screen came, when last
        // screens are kept): the core's rule, as in the window.
        if let Some(file) = session.as_mut()
            && let Some(state) = saves.due(&core)
        {
            file.save_if_changed(state);
        }
        if crate::signals::termination_requested() {
            break;
        }
        wake.wait(reconnect);
    }
    if let Some(file) = session.as_mut()
        && let Err(e) = file.save_now(core.session_state(last_screen))
    {
        eprintln!(
            "tern: cannot save the session to {}: {e}",
            file.path().display()
        );
    }
    Ok(0)
}

/// The session's socket when this serve owns the session, else one of its own. A
/// live tern already serving the session is an error: two would save over each other.
fn bind(owns_session: bool, wake: &Arc<Wake>) -> Result<Ipc, String> {
    let path = if owns_session {
        tern_core::ipc::session_socket_path()
    } else {
        tern_core::ipc::process_socket_path(std::process::id())
    };
    let waker = LateWaker::default();
    let w = wake.clone();
    waker.set(move || w.notify());
    Ipc::bind(&path, waker).map_err(|e| match e {
        BindError::InUse(p) => format!(
            "a tern already serves the session on {} (tern msg talks to it)",
            p.display()
        ),
        e => format!("cannot open the tern msg socket: {e}"),
    })
}
