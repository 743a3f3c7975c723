//! `core/src` keeps a shape a reader can follow (issue 31 item 5): sibling modules
//! depend on each other one way only, and no file grows past what a reader holds.
//!
//! Catches: a new `use super::x` / `use crate::a::b` that closes a circle between two
//! modules of one folder (say `model::state` and `model::kitty`), and a file that grows
//! over [`MAX_LINES`]. Only shipped code counts: text after the first `#[cfg(test)]`,
//! comment lines, and files that are test modules (`tests.rs`, `*_tests.rs`) are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 600;

/// Files allowed over [`MAX_LINES`]: none (issue 31 item 5 split the last three). A file
/// that must stay long goes here with its reason; the test fails once one is short, so
/// the list only shrinks.
const KNOWN_LONG: &[&str] = &[];

/// Module cycles allowed to stand: none (all the scan found, the five among
/// them, are broken). Keep it empty.
const KNOWN_CYCLES: &[&str] = &[];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
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

fn is_test_file(rel: &Path) -> bool {
    rel.file_stem()
        .is_some_and(|s| s == "tests" || s.to_string_lossy().ends_with("_tests"))
}

/// The module path of a file: `model/state.rs` → `[model, state]`,
/// `model/mod.rs` → `[model]`, `lib.rs` → `[]`.
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    if last != "mod.rs" && last != "lib.rs" {
        parts.push(last.trim_end_matches(".rs").to_owned());
    }
    parts
}

fn ident(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// The module paths named after `crate::` or `super::` in `code`, resolved from `me`.
/// A `{a, b::c}` group yields one path per item (its first segment after the group).
fn referenced(code: &str, me: &[String], out: &mut BTreeSet<Vec<String>>) {
    for (i, _) in code.match_indices("crate::") {
        if code[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        paths_after(&code[i + "crate::".len()..], Vec::new(), out);
    }
    for (i, _) in code.match_indices("super::") {
        if code[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut rest = &code[i..];
        let mut base = me.to_vec();
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        paths_after(rest, base, out);
    }
}

fn paths_after(mut rest: &str, mut path: Vec<String>, out: &mut BTreeSet<Vec<String>>) {
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let body = group.split('}').next().unwrap_or("");
            for item in body.split(',') {
                let (name, _) = ident(item.trim());
                if !name.is_empty() && name != "self" {
                    let mut p = path.clone();
                    p.push(name.to_owned());
                    out.insert(p);
                }
            }
            out.insert(path);
            return;
        }
        let (name, after) = ident(rest);
        if name.is_empty() {
            out.insert(path);
            return;
        }
        path.push(name.to_owned());
        match after.strip_prefix("::") {
            Some(r) => rest = r,
            None => {
                out.insert(path);
                return;
            }
        }
    }
}

/// Folder (module path) → module → the sibling modules its shipped code uses.
type Graph = BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>>;

fn dependencies() -> Graph {
    let dir = src_dir();
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let mut graph = Graph::new();
    for f in files {
        let rel = f.strip_prefix(&dir).expect("under src/").to_owned();
        if is_test_file(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(&f).expect("readable source");
        let shipped = text.split("#[cfg(test)]").next().unwrap_or("");
        // Comments (doc links included) name modules without depending on them.
        let code: String = shipped
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let me = module_path(&rel);
        let mut refs = BTreeSet::new();
        referenced(&code, &me, &mut refs);
        for to in refs {
            let k = me.iter().zip(&to).take_while(|(a, b)| a == b).count();
            // An edge only between two distinct children of one folder.
            if k < me.len() && k < to.len() {
                graph
                    .entry(me[..k].to_vec())
                    .or_default()
                    .entry(me[k].clone())
                    .or_default()
                    .insert(to[k].clone());
            }
        }
    }
    graph
}

/// Every cycle found by a depth-first search, as `folder: a -> b -> a`.
fn cycles(graph: &Graph) -> Vec<String> {
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
            found.push(format!("{} -> {m}", path[at..].join(" -> ")));
            return;
        }
        path.push(m.to_owned());
        for d in deps.get(m).into_iter().flatten() {
            visit(d, deps, path, done, found);
        }
        path.pop();
        done.insert(m.to_owned());
    }
    let mut found = Vec::new();
    for (folder, deps) in graph {
        let mut here = Vec::new();
        let mut done = BTreeSet::new();
        for m in deps.keys() {
            visit(m, deps, &mut Vec::new(), &mut done, &mut here);
        }
        let name = if folder.is_empty() {
            "crate".to_owned()
        } else {
            folder.join("::")
        };
        found.extend(here.into_iter().map(|c| format!("{name}: {c}")));
    }
    found
}

#[test]
fn core_modules_form_no_import_cycle() {
    let graph = dependencies();
    assert!(
        graph.contains_key(&vec!["model".to_owned()]),
        "the scan found no model folder: {graph:?}"
    );
    let all = cycles(&graph);
    let gone: Vec<&&str> = KNOWN_CYCLES
        .iter()
        .filter(|k| !all.iter().any(|c| c == *k))
        .collect();
    assert!(
        gone.is_empty(),
        "broken now, drop from KNOWN_CYCLES: {gone:?}"
    );
    let found: Vec<String> = all
        .into_iter()
        .filter(|c| !KNOWN_CYCLES.contains(&c.as_str()))
        .collect();
    assert!(found.is_empty(), "import cycles in core/src: {found:#?}");
}

#[test]
fn no_core_file_is_longer_than_a_reader_holds() {
    let dir = src_dir();
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let all: Vec<(String, usize)> = files
        .iter()
        .filter_map(|f| {
            let rel = f.strip_prefix(&dir).ok()?.to_string_lossy().into_owned();
            let lines = std::fs::read_to_string(f).ok()?.lines().count();
            (lines > MAX_LINES).then_some((rel, lines))
        })
        .collect();
    let gone: Vec<&&str> = KNOWN_LONG
        .iter()
        .filter(|k| !all.iter().any(|(rel, _)| rel == *k))
        .collect();
    assert!(gone.is_empty(), "short now, drop from KNOWN_LONG: {gone:?}");
    let long: Vec<String> = all
        .iter()
        .filter(|(rel, _)| !KNOWN_LONG.contains(&rel.as_str()))
        .map(|(rel, lines)| format!("{rel} ({lines} lines)"))
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:#?}");
}

/// Catches a `#[path = "..."]` module: a file that lives under one name and is a
/// module under another (issue 31 item 5); a child module goes in the parent's folder.
#[test]
fn no_core_module_is_loaded_by_path() {
    let dir = src_dir();
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let tricks: Vec<String> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(f)
                .is_ok_and(|t| t.lines().any(|l| l.trim_start().starts_with("#[path")))
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(tricks.is_empty(), "modules loaded by #[path]: {tricks:?}");
}
