//! "Did you mean": the allowed name nearest to a misspelt one (`splt_right` →
//! `split_right`, `Dracla` → `Dracula`), for the problems `tern config check` and the
//! window report.

/// How alike two names must be (Jaro-Winkler, case folded) to be offered.
const ALIKE: f64 = 0.8;

/// The candidate nearest to `given`, if one is near enough and not `given` itself.
pub fn nearest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let given = given.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(&given, &c.to_lowercase()), c))
        .filter(|(score, c)| *score >= ALIKE && c.to_lowercase() != given)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// ` (did you mean `x`?)` for the nearest candidate, or nothing.
pub fn did_you_mean<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    nearest(given, candidates)
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_miss_is_offered_and_a_stranger_is_not() {
        let actions = ["split_right", "split_down", "new_tab"];
        assert_eq!(nearest("splt_right", actions), Some("split_right"));
        assert_eq!(nearest("Dracla", ["Dark", "Dracula"]), Some("Dracula"));
        assert_eq!(nearest("frobnicate", actions), None);
        assert_eq!(did_you_mean("new_tab", actions), "");
    }
}
