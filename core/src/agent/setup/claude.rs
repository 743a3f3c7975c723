//! Claude Code's `settings.json`: tern's hook added to each event's list, and taken out.

use std::path::Path;

use serde_json::{Map, Value};

use super::{CLAUDE_EVENTS, SetupContext, after_removal, is_tern_line};
use crate::agent::AgentKind;

fn parse_json(text: &str, file: &Path) -> Result<Map<String, Value>, String> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(format!(
            "{} is not a JSON object; left as it is",
            file.display()
        )),
        Err(e) => Err(format!(
            "{}:{}:{}: not JSON ({e}); left as it is",
            file.display(),
            e.line(),
            e.column()
        )),
    }
}

/// JSON as Claude Code writes its settings: two spaces, a final newline when the file
/// had one (or is new).
fn json_bytes(map: &Map<String, Value>, newline: bool) -> Vec<u8> {
    let mut out = serde_json::to_string_pretty(map).unwrap_or_default();
    if newline {
        out.push('\n');
    }
    out.into_bytes()
}

pub(super) fn hook_commands(group: &Value) -> impl Iterator<Item = &str> {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|h| h.get("command").and_then(Value::as_str))
}

pub(super) fn claude_install(
    text: Option<&str>,
    cx: &SetupContext,
    file: &Path,
) -> Result<Option<Vec<u8>>, String> {
    let mut settings = parse_json(text.unwrap_or_default(), file)?;
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(format!(
            "{}: \"hooks\" is not an object; left as it is",
            file.display()
        ));
    };
    let command = cx.hook_line(AgentKind::Claude);
    let mut changed = false;
    for event in CLAUDE_EVENTS {
        let groups = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else {
            return Err(format!(
                "{}: hooks.{event} is not a list; left as it is",
                file.display()
            ));
        };
        if groups.iter().flat_map(hook_commands).any(is_tern_line) {
            continue;
        }
        let mut hook = Map::new();
        hook.insert("type".into(), Value::String("command".into()));
        hook.insert("command".into(), Value::String(command.clone()));
        let mut group = Map::new();
        group.insert("hooks".into(), Value::Array(vec![Value::Object(hook)]));
        groups.push(Value::Object(group));
        changed = true;
    }
    if !changed {
        return Ok(text.map(|t| t.as_bytes().to_vec()));
    }
    let newline = text.is_none_or(|t| t.ends_with('\n') || t.trim().is_empty());
    Ok(Some(json_bytes(&settings, newline)))
}

/// Takes tern's hooks out of `settings`; whether any were there.
fn strip_tern_hooks(settings: &mut Map<String, Value>) -> bool {
    let Some(Value::Object(hooks)) = settings.get_mut("hooks") else {
        return false;
    };
    let mut removed = false;
    let events: Vec<String> = hooks.keys().cloned().collect();
    for event in events {
        let Some(Value::Array(groups)) = hooks.get_mut(&event) else {
            continue;
        };
        let mut emptied = false;
        for group in groups.iter_mut() {
            let Some(Value::Array(list)) = group.get_mut("hooks") else {
                continue;
            };
            let before = list.len();
            list.retain(|h| {
                !h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(is_tern_line)
            });
            if list.len() != before {
                removed = true;
                emptied |= list.is_empty();
            }
        }
        if emptied {
            groups.retain(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .is_none_or(|l| !l.is_empty())
            });
            if groups.is_empty() {
                hooks.shift_remove(&event);
            }
        }
    }
    if removed && hooks.is_empty() {
        settings.shift_remove("hooks");
    }
    removed
}

pub(super) fn claude_remove(
    text: Option<&str>,
    backup: Option<&[u8]>,
    file: &Path,
) -> Result<Option<Vec<u8>>, String> {
    let Some(text) = text else {
        return Ok(None);
    };
    let mut settings = parse_json(text, file)?;
    if !strip_tern_hooks(&mut settings) {
        return Ok(Some(text.as_bytes().to_vec()));
    }
    let same_as = |old: &[u8]| {
        std::str::from_utf8(old).is_ok_and(|t| parse_json(t, file).is_ok_and(|m| m == settings))
    };
    let left = json_bytes(&settings, text.ends_with('\n'));
    Ok(after_removal(left, settings.is_empty(), backup, same_as))
}
