//! Codex's `config.toml`: `notify` and the `[tui]` notification keys, edited in place
//! (`toml_edit` keeps the user's comments and order).

use std::path::Path;

use super::{SetupContext, after_removal, is_tern_hook};
use crate::agent::AgentKind;

fn parse_toml(text: &str, file: &Path) -> Result<toml_edit::DocumentMut, String> {
    text.parse::<toml_edit::DocumentMut>().map_err(|e| {
        let at = e
            .span()
            .map(|s| line_col(text, s.start))
            .map_or_else(String::new, |(l, c)| format!(":{l}:{c}"));
        format!(
            "{}{at}: not TOML ({}); left as it is",
            file.display(),
            e.message()
        )
    })
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn toml_words(item: &toml_edit::Item) -> Option<Vec<String>> {
    let array = item.as_array()?;
    array
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// The `[tui]` keys setup sets when the user has not.
const CODEX_TUI_KEYS: [(&str, TuiValue); 3] = [
    ("notifications", TuiValue::Bool(true)),
    ("notification_method", TuiValue::Str("osc9")),
    ("notification_condition", TuiValue::Str("always")),
];

#[derive(Clone, Copy)]
enum TuiValue {
    Bool(bool),
    Str(&'static str),
}

impl TuiValue {
    fn value(self) -> toml_edit::Value {
        match self {
            TuiValue::Bool(b) => b.into(),
            TuiValue::Str(s) => s.into(),
        }
    }

    fn matches(self, item: &toml_edit::Item) -> bool {
        match self {
            TuiValue::Bool(b) => item.as_bool() == Some(b),
            TuiValue::Str(s) => item.as_str() == Some(s),
        }
    }
}

pub(super) fn codex_install(
    text: Option<&str>,
    cx: &SetupContext,
    file: &Path,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<u8>>, String> {
    let source = text.unwrap_or_default();
    let mut doc = parse_toml(source, file)?;
    let mut changed = false;
    match doc.get("notify") {
        None => {
            let mut array = toml_edit::Array::new();
            for w in cx.hook_words(AgentKind::Codex) {
                array.push(w);
            }
            // A root key goes before the first table, where Codex reads it.
            doc.insert("notify", toml_edit::value(array));
            changed = true;
        }
        Some(item) if toml_words(item).is_some_and(|w| is_tern_hook(&w)) => {}
        Some(_) => notes.push(format!(
            "{} already has a notify program of yours; it is kept (Codex runs one). \
             Have it also run: {} \"$1\"",
            file.display(),
            cx.hook_line(AgentKind::Codex)
        )),
    }
    let tui = doc
        .entry("tui")
        .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
    let Some(tui) = tui.as_table_like_mut() else {
        return Err(format!(
            "{}: tui is not a table; left as it is",
            file.display()
        ));
    };
    for (key, value) in CODEX_TUI_KEYS {
        if tui.get(key).is_none() {
            tui.insert(key, toml_edit::Item::Value(value.value()));
            changed = true;
        }
    }
    if !changed {
        return Ok(text.map(|t| t.as_bytes().to_vec()));
    }
    Ok(Some(doc.to_string().into_bytes()))
}

pub(super) fn codex_remove(
    text: Option<&str>,
    backup: Option<&[u8]>,
    file: &Path,
) -> Result<Option<Vec<u8>>, String> {
    let Some(text) = text else {
        return Ok(None);
    };
    let mut doc = parse_toml(text, file)?;
    let old = match backup {
        Some(b) => Some(parse_toml(&String::from_utf8_lossy(b), file)?),
        None => None,
    };
    let mut removed = false;
    if doc
        .get("notify")
        .and_then(toml_words)
        .is_some_and(|w| is_tern_hook(&w))
    {
        doc.remove("notify");
        removed = true;
    }
    // The `[tui]` keys go only where tern added them: the value is tern's and the
    // file before setup (the backup) did not have the key.
    let had = |key: &str| {
        old.as_ref().is_some_and(|d| {
            d.get("tui")
                .and_then(toml_edit::Item::as_table_like)
                .is_some_and(|t| t.get(key).is_some())
        })
    };
    let had_tui = old.as_ref().is_some_and(|d| d.get("tui").is_some());
    if removed && let Some(tui) = doc.get_mut("tui").and_then(|t| t.as_table_like_mut()) {
        for (key, value) in CODEX_TUI_KEYS {
            if tui.get(key).is_some_and(|i| value.matches(i)) && !had(key) {
                tui.remove(key);
            }
        }
        if tui.is_empty() && !had_tui {
            doc.remove("tui");
        }
    }
    if !removed {
        return Ok(Some(text.as_bytes().to_vec()));
    }
    let left = doc.to_string();
    let meaning = toml::from_str::<toml::Table>(&left).ok();
    let same_as =
        |old: &[u8]| toml::from_str::<toml::Table>(&String::from_utf8_lossy(old)).ok() == meaning;
    let empty = left.trim().is_empty();
    Ok(after_removal(left.into_bytes(), empty, backup, same_as))
}
