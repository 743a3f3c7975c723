//! Operating system commands: titles, cwd, hyperlinks, colours, clipboard, shell marks
//! and notifications.

use super::notify::{self, Notification, NotifySource};
use super::palette::Rgb;
use super::state::State;
use super::{ClipboardRequest, ShellMark, TermEvent};

/// Longest OSC string kept (bytes); longer ones are dropped whole.
pub const MAX_OSC_BYTES: usize = 64 * 1024;

fn text(bytes: &[u8]) -> String {
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

pub fn dispatch(st: &mut State, params: &[&[u8]], bell_terminated: bool) {
    let Some(cmd) = params.first() else { return };
    let palette_before = matches!(
        *cmd,
        b"4" | b"10" | b"11" | b"12" | b"104" | b"110" | b"111" | b"112"
    )
    .then(|| st.palette.clone());
    dispatch_command(st, cmd, params, bell_terminated);
    if palette_before.is_some_and(|before| before != st.palette) {
        st.palette_generation += 1;
    }
}

fn dispatch_command(st: &mut State, cmd: &&[u8], params: &[&[u8]], bell_terminated: bool) {
    let terminator: &[u8] = if bell_terminated { b"\x07" } else { b"\x1b\\" };
    match *cmd {
        b"0" | b"2" => st.set_title(&joined(params, 1)),
        b"1" => {}
        b"4" => palette_ops(st, &params[1..], terminator),
        b"5" => special_color_queries(st, &params[1..], terminator),
        b"7" => set_cwd(st, &joined(params, 1)),
        b"8" => hyperlink(st, params),
        b"10" | b"11" | b"12" | b"13" | b"14" | b"15" | b"16" | b"17" | b"18" | b"19" => {
            let Some(first) = std::str::from_utf8(cmd)
                .ok()
                .and_then(|s| s.parse::<u16>().ok())
            else {
                return;
            };
            // Each further parameter is the next colour (OSC 10;fg;bg ...).
            for (k, spec) in params[1..].iter().enumerate() {
                let which = first + k as u16;
                if which > 19 {
                    break;
                }
                dynamic_color(st, which, spec, terminator);
            }
        }
        b"52" => clipboard(st, params),
        b"104" => {
            if params.len() <= 1 || params[1].is_empty() {
                st.palette.reset_all_indexed();
            } else {
                for p in &params[1..] {
                    if let Some(i) = std::str::from_utf8(p)
                        .ok()
                        .and_then(|s| s.parse::<u8>().ok())
                    {
                        st.palette.set_indexed(i, None);
                    }
                }
            }
            st.damage.mark_all();
        }
        b"110" => {
            st.palette.foreground = None;
            st.damage.mark_all();
        }
        b"111" => {
            st.palette.background = None;
            st.damage.mark_all();
        }
        b"112" => st.palette.cursor = None,
        b"133" => shell_mark(st, params),
        b"9" => {
            // OSC 9;4 is ConEmu's progress report, not a notification.
            if params.get(1).is_some_and(|p| *p == b"4") {
                if let Some(progress) = notify::parse_progress(params) {
                    st.events.push(TermEvent::Progress(progress));
                }
                return;
            }
            let body = joined(params, 1);
            let n = Notification::new(NotifySource::Osc9, "", &body);
            if !n.body.is_empty() {
                st.events.push(TermEvent::Notification(n));
            }
        }
        b"777" if params.get(1).is_some_and(|p| *p == b"notify") => {
            let title = params.get(2).map(|p| text(p)).unwrap_or_default();
            let body = joined(params, 3);
            let n = Notification::new(NotifySource::Osc777, &title, &body);
            st.events.push(TermEvent::Notification(n));
        }
        b"99" => notify::osc99(st, params),
        _ => {}
    }
}

fn palette_ops(st: &mut State, pairs: &[&[u8]], terminator: &[u8]) {
    for pair in pairs.chunks(2) {
        let [index, spec] = pair else { return };
        let Some(i) = std::str::from_utf8(index)
            .ok()
            .and_then(|s| s.parse::<u8>().ok())
        else {
            continue;
        };
        if *spec == b"?" {
            let rgb = st.palette.indexed(i);
            let mut reply = format!("\x1b]4;{i};{}", rgb.to_xparse()).into_bytes();
            reply.extend_from_slice(terminator);
            st.reply(&reply);
        } else if let Some(rgb) = std::str::from_utf8(spec).ok().and_then(Rgb::parse) {
            st.palette.set_indexed(i, Some(rgb));
            st.damage.mark_all();
        }
    }
}

/// OSC 5 queries: the special colours (0 bold, 1 underline, 2 blink, 3 reverse, 4
/// italic). tern draws them in the text colour, so that is what is reported (as xterm
/// does with its default resources). Setting them is not supported.
fn special_color_queries(st: &mut State, pairs: &[&[u8]], terminator: &[u8]) {
    for pair in pairs.chunks(2) {
        let [index, spec] = pair else { return };
        let Some(i) = std::str::from_utf8(index)
            .ok()
            .and_then(|s| s.parse::<u8>().ok())
            .filter(|i| *i <= 4)
        else {
            continue;
        };
        if *spec == b"?" {
            let rgb = st.palette.foreground();
            let mut reply = format!("\x1b]5;{i};{}", rgb.to_xparse()).into_bytes();
            reply.extend_from_slice(terminator);
            st.reply(&reply);
        }
    }
}

/// OSC 10..19. 10, 11 and 12 can be set and queried; 13..19 (pointer, Tektronix and
/// highlight colours) can only be queried and report the colours tern draws those
/// with: the pointer and Tektronix colours are the text colours, the selection is the
/// reverse of the text.
fn dynamic_color(st: &mut State, which: u16, spec: &[u8], terminator: &[u8]) {
    if spec == b"?" {
        let rgb = match which {
            10 | 13 | 15 | 17 => st.palette.foreground(),
            11 | 14 | 16 | 19 => st.palette.background(),
            _ => st.palette.cursor(),
        };
        let mut reply = format!("\x1b]{which};{}", rgb.to_xparse()).into_bytes();
        reply.extend_from_slice(terminator);
        st.reply(&reply);
        return;
    }
    let Some(rgb) = std::str::from_utf8(spec).ok().and_then(Rgb::parse) else {
        return;
    };
    match which {
        10 => st.palette.foreground = Some(rgb),
        11 => st.palette.background = Some(rgb),
        12 => st.palette.cursor = Some(rgb),
        _ => return,
    }
    st.damage.mark_all();
}

/// OSC 7: `file://host/path` with percent-encoding.
fn set_cwd(st: &mut State, uri: &str) {
    let Some(rest) = uri.strip_prefix("file://") else {
        return;
    };
    let path = match rest.find('/') {
        Some(i) => &rest[i..],
        None => return,
    };
    let bytes = percent_decode(path.as_bytes());
    let path = String::from_utf8_lossy(&bytes).into_owned();
    if path.len() > super::state::MAX_URI_BYTES {
        return;
    }
    if st.cwd.as_deref() != Some(path.as_str()) {
        st.cwd = Some(path.clone());
        st.events.push(TermEvent::Cwd(path));
    }
}

fn percent_decode(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        if input[i] == b'%'
            && i + 2 < input.len()
            && let (Some(h), Some(l)) = (hex(input[i + 1]), hex(input[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(input[i]);
        i += 1;
    }
    out
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// OSC 8 ; params ; uri — an empty uri ends the link.
fn hyperlink(st: &mut State, params: &[&[u8]]) {
    if params.len() < 3 {
        st.pen.hyperlink = None;
        st.pen_changed();
        return;
    }
    let uri = joined(params, 2);
    if uri.is_empty() {
        st.pen.hyperlink = None;
    } else {
        let link_params = text(params[1]);
        let id = link_params.split(':').find_map(|kv| kv.strip_prefix("id="));
        st.pen.hyperlink = st.intern_hyperlink(id, &uri);
    }
    st.pen_changed();
}

fn clipboard(st: &mut State, params: &[&[u8]]) {
    let (Some(selection), Some(data)) = (params.get(1), params.get(2)) else {
        return;
    };
    let selection = text(selection);
    let request = if *data == b"?" {
        ClipboardRequest::Read { selection }
    } else {
        ClipboardRequest::Write {
            selection,
            base64: text(data),
        }
    };
    st.events.push(TermEvent::Clipboard(request));
}

/// OSC 133: FinalTerm / iTerm2 shell integration marks.
fn shell_mark(st: &mut State, params: &[&[u8]]) {
    let Some(kind) = params.get(1) else { return };
    let line = st.absolute_cursor_line();
    let mark = match kind.first() {
        Some(b'A') => ShellMark::PromptStart,
        Some(b'B') => ShellMark::CommandStart,
        Some(b'C') => ShellMark::CommandExecuted,
        Some(b'D') => {
            let exit = params
                .get(2)
                .and_then(|p| std::str::from_utf8(p).ok())
                .and_then(|s| s.parse::<i32>().ok());
            ShellMark::CommandFinished { exit_code: exit }
        }
        _ => return,
    };
    st.events.push(TermEvent::Shell { mark, line });
}
