//! The `tern` binary.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tern_core::model::{TermConfig, TermSize, Terminal};

use tern::window::settings::ConfigSource;
use tern::{headless, window};

#[derive(Parser, Debug)]
#[command(
    name = "tern",
    version,
    about = "A GPU terminal for many shells and coding agents"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Run CMD through the whole pipeline with no window; exit with its status.
    #[arg(long)]
    headless: bool,
    #[arg(long, default_value_t = 80)]
    cols: usize,
    #[arg(long, default_value_t = 24)]
    rows: usize,
    #[arg(long)]
    working_directory: Option<PathBuf>,
    /// Read settings from PATH instead of the platform file (~/.config/tern/config.ron
    /// or $TERN_CONFIG); watched and reloaded when saved.
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// With --headless: write the final visible screen as text to PATH (`-` for stdout).
    #[arg(long, value_name = "PATH")]
    dump_screen: Option<String>,
    /// With --headless: when the child exits, write the diagnostics report (RON: the
    /// delivery table, latency histograms, throughput, breadcrumbs, environment) to PATH.
    #[arg(long, value_name = "PATH")]
    diagnostics_report: Option<PathBuf>,
    /// Run this program (and arguments) instead of the login shell, like alacritty's -e.
    #[arg(short = 'e', long = "command", num_args = 1.., allow_hyphen_values = true)]
    exec: Vec<String>,
    /// The program and its arguments (after `--`).
    #[arg(last = true)]
    program: Vec<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Feed a file of terminal output to a fresh model and print the visible screen.
    Replay {
        /// The recorded bytes.
        file: PathBuf,
        #[arg(long, default_value_t = 80)]
        cols: usize,
        #[arg(long, default_value_t = 24)]
        rows: usize,
        /// Also print the attribute runs of each row.
        #[arg(long)]
        attrs: bool,
    },
}

fn replay(file: &PathBuf, size: TermSize, attrs: bool) -> Result<String, String> {
    if size.cols == 0 || size.rows == 0 {
        return Err("--cols and --rows must be at least 1".into());
    }
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let mut term = Terminal::new(size, TermConfig::default());
    term.advance(&bytes);
    Ok(term.dump().render(attrs))
}

fn run_window(cli: Cli) -> ExitCode {
    let command: Vec<String> = if cli.exec.is_empty() {
        cli.program
    } else {
        cli.exec
    };
    let mut spec = tern_core::pipeline::SpawnSpec {
        command: command
            .split_first()
            .map(|(p, rest)| (p.clone(), rest.to_vec())),
        cwd: cli.working_directory,
        ..Default::default()
    };
    let (cols, rows) = (cli.cols.max(2), cli.rows.max(1));
    spec.size = Some(TermSize::new(cols, rows));
    let config_source = match cli.config {
        Some(path) => ConfigSource::File(path),
        None => ConfigSource::Platform,
    };
    let config_path = match &config_source {
        ConfigSource::File(p) => Some(p.clone()),
        _ => tern_core::config::Config::default_path(),
    };
    let config = config_path
        .and_then(|p| tern_core::config::Config::load_or_default(p).ok())
        .unwrap_or_default();
    if config.shell_integration {
        spec.shell_integration = tern_core::shell_integration::default_dir();
    }
    // A plain start restores (and keeps saving) the last session; `-e` or a folder on
    // the command line asks for one pane, and leaves the saved session alone.
    let plain = spec.command.is_none() && spec.cwd.is_none();
    let session = (plain && config.session.restore)
        .then(|| {
            std::env::var_os("TERN_SESSION")
                .map(PathBuf::from)
                .or_else(tern_core::session::SessionStore::default_path)
        })
        .flatten();
    // DejaVu Sans Mono: advance 0.602 em, line height about 1.17 em. (With one tab there
    // is no tab bar.)
    let size = config.font.size;
    let inner = egui::vec2(
        (cols as f32 * size * 0.602).ceil() + 2.0,
        (rows as f32 * size * 1.17).ceil() + 2.0,
    );
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size(inner)
            .with_title("tern")
            .with_app_id("tern"),
        // Ctrl+C and Ctrl+V belong to the program in the terminal; tern's are Ctrl+Shift+C/V.
        clipboard_shortcuts: false,
        ..Default::default()
    };
    let launch = window::app::Launch {
        spec,
        config: config_source,
        session,
    };
    let result = eframe::run_native(
        "tern",
        options,
        Box::new(move |cc| Ok(Box::new(window::app::TernApp::new(&cc.egui_ctx, launch)))),
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "tern: cannot open a window: {e} (for machines without a display: tern --headless -- CMD)"
            );
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    window::trace::mark_process_start();
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Replay {
            file,
            cols,
            rows,
            attrs,
        }) => match replay(&file, TermSize::new(cols, rows), attrs) {
            Ok(out) => {
                print!("{out}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("tern: {e}");
                ExitCode::from(2)
            }
        },
        None if cli.headless => {
            let args = headless::HeadlessArgs {
                size: TermSize::new(cli.cols.max(2), cli.rows.max(1)),
                cwd: cli.working_directory,
                dump_screen: cli.dump_screen,
                diagnostics_report: cli.diagnostics_report,
                command: cli.program,
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
