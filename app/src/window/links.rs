//! Hyperlinks under the pointer: OSC 8 links (by id, URIs from the model) and URLs
//! written as plain text (found by `tern_core::text::links`, whole across soft wraps).
//! Ctrl+click opens them with the platform opener.

use std::ops::Range;

use tern_core::model::{Flags, Row};

fn check(uri: &str) -> Result<(), tern_core::security::LinkRefusal> {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let host = HOST.get_or_init(tern_core::security::local_host_name);
    tern_core::security::check_link(uri, host)
}

/// `Ok` when tern hands `uri` to the platform opener, else why not, as the pane says
/// it: the policy is [`tern_core::security::check_link`] (http, https, mailto, and file
/// links that name this machine).
pub fn allowed(uri: &str) -> Result<(), String> {
    check(uri).map_err(|why| format!("not opening {uri:?}: {why}"))
}

/// Where a link is on the screen: the columns it covers on each row it is on.
pub type LinkSpans = Vec<(usize, Range<usize>)>;

/// The link at cell `(row, col)` of `rows`: the cells it covers and its target. A URL
/// written as text is found whole when it soft-wraps over rows.
pub fn link_at(
    rows: &[&Row],
    row: usize,
    col: usize,
    uri_of: impl Fn(u32) -> Option<String>,
) -> Option<(LinkSpans, String)> {
    let line = *rows.get(row)?;
    let cell = line.cells.get(col)?;
    if cell.flags().contains(Flags::EXTRA)
        && let Some(id) = line.extra(col).and_then(|e| e.hyperlink)
        && let Some(uri) = uri_of(id)
    {
        let same = |c: usize| line.extra(c).and_then(|e| e.hyperlink) == Some(id);
        let mut start = col;
        while start > 0 && same(start - 1) {
            start -= 1;
        }
        let mut end = col + 1;
        while end < line.cells.len() && same(end) {
            end += 1;
        }
        return Some((vec![(row, start..end)], uri));
    }
    let found = tern_core::text::links::url_at_cell(rows, row, col)?;
    Some((found.spans, found.url))
}

/// Opens `uri` with the platform opener (the `open` crate's list of them, tried in
/// order), for the schemes tern allows. The opener starts on a helper thread, so a slow
/// or hanging one never holds the window; its failure (none installed) is reported by
/// `report`, which the caller points at the breadcrumbs.
pub fn open(uri: &str, report: impl FnOnce(String) + Send + 'static) -> Result<(), String> {
    allowed(uri)?;
    // What the opener gets: a `mailto:` without the files it asks to attach.
    let uri = tern_core::security::link_for_opener(uri).into_owned();
    std::thread::Builder::new()
        .name("tern-opener".into())
        .spawn(move || {
            if let Err(e) = start_opener(&uri) {
                report(e);
            }
        })
        .map(|_| ())
        .map_err(|e| format!("cannot start the opener thread: {e}"))
}

/// Starts the first opener that exists for `uri`; it is reaped when it exits.
fn start_opener(uri: &str) -> Result<(), String> {
    let mut tried = Vec::new();
    for mut cmd in open::commands(uri) {
        match tern_core::helper::spawn_reaped(&mut cmd) {
            Ok(_) => return Ok(()),
            Err(e) => tried.push(format!("{}: {e}", cmd.get_program().to_string_lossy())),
        }
    }
    Err(format!(
        "no program to open {uri:?} ({})",
        if tried.is_empty() {
            "none known on this system".to_owned()
        } else {
            tried.join("; ")
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_safe_schemes_open() {
        let openable = |uri: &str| allowed(uri).is_ok();
        assert!(openable("https://example.com"));
        assert!(!openable("javascript:alert(1)"));
        assert!(open("ssh://host", |_| {}).is_err());
        assert!(
            !openable("file:///etc/passwd"),
            "a file link without a host"
        );
        assert!(!openable("file://elsewhere.example/etc/passwd"));
        assert!(openable("file://localhost/tmp"));
        assert!(
            !openable("file://evil.example/tmp/x"),
            "a file link to another host"
        );
    }
}
