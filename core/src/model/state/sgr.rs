//! SGR (`CSI ... m`): the attribute groups, in both the `;` and the `:` form, and the
//! extended colours (38/48/58), shared by vte's dispatch (`perform.rs`) and the ground
//! fast path (`ground.rs`).

use vte::Params;

use super::State;
use crate::model::cell::{Color, Flags, Underline};

/// Reads an extended colour (38/48/58) starting at group `i`; returns the colour and how
/// many extra groups were consumed (for the `;` form).
fn extended_color<G: SgrGroups + ?Sized>(groups: &G, i: usize) -> (Option<Color>, usize) {
    let group = groups.group(i);
    if group.len() > 1 {
        // Colon form: 38:5:n, 38:2:r:g:b or 38:2:cs:r:g:b.
        let color = match group.get(1) {
            Some(5) => group.get(2).map(|&n| Color::Indexed(n.min(255) as u8)),
            Some(2) if group.len() >= 6 => {
                Some(Color::Rgb(group[3] as u8, group[4] as u8, group[5] as u8))
            }
            Some(2) if group.len() == 5 => {
                Some(Color::Rgb(group[2] as u8, group[3] as u8, group[4] as u8))
            }
            _ => None,
        };
        return (color, 0);
    }
    let arg = |k: usize| {
        (i + k < groups.count())
            .then(|| groups.group(i + k).first().copied())
            .flatten()
    };
    match arg(1) {
        Some(5) => match arg(2) {
            Some(n) if n <= 255 => (Some(Color::Indexed(n as u8)), 2),
            _ => (None, 2),
        },
        Some(2) => match (arg(2), arg(3), arg(4)) {
            (Some(r), Some(g), Some(b)) if r <= 255 && g <= 255 && b <= 255 => {
                (Some(Color::Rgb(r as u8, g as u8, b as u8)), 4)
            }
            _ => (None, 4),
        },
        _ => (None, 0),
    }
}

pub(super) fn sgr(st: &mut State, params: &Params) {
    let mut buf: [&[u16]; 32] = [&[]; 32];
    let mut len = 0;
    for p in params.iter().take(32) {
        buf[len] = p;
        len += 1;
    }
    sgr_groups(st, &buf[..len] as &[&[u16]]);
}

/// SGR parameters as groups (a group is a parameter and its `:` sub-parameters).
pub(in crate::model) trait SgrGroups {
    fn count(&self) -> usize;
    fn group(&self, i: usize) -> &[u16];
}

impl SgrGroups for [&[u16]] {
    fn count(&self) -> usize {
        self.len()
    }
    fn group(&self, i: usize) -> &[u16] {
        self[i]
    }
}

/// Parameters without sub-parameters (what the fast path in `ground.rs` parses), each a
/// group of one, with no array of groups built for them.
pub(in crate::model) struct Singles<'a>(pub &'a [u16]);

impl SgrGroups for Singles<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }
    fn group(&self, i: usize) -> &[u16] {
        std::slice::from_ref(&self.0[i])
    }
}

/// SGR over parameter groups.
pub(in crate::model) fn sgr_groups<G: SgrGroups + ?Sized>(st: &mut State, groups: &G) {
    if groups.count() == 0 {
        st.pen = Default::default();
        st.pen_changed();
        return;
    }
    let pen = &mut st.pen;
    let mut i = 0;
    while i < groups.count() {
        let g = groups.group(i);
        let code = g.first().copied().unwrap_or(0);
        match code {
            0 => {
                let hyperlink = pen.hyperlink;
                *pen = Default::default();
                pen.hyperlink = hyperlink;
            }
            1 => pen.flags.insert(Flags::BOLD),
            2 => pen.flags.insert(Flags::DIM),
            3 => pen.flags.insert(Flags::ITALIC),
            4 => {
                pen.underline = match g.get(1) {
                    Some(0) => Underline::None,
                    Some(2) => Underline::Double,
                    Some(3) => Underline::Curly,
                    Some(4) => Underline::Dotted,
                    Some(5) => Underline::Dashed,
                    _ => Underline::Single,
                }
            }
            5 | 6 => pen.flags.insert(Flags::BLINK),
            7 => pen.flags.insert(Flags::INVERSE),
            8 => pen.flags.insert(Flags::HIDDEN),
            9 => pen.flags.insert(Flags::STRIKE),
            21 => pen.underline = Underline::Double,
            22 => pen.flags.remove(Flags::BOLD.union(Flags::DIM)),
            23 => pen.flags.remove(Flags::ITALIC),
            24 => pen.underline = Underline::None,
            25 => pen.flags.remove(Flags::BLINK),
            27 => pen.flags.remove(Flags::INVERSE),
            28 => pen.flags.remove(Flags::HIDDEN),
            29 => pen.flags.remove(Flags::STRIKE),
            30..=37 => pen.fg = Color::Indexed((code - 30) as u8),
            38 => {
                let (color, used) = extended_color(groups, i);
                if let Some(c) = color {
                    pen.fg = c;
                }
                i += used;
            }
            39 => pen.fg = Color::Default,
            40..=47 => pen.bg = Color::Indexed((code - 40) as u8),
            48 => {
                let (color, used) = extended_color(groups, i);
                if let Some(c) = color {
                    pen.bg = c;
                }
                i += used;
            }
            49 => pen.bg = Color::Default,
            58 => {
                let (color, used) = extended_color(groups, i);
                if color.is_some() {
                    pen.underline_color = color;
                }
                i += used;
            }
            59 => pen.underline_color = None,
            90..=97 => pen.fg = Color::Indexed((code - 90 + 8) as u8),
            100..=107 => pen.bg = Color::Indexed((code - 100 + 8) as u8),
            _ => {}
        }
        i += 1;
    }
    st.pen_changed();
}
