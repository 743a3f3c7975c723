//! `tern --headless`: run a program through the whole pipeline with no window. tern's
//! stdin is forwarded to the pty (raw when it is a terminal), queries are answered by
//! the model, and tern exits with the child's status, optionally writing the final
//! screen as text and the diagnostics report (`--diagnostics-report PATH`).
//!
//! It reads the same config as the window (`--config PATH`, else `$TERN_CONFIG` or the
//! platform file) and applies what concerns a pane without a window: scrollback, the
//! flow-control window, the theme's colours and cursor (for programs that query them),
//! the environment, and the shell when no command is given.

pub mod serve;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustix::termios::{self, OptionalActions, Termios};
use tern_core::config::Config;
use tern_core::diagnostics::{
    DiagnosticsReport, Environment, PaneLabel, Redactor, ReportInputs, write_report,
};
use tern_core::model::TermSize;
use tern_core::pipeline::{PaneEvent, PaneId, Pipeline, PipelineConfig, SpawnSpec};

pub struct HeadlessArgs {
    pub size: TermSize,
    pub cwd: Option<PathBuf>,
    /// `Some("-")` for stdout.
    pub dump_screen: Option<String>,
    /// Where to write the diagnostics report (RON) when the child exits.
    pub diagnostics_report: Option<PathBuf>,
    /// Empty: the configured shell.
    pub command: Vec<String>,
    pub config: Config,
}

/// The settings for a headless session: `--config PATH` when given (a file that cannot
/// be read or parsed is an error: the session would not be the one asked for), else the
/// platform file, where a missing file means the defaults and a broken one is reported
/// and replaced by the defaults (as in the window).
pub fn load_config(path: Option<&Path>) -> Result<Config, String> {
    if let Some(path) = path {
        return Config::load(path).map_err(|e| e.to_string());
    }
    let Some(path) = Config::default_path() else {
        return Ok(Config::default());
    };
    Ok(Config::load_or_default(&path).unwrap_or_else(|e| {
        eprintln!("tern: {e}; using the default settings");
        Config::default()
    }))
}

/// Puts tern's own terminal in raw mode for as long as it lives.
struct RawMode {
    saved: Termios,
}

impl RawMode {
    fn enter() -> Option<RawMode> {
        let stdin = std::io::stdin();
        if !termios::isatty(&stdin) {
            return None;
        }
        let saved = termios::tcgetattr(&stdin).ok()?;
        let mut raw = saved.clone();
        raw.make_raw();
        termios::tcsetattr(&stdin, OptionalActions::Now, &raw).ok()?;
        Some(RawMode { saved })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = termios::tcsetattr(std::io::stdin(), OptionalActions::Now, &self.saved);
    }
}

/// Writes the redacted diagnostics report for the session's one pane.
fn write_diagnostics(pipeline: &Pipeline, pane: PaneId, path: &Path) -> Result<(), String> {
    let environment = Environment::current("headless");
    let label = move |p: PaneId| PaneLabel {
        worktree: "-".into(),
        tab: "headless".into(),
        pane: if p == pane {
            "command".into()
        } else {
            format!("pane {}", p.0)
        },
        id: None,
    };
    let report = DiagnosticsReport::collect(
        pipeline,
        &ReportInputs {
            labels: &label,
            environment: &environment,
            frame_times: None,
        },
    )
    .redacted(&Redactor::from_env());
    let written = write_report(&report, Some(path))?;
    if written != path {
        eprintln!(
            "tern: cannot write {}; the diagnostics report is in {}",
            path.display(),
            written.display()
        );
    }
    Ok(())
}

/// Runs the session; returns the exit code for tern.
pub fn run(args: HeadlessArgs) -> Result<i32, String> {
    let config = PipelineConfig {
        default_size: args.size,
        ..args.config.pipeline_config()
    };
    let pipeline = Arc::new(
        Pipeline::start(config, Arc::new(|| {})).map_err(|e| format!("cannot start: {e}"))?,
    );
    let mut spec: SpawnSpec = args.config.spawn_spec(args.cwd);
    if let Some((program, rest)) = args.command.split_first() {
        spec.command = Some((program.clone(), rest.to_vec()));
    }
    spec.size = Some(args.size);
    let pane = pipeline.spawn(&spec).map_err(|e| e.to_string())?;
    let raw = RawMode::enter();
    // Forward stdin until it ends; the session goes on until the child exits.
    let input = pipeline.clone();
    std::thread::Builder::new()
        .name("tern-stdin".into())
        .spawn(move || {
            let mut stdin = std::io::stdin().lock();
            let mut buf = [0u8; 4096];
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => input.write_when_room(pane, &buf[..n]),
                }
            }
        })
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    let exit = loop {
        match pipeline.wait_event(Duration::from_secs(3600)) {
            Some(PaneEvent::Exited { pane: id, exit }) if id == pane => break exit,
            Some(PaneEvent::Error { pane: id, message }) if id == pane => {
                eprintln!("tern: {message}")
            }
            _ => {}
        }
    };
    drop(raw);
    if let Some(target) = args.dump_screen {
        let dump = pipeline
            .dump_screen(pane)
            .ok_or("the model did not answer")?;
        let mut text = dump.rows.join("\n") + "\n";
        // Where images are, after the text (which never holds them).
        for image in &dump.images {
            text.push_str(&format!("[{image}]\n"));
        }
        if target == "-" {
            let _ = std::io::stdout().write_all(text.as_bytes());
        } else {
            std::fs::write(&target, text).map_err(|e| format!("cannot write {target}: {e}"))?;
        }
    }
    if let Some(path) = args.diagnostics_report {
        write_diagnostics(&pipeline, pane, &path)?;
    }
    Ok(match exit.signal {
        Some(_) if exit.code == 0 => 1,
        _ => exit.code,
    })
}
