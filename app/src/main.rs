//! The `tern` binary: parses the command line (`cli.rs`) and runs the window, the
//! headless mode or a subcommand.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tern_core::ipc::{self, Reply, Request, server::BindError};
use tern_core::model::{TermConfig, TermSize, Terminal};

use tern::cli::{Cli, Command};
use tern::desktop::{Ipc, LateWaker};
use tern::startup::WindowStart;
use tern::{headless, msg, settings_cli, window};

/// The icon set on the window (the desktop file names the same icon, `tern`).
const ICON_PNG: &[u8] = include_bytes!("../assets/icons/tern-256.png");

fn replay(file: &PathBuf, size: TermSize, attrs: bool) -> Result<String, String> {
    if size.cols == 0 || size.rows == 0 {
        return Err("--cols and --rows must be at least 1".into());
    }
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let mut term = Terminal::new(size, TermConfig::default());
    term.advance(&bytes);
    Ok(term.dump().render(attrs))
}

/// Opens this start's `tern msg` socket. A plain start owns the session and listens
/// on the session socket; when a live tern already does, it is asked for a new tab
/// and this start ends (`Err` with the status to exit with).
fn open_ipc(plain: bool, waker: &LateWaker) -> Result<Option<Ipc>, ExitCode> {
    let path = if plain {
        ipc::session_socket_path()
    } else {
        ipc::process_socket_path(std::process::id())
    };
    match Ipc::bind(&path, waker.clone()) {
        Ok(r) => Ok(Some(r)),
        Err(BindError::InUse(path)) if plain => {
            let cwd = std::env::current_dir().ok();
            let request = Request::NewTab {
                cwd,
                title: None,
                command: Vec::new(),
            };
            match ipc::client::send(&path, request) {
                Ok(Reply::Pane { pane }) => {
                    eprintln!(
                        "tern: opened a tab (pane {pane}) in the running tern ({})",
                        path.display()
                    );
                    // Show it: the running window comes to the front on its tab.
                    if let Err(e) = ipc::client::send(&path, Request::Focus { pane }) {
                        eprintln!("tern: the running tern did not show its new tab: {e}");
                    }
                    Err(ExitCode::SUCCESS)
                }
                Ok(_) => Err(ExitCode::SUCCESS),
                Err(e) => {
                    eprintln!("tern: a tern is running but did not open a tab: {e}");
                    Err(ExitCode::from(1))
                }
            }
        }
        Err(e) => {
            eprintln!("tern: no remote control (tern msg) for this window: {e}");
            Ok(None)
        }
    }
}

fn run_window(cli: Cli) -> ExitCode {
    let mut start = WindowStart::from_cli(cli);
    // The window as the last session left it (size, maximized, place), read before the
    // session itself so that its panes start at the size they will have.
    let saved_window = start
        .session
        .as_ref()
        .and_then(|p| tern_core::session::SessionStore::new(p).peek_window());
    for problem in &start.problems {
        eprintln!("tern: {problem}");
    }
    let waker = LateWaker::default();
    // `remote_control: false`: no socket, so no TERN_SOCKET for the panes.
    let ipc = match start
        .config
        .remote_control
        .then(|| open_ipc(start.owns_session(), &waker))
    {
        None => None,
        Some(Ok(r)) => r,
        Some(Err(code)) => return code,
    };
    let config = &start.config;
    // DejaVu Sans Mono: advance 0.602 em, line height about 1.17 em. (With one tab there
    // is no tab bar.)
    // `font.cell_width` / `font.line_height` scale the cell, which is then rounded to
    // whole pixels (rounded up here, so that the rows and columns asked for fit).
    let size = config.font.size;
    let pad = 2.0 * config.padding.max(0.0);
    let cell = |em: f32, scale: f32| {
        let v = size * em * scale;
        if scale == 1.0 { v } else { v.max(v.round()) }
    };
    let cell_px = egui::vec2(
        cell(0.602, config.font.cell_width.get()),
        cell(1.17, config.font.line_height.get()),
    );
    if let Some(saved) = saved_window {
        // Restored panes start at the saved window's grid (less a tab bar's row).
        let cols = ((saved.width - 2.0 - pad) / cell_px.x).floor().max(2.0) as usize;
        let rows = ((saved.height - 2.0 - pad) / cell_px.y).floor().max(2.0) as usize - 1;
        start.cols = cols;
        start.rows = rows.max(1);
        start.spec.size = Some(tern_core::model::TermSize::new(start.cols, start.rows));
    }
    let launch = start.launch(ipc);
    let desktop = launch.desktop.clone();
    let config = &start.config;
    let (cols, rows) = (start.cols, start.rows);
    let inner = egui::vec2(
        (cols as f32 * cell_px.x).ceil() + 2.0 + pad,
        (rows as f32 * cell_px.y).ceil() + 2.0 + pad,
    );
    let class = start.class.clone();
    if class != "tern" {
        // winit names the X11 WM_CLASS instance from RESOURCE_NAME (egui passes the
        // app id to Wayland only).
        // SAFETY: no other thread runs yet (the pipeline and the socket server's
        // thread start later, the latter only reads its own state), so nothing reads
        // the environment concurrently.
        unsafe { std::env::set_var("RESOURCE_NAME", &class) };
    }
    let mut viewport = egui::ViewportBuilder::default()
        .with_inner_size(inner)
        .with_title(start.title.clone().unwrap_or_else(|| "tern".to_owned()))
        .with_app_id(class.clone());
    // The window as the last session left it: size, maximized, place (X11 honours it).
    if let Some(saved) = saved_window {
        viewport = viewport
            .with_inner_size([saved.width, saved.height])
            .with_maximized(saved.maximized);
        if let Some((x, y)) = saved.position {
            viewport = viewport.with_position([x, y]);
        }
    }
    match eframe::icon_data::from_png_bytes(ICON_PNG) {
        Ok(icon) => viewport = viewport.with_icon(icon),
        Err(e) => eprintln!("tern: the bundled icon does not decode: {e}"),
    }
    let mut options = eframe::NativeOptions {
        viewport,
        // Ctrl+C and Ctrl+V belong to the program in the terminal; tern's are Ctrl+Shift+C/V.
        clipboard_shortcuts: false,
        // No dithering: a terminal draws flat colours and glyphs, and the noise is
        // computed for every pixel of every frame (measurable on software renderers).
        dithering: false,
        wgpu_options: eframe::egui_wgpu::WgpuConfiguration {
            surface: tern::present::surface_config(config.present_mode),
            ..Default::default()
        },
        ..Default::default()
    };
    tern::signals::save_session_on_panic();
    // The editor only the user's shell knows (EDITOR set in .bashrc), for `path:line`
    // hints: read once, off this thread, when neither the config nor tern's own
    // environment names one.
    let editor_known = config.editor.is_some()
        || ["VISUAL", "EDITOR"]
            .iter()
            .any(|k| std::env::var_os(k).is_some_and(|v| !v.is_empty()));
    if !editor_known {
        let shell = config
            .shell
            .program
            .clone()
            .unwrap_or_else(tern_core::shell_integration::login_shell);
        tern_core::shell_env::read_in_background(shell);
    }
    // The shell starts now, while eframe creates the window and the GPU device.
    let early = match window::app::Early::start(
        &launch,
        std::sync::Arc::new({
            let waker = waker.clone();
            move || waker.wake()
        }),
    ) {
        Ok(early) => early,
        Err(e) => {
            eprintln!("tern: {e}");
            return ExitCode::from(2);
        }
    };
    // While the event loop is built: the GPU driver's libraries load and its adapters
    // are enumerated (`gpu.rs`), and fontconfig opens and reads the colour emoji font
    // (kept for the first frame's fonts), each on a thread of its own.
    // (Not without a display: the event loop fails at once then, with its own error.)
    let display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|d| !d.is_empty()));
    let probe = display.then(|| tern::gpu::DriverProbe::start(eframe::wgpu::Backends::VULKAN));
    let fonts = std::thread::Builder::new()
        .name("tern-fonts-warm".into())
        .spawn(|| drop(window::glyphs::emoji::find_font()));
    let event_loop = winit::event_loop::EventLoop::<eframe::UserEvent>::with_user_event().build();
    let probe = probe.and_then(tern::gpu::DriverProbe::finish);
    let event_loop = match event_loop {
        Ok(event_loop) => event_loop,
        Err(e) => {
            // Nothing may still be loading libraries when the process exits.
            if let Ok(fonts) = fonts {
                let _ = fonts.join();
            }
            return cannot_open_window(&e);
        }
    };
    let from_env = eframe::wgpu::Backends::from_env();
    let backends = tern::gpu::backends_for(
        from_env,
        probe.as_ref().map_or(&[][..], |p| &p.adapters),
        tern::gpu::has_gpu_node(),
    );
    if let eframe::egui_wgpu::WgpuSetup::CreateNew(new) = &mut options.wgpu_options.wgpu_setup {
        new.instance_descriptor.backends = backends;
    }
    static LOGGER: ErrorsToStderr = ErrorsToStderr;
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Error);
    }
    let created = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut app = eframe::create_native(
        "tern",
        options,
        Box::new({
            let created = created.clone();
            move |cc| {
                created.store(true, std::sync::atomic::Ordering::Relaxed);
                // eframe has its device: the probe's instance has done its work.
                drop(probe);
                let ctx = cc.egui_ctx.clone();
                let wake = ctx.clone();
                // One frame per wake: egui makes a zero-delay request two frames ("to
                // give some things time to settle"), and a delivery is drawn in the
                // frame that takes it; the second frame drew nothing new, on a
                // software renderer a whole paint right after every echo.
                waker.set(move || {
                    window::trace::note_wake();
                    wake.request_repaint_after(std::time::Duration::from_nanos(1));
                });
                let watched = tern::signals::on_termination(move || {
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                    ctx.request_repaint();
                });
                if let Err(e) = watched {
                    eprintln!("tern: cannot catch SIGTERM/SIGHUP: {e}");
                }
                Ok(Box::new(window::app::TernApp::with_early(
                    &cc.egui_ctx,
                    launch,
                    Some(early),
                )))
            }
        }),
        &event_loop,
    );
    let result = event_loop.run_app(&mut app);
    match result {
        Err(e) => cannot_open_window(&e),
        // eframe reports a window or GPU device it could not make by leaving the loop
        // before the app exists.
        Ok(()) if !created.load(std::sync::atomic::Ordering::Relaxed) => cannot_open_window(
            &format!("the window or its GPU device could not be made (backends {backends:?})"),
        ),
        Ok(()) => match desktop.exit_status() {
            Some(code) => ExitCode::from(code.clamp(0, 255) as u8),
            None => ExitCode::SUCCESS,
        },
    }
}

/// eframe, winit and wgpu say what failed through `log` (eframe leaves its loop with the
/// error logged when it cannot make the window or its device): errors go to stderr.
struct ErrorsToStderr;

impl log::Log for ErrorsToStderr {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() <= log::Level::Error
    }

    fn log(&self, record: &log::Record) {
        if self.enabled(record.metadata()) {
            eprintln!("tern: {}: {}", record.target(), record.args());
        }
    }

    fn flush(&self) {}
}

fn cannot_open_window(e: &dyn std::fmt::Display) -> ExitCode {
    eprintln!(
        "tern: cannot open a window: {e} (for machines without a display: tern --headless -- CMD)"
    );
    ExitCode::from(2)
}

/// `--cols`/`--rows` within the model's limits, or a clear error.
fn check_size(cols: usize, rows: usize) -> Result<(), String> {
    if cols > TermSize::MAX_COLS || rows > TermSize::MAX_ROWS {
        return Err(format!(
            "--cols {cols} --rows {rows}: at most {} columns and {} rows",
            TermSize::MAX_COLS,
            TermSize::MAX_ROWS
        ));
    }
    Ok(())
}

/// Writes `bytes` to stdout; a closed pipe (`tern man | head`) is not an error.
fn print_bytes(bytes: &[u8]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tern: {e}");
            ExitCode::from(1)
        }
    }
}

fn main() -> ExitCode {
    // The agent hook (`tern msg agent-event`) runs on the agent's path: nothing before
    // it, and nothing it does can fail the agent (no argument parsing that exits 2).
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "msg") && args.get(2).is_some_and(|a| a == "agent-event") {
        return msg::agent_event(&args[3..]);
    }
    window::trace::mark_process_start();
    let cli = Cli::parse_from(args);
    let size = match &cli.command {
        Some(Command::Replay { cols, rows, .. }) => check_size(*cols, *rows),
        None => check_size(cli.cols, cli.rows),
        Some(_) => Ok(()),
    };
    if let Err(e) = size {
        eprintln!("tern: {e}");
        return ExitCode::from(2);
    }
    match cli.command {
        Some(Command::Replay {
            file,
            cols,
            rows,
            attrs,
        }) => match replay(&file, TermSize::new(cols, rows), attrs) {
            Ok(out) => print_bytes(out.as_bytes()),
            Err(e) => {
                eprintln!("tern: {e}");
                ExitCode::from(2)
            }
        },
        Some(Command::Msg(args)) => match msg::run(args) {
            Ok(out) => print_bytes(out.as_bytes()),
            Err(e) => {
                eprintln!("tern msg: {}", e.message);
                ExitCode::from(e.code)
            }
        },
        Some(Command::Config { action }) => {
            let (out, problems) = settings_cli::run(action, &cli.settings);
            for p in &problems {
                eprintln!("tern: {p}");
            }
            let code = print_bytes(out.as_bytes());
            if problems.is_empty() {
                code
            } else {
                ExitCode::from(1)
            }
        }
        Some(Command::Agents { action }) => match tern::agents_cli::run(action) {
            Ok(out) => print_bytes(out.as_bytes()),
            Err(e) => {
                eprintln!("tern agents: {e}");
                ExitCode::from(1)
            }
        },
        Some(Command::Completions { shell }) => print_bytes(&tern::cli::completions(shell)),
        Some(Command::Keeper {
            serve,
            stop,
            socket,
        }) => {
            let socket = socket.unwrap_or_else(tern_core::keeper::socket_path);
            let done = if serve {
                tern_core::keeper::server::run(tern_core::keeper::server::KeeperOptions::new(
                    socket,
                ))
            } else if stop {
                tern_core::keeper::client::stop(&socket)
            } else {
                Err("say --serve or --stop".into())
            };
            match done {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("tern keeper: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Some(Command::Man) => match tern::cli::man_page() {
            Ok(page) => print_bytes(&page),
            Err(e) => {
                eprintln!("tern: {e}");
                ExitCode::from(1)
            }
        },
        None if cli.headless => {
            // An explicit --config that cannot be read is an error (exit 2); the
            // overrides (-o) apply on top, each bad one reported.
            let config = match headless::load_config(cli.settings.config.as_deref()) {
                Ok(config) => {
                    let (config, errors) = config.with_overrides(&cli.settings.overrides);
                    for e in &errors {
                        eprintln!("tern: {e}");
                    }
                    config
                }
                Err(e) => {
                    eprintln!("tern: {e}");
                    return ExitCode::from(2);
                }
            };
            // No program and nothing to write at its end: serve the workspace. With
            // --dump-screen or --diagnostics-report the configured shell is the one
            // program, as with `-- CMD`.
            if cli.program.is_empty()
                && cli.exec.is_empty()
                && cli.dump_screen.is_none()
                && cli.diagnostics_report.is_none()
            {
                let session = config
                    .session
                    .restore
                    .then(tern::desktop::session_path)
                    .flatten();
                let args = headless::serve::ServeArgs {
                    size: TermSize::new(cli.cols.max(2), cli.rows.max(1)),
                    cwd: cli.working_directory,
                    config,
                    hold: cli.hold,
                    session,
                };
                return match headless::serve::serve(args) {
                    Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
                    Err(e) => {
                        eprintln!("tern: {e}");
                        ExitCode::from(1)
                    }
                };
            }
            let args = headless::HeadlessArgs {
                size: TermSize::new(cli.cols.max(2), cli.rows.max(1)),
                cwd: cli.working_directory,
                dump_screen: cli.dump_screen,
                diagnostics_report: cli.diagnostics_report,
                command: if cli.exec.is_empty() {
                    cli.program
                } else {
                    cli.exec
                },
                config,
            };
            match headless::run(args) {
                Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
                Err(e) => {
                    eprintln!("tern: {e}");
                    ExitCode::from(2)
                }
            }
        }
        None => run_window(cli),
    }
}
