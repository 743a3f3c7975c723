//! `-o key=value` on the command line: one setting over the config file.
//!
//! The key is a dotted path of config fields (`font.size`, `theme.name`,
//! `key_bindings.new_tab`); the value is JSON when it reads as JSON (`18`, `true`,
//! `["--login"]`, `null`) and a plain string otherwise (`Light`, `ctrl+t`, `#ff5555`).
//! Each override is applied and checked on its own: one that names no setting or
//! holds the wrong type is reported by name and the rest still apply.

use std::fmt;

use serde_json::Value;

use super::Config;

/// An override that could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverrideError {
    /// The override as given (`font.size=big`).
    pub given: String,
    pub reason: String,
}

impl fmt::Display for OverrideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "-o {}: {}", self.given, self.reason)
    }
}

impl std::error::Error for OverrideError {}

impl Config {
    /// Applies each `key=value` in order; returns the config with every override that
    /// worked, and an error for each that did not.
    pub fn with_overrides<S: AsRef<str>>(&self, overrides: &[S]) -> (Config, Vec<OverrideError>) {
        let mut config = self.clone();
        let mut errors = Vec::new();
        for given in overrides {
            match config.with_override(given.as_ref()) {
                Ok(c) => config = c,
                Err(e) => errors.push(e),
            }
        }
        (config, errors)
    }

    /// Applies one `key=value`.
    pub fn with_override(&self, given: &str) -> Result<Config, OverrideError> {
        let err = |reason: String| OverrideError {
            given: given.to_owned(),
            reason,
        };
        let (key, text) = given
            .split_once('=')
            .ok_or_else(|| err("expected key=value".into()))?;
        let key = key.trim();
        let path: Vec<&str> = key.split('.').collect();
        if path.iter().any(|p| p.is_empty()) {
            return Err(err(format!("{key:?} is not a setting name")));
        }
        let value =
            serde_json::from_str::<Value>(text).unwrap_or_else(|_| Value::String(text.into()));
        let mut tree = serde_json::to_value(self).map_err(|e| err(e.to_string()))?;
        let mut node = &mut tree;
        for (i, part) in path.iter().enumerate() {
            let Value::Object(map) = node else {
                return Err(err(format!(
                    "{} has no settings inside it",
                    path[..i].join(".")
                )));
            };
            let last = i + 1 == path.len();
            // Maps (env, key_bindings) take new keys; structs only their own fields.
            let new_key_allowed = last && i > 0 && is_open_map(&path[..i]);
            if !(map.contains_key(*part) || new_key_allowed) {
                return Err(err(format!("there is no setting {key:?}")));
            }
            if last {
                map.insert((*part).to_owned(), value);
                break;
            }
            node = map
                .get_mut(*part)
                .ok_or_else(|| err(format!("there is no setting {key:?}")))?;
        }
        serde_json::from_value(tree).map_err(|e| err(format!("{key}: {e}")))
    }
}

/// Settings whose keys are the user's own (not struct fields).
fn is_open_map(path: &[&str]) -> bool {
    matches!(path, ["env"] | ["key_bindings"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ThemeName;

    #[test]
    fn numbers_enums_and_strings_apply() {
        let (c, errors) = Config::default().with_overrides(&[
            "font.size=18",
            "theme.name=Light",
            "font.family=Iosevka",
            "env.EDITOR=hx",
            "confirm_on_close=false",
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(c.font.size, 18.0);
        assert_eq!(c.theme.name, ThemeName::LIGHT);
        assert_eq!(c.font.family.as_deref(), Some("Iosevka"));
        assert_eq!(c.env.get("EDITOR").map(String::as_str), Some("hx"));
        assert!(!c.confirm_on_close);
    }

    #[test]
    fn a_bad_override_is_named_and_the_rest_apply() {
        let (c, errors) = Config::default().with_overrides(&[
            "font.sise=18",
            "font.size=big",
            "scrollback_lines=500",
            "nonsense",
            "font.size.x=1",
        ]);
        assert_eq!(c.scrollback_lines, 500);
        assert_eq!(c.font.size, 15.0);
        let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(errors.len(), 4, "{text:?}");
        assert!(text[0].contains("no setting \"font.sise\""), "{}", text[0]);
        assert!(
            text[1].starts_with("-o font.size=big: font.size:"),
            "{}",
            text[1]
        );
        assert!(text[2].contains("key=value"), "{}", text[2]);
        assert!(text[3].contains("font.size has no settings"), "{}", text[3]);
    }

    #[test]
    fn a_bad_key_chord_is_an_error_not_a_silent_default() {
        let err = Config::default()
            .with_override("key_bindings.new_tab=ctrl+shift+nosuchkey")
            .unwrap_err();
        assert!(err.to_string().contains("key_bindings.new_tab"), "{err}");
        let ok = Config::default()
            .with_override("key_bindings.new_tab=super+t")
            .unwrap();
        assert!(ok.key_bindings.contains_key("new_tab"));
    }
}
