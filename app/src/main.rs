//! The `tern` binary.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tern_core::model::{TermConfig, TermSize, Terminal};

#[derive(Parser, Debug)]
#[command(
    name = "tern",
    version,
    about = "A GPU terminal for many shells and coding agents"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
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
        None => {
            eprintln!(
                "tern: the window is not built yet; use `tern replay FILE` (see `tern --help`)"
            );
            ExitCode::from(2)
        }
    }
}
