//! The `tern` binary.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tern_core::model::{TermConfig, TermSize, Terminal};

mod headless;

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
    /// With --headless: write the final visible screen as text to PATH (`-` for stdout).
    #[arg(long, value_name = "PATH")]
    dump_screen: Option<String>,
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

fn main() -> ExitCode {
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
        None => {
            eprintln!(
                "tern: the window is not built yet; use `tern --headless -- CMD` or `tern replay FILE` (see `tern --help`)"
            );
            ExitCode::from(2)
        }
    }
}
