//! The model thread's own unit tests (the coalescing of facts).

use crate::model::TermEvent;

use super::parse::coalesce;

fn n(body: &str) -> crate::model::notify::Notification {
    use crate::model::notify::{Notification, NotifySource};
    Notification::new(NotifySource::Osc9, "", body)
}

fn note(body: &str) -> TermEvent {
    TermEvent::Notification(n(body))
}

#[test]
fn coalescing_keeps_the_last_clipboard_write_and_one_read() {
    use crate::model::ClipboardRequest;
    let write = |b: &str| {
        TermEvent::Clipboard(ClipboardRequest::Write {
            selection: "c".into(),
            base64: b.into(),
        })
    };
    let read = || {
        TermEvent::Clipboard(ClipboardRequest::Read {
            selection: "c".into(),
        })
    };
    let out = coalesce(vec![write("a"), read(), write("b"), read(), write("c")]);
    assert_eq!(out, vec![read(), write("c")]);
}

/// Catches two notifications in one read shown as one with no count: the last text
/// is kept and it stands for both.
#[test]
fn coalescing_keeps_one_bell_and_the_last_title() {
    let out = coalesce(vec![
        TermEvent::Bell,
        TermEvent::Title("a".into()),
        TermEvent::Bell,
        TermEvent::Title("b".into()),
        note("m"),
        TermEvent::Notification(n("n")),
    ]);
    assert_eq!(
        out,
        vec![
            TermEvent::Bell,
            TermEvent::Title("b".into()),
            TermEvent::Notification(crate::model::notify::Notification { count: 2, ..n("n") })
        ]
    );
}
