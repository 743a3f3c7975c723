//! X11 colour names (`red`, `alice blue`, `DarkSlateGray4`, ...) for OSC 4/5/10-19, as
//! xterm takes them through `XParseColor`: the X.Org `rgb.txt` table, matched without
//! regard to case.

/// X.Org's `rgb.txt` (MIT licensed, from Debian's x11-common), comment line removed:
/// `r g b<TAB><TAB>name` per line.
const TABLE: &str = include_str!("x11_colors.txt");

/// The colour called `name`, if X11 knows it.
pub fn lookup(name: &str) -> Option<(u8, u8, u8)> {
    if name.is_empty() || name.len() > 40 {
        return None;
    }
    TABLE.lines().find_map(|line| {
        let (numbers, entry) = line.split_once('\t')?;
        if !entry.trim().eq_ignore_ascii_case(name) {
            return None;
        }
        let mut channels = numbers.split_whitespace().map(|v| v.parse::<u8>().ok());
        Some((channels.next()??, channels.next()??, channels.next()??))
    })
}

#[cfg(test)]
mod tests {
    use super::lookup;

    #[test]
    fn finds_names_in_any_case_and_with_spaces() {
        assert_eq!(lookup("red"), Some((255, 0, 0)));
        assert_eq!(lookup("Alice Blue"), Some((240, 248, 255)));
        assert_eq!(lookup("darkslategray4"), Some((82, 139, 139)));
        assert_eq!(lookup("snow"), Some((255, 250, 250)));
        assert_eq!(lookup("nosuchcolor"), None);
        assert_eq!(lookup(""), None);
    }
}
