//! The window's source keeps its shape: modules under `app/src/window/` depend on each
//! other one way only (the coordinator `app` on the panels, the panels on the leaves),
//! and no file grows past the size a reader can hold.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 600;

fn window_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/window")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module of `window` a file belongs to, and whether `super::` in it
/// means `window` (files directly in `window/` and the `mod.rs` of a folder module).
fn module_of(rel: &Path) -> (String, bool) {
    let parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let top = parts[0].trim_end_matches(".rs").to_owned();
    let super_is_window = parts.len() == 1 || parts.get(1).is_some_and(|f| f == "mod.rs");
    (top, super_is_window)
}

/// Sibling modules named after `prefix` in `code`.
fn referenced(code: &str, prefix: &str, out: &mut BTreeSet<String>) {
    for (i, _) in code.match_indices(prefix) {
        let name: String = code[i + prefix.len()..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
}

/// Module → the sibling modules its non-test code uses.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let dir = window_dir();
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&dir).expect("under window/");
        if rel == Path::new("mod.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).expect("readable source");
        // Unit tests may reach anywhere; only the shipped code counts.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let (module, super_is_window) = module_of(rel);
        let entry = deps.entry(module.clone()).or_default();
        referenced(code, "crate::window::", entry);
        if super_is_window {
            referenced(code, "super::", entry);
        }
        entry.remove(&module);
    }
    deps
}

#[test]
fn window_modules_form_no_import_cycle() {
    let deps = dependencies();
    assert!(
        deps.contains_key("app") && deps.contains_key("pane"),
        "{deps:?}"
    );
    // Depth-first search for a back edge.
    fn visit(
        m: &str,
        deps: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if done.contains(m) {
            return;
        }
        if let Some(at) = path.iter().position(|p| p == m) {
            panic!("import cycle: {} -> {m}", path[at..].join(" -> "));
        }
        path.push(m.to_owned());
        for d in deps.get(m).into_iter().flatten() {
            visit(d, deps, path, done);
        }
        path.pop();
        done.insert(m.to_owned());
    }
    let mut done = BTreeSet::new();
    for m in deps.keys() {
        visit(m, &deps, &mut Vec::new(), &mut done);
    }
    for (m, d) in &deps {
        if m != "app" {
            assert!(!d.contains("app"), "{m} reaches into the coordinator");
        }
    }
}

#[test]
fn no_window_file_is_longer_than_a_reader_holds() {
    let mut files = Vec::new();
    rust_files(&window_dir(), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).ok()?.lines().count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:?}");
}

/// A panel returns what it asks for (actions, a clicked pane, a dialog's answer) and the
/// app applies it after drawing; `#[must_use]` on each such function makes dropping one
/// a warning (a denied one in CI). Catches a panel function returning actions without
/// it (the issue-31 rule: "panels return actions … with #[must_use]").
#[test]
fn panels_that_return_what_they_ask_for_are_must_use() {
    let asks = [
        "Action>",
        "PaneResponse",
        "SearchAction",
        "Option<bool>",
        "Option<PaneId>",
    ];
    let mut files = Vec::new();
    rust_files(&window_dir(), &mut files);
    let mut missing = Vec::new();
    for file in files {
        let code = std::fs::read_to_string(&file).expect("read");
        let lines: Vec<&str> = code.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            if !(t.starts_with("pub fn ")
                || t.starts_with("pub(super) fn ")
                || t.starts_with("fn "))
            {
                continue;
            }
            // The signature, to its opening brace (or a trait declaration's `;`).
            let ends = |l: &&str| l.trim_end().ends_with('{') || l.trim_end().ends_with(';');
            let signature: String = lines[i..]
                .iter()
                .take_while(|l| !ends(l))
                .chain(lines[i..].iter().find(|l| ends(l)))
                .copied()
                .collect::<Vec<_>>()
                .join(" ");
            let returns = signature.split("->").nth(1).unwrap_or("");
            let asks_for = asks.iter().any(|a| returns.contains(a));
            // A panel draws (it takes egui's `Ui` or `Context`); functions that take
            // actions (`apply(…, actions: Vec<Action>)`) return none.
            let draws = signature.contains("egui::Ui") || signature.contains("egui::Context");
            if !asks_for || !draws || t.contains("fn apply") {
                continue;
            }
            let attributed = lines[..i]
                .iter()
                .rev()
                .take_while(|l| {
                    l.trim_start().starts_with("#[") || l.trim_start().starts_with("///")
                })
                .any(|l| l.contains("#[must_use"));
            if !attributed {
                missing.push(format!("{}:{}: {}", file.display(), i + 1, t));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "panels without #[must_use]: {missing:#?}"
    );
}
