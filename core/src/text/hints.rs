//! Hints: every URL, path, `path:line[:col]`, git hash and IP address on the visible
//! screen, each given a short label typed from the home row (like kitty's hints and
//! WezTerm's quick select). The window draws the labels, feeds typed keys to
//! [`HintPicker`], and copies, opens or types the chosen match.
//!
//! Matches are searched per run of soft-wrapped rows (a wrapped URL is one match), in
//! a fixed order of kinds; a later kind never takes cells an earlier one has. At most
//! [`MAX_HINTS`] matches are labelled, so a screen full of numbers stays bounded, and
//! the work is linear in the screen's size (offsets walked once, taken ranges kept
//! sorted, each kind's search stopped once enough of its matches are kept).

use std::borrow::Borrow;
use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::links::{JoinedRows, find_urls, spans_of, wrapped_runs};
use crate::model::Row;

/// The most matches labelled at once.
pub const MAX_HINTS: usize = 1000;

/// Label characters: the home row, most comfortable first.
pub const HOME_ROW: &str = "asdfghjkl";

/// What a match is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HintKind {
    Url,
    /// `path:line` or `path:line:col`.
    PathLine,
    Path,
    Ip,
    Hash,
    /// A pattern from the config.
    Custom,
}

/// A match on the screen: its cells, its kind, its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub kind: HintKind,
    /// `(row, columns)` for each row it is on, top to bottom.
    pub spans: Vec<(usize, Range<usize>)>,
    pub text: String,
}

/// The patterns searched besides the built-in kinds (from the config).
#[derive(Clone, Debug, Default)]
pub struct HintPatterns {
    custom: Vec<Regex>,
}

impl HintPatterns {
    /// Compiles `patterns`; one that does not compile is left out and reported.
    pub fn new(patterns: &[String]) -> (HintPatterns, Vec<String>) {
        let mut custom = Vec::new();
        let mut errors = Vec::new();
        for p in patterns {
            match regex::RegexBuilder::new(p).size_limit(1 << 20).build() {
                Ok(re) => custom.push(re),
                Err(e) => errors.push(format!("hint pattern {p:?} does not compile: {e}")),
            }
        }
        (HintPatterns { custom }, errors)
    }
}

fn built_in() -> &'static [(HintKind, Regex)] {
    static RES: OnceLock<Vec<(HintKind, Regex)>> = OnceLock::new();
    RES.get_or_init(|| {
        let path = r"(?:~|\.{1,2})?/?[\w.\-+@]*(?:/[\w.\-+@]+)*";
        let table = [
            (
                HintKind::PathLine,
                format!(r"{path}[\w\-+@]\.?[\w]*:\d+(?::\d+)?"),
            ),
            (
                HintKind::Path,
                r"(?:~|\.{1,2})?/[\w.\-+@]+(?:/[\w.\-+@]+)*/?|[\w.\-+@]+(?:/[\w.\-+@]+)+/?"
                    .to_owned(),
            ),
            (
                HintKind::Ip,
                r"\b(?:\d{1,3}\.){3}\d{1,3}\b|[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}"
                    .to_owned(),
            ),
            (HintKind::Hash, r"\b[0-9a-f]{7,40}\b".to_owned()),
        ];
        table
            .into_iter()
            .filter_map(|(kind, re)| Regex::new(&re).ok().map(|re| (kind, re)))
            .collect()
    })
}

/// Whether a candidate of `kind` is one (the regexes are loose; this is exact).
fn accept(kind: HintKind, text: &str) -> bool {
    match kind {
        HintKind::Ip => text.parse::<std::net::IpAddr>().is_ok(),
        // A hash has a digit and a letter: neither a word (`deadbeef`) nor a number.
        HintKind::Hash => {
            text.bytes().any(|b| b.is_ascii_digit())
                && text.bytes().any(|b| b.is_ascii_alphabetic())
        }
        HintKind::PathLine => {
            let path = text.split(':').next().unwrap_or("");
            path.contains('/') || path.contains('.')
        }
        HintKind::Path => text.len() > 1 && !text.starts_with("//"),
        HintKind::Url | HintKind::Custom => true,
    }
}

/// Every match on the screen `rows`, top to bottom, at most [`MAX_HINTS`].
pub fn find_hints<R: Borrow<Row>>(rows: &[R], patterns: &HintPatterns) -> Vec<Hint> {
    find_hints_counted(rows, patterns).0
}

/// [`find_hints`], with the work it did: chars walked to turn byte offsets into char
/// indexes, and look-ups of taken ranges. Linear in the screen's size (a test holds it
/// to a few units a cell): a screen of one soft-wrapped run full of `a/b ` was
/// quadratic before (2.77 s at 960x270).
pub fn find_hints_counted<R: Borrow<Row>>(rows: &[R], patterns: &HintPatterns) -> (Vec<Hint>, u64) {
    let mut out = Vec::new();
    let mut work = 0u64;
    for joined in wrapped_runs(rows) {
        let room = MAX_HINTS - out.len();
        let mut taken = Taken::default();
        for m in find_urls(&joined.text).into_iter().take(room) {
            taken.insert(m.chars, HintKind::Url, m.url);
        }
        let custom = patterns.custom.iter().map(|re| (HintKind::Custom, re));
        let kinds = custom.chain(built_in().iter().map(|(k, re)| (*k, re)));
        for (kind, re) in kinds {
            // A kind's matches come in order: once `room` of them are kept, any later
            // one has `room` matches before it and would not be labelled.
            let mut kept = 0;
            let mut at = CharCursor::default();
            for m in re.find_iter(&joined.text) {
                if kept >= room {
                    break;
                }
                let text = m.as_str().trim_end_matches(['.', ',', ';', ':']);
                if text.is_empty() || !accept(kind, text) {
                    continue;
                }
                let start = at.chars_to(&joined.text, m.start(), &mut work);
                let chars = start..start + text.chars().count();
                work += 1;
                if taken.is_free(&chars) {
                    taken.insert(chars, kind, text.to_owned());
                    kept += 1;
                }
            }
        }
        out.extend(
            taken
                .0
                .into_iter()
                .take(room)
                .map(|(start, (end, kind, text))| hint(&joined, start..end, kind, text)),
        );
        if out.len() >= MAX_HINTS {
            break;
        }
    }
    (out, work)
}

/// The ranges of a run taken by matches, by start; they never overlap.
#[derive(Default)]
struct Taken(std::collections::BTreeMap<usize, (usize, HintKind, String)>);

impl Taken {
    /// No taken range overlaps `r`: the one starting last before `r` ends must end
    /// before `r` starts (those before it end earlier still).
    fn is_free(&self, r: &Range<usize>) -> bool {
        self.0
            .range(..r.end)
            .next_back()
            .is_none_or(|(_, (end, _, _))| *end <= r.start)
    }

    fn insert(&mut self, r: Range<usize>, kind: HintKind, text: String) {
        self.0.insert(r.start, (r.end, kind, text));
    }
}

/// Byte offsets to char indexes, walked forward once for offsets that only grow.
#[derive(Default)]
struct CharCursor {
    byte: usize,
    chars: usize,
}

impl CharCursor {
    fn chars_to(&mut self, text: &str, byte: usize, work: &mut u64) -> usize {
        let walked = text.get(self.byte..byte).map_or(0, |s| s.chars().count());
        *work += walked as u64;
        self.chars += walked;
        self.byte = byte;
        self.chars
    }
}

fn hint(joined: &JoinedRows, chars: Range<usize>, kind: HintKind, text: String) -> Hint {
    Hint {
        kind,
        spans: spans_of(joined, chars),
        text,
    }
}

/// `count` labels from `alphabet`, all the same length (the shortest that is enough),
/// so none is the start of another: typing one is never ambiguous.
pub fn labels(count: usize, alphabet: &str) -> Vec<String> {
    let chars: Vec<char> = alphabet.chars().collect();
    if chars.len() < 2 || count == 0 {
        return Vec::new();
    }
    let mut len = 1;
    while chars.len().checked_pow(len).is_some_and(|n| n < count) {
        len += 1;
    }
    (0..count)
        .map(|mut i| {
            let mut label = vec![chars[0]; len as usize];
            for slot in label.iter_mut().rev() {
                *slot = chars[i % chars.len()];
                i /= chars.len();
            }
            label.into_iter().collect()
        })
        .collect()
}

/// What a typed key did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HintOutcome {
    /// More of a label is needed.
    Pending,
    /// This match was chosen.
    Chosen(Hint),
    /// No label starts with what was typed: hints are over.
    NoMatch,
}

/// The labelled matches and what has been typed of a label.
#[derive(Clone, Debug, Default)]
pub struct HintPicker {
    pub hints: Vec<(String, Hint)>,
    pub typed: String,
}

impl HintPicker {
    pub fn new(hints: Vec<Hint>) -> HintPicker {
        let labels = labels(hints.len(), HOME_ROW);
        HintPicker {
            hints: labels.into_iter().zip(hints).collect(),
            typed: String::new(),
        }
    }

    /// Types one label character.
    pub fn key(&mut self, c: char) -> HintOutcome {
        self.typed.push(c.to_ascii_lowercase());
        let mut left = self
            .hints
            .iter()
            .filter(|(l, _)| l.starts_with(&self.typed));
        match (left.next(), left.next()) {
            (None, _) => HintOutcome::NoMatch,
            (Some((label, hint)), None) if *label == self.typed => {
                HintOutcome::Chosen(hint.clone())
            }
            _ => HintOutcome::Pending,
        }
    }
}
