//! The escaped-text notation for terminal input used in test cases, reports and tools:
//! `\e` ESC, `\r`, `\n`, `\t`, `\a` BEL, `\b` BS, `\\`, `\xNN` any byte, `\u{...}` any
//! character; everything else stands for itself (as UTF-8).

/// Turns escaped text into the bytes it stands for.
pub fn unescape(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len());
    let mut chars = text.chars();
    let mut buf = [0u8; 4];
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        match chars.next() {
            Some('e') => out.push(0x1b),
            Some('r') => out.push(b'\r'),
            Some('n') => out.push(b'\n'),
            Some('t') => out.push(b'\t'),
            Some('a') => out.push(0x07),
            Some('b') => out.push(0x08),
            Some('\\') => out.push(b'\\'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                out.push(
                    u8::from_str_radix(&hex, 16)
                        .map_err(|_| format!("`\\x{hex}` is not a hex byte"))?,
                );
            }
            Some('u') => {
                if chars.next() != Some('{') {
                    return Err("`\\u` must be followed by `{`".into());
                }
                let hex: String = chars.by_ref().take_while(|c| *c != '}').collect();
                let c = u32::from_str_radix(&hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| format!("`\\u{{{hex}}}` is not a character"))?;
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Some(other) => return Err(format!("unknown escape `\\{other}`")),
            None => return Err("the text ends in a lone backslash".to_string()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form() {
        assert_eq!(
            unescape(r"a\e[1m\r\n\t\a\b\\\x41\u{4f60}").unwrap(),
            "a\x1b[1m\r\n\t\x07\x08\\A你".as_bytes()
        );
        assert!(unescape(r"\q").is_err());
        assert!(unescape(r"\xZZ").is_err());
        assert!(unescape("\\").is_err());
    }
}
