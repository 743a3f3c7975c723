//! `tern msg search` through the binary, in the window (Xvfb) and headless: for a set
//! of fixed and regex queries it finds exactly what `grep` finds in each pane's
//! `get-text --scrollback` (same panes, same line numbers, same text), scoped to a pane
//! or a worktree too; a bad regex is refused with its position; a program in a pane may
//! search only its own pane unless the config allows more.

mod common;

use std::collections::BTreeSet;
use std::io::Write as _;
use std::process::{Command, Stdio};

use common::user::{Face, Start, Tern};

/// One matching line: pane, line, text.
type Hit = (u64, u64, String);

/// A pane's program: prints `lines` lines (errors, URLs, plain lines, a few with
/// capitals), then its marker, then waits.
fn printer(seed: u32, lines: u32) -> String {
    format!(
        "awk 'BEGIN {{ for (i = 0; i < {lines}; i++) {{ \
           if (i % (89 + {seed}) == 0) print \"error: build failed at step \" i; \
           else if (i % (211 + {seed}) == 0) print \"see https://example.com/x/\" i \" (pane {seed})\"; \
           else if (i % 500 == {seed}) print \"Error: Capitalised \" i; \
           else print \"ok line \" i \" of pane {seed}\" }} }}'; \
         echo MARK-{seed}-DONE; exec sleep 600"
    )
}

/// What `grep` finds in the pane's whole text: 0-based line numbers, as tern counts.
fn grep(t: &Tern, pane: u64, pattern: &str, regex: bool) -> BTreeSet<Hit> {
    let text = t.msg(&["get-text", "--pane", &pane.to_string(), "--scrollback"]);
    let mut args = vec!["-n".to_owned()];
    args.push(if regex { "-P" } else { "-F" }.to_owned());
    let capital = if regex {
        has_capital_outside_escapes(pattern)
    } else {
        pattern.chars().any(char::is_uppercase)
    };
    if !capital {
        // tern's queries are case-smart.
        args.push("-i".to_owned());
    }
    args.push("-e".to_owned());
    args.push(pattern.to_owned());
    let mut child = Command::new("grep")
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("grep runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("grep reads");
    let out = child.wait_with_output().expect("grep ends");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (n, text) = l.split_once(':')?;
            Some((pane, n.parse::<u64>().ok()? - 1, text.to_owned()))
        })
        .collect()
}

fn has_capital_outside_escapes(pattern: &str) -> bool {
    let mut chars = pattern.chars();
    let mut upper = false;
    while let Some(c) = chars.next() {
        if c == '\\' {
            chars.next();
            continue;
        }
        upper |= c.is_uppercase();
    }
    upper
}

/// `tern msg search ARGS`: each JSON line as (pane, line, text), checked against
/// `list` for its worktree and tab.
fn search(t: &Tern, args: &[&str]) -> BTreeSet<Hit> {
    let mut all = vec!["search", "--limit", "100000"];
    all.extend_from_slice(args);
    let out = t.msg(&all);
    let panes = t.panes();
    out.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            let pane = v["pane"].as_u64().expect("pane");
            let info = panes
                .iter()
                .find(|p| p["id"] == pane)
                .expect("a listed pane");
            assert_eq!(v["worktree"], info["worktree"], "{l}");
            assert_eq!(v["tab"], info["tab"], "{l}");
            (
                pane,
                v["line"].as_u64().expect("line"),
                v["text"].as_str().expect("text").to_owned(),
            )
        })
        .collect()
}

fn search_everywhere_equals_grep(face: Face) {
    let mut t = Start::new(face, "search-grep").run();
    // Folders outside HOME (a folder under a group's is that group's).
    let (wt_a, wt_b) = (t.dir.join("wt-a"), t.dir.join("wt-b"));
    std::fs::create_dir_all(&wt_a).expect("wt-a");
    std::fs::create_dir_all(&wt_b).expect("wt-b");
    let mut panes = Vec::new();
    for (seed, dir, lines) in [(1, &wt_a, 3_000), (2, &wt_a, 800), (3, &wt_b, 5_000)] {
        let reply = t.msg(&[
            "new-tab",
            "--cwd",
            dir.to_str().expect("utf-8"),
            "--",
            "sh",
            "-c",
            &printer(seed, lines),
        ]);
        let pane: u64 = reply.trim().parse().expect("a pane id");
        let mark = format!("MARK-{seed}-DONE");
        t.wait_for(&format!("pane {pane} printed"), |t| {
            t.msg(&["get-text", "--pane", &pane.to_string()])
                .contains(&mark)
                .then_some(())
        });
        panes.push(pane);
    }
    // Every pane: the three above and the one tern started with.
    let all: Vec<u64> = t.panes().iter().filter_map(|p| p["id"].as_u64()).collect();
    for (pattern, regex) in [
        ("error", false),
        ("Error", false),
        ("https://example.com/x/", false),
        ("(pane 3)", false),
        (r"step \d+7$", true),
        (r"^ok line 1\d{2} of", true),
        (r"example\.com/x/\d+ \(pane [12]\)", true),
        ("absent-from-every-pane", false),
    ] {
        let mut want = BTreeSet::new();
        for pane in &all {
            want.extend(grep(&t, *pane, pattern, regex));
        }
        let mut args = vec![pattern];
        if regex {
            args.push("--regex");
        }
        let got = search(&t, &args);
        assert_eq!(
            got.len(),
            want.len(),
            "{pattern:?}: tern found {} lines, grep {}; only tern: {:?}; only grep: {:?}",
            got.len(),
            want.len(),
            got.difference(&want).take(5).collect::<Vec<_>>(),
            want.difference(&got).take(5).collect::<Vec<_>>()
        );
        assert_eq!(got, want, "{pattern:?}");
        if pattern == "error" {
            assert!(got.len() > 50, "the query finds something: {}", got.len());
        }
    }
    // Scoped to one pane, and to one worktree.
    let one = search(&t, &["error", "--pane", &panes[1].to_string()]);
    assert_eq!(one, grep(&t, panes[1], "error", false));
    let info = t.pane(panes[2]).expect("listed");
    assert_eq!(info["worktree"], "wt-b");
    let wt = search(&t, &["error", "--worktree", "wt-b"]);
    assert_eq!(wt, grep(&t, panes[2], "error", false), "worktree {info}");
    let by_path = search(&t, &["error", "--worktree", wt_b.to_str().expect("utf-8")]);
    assert_eq!(by_path, wt, "the worktree by its folder");
    // A bad regex: refused, with where it goes wrong.
    let out = t.msg_output(&["search", "--regex", "step (\\d+"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid regex at character 6"), "{err}");
    // A limit: stopped, and said so.
    let out = t.msg_output(&["search", "ok line", "--limit", "10"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 10);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stopped after 10 matches"), "{err}");
}

/// A program in a pane may search its own pane; other panes need the config's consent
/// (as `get-text` of another pane does). Catches: no rule for `search` in
/// `remote_policy.rs`.
fn a_pane_searches_only_itself_unless_allowed(face: Face) {
    let mut t = Start::new(face, "search-policy").run();
    let out = t.home.join("out");
    // Run by a program in a pane: the pane's environment, not the kit's.
    let tern = common::TERN_BIN;
    let script = format!(
        "echo secret-in-this-pane; \
         {tern} msg search secret > '{o}.all' 2>&1; echo \"rc=$?\" >> '{o}.all'; \
         {tern} msg search secret --pane \"$TERN_PANE_ID\" > '{o}.own' 2>&1; echo \"rc=$?\" >> '{o}.own'; \
         exec sleep 600",
        o = out.display()
    );
    t.new_tab(&script);
    let all = t.wait_for("the pane's searches", |_| {
        let all = std::fs::read_to_string(out.with_extension("all")).ok()?;
        let own = std::fs::read_to_string(out.with_extension("own")).ok()?;
        (all.contains("rc=") && own.contains("rc=")).then_some((all, own))
    });
    let (everywhere, own) = all;
    assert!(everywhere.contains("rc=1"), "{everywhere}");
    assert!(
        everywhere.contains("may not search other panes")
            && everywhere.contains("pane_remote_control"),
        "{everywhere}"
    );
    assert!(own.contains("rc=0"), "{own}");
    assert!(own.contains("secret-in-this-pane"), "{own}");
}

common::user::on_both_faces! {
    search_everywhere_equals_grep:
        search_everywhere_equals_grep_in_the_window, search_everywhere_equals_grep_headless;
    a_pane_searches_only_itself_unless_allowed:
        a_pane_may_search_only_itself_in_the_window, a_pane_may_search_only_itself_headless;
}

/// The issue's bad inputs through the binary: an empty query is refused with a reason;
/// a pane that printed 20 times more matching lines than its history holds is searched
/// as far as it holds, its dropped lines counted (and line numbers count them), and the
/// answer stops at the limit and says so. Catches: an empty query that matches every
/// line, a limit not kept or not said, dropped lines not said.
#[test]
fn bad_queries_and_floods_of_matches_are_refused_or_capped_and_counted() {
    let mut t = Start::new(Face::Headless, "search-bad")
        .args(&["-o", "scrollback_lines=1000"])
        .run();
    let pane = t.new_tab("seq 1 20000 | sed 's/^/match /'; echo FLOOD-DONE; exec sleep 600");
    t.wait_for("the flood printed", |t| {
        t.msg(&["get-text", "--pane", &pane.to_string()])
            .contains("FLOOD-DONE")
            .then_some(())
    });
    let out = t.msg_output(&["search", ""]);
    assert!(!out.status.success(), "an empty query is refused");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the query is empty"), "{err}");

    let out = t.msg_output(&[
        "search",
        "match",
        "--pane",
        &pane.to_string(),
        "--limit",
        "5",
    ]);
    assert!(out.status.success());
    let hits: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(hits.len(), 5, "capped at the limit");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stopped after 5 matches"), "{err}");
    // 20,000 lines and the echo's: the history holds 1,000 of them, the rest counted.
    let dropped: u64 = err
        .split("its ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no dropped lines said: {err}"));
    assert!(dropped >= 18_000, "{err}");
    let first = &hits[0];
    assert_eq!(
        first["line"], dropped,
        "line numbers count the dropped lines: {first}"
    );
    assert_eq!(
        first["text"],
        format!("match {}", dropped + 1),
        "the oldest line held: {first}"
    );
}
