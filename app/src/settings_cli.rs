//! Settings from the command line: `--config PATH` (else the platform file) with the
//! `-o key=value` overrides on top, and `tern config check|show`.

use std::path::PathBuf;

use tern_core::config::{Config, ConfigError};

use crate::cli::{ConfigAction, SettingsArgs};

/// The settings in effect, and every problem found on the way (a file that does not
/// parse means the defaults, then the overrides still apply).
pub struct Effective {
    pub path: Option<PathBuf>,
    pub config: Config,
    pub problems: Vec<String>,
}

impl SettingsArgs {
    /// The config file this start reads.
    pub fn path(&self) -> Option<PathBuf> {
        self.config.clone().or_else(Config::default_path)
    }

    /// Loads the file (a missing one is the defaults) and applies the overrides.
    pub fn load(&self) -> Effective {
        let path = self.path();
        let mut problems = Vec::new();
        let base = match &path {
            Some(p) => Config::load_or_default(p).unwrap_or_else(|e: ConfigError| {
                problems.push(e.to_string());
                Config::default()
            }),
            None => Config::default(),
        };
        let (config, errors) = base.with_overrides(&self.overrides);
        problems.extend(errors.iter().map(ToString::to_string));
        Effective {
            path,
            config,
            problems,
        }
    }
}

/// What the window would refuse in settings that parsed: key bindings for unknown
/// actions or with bad chords, `send_text` chords, a font family the system does not
/// have, a shell program that is not installed. The window shows the same messages
/// (`TernApp::apply_config`).
pub fn deeper_problems(config: &Config) -> Vec<String> {
    let mut problems = Vec::new();
    let (_, errors) = crate::window::commands::KeyMap::from_config(config);
    problems.extend(errors);
    let (_, errors) = crate::window::agents::send_text_chords(&config.send_text);
    problems.extend(errors);
    let (_, errors) = tern_core::text::hints::HintPatterns::new(&config.hint_patterns);
    problems.extend(errors.into_iter().map(|e| format!("hint_patterns: {e}")));
    if let Some(family) = &config.font.family {
        let found = match crate::window::glyphs::system_fonts::SystemFonts::open() {
            Ok(fc) => fc.family(family).is_some(),
            Err(_) => crate::window::glyphs::fonts::find_family(family).is_some(),
        };
        if !found {
            problems.push(format!(
                "font.family: no font family {family:?} on this system (DejaVu Sans Mono is used)"
            ));
        }
    }
    let faces = [
        ("bold", &config.font.bold),
        ("italic", &config.font.italic),
        ("bold_italic", &config.font.bold_italic),
    ];
    if faces.iter().any(|(_, name)| name.is_some()) {
        let system = crate::window::glyphs::system_fonts::SystemFonts::open();
        for (key, name) in faces {
            if let Some(name) = name
                && let Err(e) = crate::window::glyphs::fonts::named_face(&system, key, name)
            {
                problems.push(e);
            }
        }
    }
    for (key, _, e) in config.theme.unknown_names() {
        problems.push(format!("{key}: {e}"));
    }
    if let Some(program) = &config.shell.program
        && !tern_core::resume::installed(program, std::env::var_os("PATH").as_deref())
    {
        problems.push(format!(
            "shell.program: {program:?} is not an executable file or on PATH"
        ));
    }
    problems
}

/// `tern config check|show`: what to print on stdout, and whether it passed.
pub fn run(action: ConfigAction, args: &SettingsArgs) -> (String, Vec<String>) {
    let mut effective = args.load();
    let out = match action {
        ConfigAction::Check => {
            effective
                .problems
                .extend(deeper_problems(&effective.config));
            let file = match &effective.path {
                Some(p) if p.exists() => format!("{}: ok", p.display()),
                Some(p) => format!("{}: no such file; using the defaults: ok", p.display()),
                None => "(no config folder): using the defaults: ok".into(),
            };
            if effective.problems.is_empty() {
                format!("{file}\n")
            } else {
                String::new()
            }
        }
        ConfigAction::Show => {
            let mut text = effective.config.to_ron();
            text.push('\n');
            text
        }
    };
    (out, effective.problems)
}
