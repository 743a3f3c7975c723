//! Desktop notifications on the freedesktop session bus
//! (`org.freedesktop.Notifications.Notify`, through `zbus`), sent from a thread of
//! their own so the UI never waits on the bus. Connecting happens on the first
//! notification; no session bus (or no notification server) is reported once as an
//! [`DesktopEvent::Unavailable`] (the app leaves a breadcrumb), never a hang or a
//! dialog. Where the server supports actions, a click comes back as
//! [`DesktopEvent::Clicked`] with the pane it was about.
//!
//! [`RateLimiter`] keeps a pane printing OSC 9 in a loop from flooding the desktop:
//! one notification per pane per interval; what it holds back is counted into the
//! next one.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError, TrySendError};
use std::time::{Duration, Instant};

use crate::model::notify::Urgency;

/// Requests queued for the sender thread at most (more are dropped and counted).
pub const QUEUE_DEPTH: usize = 32;

/// One notification for the desktop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesktopRequest {
    /// The pane it is about (returned by a click).
    pub pane: u64,
    pub summary: String,
    pub body: String,
    pub urgency: Urgency,
}

/// What the sender thread reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DesktopEvent {
    /// The server took the notification (its id).
    Sent { pane: u64, id: u32 },
    /// The user clicked the notification of this pane.
    Clicked { pane: u64 },
    /// No session bus or no notification server: notifications are off (once).
    Unavailable(String),
    /// One call failed.
    Failed(String),
}

/// Per-pane rate limit.
#[derive(Debug)]
pub struct RateLimiter {
    interval: Duration,
    /// Last sent, and how many were held back since.
    panes: HashMap<u64, (Instant, u32)>,
}

/// What the limiter decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Send it; `held_back` earlier ones were not sent.
    Send {
        held_back: u32,
    },
    Hold,
}

impl RateLimiter {
    pub fn new(interval: Duration) -> RateLimiter {
        RateLimiter {
            interval,
            panes: HashMap::new(),
        }
    }

    pub fn admit(&mut self, pane: u64, now: Instant) -> Admit {
        match self.panes.get_mut(&pane) {
            Some((last, held)) if now.saturating_duration_since(*last) < self.interval => {
                *held = held.saturating_add(1);
                Admit::Hold
            }
            Some((last, held)) => {
                let held_back = std::mem::take(held);
                *last = now;
                Admit::Send { held_back }
            }
            None => {
                self.panes.insert(pane, (now, 0));
                Admit::Send { held_back: 0 }
            }
        }
    }

    /// A closed pane's entry goes (memory stays bounded by the panes that exist).
    pub fn forget(&mut self, pane: u64) {
        self.panes.remove(&pane);
    }
}

/// The UI's handle: queue requests, read events.
pub struct DesktopNotifier {
    tx: Option<SyncSender<DesktopRequest>>,
    events: Receiver<DesktopEvent>,
    events_tx: mpsc::Sender<DesktopEvent>,
    waker: Arc<dyn Fn() + Send + Sync>,
    app_name: String,
    pub limiter: RateLimiter,
    /// Requests dropped because the queue was full.
    pub dropped: u64,
}

impl DesktopNotifier {
    /// `waker` is called when an event is ready (the app's repaint request).
    pub fn new(
        app_name: &str,
        interval: Duration,
        waker: Arc<dyn Fn() + Send + Sync>,
    ) -> DesktopNotifier {
        let (events_tx, events) = mpsc::channel();
        DesktopNotifier {
            tx: None,
            events,
            events_tx,
            waker,
            app_name: app_name.to_owned(),
            limiter: RateLimiter::new(interval),
            dropped: 0,
        }
    }

    /// Queues a notification if the pane's rate limit allows; returns whether it was
    /// queued. The thread starts with the first one.
    pub fn notify(&mut self, mut request: DesktopRequest, now: Instant) -> bool {
        match self.limiter.admit(request.pane, now) {
            Admit::Hold => return false,
            Admit::Send { held_back } if held_back > 0 => {
                request.body = format!("{} (+{held_back} more)", request.body);
            }
            Admit::Send { .. } => {}
        }
        let tx = match &self.tx {
            Some(tx) => tx.clone(),
            None => {
                let (tx, rx) = mpsc::sync_channel(QUEUE_DEPTH);
                let events = self.events_tx.clone();
                let waker = self.waker.clone();
                let name = self.app_name.clone();
                let started = std::thread::Builder::new()
                    .name("tern-notify".into())
                    .spawn(move || sender_thread(&name, rx, events, waker));
                if let Err(e) = started {
                    let _ = self.events_tx.send(DesktopEvent::Unavailable(format!(
                        "no notifier thread: {e}"
                    )));
                    return false;
                }
                self.tx = Some(tx.clone());
                tx
            }
        };
        match tx.try_send(request) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.dropped += 1;
                false
            }
        }
    }

    /// Events since the last call.
    pub fn poll(&self) -> Vec<DesktopEvent> {
        let mut out = Vec::new();
        loop {
            match self.events.try_recv() {
                Ok(e) => out.push(e),
                Err(TryRecvError::Empty) | Err(TryRecvError::Disconnected) => return out,
            }
        }
    }
}

const BUS_NAME: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";

/// Escapes the markup a server with `body-markup` would interpret.
fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn sender_thread(
    app_name: &str,
    rx: Receiver<DesktopRequest>,
    events: mpsc::Sender<DesktopEvent>,
    waker: Arc<dyn Fn() + Send + Sync>,
) {
    let report = |e: DesktopEvent| {
        let _ = events.send(e);
        waker();
    };
    let connected = zbus::blocking::Connection::session().and_then(|conn| {
        let proxy = zbus::blocking::Proxy::new(&conn, BUS_NAME, PATH, BUS_NAME)?;
        Ok((conn, proxy))
    });
    let (conn, proxy) = match connected {
        Ok(c) => c,
        Err(e) => {
            report(DesktopEvent::Unavailable(format!("no session bus: {e}")));
            // Drain so senders never block; nothing more is tried.
            for _ in rx {}
            return;
        }
    };
    let caps: Vec<String> = proxy.call("GetCapabilities", &()).unwrap_or_default();
    let actions = caps.iter().any(|c| c == "actions");
    let markup = caps.iter().any(|c| c == "body-markup");
    let ids: Arc<std::sync::Mutex<HashMap<u32, u64>>> = Arc::default();
    if actions {
        watch_clicks(&conn, ids.clone(), events.clone(), waker.clone());
    }
    let mut unavailable_told = false;
    for req in rx {
        let body = if markup {
            escape_markup(&req.body)
        } else {
            req.body.clone()
        };
        let mut hints: HashMap<&str, zbus::zvariant::Value<'_>> = HashMap::new();
        let urgency: u8 = match req.urgency {
            Urgency::Low => 0,
            Urgency::Normal => 1,
            Urgency::Critical => 2,
        };
        hints.insert("urgency", urgency.into());
        hints.insert("desktop-entry", "tern".into());
        let action_list: Vec<&str> = if actions {
            vec!["default", "Show"]
        } else {
            Vec::new()
        };
        let sent: zbus::Result<u32> = proxy.call(
            "Notify",
            &(
                app_name,
                0u32,
                "utilities-terminal",
                req.summary.as_str(),
                body.as_str(),
                action_list,
                hints,
                -1i32,
            ),
        );
        match sent {
            Ok(id) => {
                if let Ok(mut ids) = ids.lock() {
                    // Bounded: only recent ids matter for clicks.
                    if ids.len() > 256 {
                        ids.clear();
                    }
                    ids.insert(id, req.pane);
                }
                report(DesktopEvent::Sent { pane: req.pane, id });
            }
            Err(e) if !unavailable_told => {
                unavailable_told = true;
                report(DesktopEvent::Failed(format!("Notify failed: {e}")));
            }
            Err(_) => {}
        }
    }
}

/// Listens for `ActionInvoked` on its own thread and reports clicks by pane.
fn watch_clicks(
    conn: &zbus::blocking::Connection,
    ids: Arc<std::sync::Mutex<HashMap<u32, u64>>>,
    events: mpsc::Sender<DesktopEvent>,
    waker: Arc<dyn Fn() + Send + Sync>,
) {
    let conn = conn.clone();
    let _ = std::thread::Builder::new()
        .name("tern-notify-clicks".into())
        .spawn(move || {
            let Ok(proxy) = zbus::blocking::Proxy::new(&conn, BUS_NAME, PATH, BUS_NAME) else {
                return;
            };
            let Ok(signals) = proxy.receive_signal("ActionInvoked") else {
                return;
            };
            for msg in signals {
                let Ok((id, _action)) = msg.body().deserialize::<(u32, String)>() else {
                    continue;
                };
                let pane = ids.lock().ok().and_then(|ids| ids.get(&id).copied());
                if let Some(pane) = pane {
                    if events.send(DesktopEvent::Clicked { pane }).is_err() {
                        return;
                    }
                    waker();
                }
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_notification_per_pane_per_interval_and_the_rest_are_counted() {
        let mut l = RateLimiter::new(Duration::from_secs(5));
        let t = Instant::now();
        assert_eq!(l.admit(1, t), Admit::Send { held_back: 0 });
        for i in 1..=100 {
            assert_eq!(l.admit(1, t + Duration::from_millis(i)), Admit::Hold);
        }
        assert_eq!(l.admit(2, t), Admit::Send { held_back: 0 }, "panes apart");
        assert_eq!(
            l.admit(1, t + Duration::from_secs(6)),
            Admit::Send { held_back: 100 }
        );
        l.forget(1);
        assert_eq!(l.panes.len(), 1);
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
        // Far more than the queue holds: try_send drops the rest, nothing waits.
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
}
