//! Punycode (RFC 3492) for showing host names: a label with non-ASCII characters is
//! shown as `xn--` and its encoding, so `аpple.com` (a Cyrillic `а`) cannot pass for
//! `apple.com` in a link's tooltip. Display only: labels are lower-cased, not mapped
//! by the full UTS 46 tables (tern never resolves these names, the opener does).

const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 128;

/// `host` with each non-ASCII label as `xn--…`; ASCII labels lower-cased. `None` when
/// a label is too long to encode (no real host has one).
pub fn host_to_ascii(host: &str) -> Option<String> {
    let labels: Option<Vec<String>> = host
        .split('.')
        .map(|label| {
            let label = label.to_lowercase();
            if label.is_ascii() {
                Some(label)
            } else {
                encode(&label).map(|e| format!("xn--{e}"))
            }
        })
        .collect();
    Some(labels?.join("."))
}

fn digit(d: u32) -> char {
    // 0..26 → a..z, 26..36 → 0..9; `d` is always below BASE here.
    let b = if d < 26 {
        b'a' + d as u8
    } else {
        b'0' + (d - 26) as u8
    };
    char::from(b)
}

fn adapt(mut delta: u32, points: u32, first: bool) -> u32 {
    delta /= if first { DAMP } else { 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + (BASE - T_MIN + 1) * delta / (delta + SKEW)
}

/// The Punycode of `input` (without `xn--`); `None` on overflow (a label of
/// thousands of characters).
fn encode(input: &str) -> Option<String> {
    let points: Vec<u32> = input.chars().map(u32::from).collect();
    let mut out: String = input.chars().filter(char::is_ascii).collect();
    let basic = out.len() as u32;
    let mut handled = basic;
    if basic > 0 {
        out.push('-');
    }
    let (mut n, mut delta, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    let total = points.len() as u32;
    while handled < total {
        let m = points.iter().copied().filter(|&p| p >= n).min()?;
        delta = delta.checked_add((m - n).checked_mul(handled + 1)?)?;
        n = m;
        for &p in &points {
            if p < n {
                delta = delta.checked_add(1)?;
            }
            if p == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = if k <= bias {
                        T_MIN
                    } else if k >= bias + T_MAX {
                        T_MAX
                    } else {
                        k - bias
                    };
                    if q < t {
                        break;
                    }
                    out.push(digit(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                out.push(digit(q));
                bias = adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta = delta.checked_add(1)?;
        n = n.checked_add(1)?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 3492's and well-known examples.
    #[test]
    fn non_ascii_labels_are_shown_as_punycode() {
        assert_eq!(
            host_to_ascii("münchen.de").as_deref(),
            Some("xn--mnchen-3ya.de")
        );
        assert_eq!(
            host_to_ascii("bücher.example").as_deref(),
            Some("xn--bcher-kva.example")
        );
        assert_eq!(host_to_ascii("Example.COM").as_deref(), Some("example.com"));
        // A Cyrillic "а" in place of the Latin one.
        assert_eq!(
            host_to_ascii("аpple.com").as_deref(),
            Some("xn--pple-43d.com")
        );
        assert_eq!(
            host_to_ascii("例え.テスト").as_deref(),
            Some("xn--r8jz45g.xn--zckzah")
        );
    }
}
