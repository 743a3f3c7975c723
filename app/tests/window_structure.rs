//! The source keeps its shape: in every folder of `app/src` the modules depend on each
//! other one way only (under `app/src/window/`: the coordinator `app` on
//! the panels, the panels on the leaves), and no file of `app/src` grows past the size
//! a reader can hold (`core/tests/structure.rs` keeps `core/src` the same way).

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

/// No file of any folder of `app/src` (the window's and the rest: the command line,
/// headless, `msg`) grows past what a reader holds; `core/tests/structure.rs` does the
/// same for `core/src`.
#[test]
fn no_app_file_is_longer_than_a_reader_holds() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(
        files.iter().any(|f| f.ends_with("src/headless/serve.rs")),
        "the scan does not reach the folders outside window/"
    );
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

/// A source file's module path from its crate's root: `window/glyphs/emoji.rs` →
/// `window::glyphs::emoji`; `mod.rs`, `lib.rs` and `main.rs` are their folder's module.
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().unwrap_or_default();
    let stem = file.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_owned());
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The leading path of `text` (`a::b::C`), up to a group, a space or punctuation.
fn leading_path(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    loop {
        let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
        if name.is_empty() {
            return out;
        }
        rest = &rest[name.len()..];
        out.push(name);
        match rest.strip_prefix("::") {
            Some(r) if r.starts_with(|c: char| is_ident(c)) => rest = r,
            _ => return out,
        }
    }
}

/// The modules `code` (in module `module`) names through `crate::…` and `super::…`
/// paths, each item of a `{…}` group after one counted; comments left out.
fn named_modules(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let code: String = code
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find(['c', 's']).map(|i| at + i) {
        at = found + 1;
        let before = code[..found].chars().next_back();
        if before.is_some_and(|c| is_ident(c) || c == ':' || c == '$') {
            continue;
        }
        let mut rest = &code[found..];
        let mut base: Vec<String> = if let Some(r) = rest.strip_prefix("crate::") {
            rest = r;
            Vec::new()
        } else if rest.starts_with("super::") {
            let mut base = module.to_vec();
            while let Some(r) = rest.strip_prefix("super::") {
                rest = r;
                if base.pop().is_none() {
                    break;
                }
            }
            base
        } else {
            continue;
        };
        // The path up to a group, if any.
        let path = leading_path(rest);
        let after = &rest[path
            .iter()
            .map(|p| p.len() + 2)
            .sum::<usize>()
            .min(rest.len())..];
        base.extend(path);
        if !after.starts_with('{') || !rest[..rest.len() - after.len()].ends_with("::") {
            out.push(base);
            continue;
        }
        // `{a::b, c, d::{e, f}}`: the leading path of each top-level item.
        let (mut depth, mut item_start) = (0usize, 1usize);
        for (i, c) in after.char_indices() {
            match c {
                '{' => depth += 1,
                '}' | ',' if depth == 1 => {
                    let item = leading_path(&after[item_start..i]);
                    if item.first().is_some_and(|n| n != "self") {
                        out.push(base.iter().cloned().chain(item).collect());
                    }
                    item_start = i + 1;
                    if c == '}' {
                        break;
                    }
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
    }
    out
}

/// For each folder of the crate at `root` (its module path), each child module → the
/// sibling modules its non-test code names.
fn folder_dependencies(root: &Path) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let mut deps: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(root).expect("under the crate's src");
        let name = rel.file_name().unwrap_or_default().to_string_lossy();
        if name.ends_with("tests.rs") {
            continue;
        }
        let module = module_path(rel);
        let text = std::fs::read_to_string(&f).expect("readable source");
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for target in named_modules(code, &module) {
            let shared = module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            let (Some(from), Some(to)) = (module.get(shared), target.get(shared)) else {
                continue;
            };
            if !to.starts_with(|c: char| c.is_ascii_lowercase()) {
                continue;
            }
            deps.entry(module[..shared].join("/"))
                .or_default()
                .entry(from.clone())
                .or_default()
                .insert(to.clone());
        }
    }
    deps
}

/// The import circles among the modules of each folder of the crate at `root`, each as
/// `folder: a -> b -> a`.
fn import_circles(root: &Path) -> Vec<String> {
    fn visit(
        m: &str,
        deps: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        found: &mut Vec<String>,
    ) {
        if done.contains(m) {
            return;
        }
        if let Some(at) = path.iter().position(|p| p == m) {
            // Written from its first module by name, whichever was met first.
            let mut circle = path[at..].to_vec();
            let first = (0..circle.len()).min_by_key(|&i| &circle[i]).unwrap_or(0);
            circle.rotate_left(first);
            circle.push(circle[0].clone());
            found.push(circle.join(" -> "));
            return;
        }
        path.push(m.to_owned());
        for d in deps.get(m).into_iter().flatten() {
            visit(d, deps, path, done, found);
        }
        path.pop();
        done.insert(m.to_owned());
    }
    let mut circles = Vec::new();
    for (folder, deps) in folder_dependencies(root) {
        let (mut done, mut found) = (BTreeSet::new(), Vec::new());
        for m in deps.keys() {
            visit(m, &deps, &mut Vec::new(), &mut done, &mut found);
        }
        let folder = if folder.is_empty() { "src" } else { &folder };
        circles.extend(found.into_iter().map(|c| format!("{folder}: {c}")));
    }
    circles
}

/// No module of any folder of `app/src` reaches, through its siblings, back to itself
/// (`crate::…` and `super::…` paths in non-test code; `core/tests/structure.rs` does the
/// same for `core/src`). Seen failing on `window/glyphs: emoji -> system_fonts -> emoji`
/// before `presentation.rs`.
#[test]
fn no_folder_of_app_src_has_an_import_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let app = folder_dependencies(&src);
    assert!(
        app.get("window/glyphs")
            .and_then(|g| g.get("fonts"))
            .is_some_and(|d| d.contains("system_fonts")),
        "the search does not see `super::system_fonts` in window/glyphs/fonts.rs: {app:?}"
    );
    let circles = import_circles(&src);
    assert!(circles.is_empty(), "import circles: {circles:#?}");
}

/// The named fields of each braced struct in `code`: (name, count), counted at the
/// struct's own depth (a field's type or attribute spanning lines counts once).
fn struct_fields(code: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while let Some(found) = code[at..].find("struct ") {
        let start = at + found;
        at = start + 7;
        // `struct` as a word at the start of an item (after `pub`/`pub(crate)`/spaces).
        let line_start = code[..start].rfind('\n').map_or(0, |i| i + 1);
        let before = code[line_start..start].trim();
        if !(before.is_empty() || before.starts_with("pub")) {
            continue;
        }
        let name: String = code[at..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // The body: the first `{` before any `;` or `(` (tuple and unit structs skipped).
        let Some(open) = code[at..].find(['{', ';', '(']).map(|i| at + i) else {
            break;
        };
        if bytes[open] != b'{' {
            continue;
        }
        let (mut depth, mut i, mut count) = (0usize, open, 0);
        let mut line_begins_field = true;
        while i < bytes.len() {
            match bytes[i] {
                b'{' | b'(' | b'[' | b'<' => depth += 1,
                b'}' | b')' | b']' | b'>' if bytes[i - 1] != b'-' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b'\n' => line_begins_field = true,
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    i += code[i..].find('\n').unwrap_or(code.len() - i);
                    continue;
                }
                c if line_begins_field && !c.is_ascii_whitespace() => {
                    line_begins_field = false;
                    let rest = &code[i..];
                    let rest = rest
                        .strip_prefix("pub(crate) ")
                        .or_else(|| rest.strip_prefix("pub(super) "))
                        .or_else(|| rest.strip_prefix("pub "))
                        .unwrap_or(rest);
                    let ident_len = rest
                        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .unwrap_or(0);
                    if depth == 1 && ident_len > 0 && rest[ident_len..].starts_with(':') {
                        count += 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        out.push((name, count));
        at = i.max(at);
    }
    out
}

/// No type in `app/src` keeps more than about a dozen things (issue 44): a state that
/// grows past it is split into parts, each a state of its own.
#[test]
fn no_type_in_app_src_has_more_than_about_a_dozen_fields() {
    const MAX_FIELDS: usize = 12;
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut seen = 0;
    let mut too_many = Vec::new();
    for file in files {
        let code = std::fs::read_to_string(&file).expect("source");
        for (name, count) in struct_fields(&code) {
            seen += 1;
            if count > MAX_FIELDS {
                too_many.push(format!("{} {name}: {count} fields", file.display()));
            }
        }
    }
    assert!(seen > 50, "the scan found the structs ({seen})");
    assert!(
        too_many.is_empty(),
        "split into parts:\n{}",
        too_many.join("\n")
    );
}

#[test]
fn the_field_count_reads_nested_types_and_comments_as_one_field() {
    let code = "pub struct A {\n    /// a: not a field\n    pub a: Vec<(u8, u8)>,\n    b: HashMap<u8,\n        Vec<u8>>,\n    c: fn() -> u8,\n}\nstruct T(u8, u8);\nstruct B { x: u8, }\n";
    assert_eq!(
        struct_fields(code),
        vec![("A".to_owned(), 3), ("B".to_owned(), 1)]
    );
}

/// The window changes the workspace in one place (issue 44, invariant 10): its parts
/// queue intents, and `WorkspaceCore::apply` is called once in `app/src/window`, by
/// `TernApp::dispatch` (`app/apply.rs`), which only the queue's one point (same file)
/// calls. Catches a part applying a command beside the queue (23 such calls before).
#[test]
fn the_window_applies_workspace_commands_in_one_place() {
    let mut files = Vec::new();
    rust_files(&window_dir(), &mut files);
    let (mut applies, mut dispatches) = (Vec::new(), Vec::new());
    for file in files {
        let code = std::fs::read_to_string(&file).expect("source");
        let rel = file.strip_prefix(window_dir()).expect("under window");
        for (n, line) in code.lines().enumerate() {
            let line = line.trim_start();
            if line.starts_with("//") {
                continue;
            }
            let at = format!("{}:{}", rel.display(), n + 1);
            if line.contains("core.apply(") || line.contains(".exec(") {
                applies.push(at.clone());
            }
            if line.contains(".dispatch(") && !rel.ends_with("app/apply.rs") {
                dispatches.push(at);
            }
        }
    }
    assert_eq!(
        applies.len(),
        1,
        "one call of WorkspaceCore::apply in the window: {applies:?}"
    );
    assert!(applies[0].starts_with("app/apply.rs"), "{applies:?}");
    assert!(
        dispatches.is_empty(),
        "dispatch is the queue's, in app/apply.rs: {dispatches:?}"
    );
}
