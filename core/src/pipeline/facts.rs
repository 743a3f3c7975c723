//! The facts mailbox between the model thread and the UI: each pane's facts wait in
//! its own small queue, coalesced as they arrive (the last title and cwd, one bell, one
//! "unseen output", the newest notification with the count of those it replaced, the
//! last page size), so the mailbox holds at most
//! [`PER_PANE`] facts per pane however long the UI does not look (a minimized window
//! draws no frames). Exits and errors are never dropped.

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use super::{PaneEvent, PaneId};
use crate::model::TermEvent;

/// The most facts one pane keeps waiting for the UI.
pub const PER_PANE: usize = 32;

#[derive(Debug, Default)]
struct Boxes {
    /// Panes in the order their first waiting fact arrived (the UI reads in that order).
    order: VecDeque<PaneId>,
    panes: HashMap<PaneId, VecDeque<PaneEvent>>,
}

/// Written by the model thread, drained by the UI.
#[derive(Debug, Default)]
pub struct FactBox {
    inner: Mutex<Boxes>,
    arrived: Condvar,
}

/// Facts of which only the newest matters: a new one replaces the waiting one.
fn same_kind(a: &PaneEvent, b: &PaneEvent) -> bool {
    use PaneEvent::{Fact, ResizeRequested, Resized, UnseenOutput};
    match (a, b) {
        (UnseenOutput { .. }, UnseenOutput { .. })
        | (Resized { .. }, Resized { .. })
        | (ResizeRequested { .. }, ResizeRequested { .. }) => true,
        (Fact { event: x, .. }, Fact { event: y, .. }) => matches!(
            (x, y),
            (TermEvent::Title(_), TermEvent::Title(_))
                | (TermEvent::Cwd(_), TermEvent::Cwd(_))
                | (TermEvent::Bell, TermEvent::Bell)
                | (TermEvent::Progress(_), TermEvent::Progress(_))
                | (TermEvent::AgentStatus(_), TermEvent::AgentStatus(_))
        ),
        _ => false,
    }
}

fn pane_of(event: &PaneEvent) -> PaneId {
    match event {
        PaneEvent::Fact { pane, .. }
        | PaneEvent::Exited { pane, .. }
        | PaneEvent::Error { pane, .. }
        | PaneEvent::UnseenOutput { pane }
        | PaneEvent::Resized { pane, .. }
        | PaneEvent::ResizeRequested { pane, .. } => *pane,
    }
}

impl FactBox {
    /// Queues `event` for its pane, coalescing with what waits. Returns `true` (the
    /// signature of a channel's send, which the model thread ignores).
    pub fn send(&self, mut event: PaneEvent) -> bool {
        let Ok(mut b) = self.inner.lock() else {
            return false;
        };
        let pane = pane_of(&event);
        let Boxes { order, panes } = &mut *b;
        let queue = panes.entry(pane).or_insert_with(|| {
            order.push_back(pane);
            VecDeque::new()
        });
        queue.retain(|waiting| !same_kind(waiting, &event));
        // A notification takes the place of the one waiting and counts it too, so the
        // bound below never drops one uncounted (the desktop shows "N messages").
        if let PaneEvent::Fact {
            event: TermEvent::Notification(newer),
            ..
        } = &mut event
            && let Some(i) = queue.iter().position(|e| {
                matches!(
                    e,
                    PaneEvent::Fact {
                        event: TermEvent::Notification(_),
                        ..
                    }
                )
            })
            && let Some(PaneEvent::Fact {
                event: TermEvent::Notification(older),
                ..
            }) = queue.remove(i)
        {
            newer.count = newer.count.saturating_add(older.count);
        }
        queue.push_back(event);
        // Over the bound: the oldest fact that is not an exit or an error goes.
        while queue.len() > PER_PANE {
            let Some(i) = queue
                .iter()
                .position(|e| matches!(e, PaneEvent::Fact { .. }))
            else {
                break;
            };
            queue.remove(i);
        }
        drop(b);
        self.arrived.notify_all();
        true
    }

    /// Everything waiting, pane by pane, each pane's facts in order.
    pub fn drain(&self) -> Vec<PaneEvent> {
        let Ok(mut b) = self.inner.lock() else {
            return Vec::new();
        };
        let Boxes { order, panes } = &mut *b;
        let mut out = Vec::new();
        for pane in order.drain(..) {
            out.extend(panes.remove(&pane).into_iter().flatten());
        }
        out
    }

    /// The oldest waiting fact, waiting up to `timeout` for one.
    pub fn recv_timeout(&self, timeout: Duration) -> Option<PaneEvent> {
        let deadline = Instant::now() + timeout;
        let mut b = self.inner.lock().ok()?;
        loop {
            if let Some(pane) = b.order.front().copied() {
                let Boxes { order, panes } = &mut *b;
                let queue = panes.get_mut(&pane)?;
                let event = queue.pop_front();
                if queue.is_empty() {
                    panes.remove(&pane);
                    order.pop_front();
                }
                return event;
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            b = self.arrived.wait_timeout(b, left).ok()?.0;
        }
    }

    /// Facts waiting in all (for tests and diagnostics).
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .map(|b| b.panes.values().map(VecDeque::len).sum())
            .unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::ExitInfo;

    fn fact(pane: u64, event: TermEvent) -> PaneEvent {
        PaneEvent::Fact {
            pane: PaneId(pane),
            event,
        }
    }

    #[test]
    fn a_pane_that_talks_forever_holds_a_bounded_mailbox() {
        let facts = FactBox::default();
        for i in 0..100_000 {
            facts.send(fact(1, TermEvent::Title(format!("t{i}"))));
            facts.send(fact(1, TermEvent::Bell));
            facts.send(fact(
                1,
                TermEvent::Notification(crate::model::notify::Notification::new(
                    crate::model::notify::NotifySource::Osc9,
                    "",
                    &format!("n{i}"),
                )),
            ));
            facts.send(fact(2, TermEvent::Cwd(format!("/d{i}"))));
        }
        facts.send(PaneEvent::Exited {
            pane: PaneId(1),
            exit: ExitInfo {
                code: 0,
                signal: None,
            },
        });
        assert!(facts.len() <= 2 * PER_PANE, "{} facts wait", facts.len());
        let got = facts.drain();
        assert!(got.contains(&fact(1, TermEvent::Title("t99999".into()))));
        assert!(got.contains(&fact(2, TermEvent::Cwd("/d99999".into()))));
        assert!(got.contains(&fact(1, TermEvent::Bell)));
        assert!(
            got.iter().any(|e| matches!(e, PaneEvent::Exited { .. })),
            "exits are never dropped"
        );
        assert!(facts.is_empty());
    }

    /// Catches notifications dropped uncounted by the mailbox's bound while the face
    /// is busy (2,001 sent, "1916 messages" shown): the waiting one is merged into the
    /// newer one, counts added.
    #[test]
    fn waiting_notifications_merge_and_keep_their_count() {
        let facts = FactBox::default();
        for i in 0..1000 {
            let mut n = crate::model::notify::Notification::new(
                crate::model::notify::NotifySource::Osc9,
                "",
                &format!("n{i}"),
            );
            n.count = 2;
            facts.send(fact(1, TermEvent::Notification(n)));
            facts.send(fact(1, TermEvent::Command(format!("c{i}"))));
        }
        let notes: Vec<_> = facts
            .drain()
            .into_iter()
            .filter_map(|e| match e {
                PaneEvent::Fact {
                    event: TermEvent::Notification(n),
                    ..
                } => Some(n),
                _ => None,
            })
            .collect();
        assert_eq!(notes.len(), 1);
        assert_eq!((notes[0].body.as_str(), notes[0].count), ("n999", 2000));
    }

    #[test]
    fn facts_keep_their_order_within_a_pane() {
        let facts = FactBox::default();
        facts.send(fact(1, TermEvent::Title("a".into())));
        facts.send(fact(1, TermEvent::Bell));
        facts.send(fact(1, TermEvent::Title("b".into())));
        assert_eq!(
            facts.recv_timeout(Duration::ZERO),
            Some(fact(1, TermEvent::Bell))
        );
        assert_eq!(
            facts.recv_timeout(Duration::ZERO),
            Some(fact(1, TermEvent::Title("b".into())))
        );
        assert_eq!(facts.recv_timeout(Duration::from_millis(1)), None);
    }
}
