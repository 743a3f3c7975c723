//! The model thread's parsing: one bounded slice of a pane's queued bytes (by bytes,
//! time and area work), the replies and facts it yields, and the backpressure of a pane
//! whose replies are not read.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::model::TermEvent;
use crate::pipeline::diag::Breadcrumbs;
use crate::pipeline::facts::FactBox;
use crate::pipeline::io::BufferPool;
use crate::pipeline::{PaneEvent, PaneId, Waker};

use super::{ModelThread, PaneEntry, SLICE_BYTES, SLICE_PIECE_BYTES, SLICE_TIME, SLICE_WORK_CELLS};

impl ModelThread {
    pub(super) fn run_slice(&mut self, pane: PaneId) {
        let Some(p) = self.panes.get_mut(&pane) else {
            return;
        };
        if p.queue.is_empty() || Self::paused_for_writes(p, &self.crumbs, pane) {
            if p.frame_owed {
                self.deliver_unless_more(pane, false);
            }
            return;
        }
        // The clock is read only for a paced slice (a hidden flood while a person types).
        let paced =
            self.pace.throttling() && !p.core.is_visible() && p.floods(self.read_ahead_after);
        let started = paced.then(Instant::now);
        if let Some(started) = started
            && self.pace.resting(started)
        {
            p.stats.slices_rested.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let replies = p.stats.replies_sent.load(Ordering::Relaxed);
        let told = Self::parse_some(
            p,
            SLICE_BYTES,
            &self.buffers,
            &self.events,
            self.epoch,
            pane,
        );
        if p.stats.replies_sent.load(Ordering::Relaxed) != replies {
            self.reply_poll.replied(Instant::now());
        }
        match told {
            Told::Nothing => {}
            Told::Later => self.title_wake.ask(Instant::now(), &self.waker),
            Told::Now => (self.waker)(),
        }
        if let Some(started) = started {
            self.pace.ran(started, Instant::now());
        }
        self.parsed_in_round = true;
        self.deliver_unless_more(pane, false);
    }

    /// Backpressure: while the pty's write queue is over its high-water mark (a program
    /// that asks and does not read the answers), the pane is not parsed, so its credit
    /// stops and the program blocks on output. `WriteQueueDrained` resumes it.
    pub(super) fn paused_for_writes(p: &PaneEntry, crumbs: &Breadcrumbs, pane: PaneId) -> bool {
        let was_paused = p.writer.is_paused();
        let paused = p.writer.over_high_water();
        if paused && !was_paused {
            crumbs.push(
                pane.0,
                format!(
                    "paused parsing: {} bytes wait to be written (the program does not read its input)",
                    p.writer.queued_bytes()
                ),
            );
        }
        paused
    }

    pub(super) fn drain_queue(
        p: &mut PaneEntry,
        sent_before: u64,
        buffers: &BufferPool,
        events: &FactBox,
        epoch: Instant,
        pane: PaneId,
    ) {
        // Chunk by chunk, so that a drain up to a message stops at the first chunk read
        // after it was sent.
        while let Some(c) = p.queue.front().filter(|c| c.sent_before < sent_before) {
            let left = c.data.len() - c.offset;
            // Callers wake the UI after draining (a close or an exit follows).
            let _ = Self::parse_some(p, left, buffers, events, epoch, pane);
        }
    }

    /// Parses up to `budget` bytes of the pane's queue; credits, replies and facts go
    /// out after each chunk piece. Returns how soon the UI must wake for the facts sent
    /// (a parked pane's bell or title changes no frame, so nothing else wakes it).
    pub(super) fn parse_some(
        p: &mut PaneEntry,
        budget: usize,
        buffers: &BufferPool,
        events: &FactBox,
        epoch: Instant,
        pane: PaneId,
    ) -> Told {
        let mut told = Told::Nothing;
        if !p.core.is_visible() && !p.unseen_reported && !p.queue.is_empty() {
            p.unseen_reported = true;
            told = Told::Now;
            let _ = events.send(PaneEvent::UnseenOutput { pane });
        }
        let mut left = budget;
        let timed = budget != usize::MAX;
        let started = Instant::now();
        let work_start = p.core.term.work_cells();
        let until_work_cells = if timed {
            work_start.saturating_add(SLICE_WORK_CELLS)
        } else {
            u64::MAX
        };
        while left > 0 {
            if timed && left != budget && started.elapsed() >= SLICE_TIME {
                break;
            }
            if p.core.term.work_cells() >= until_work_cells {
                break;
            }
            let Some(chunk) = p.queue.front_mut() else {
                break;
            };
            let piece = if timed {
                left.min(SLICE_PIECE_BYTES)
            } else {
                left
            };
            let end = chunk.data.len().min(chunk.offset.saturating_add(piece));
            let parsed = p
                .core
                .parse_bounded(&chunk.data[chunk.offset..end], until_work_cells);
            if p.history.is_some() {
                // Copied now, handed to the history writer once the slice's replies
                // are out (one wake-up per slice, never before a reply).
                let piece = &chunk.data[chunk.offset..chunk.offset + parsed.consumed];
                let skip = p.untapped.min(piece.len() as u64);
                p.untapped -= skip;
                p.history_pending.extend_from_slice(&piece[skip as usize..]);
            }
            left -= parsed.consumed;
            chunk.offset += parsed.consumed;
            let read_at = chunk.read_at;
            if chunk.offset == chunk.data.len()
                && let Some(done) = p.queue.pop_front()
            {
                buffers.put(done.data);
            }
            p.credit.on_parsed(p.core.seq);
            let now = Instant::now();
            p.stats.last_parse_ns.store(
                now.saturating_duration_since(epoch).as_nanos() as u64,
                Ordering::Relaxed,
            );
            // Before the replies: a program that asks CPR after DECCOLM and then reads
            // TIOCGWINSZ sees the new size.
            if p.follow_program_size(events, pane) {
                told = Told::Now;
            }
            if !parsed.replies.is_empty() && p.answers_queries {
                p.writer.write(&parsed.replies);
                p.stats.replies_sent.fetch_add(1, Ordering::Relaxed);
                p.stats
                    .reply_bytes
                    .fetch_add(parsed.replies.len() as u64, Ordering::Relaxed);
                p.stats.reply_latency.record(read_at.elapsed());
            }
            let facts = coalesce(parsed.events);
            p.activity.on_output_read(now, read_at, &facts);
            for event in facts {
                told = told.max(p.wake_for(&event));
                let _ = events.send(PaneEvent::Fact { pane, event });
            }
            p.last_read_at = Some(read_at);
            if p.queue.is_empty() {
                // The burst ended: does the screen now ask the user something? Only if
                // it changed (the scan, a dozen rows through a regex, came right after
                // each answered query), and at the end of the round.
                p.question_due |= p.question_look() != p.question_looked;
            }
        }
        if let Some(tap) = &p.history
            && !p.history_pending.is_empty()
        {
            tap.send_owned(std::mem::take(&mut p.history_pending));
        }
        p.stats.slice_work_cells_max.fetch_max(
            p.core.term.work_cells().saturating_sub(work_start),
            Ordering::Relaxed,
        );
        p.stats
            .heap_bytes
            .store(p.core.term.heap_bytes() as u64, Ordering::Relaxed);
        p.stats
            .image_bytes
            .store(p.core.term.image_heap_bytes() as u64, Ordering::Relaxed);
        p.stats
            .scrollback_lines
            .store(p.core.term.scrollback().len() as u64, Ordering::Relaxed);
        told
    }
}

/// How soon the UI must wake for the facts a parse step sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Told {
    /// Nothing it shows changed (a title whose spinner frame alone moved): the facts
    /// wait in the mailbox for the next frame.
    Nothing,
    /// A hidden pane's title shows something new: the tab bar's text, redrawn at most
    /// every [`TitleWake::EVERY`].
    Later,
    /// At once.
    Now,
}

impl PaneEntry {
    /// How soon a fact this pane sends must reach the UI; remembers what its title
    /// shows.
    fn wake_for(&mut self, event: &TermEvent) -> Told {
        let TermEvent::Title(title) = event else {
            return Told::Now;
        };
        let shown = crate::model::title::shown(title);
        if shown == self.title_shown {
            return Told::Nothing;
        }
        self.title_shown = shown.to_owned();
        if self.core.is_visible() {
            Told::Now
        } else {
            Told::Later
        }
    }
}

/// Hidden panes' title changes wake the UI at most once every [`TitleWake::EVERY`]
/// (all panes together): 32 agents that change their titles ten times a second cost
/// four tab-bar repaints a second, not 320 window repaints. A change within `EVERY` of
/// the last wake is not lost: the wake comes when `EVERY` has passed
/// ([`TitleWake::due`] bounds the model thread's sleep).
#[derive(Debug, Default)]
pub(super) struct TitleWake {
    /// The last wake for a title.
    last: Option<Instant>,
    /// A title change waits for its wake.
    pending: bool,
}

impl TitleWake {
    pub(super) const EVERY: Duration = Duration::from_millis(250);

    /// A hidden title changed at `now`: wakes the UI now if the last such wake is
    /// `EVERY` old, else when it is.
    pub(super) fn ask(&mut self, now: Instant, waker: &Waker) {
        self.pending = true;
        self.fire_if_due(now, waker);
    }

    /// When the waiting wake is due (`None`: none waits).
    pub(super) fn due(&self) -> Option<Instant> {
        if !self.pending {
            return None;
        }
        Some(
            self.last
                .map_or_else(Instant::now, |last| last + Self::EVERY),
        )
    }

    /// Wakes the UI if a title change waits and its time has come.
    pub(super) fn fire_if_due(&mut self, now: Instant, waker: &Waker) {
        if self.pending && self.last.is_none_or(|last| now >= last + Self::EVERY) {
            self.pending = false;
            self.last = Some(now);
            waker();
        }
    }
}

/// Where the last fact of each kind that [`coalesce`] keeps one of stands.
#[derive(Default)]
struct Last {
    title: Option<usize>,
    cwd: Option<usize>,
    write: Option<usize>,
    read: Option<usize>,
    progress: Option<usize>,
    notification: Option<usize>,
    command: Option<usize>,
    status: Option<usize>,
}

/// Collapses runs of the same kind of fact from one parse step: bells become one, and
/// only the last title, cwd, progress and notification count (a program printing OSC 9
/// in a loop sends one a step, and the app rate-limits what reaches the desktop). The
/// last notification carries how many it stands for (`Notification::count`), so two
/// in one read are counted as two.
pub(super) fn coalesce(events: Vec<TermEvent>) -> Vec<TermEvent> {
    if events.len() < 2 {
        return events;
    }
    let mut out: Vec<TermEvent> = Vec::with_capacity(events.len());
    // One look at the step's events: where the last of each kind is, and how many
    // notifications they hold.
    let mut last = Last::default();
    let mut notifications: u32 = 0;
    for (i, e) in events.iter().enumerate() {
        let slot = match e {
            TermEvent::Title(_) => &mut last.title,
            TermEvent::Cwd(_) => &mut last.cwd,
            // Each clipboard write replaces the one before, and one read answers them
            // all: a flood of 64 KiB requests must not pile up in the facts channel.
            TermEvent::Clipboard(crate::model::ClipboardRequest::Write { .. }) => &mut last.write,
            TermEvent::Clipboard(crate::model::ClipboardRequest::Read { .. }) => &mut last.read,
            TermEvent::Progress(_) => &mut last.progress,
            TermEvent::Notification(n) => {
                notifications = notifications.saturating_add(n.count);
                &mut last.notification
            }
            // A program printing OSC 133 B..C in a loop: the last command line is enough.
            TermEvent::Command(_) => &mut last.command,
            TermEvent::AgentStatus(_) => &mut last.status,
            _ => continue,
        };
        *slot = Some(i);
    }
    let Last {
        title: last_title,
        cwd: last_cwd,
        write: last_write,
        read: last_read,
        progress: last_progress,
        notification: last_notification,
        command: last_command,
        status: last_status,
    } = last;
    let mut bell = false;
    for (i, e) in events.into_iter().enumerate() {
        match e {
            TermEvent::Bell if bell => {}
            TermEvent::Bell => {
                bell = true;
                out.push(e);
            }
            TermEvent::Title(_) if Some(i) != last_title => {}
            TermEvent::Cwd(_) if Some(i) != last_cwd => {}
            TermEvent::Clipboard(crate::model::ClipboardRequest::Write { .. })
                if Some(i) != last_write => {}
            TermEvent::Clipboard(crate::model::ClipboardRequest::Read { .. })
                if Some(i) != last_read => {}
            TermEvent::Progress(_) if Some(i) != last_progress => {}
            TermEvent::Notification(_) if Some(i) != last_notification => {}
            TermEvent::Notification(mut n) => {
                n.count = notifications;
                out.push(TermEvent::Notification(n));
            }
            TermEvent::Command(_) if Some(i) != last_command => {}
            TermEvent::AgentStatus(_) if Some(i) != last_status => {}
            other => out.push(other),
        }
    }
    out
}
