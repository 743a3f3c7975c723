//! Key chords as written in the config (`"ctrl+shift+t"`), parsed into a GUI-free
//! [`KeyChord`]; the app maps it onto its toolkit's keys.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Named keys a chord may end with (canonical spelling first, then aliases).
const NAMED_KEYS: &[(&str, &[&str])] = &[
    ("enter", &["return"]),
    ("tab", &[]),
    ("space", &[]),
    ("backspace", &[]),
    ("escape", &["esc"]),
    ("insert", &["ins"]),
    ("delete", &["del"]),
    ("home", &[]),
    ("end", &[]),
    ("pageup", &["page_up", "pgup"]),
    ("pagedown", &["page_down", "pgdn"]),
    ("up", &["arrowup"]),
    ("down", &["arrowdown"]),
    ("left", &["arrowleft"]),
    ("right", &["arrowright"]),
    ("plus", &[]),
    ("minus", &[]),
];

/// A key with modifiers: `ctrl+shift+t`, `super+1`, `alt+enter`, `ctrl++`.
///
/// `key` is canonical: a single character in lower case (`"t"`, `"1"`, `"["`), a
/// named key from the list above (`"pageup"`), or `"f1"`..`"f24"`. The `+` key is
/// `"plus"` (`ctrl++` and `ctrl+plus` are the same chord).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyChord {
    pub ctrl: bool,
    pub shift: bool,
    pub alt: bool,
    /// The logo key: Cmd on macOS, Super/Windows elsewhere.
    pub super_: bool,
    pub key: String,
}

/// Why a chord string did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChordError {
    pub chord: String,
    pub reason: String,
}

impl fmt::Display for ChordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid key chord {:?}: {}", self.chord, self.reason)
    }
}

impl std::error::Error for ChordError {}

impl FromStr for KeyChord {
    type Err = ChordError;

    fn from_str(s: &str) -> Result<KeyChord, ChordError> {
        let err = |reason: String| ChordError {
            chord: s.to_owned(),
            reason,
        };
        let text = s.trim();
        if text.is_empty() {
            return Err(err("it is empty".into()));
        }
        // `ctrl++` and a lone `+` name the plus key.
        let (mods, key) = if text == "+" {
            ("", "plus")
        } else if let Some(rest) = text.strip_suffix("++") {
            (rest, "plus")
        } else {
            match text.rsplit_once('+') {
                Some((m, k)) => (m, k),
                None => ("", text),
            }
        };
        let mut chord = KeyChord {
            ctrl: false,
            shift: false,
            alt: false,
            super_: false,
            key: canonical_key(key.trim()).map_err(err)?,
        };
        if !mods.is_empty() {
            for part in mods.split('+') {
                let flag = match part.trim().to_ascii_lowercase().as_str() {
                    "ctrl" | "control" => &mut chord.ctrl,
                    "shift" => &mut chord.shift,
                    "alt" | "option" | "opt" => &mut chord.alt,
                    "super" | "cmd" | "command" | "win" | "logo" => &mut chord.super_,
                    "" => return Err(err("a modifier is missing between two '+'".into())),
                    other => {
                        let hint =
                            super::suggest::did_you_mean(other, ["ctrl", "shift", "alt", "super"]);
                        return Err(err(format!(
                            "unknown modifier {other:?}{hint} (use ctrl, shift, alt or super)"
                        )));
                    }
                };
                if *flag {
                    return Err(err(format!("{:?} appears twice", part.trim())));
                }
                *flag = true;
            }
        }
        Ok(chord)
    }
}

fn canonical_key(key: &str) -> Result<String, String> {
    if key.is_empty() {
        return Err("the key is missing after the last '+'".into());
    }
    let mut chars = key.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if c.is_control() || c.is_whitespace() {
            return Err(format!("{c:?} is not a key"));
        }
        return Ok(match c {
            '+' => "plus".into(),
            '-' => "minus".into(),
            // Lower case when that is one character too ('İ' lowers to two: kept
            // as written, so the canonical spelling parses back to the same key).
            c => {
                let mut lower = c.to_lowercase();
                match (lower.next(), lower.next()) {
                    (Some(l), None) => l.to_string(),
                    _ => c.to_string(),
                }
            }
        });
    }
    let lower = key.to_ascii_lowercase();
    for (name, aliases) in NAMED_KEYS {
        if lower == *name || aliases.contains(&lower.as_str()) {
            return Ok((*name).to_owned());
        }
    }
    if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok())
        && (1..=24).contains(&n)
    {
        return Ok(format!("f{n}"));
    }
    let hint = super::suggest::did_you_mean(key, NAMED_KEYS.iter().map(|(n, _)| *n));
    Err(format!(
        "unknown key {key:?}{hint} (use one character, f1-f24, or one of: {})",
        NAMED_KEYS
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

impl fmt::Display for KeyChord {
    /// The canonical spelling: modifiers in the order ctrl, alt, shift, super.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (on, name) in [
            (self.ctrl, "ctrl"),
            (self.alt, "alt"),
            (self.shift, "shift"),
            (self.super_, "super"),
        ] {
            if on {
                write!(f, "{name}+")?;
            }
        }
        f.write_str(&self.key)
    }
}

/// A binding in the config: a chord, several (`["ctrl+shift+t", "super+t"]`), or
/// `"none"` to take an action's default keys away.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KeyBinding {
    Chord(KeyChord),
    Chords(Vec<KeyChord>),
    Unbound,
}

impl KeyBinding {
    /// The chords bound (none for `"none"`).
    pub fn chords(&self) -> Vec<KeyChord> {
        match self {
            KeyBinding::Chord(c) => vec![c.clone()],
            KeyBinding::Chords(cs) => cs.clone(),
            KeyBinding::Unbound => Vec::new(),
        }
    }
}

impl FromStr for KeyBinding {
    type Err = ChordError;

    fn from_str(s: &str) -> Result<KeyBinding, ChordError> {
        if s.trim().eq_ignore_ascii_case("none") {
            Ok(KeyBinding::Unbound)
        } else {
            s.parse().map(KeyBinding::Chord)
        }
    }
}

impl fmt::Display for KeyBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyBinding::Chord(c) => c.fmt(f),
            KeyBinding::Chords(cs) => {
                let names: Vec<String> = cs.iter().map(ToString::to_string).collect();
                f.write_str(&names.join(", "))
            }
            KeyBinding::Unbound => f.write_str("none"),
        }
    }
}

macro_rules! serde_as_string {
    ($ty:ty) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

serde_as_string!(KeyChord);

impl Serialize for KeyBinding {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            KeyBinding::Chords(cs) => cs.serialize(s),
            other => s.collect_str(other),
        }
    }
}

impl<'de> Deserialize<'de> for KeyBinding {
    /// A string (one chord or `"none"`) or a list of chords.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            One(String),
            Many(Vec<String>),
        }
        match Raw::deserialize(d)? {
            Raw::One(text) => text.parse().map_err(serde::de::Error::custom),
            Raw::Many(list) => list
                .iter()
                .map(|t| t.parse::<KeyChord>())
                .collect::<Result<Vec<_>, _>>()
                .map(KeyBinding::Chords)
                .map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chord(s: &str) -> KeyChord {
        s.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn parses_modifiers_in_any_order_and_case() {
        let c = chord("Shift+Ctrl+T");
        assert!(c.ctrl && c.shift && !c.alt && !c.super_);
        assert_eq!(c.key, "t");
        assert_eq!(c.to_string(), "ctrl+shift+t");
        assert_eq!(chord("cmd+opt+PageUp").to_string(), "alt+super+pageup");
        assert_eq!(chord("F12").key, "f12");
        assert_eq!(chord("esc").key, "escape");
        assert_eq!(chord("a").to_string(), "a");
    }

    #[test]
    fn plus_and_minus_keys() {
        assert_eq!(chord("ctrl++"), chord("ctrl+plus"));
        assert_eq!(chord("ctrl++").to_string(), "ctrl+plus");
        assert_eq!(chord("+").key, "plus");
        assert_eq!(chord("ctrl+-").key, "minus");
        assert_eq!(chord("ctrl+=").key, "=");
    }

    #[test]
    fn a_key_whose_lower_case_is_two_characters_round_trips() {
        // Found by fuzzing: 'İ' lowers to "i\u{307}", which did not parse back.
        let c = chord("ctrl+İ");
        assert_eq!(c.key, "İ");
        assert_eq!(chord(&c.to_string()), c);
        assert_eq!(chord("Ä").key, "ä");
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let e = |s: &str| s.parse::<KeyChord>().expect_err(s).to_string();
        assert!(e("").contains("empty"));
        assert!(e("ctrl+").contains("key is missing"));
        assert!(e("hyper+t").contains("unknown modifier \"hyper\""));
        assert!(e("ctrl+ctrl+t").contains("appears twice"));
        assert!(e("ctrl+enterr").contains("unknown key \"enterr\""));
        assert!(e("ctrl+f25").contains("unknown key"));
        assert!(e("ctrl++shift+t").contains("modifier is missing"));
    }

    #[test]
    fn bindings_round_trip_through_strings() {
        assert_eq!("None".parse::<KeyBinding>(), Ok(KeyBinding::Unbound));
        let b: KeyBinding = "ctrl+shift+t".parse().expect("parses");
        assert_eq!(b.to_string(), "ctrl+shift+t");
    }
}
