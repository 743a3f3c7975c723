//! Settings from the command line: `--config PATH` (else the platform file) with the
//! `-o key=value` overrides on top, and `tern config check|show`.

use std::path::{Path, PathBuf};

use tern_core::config::{Config, ConfigError};

use crate::cli::{ConfigAction, SettingsArgs};

/// The settings in effect, and every problem found on the way (a file that does not
/// parse means the defaults, then the overrides still apply).
pub struct Effective {
    pub path: Option<PathBuf>,
    /// The file's text, to say where in it each problem is written.
    pub text: String,
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
        self.load_with(|path| match Config::load_or_default(path) {
            Ok(config) => (config, Vec::new()),
            Err(e) => (Config::default(), vec![e]),
        })
    }

    /// Loads the file as [`SettingsArgs::load`], except that every problem of the file
    /// is reported (each erring entry left out, the rest read on) and themes that name
    /// nothing stay in the settings, for [`deeper_problems`] to report beside the rest.
    fn load_settings(&self) -> Effective {
        self.load_with(|path| match std::fs::read_to_string(path) {
            Ok(text) => Config::parse_reporting_all(&text, path),
            Err(_) => match Config::load_or_default(path) {
                Ok(config) => (config, Vec::new()),
                Err(e) => (Config::default(), vec![e]),
            },
        })
    }

    fn load_with(&self, read: impl Fn(&Path) -> (Config, Vec<ConfigError>)) -> Effective {
        let path = self.path();
        let mut problems = Vec::new();
        let base = match &path {
            Some(p) => {
                let (config, errors) = read(p);
                problems.extend(errors.iter().map(ToString::to_string));
                config
            }
            None => Config::default(),
        };
        let text = path
            .as_deref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default();
        let (config, errors) = base.with_overrides(&self.overrides);
        problems.extend(errors.iter().map(ToString::to_string));
        Effective {
            path,
            text,
            config,
            problems,
        }
    }
}

/// A problem in settings that parsed, and what it is about as written in the file
/// (an action's name, a theme's, a font family), to say where.
pub struct Problem {
    pub message: String,
    pub about: Option<String>,
}

impl Problem {
    fn new(message: String, about: Option<&str>) -> Problem {
        Problem {
            message,
            about: about.map(str::to_owned),
        }
    }

    /// `path:line:col: message` where the file writes what it is about, else the
    /// message alone (a setting from `-o`, or one with no single place).
    fn located(&self, path: Option<&Path>, text: &str) -> String {
        let at = self
            .about
            .as_deref()
            .and_then(|about| tern_core::config::position_of(text, about));
        match (path, at) {
            (Some(path), Some((line, col))) => {
                format!("{}:{line}:{col}: {}", path.display(), self.message)
            }
            _ => self.message.clone(),
        }
    }
}

/// What the window would refuse in settings that parsed: key bindings for unknown
/// actions or with bad chords, `send_text` chords, a font family the system does not
/// have, a theme that names nothing, a shell program that is not installed. The window
/// shows the same messages (`TernApp::apply_config`).
pub fn deeper_problems(config: &Config) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (action, binding) in &config.key_bindings {
        let chords: Vec<String> = binding.chords().iter().map(ToString::to_string).collect();
        let (_, errors) =
            crate::window::commands::KeyMap::with_overrides([(action.as_str(), &chords[..])]);
        problems.extend(
            errors
                .into_iter()
                .map(|e| Problem::new(format!("key_bindings: {e}"), Some(action))),
        );
    }
    let (_, errors) = crate::window::activity::send_text_chords(&config.send_text);
    problems.extend(errors.into_iter().map(|e| Problem::new(e, None)));
    let (_, errors) = tern_core::text::hints::HintPatterns::new(&config.hint_patterns);
    problems.extend(
        errors
            .into_iter()
            .map(|e| Problem::new(format!("hint_patterns: {e}"), None)),
    );
    if let Some(family) = &config.font.family {
        let found = match crate::window::glyphs::system_fonts::SystemFonts::open() {
            Ok(fc) => fc.family(family).is_some(),
            Err(_) => crate::window::glyphs::fonts::find_family(family).is_some(),
        };
        if !found {
            problems.push(Problem::new(
                format!(
                    "font.family: no font family {family:?} on this system (DejaVu Sans Mono is used)"
                ),
                Some(family),
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
                problems.push(Problem::new(e, Some(name)));
            }
        }
    }
    for (key, name, e) in config.theme.unknown_names() {
        problems.push(Problem::new(format!("{key}: {e}"), Some(&name)));
    }
    if let Some(program) = &config.shell.program
        && !tern_core::resume::installed(program, std::env::var_os("PATH").as_deref())
    {
        problems.push(Problem::new(
            format!("shell.program: {program:?} is not an executable file or on PATH"),
            Some(program),
        ));
    }
    problems
}

/// `tern config check|show`: what to print on stdout, and whether it passed.
pub fn run(action: ConfigAction, args: &SettingsArgs) -> (String, Vec<String>) {
    match action {
        ConfigAction::Check => {
            // Every problem in one run: the file's own (each erring entry left out and
            // the rest read on; a syntax error stops there), the overrides', then each
            // setting's.
            let mut effective = args.load_settings();
            let path = effective.path.clone();
            let located = deeper_problems(&effective.config)
                .into_iter()
                .map(|p| p.located(path.as_deref(), &effective.text));
            effective.problems.extend(located);
            if !effective.problems.is_empty() {
                return (String::new(), effective.problems);
            }
            let file = match &effective.path {
                Some(p) if p.exists() => format!("{}: ok", p.display()),
                Some(p) => format!("{}: no such file; using the defaults: ok", p.display()),
                None => "(no config folder): using the defaults: ok".into(),
            };
            (format!("{file}\n"), Vec::new())
        }
        ConfigAction::Show => {
            let effective = args.load();
            let mut text = effective.config.to_ron();
            text.push('\n');
            (text, effective.problems)
        }
    }
}
