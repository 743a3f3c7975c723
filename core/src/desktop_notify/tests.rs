use super::*;

/// Two notifications inside the interval: the second replaces the first on the
/// desktop with a count (before: it was dropped, and a later one said "+1 more").
#[test]
fn a_notification_inside_the_interval_replaces_the_shown_one_with_a_count() {
    let mut c = Coalescer::new(Duration::from_secs(5));
    let t = Instant::now();
    let first = c.next(1, "needs permission", 1, t);
    assert_eq!(
        first,
        Outgoing {
            replaces_id: 0,
            body: "needs permission".into(),
            overflow: false,
        }
    );
    c.sent(1, 42);
    let second = c.next(1, "done", 1, t + Duration::from_secs(1));
    assert_eq!(
        second,
        Outgoing {
            replaces_id: 42,
            body: "done (2 messages)".into(),
            overflow: false,
        }
    );
    // Merged while the thread was busy: three more stand behind one call.
    let third = c.next(1, "really done", 3, t + Duration::from_secs(2));
    assert_eq!(third.body, "really done (5 messages)");
    assert_eq!(c.next(2, "other pane", 1, t).replaces_id, 0, "panes apart");
    // After the interval: a new notification.
    let later = c.next(1, "next", 1, t + Duration::from_secs(6));
    assert_eq!(later.replaces_id, 0);
    assert_eq!(later.body, "next");
    c.forget(1);
    assert_eq!(c.shown.len(), 1);
}

/// While the sender thread is busy, a pane's requests merge into one: the newest
/// text, the count of all; nothing is lost and the map holds one entry per pane.
#[test]
fn waiting_requests_merge_per_pane_newest_first() {
    let mut n = DesktopNotifier::new("tern-test", Duration::ZERO, Arc::new(|| {}));
    // No thread yet: fill the map by hand the way notify() does, without a bus.
    n.wake = Some(mpsc::sync_channel(1).0);
    let req = |pane, body: &str| DesktopRequest {
        pane,
        summary: "s".into(),
        body: body.into(),
        urgency: Urgency::Normal,
    };
    for i in 0..10_000 {
        assert!(n.notify(req(7, &format!("message {i}")), Instant::now()));
    }
    assert!(n.notify(req(8, "other"), Instant::now()));
    let (batch, _, _) = take_waiting(&n.waiting);
    let got: Vec<(u64, String, u32)> = batch
        .into_iter()
        .map(|(r, count)| (r.pane, r.body, count))
        .collect();
    assert_eq!(
        got,
        [
            (7, "message 9999".to_owned(), 10_000),
            (8, "other".to_owned(), 1)
        ]
    );
}

/// A hundred panes notify at once: at most [`GLOBAL_NEW_NOTIFICATIONS`] new ones
/// appear, and one shared notification counts the rest, replaced in place. Catches
/// a rate limit per pane only (100 hostile remote panes gave 150 notifications in
/// 17 s).
#[test]
fn many_panes_at_once_share_a_global_limit() {
    let mut c = Coalescer::new(Duration::from_secs(5));
    let t = Instant::now();
    let mut new = 0;
    let mut last = None;
    for pane in 0..100u64 {
        let out = c.next(pane, "hi", 1, t + Duration::from_millis(pane * 100));
        if out.replaces_id == 0 {
            new += 1;
        }
        if out.overflow {
            c.sent(OVERFLOW_KEY, 900);
        } else {
            c.sent(pane, 100 + pane as u32);
        }
        last = Some(out);
    }
    // Within 10 s: eight new ones and the shared one, which counts the other 92.
    assert_eq!(new, GLOBAL_NEW_NOTIFICATIONS + 1, "new notifications shown");
    let last = last.expect("some");
    assert!(last.overflow && last.replaces_id == 900, "{last:?}");
    assert!(
        last.body.starts_with("92 more notifications"),
        "{}",
        last.body
    );
    // A new window: a new notification again, and a new shared one after it.
    let next = c.next(500, "later", 1, t + GLOBAL_WINDOW + Duration::from_secs(1));
    assert!(!next.overflow && next.replaces_id == 0, "{next:?}");
}

/// A program-set title reaches the summary without bidi overrides, controls or
/// markup. Catches the title passed through unfiltered.
#[test]
fn a_summary_loses_bidi_controls_and_markup() {
    assert_eq!(
        plain_summary("tern · a\u{202E}gnp.exe\x1b <b>x</b> & y"),
        "tern · agnp.exe ‹b›x‹/b› ＆ y"
    );
}

#[test]
fn markup_is_escaped() {
    assert_eq!(escape_markup("<b>a&b</b>"), "&lt;b&gt;a&amp;b&lt;/b&gt;");
}

#[test]
fn no_session_bus_is_reported_once_and_never_blocks() {
    let mut n = DesktopNotifier::new("tern-test", Duration::ZERO, Arc::new(|| {}));
    let req = |pane| DesktopRequest {
        pane,
        summary: "s".into(),
        body: "b".into(),
        urgency: Urgency::Normal,
    };
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        return; // a real bus: covered by the window's end-to-end test
    }
    // A flood from three panes: merged, nothing waits.
    for i in 0..1000 {
        n.notify(req(i % 3), Instant::now());
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut events = Vec::new();
    while events.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        events = n.poll();
    }
    assert!(
        matches!(events.first(), Some(DesktopEvent::Unavailable(_))),
        "{events:?}"
    );
}
