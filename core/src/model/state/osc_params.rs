//! Reading OSC parameters as text: the OSC dispatcher and the notification
//! protocols (OSC 9, 99, 777) share these.

pub(super) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Params from `from` on, joined back with `;` (titles and URIs may contain it).
pub(super) fn joined(params: &[&[u8]], from: usize) -> String {
    let mut out = Vec::new();
    for (i, p) in params.iter().enumerate().skip(from) {
        if i > from {
            out.push(b';');
        }
        out.extend_from_slice(p);
    }
    text(&out)
}
