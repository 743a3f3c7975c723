//! What a link's tooltip says, so that a link cannot hide where it goes: the parsed
//! host first (Punycode for a non-ASCII name), then warnings — text before an `@` in
//! the authority (user info, which can push the real host out of sight:
//! `https://accounts.google.com-----…@evil.example/`), and link text that names another
//! host than the target's — then the target itself, shortened in the middle.

use super::punycode::host_to_ascii;

/// The most characters of a target shown in a tooltip (its start and its end).
pub const MAX_SHOWN_TARGET_CHARS: usize = 160;

/// The parts of a link's target that say where it goes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkTarget {
    /// The scheme, lower-cased.
    pub scheme: String,
    /// The host as the opener will see it (lower-case, Punycode); `None` for links
    /// without one (`mailto:`, `file:///`).
    pub host: Option<String>,
    /// Text before an `@` in the authority (user name, password, or padding that
    /// pushes the host out of sight).
    pub userinfo: bool,
}

/// The scheme, host and user info of `uri`.
pub fn parse(uri: &str) -> LinkTarget {
    let Some((scheme, rest)) = uri.split_once(':') else {
        return LinkTarget::default();
    };
    let scheme = scheme.to_ascii_lowercase();
    if scheme == "mailto" {
        // The host is the address's domain (the first recipient's).
        let to = rest.split(['?', ',']).next().unwrap_or_default();
        let host = to.rsplit_once('@').map(|(_, d)| d).and_then(host_to_ascii);
        return LinkTarget {
            scheme,
            host,
            userinfo: false,
        };
    }
    let Some(after) = rest.strip_prefix("//") else {
        return LinkTarget {
            scheme,
            ..LinkTarget::default()
        };
    };
    let authority = after
        .split(['/', '?', '#', '\\'])
        .next()
        .unwrap_or_default();
    let (userinfo, host_port) = match authority.rsplit_once('@') {
        Some((_, h)) => (true, h),
        None => (false, authority),
    };
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']')
            .next()
            .map(|h| format!("[{}]", h.to_ascii_lowercase()))
    } else {
        let name = host_port.rsplit_once(':').map_or(host_port, |(h, _)| h);
        host_to_ascii(&percent_decoded(name))
    };
    LinkTarget {
        scheme,
        host: host.filter(|h| !h.is_empty()),
        userinfo,
    }
}

fn percent_decoded(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// The host a link's visible text names, when it names one: a URL's, or a word with a
/// dot that looks like a domain (`www.google.com`, `google.com/login`).
fn host_in_text(text: &str) -> Option<String> {
    let word = text.split_whitespace().find(|w| w.contains('.'))?;
    if word.contains("://") {
        return parse(word).host;
    }
    let name = word.split(['/', '?', '#']).next()?;
    let name = name.trim_end_matches(['.', ',', ';', ':', ')']);
    let labels: Vec<&str> = name.split('.').collect();
    let domain_like = labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_alphanumeric() || c == '-'))
        && labels
            .last()
            .is_some_and(|tld| tld.chars().any(char::is_alphabetic));
    domain_like.then(|| host_to_ascii(name)).flatten()
}

/// Whether `shown` (a host written in a link's text) is `host` or one of its
/// parents' subdomain: `google.com` shown for `www.google.com` is the same site.
fn same_site(shown: &str, host: &str) -> bool {
    let strip = |h: &str| h.strip_prefix("www.").unwrap_or(h).to_owned();
    let (shown, host) = (strip(shown), strip(host));
    host == shown || host.ends_with(&format!(".{shown}"))
}

/// The tooltip for a link to `uri` whose visible text is `text`: the host first,
/// then what should make the reader look twice, then the target (shortened).
pub fn tooltip(uri: &str, text: &str) -> String {
    let target = parse(uri);
    let mut lines = Vec::new();
    match &target.host {
        Some(host) => lines.push(format!("→ {host}")),
        None if target.scheme == "mailto" => lines.push("→ an e-mail".to_owned()),
        None => lines.push(format!("→ {} link", target.scheme)),
    }
    if target.userinfo {
        lines.push("⚠ text before \"@\" in the address: the host is what follows it".into());
    }
    if let (Some(host), Some(shown)) = (&target.host, host_in_text(text))
        && !same_site(&shown, host)
    {
        lines.push(format!("⚠ the text shows {shown}, the link goes to {host}"));
    }
    lines.push(shortened(uri));
    lines.push("Ctrl+click to open".into());
    lines.join("\n")
}

/// `uri` cut in the middle to [`MAX_SHOWN_TARGET_CHARS`], saying how much was left out.
fn shortened(uri: &str) -> String {
    let count = uri.chars().count();
    if count <= MAX_SHOWN_TARGET_CHARS {
        return uri.to_owned();
    }
    let half = MAX_SHOWN_TARGET_CHARS / 2;
    let head: String = uri.chars().take(half).collect();
    let tail: String = uri.chars().skip(count - half).collect();
    format!("{head}…({} characters)…{tail}", count - 2 * half)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_is_parsed_past_user_info_ports_and_case() {
        let t = parse("HTTPS://User:pw@Example.COM:8443/a?b#c");
        assert_eq!(t.scheme, "https");
        assert_eq!(t.host.as_deref(), Some("example.com"));
        assert!(t.userinfo);
        assert_eq!(parse("http://[::1]:80/").host.as_deref(), Some("[::1]"));
        assert_eq!(
            parse("mailto:a@B.org?subject=x").host.as_deref(),
            Some("b.org")
        );
        assert_eq!(parse("file:///etc/hosts").host, None);
        assert_eq!(
            parse("https://ex%41mple.com/").host.as_deref(),
            Some("example.com")
        );
    }

    /// Catches the audit's link: 1,900 dashes of user info pushed the real host to the
    /// tooltip's 15th line.
    #[test]
    fn a_host_hidden_behind_user_info_leads_the_tooltip_and_is_marked() {
        let uri = format!(
            "https://accounts.google.com{}@evil.example/steal",
            "-".repeat(1900)
        );
        let tip = tooltip(&uri, "Sign in to Google");
        let lines: Vec<&str> = tip.lines().collect();
        assert_eq!(lines[0], "→ evil.example");
        assert!(lines[1].starts_with("⚠ text before \"@\""), "{tip}");
        assert!(tip.chars().count() < 400, "the target is shortened: {tip}");
        assert!(tip.contains("@evil.example/steal"), "{tip}");
    }

    #[test]
    fn text_naming_another_host_is_marked_and_the_same_site_is_not() {
        let tip = tooltip("https://evil.example/login", "https://www.paypal.com/login");
        assert!(tip.contains("⚠ the text shows www.paypal.com"), "{tip}");
        let tip = tooltip("https://evil.example/login", "paypal.com");
        assert!(tip.contains("⚠ the text shows paypal.com"), "{tip}");
        for text in [
            "docs.rs",
            "see the docs",
            "https://docs.rs/x",
            "DOCS.RS/tern",
        ] {
            let tip = tooltip("https://docs.rs/tern", text);
            assert!(!tip.contains('⚠'), "{text}: {tip}");
        }
        let tip = tooltip("https://www.google.com/", "google.com");
        assert!(!tip.contains('⚠'), "{tip}");
    }

    #[test]
    fn a_non_ascii_host_is_shown_in_punycode() {
        let tip = tooltip("https://аpple.com/", "apple.com");
        assert!(tip.starts_with("→ xn--pple-43d.com"), "{tip}");
        assert!(tip.contains("⚠ the text shows apple.com"), "{tip}");
    }
}
