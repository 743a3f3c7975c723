//! The sender thread: takes what waits, holds what must wait ([`super::pacer`]) and
//! calls the notification server on the session bus; clicks come back on a thread of
//! their own.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::pacer::Pacer;
use super::{
    Coalescer, DesktopEvent, DesktopRequest, OVERFLOW_KEY, Waiting, escape_markup, take_waiting,
};
use crate::model::notify::Urgency;

const BUS_NAME: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";

/// What the sender thread shares with the UI's handle.
pub(super) struct Shared {
    pub waiting: Arc<Mutex<Waiting>>,
    pub events: mpsc::Sender<DesktopEvent>,
    pub waker: Arc<dyn Fn() + Send + Sync>,
    pub calls: Arc<AtomicU64>,
}

/// A pane's newest request that waits for its time ([`pacer`]), the count of all it
/// stands for, and whether it was held (then it replaces the pane's notification).
struct Held {
    request: DesktopRequest,
    messages: u32,
    held: bool,
}

/// Adds `batch` to `held`: a pane's newer request takes the place of its held one (the
/// newest text wins), the counts add up.
fn merge(held: &mut Vec<Held>, batch: Vec<(DesktopRequest, u32)>) {
    for (request, messages) in batch {
        match held.iter_mut().find(|h| h.request.pane == request.pane) {
            Some(h) => {
                h.request = request;
                h.messages = h.messages.saturating_add(messages);
            }
            None => held.push(Held {
                request,
                messages,
                held: false,
            }),
        }
    }
}

pub(super) fn sender_thread(app_name: &str, woken: Receiver<()>, shared: Shared) {
    let Shared {
        waiting,
        events,
        waker,
        calls,
    } = shared;
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
            // Empty the map on every wake so it never holds more than it must; nothing
            // more is tried.
            for () in woken {
                take_waiting(&waiting);
            }
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
    let mut coalescer = Coalescer::new(Duration::ZERO);
    let mut pacer = Pacer::default();
    let mut held: Vec<Held> = Vec::new();
    loop {
        // A new request, or the time of the earliest held one.
        let now = Instant::now();
        let earliest = held
            .iter()
            .map(|h| {
                pacer
                    .due(h.request.pane, coalescer.interval, now)
                    .unwrap_or(now)
            })
            .min();
        let awake = match earliest {
            Some(at) => !matches!(
                woken.recv_timeout(at.saturating_duration_since(now)),
                Err(RecvTimeoutError::Disconnected)
            ),
            None => woken.recv().is_ok(),
        };
        if !awake {
            return;
        }
        let (batch, interval, forget) = take_waiting(&waiting);
        coalescer.interval = interval;
        for pane in forget {
            coalescer.forget(pane);
            pacer.forget(pane);
            held.retain(|h| h.request.pane != pane);
        }
        merge(&mut held, batch);
        let mut i = 0;
        while i < held.len() {
            let now = Instant::now();
            if pacer.due(held[i].request.pane, interval, now).is_some() {
                held[i].held = true;
                i += 1;
                continue;
            }
            let Held {
                request: req,
                messages,
                held: was_held,
            } = held.remove(i);
            let out = if was_held {
                coalescer.next_held(req.pane, &req.body, messages, now)
            } else {
                coalescer.next(req.pane, &req.body, messages, now)
            };
            pacer.called(req.pane, interval, now);
            calls.fetch_add(1, Ordering::Relaxed);
            let summary = if out.overflow {
                "tern"
            } else {
                req.summary.as_str()
            };
            let body = if markup {
                escape_markup(&out.body)
            } else {
                out.body.clone()
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
                    out.replaces_id,
                    "utilities-terminal",
                    summary,
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
                    coalescer.sent(if out.overflow { OVERFLOW_KEY } else { req.pane }, id);
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
