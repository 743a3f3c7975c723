//! The model thread's round: the loop that sleeps until a message or pty input comes,
//! then reads the ptys and gives every pane a slice (the focused one first), and the
//! work put off until nothing waits (scrollback encoding, question scans, samples).

use std::sync::atomic::Ordering;
use std::sync::mpsc::TryRecvError;
use std::time::Instant;

use crate::pipeline::diag::{PaneSample, Sample, SampleRing};
use crate::pipeline::reply_poll::ReplyPoll;
use crate::pipeline::{ModelMsg, PaneId};

use super::{ModelThread, SETTLE_LINES};

impl ModelThread {
    pub fn run(mut self) {
        // One clock read per busy round: it ends this round's busy time, dates the
        // sample, and starts the next round.
        let mut busy_from = Instant::now();
        loop {
            // Block only when idle; wake at once on any message or pty input.
            if !self.has_work() && !self.idle_work() {
                let now = Instant::now();
                self.sample_if_due(now, SampleRing::IDLE_EVERY_NS);
                let mut woken = std::mem::take(&mut self.woken);
                let (first, slept) = match self.poll_after_reply(now, &mut woken) {
                    Some(first) => (first, false),
                    None => {
                        // The rest's end as of now (a poll may have taken a while):
                        // a rest that is over asks no wake-up.
                        let deadline = if self.pace.throttling() {
                            self.pace.wake_at(Instant::now())
                        } else {
                            None
                        };
                        let deadline = match (deadline, self.title_wake.due()) {
                            (Some(a), Some(b)) => Some(a.min(b)),
                            (a, b) => a.or(b),
                        };
                        (self.poller.wait_until(deadline, &mut woken), true)
                    }
                };
                busy_from = Instant::now();
                if slept {
                    self.reply_poll.woke(busy_from);
                }
                self.mark_readable(&mut woken);
                self.woken = woken;
                let go_on = match first {
                    Ok(msg) => self.handle(msg),
                    Err(TryRecvError::Empty) => true,
                    Err(TryRecvError::Disconnected) => false,
                };
                if !go_on {
                    return;
                }
            }
            self.parsed_in_round = false;
            loop {
                match self.poller.try_recv() {
                    Ok(msg) => {
                        if !self.handle(msg) {
                            return;
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return,
                }
            }
            // The round's start (just read at the wake-up or at the end of the last
            // round): no clock read of its own.
            self.update_throttle(busy_from);
            self.read_ptys();
            self.schedule_round();
            // A frame built in a round that parsed nothing waits for the idle work only
            // if the thread is about to be idle (a search in steps is not).
            if self.parsed_in_round || self.has_work() {
                self.flush_wake();
            }
            if self.title_wake.due().is_some() {
                self.title_wake.fire_if_due(Instant::now(), &self.waker);
            }
            if self.shutting_down {
                return;
            }
            let now = Instant::now();
            let stats = &self.diag.stats;
            stats.busy_ns.fetch_add(
                now.duration_since(busy_from).as_nanos() as u64,
                Ordering::Relaxed,
            );
            stats.rounds.fetch_add(1, Ordering::Relaxed);
            self.sample_if_due(now, SampleRing::BUSY_EVERY_NS);
            busy_from = now;
        }
    }

    /// The longest poll after a reply ([`ReplyPoll::MAX`] by default).
    pub(in crate::pipeline) fn with_reply_poll_max(mut self, max: std::time::Duration) -> Self {
        self.reply_poll = ReplyPoll::with_max(max);
        self
    }

    /// After a reply, polls the ptys and messages instead of sleeping, until input
    /// comes ([`Poller::poll_until`]) or the window ends (`None`: the caller sleeps),
    /// and counts it. See [`ReplyPoll`].
    pub(super) fn poll_after_reply(
        &mut self,
        now: Instant,
        woken: &mut Vec<PaneId>,
    ) -> Option<Result<ModelMsg, TryRecvError>> {
        self.reply_poll.poll_until(now)?;
        // Input due at a steady cadence: sleep until just before it (input sooner
        // wakes the thread, and is handled as any wake-up from sleep).
        if let Some(wake) = self.reply_poll.sleep_first(now) {
            // A hidden flood's rest that ends sooner still ends on time.
            let wake = self.pace.wake_at(now).map_or(wake, |at| at.min(wake));
            let first = self.poller.wait_until(Some(wake), woken);
            if !woken.is_empty() || !matches!(first, Err(TryRecvError::Empty)) {
                self.reply_poll.woke(Instant::now());
                return Some(first);
            }
        }
        let started = Instant::now();
        let until = self.reply_poll.poll_until(started)?;
        let stats = &self.diag.stats;
        stats.polls.fetch_add(1, Ordering::Relaxed);
        let got = self.poller.poll_until(until, woken);
        if got.is_some() {
            self.reply_poll.caught(Instant::now());
            stats.polls_caught.fetch_add(1, Ordering::Relaxed);
        }
        stats
            .poll_ns
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        got
    }

    /// Adds a [`Sample`] of the cumulative counters if `every_ns` passed since the last.
    pub(super) fn sample_if_due(&mut self, now: Instant, every_ns: u64) {
        let now_ns = now.saturating_duration_since(self.epoch).as_nanos() as u64;
        if self
            .last_sample_ns
            .is_some_and(|last| now_ns.saturating_sub(last) < every_ns)
        {
            return;
        }
        self.last_sample_ns = Some(now_ns);
        let panes = self
            .order
            .iter()
            .filter_map(|id| {
                let p = self.panes.get(id)?;
                // Parsed first: read can only have grown since, so read >= parsed.
                let bytes_parsed = p.credit.parsed_total();
                Some(PaneSample {
                    pane: id.0,
                    bytes_read: p.credit.read_total(),
                    bytes_parsed,
                    frames_built: p.stats.frames_built.load(Ordering::Relaxed),
                })
            })
            .collect();
        self.diag.samples.push(Sample {
            at_ns: now_ns,
            model_busy_ns: self.diag.stats.busy_ns.load(Ordering::Relaxed),
            panes,
        });
    }

    /// One pass: the focused pane first, then every other pane once (round-robin), each
    /// for at most one slice. New messages are looked at between panes.
    pub(super) fn schedule_round(&mut self) {
        if let Some(f) = self.focused {
            self.run_slice(f);
        }
        let n = self.order.len();
        for k in 0..n {
            let idx = (self.next_rr + k) % n;
            let Some(&pane) = self.order.get(idx) else {
                break;
            };
            if Some(pane) == self.focused {
                continue;
            }
            self.run_slice(pane);
            // Keystrokes' echoes, queries and credits must not wait for a whole round.
            self.read_ptys();
            if let Some(f) = self.focused
                && self.panes.get(&f).is_some_and(|p| !p.queue.is_empty())
            {
                self.run_slice(f);
            }
            while let Ok(msg) = self.poller.try_recv() {
                if !self.handle(msg) {
                    return;
                }
            }
        }
        self.next_rr = if n == 0 { 0 } else { (self.next_rr + 1) % n };
        self.ring_starved();
        self.look_for_questions(false);
        self.search_step();
        self.search_panes_step();
        self.flush_exits();
        self.enforce_scrollback_budget();
    }

    pub(super) fn has_work(&self) -> bool {
        self.has_input()
            || !self.searches.is_empty()
            || (!self.panes_searches.is_empty() && self.panes_search_due(Instant::now()))
            || self
                .panes
                .values()
                .any(|p| p.frame_owed && !p.frame_can_wait())
    }

    /// Bytes wait to be parsed, or a pty with room may hold some (and will be read:
    /// not while bytes read from it wait, see [`ModelThread::read_ptys`]; a pane paused
    /// for its writes is neither parsed nor read until they drain).
    pub(super) fn has_input(&self) -> bool {
        // No clock read unless hidden floods are throttled.
        let resting = self.pace.throttling() && self.pace.resting(Instant::now());
        self.panes
            .values()
            .any(|p| !p.queue.is_empty() && !p.writer.is_paused() && !self.rests(p, resting))
            || self.readable.iter().any(|id| {
                self.panes
                    .get(id)
                    .is_some_and(|p| p.queue.is_empty() && p.input.wants_read(&p.credit))
            })
    }

    /// Cuts the largest histories when all panes together hold more than the budget.
    pub(super) fn enforce_scrollback_budget(&mut self) {
        // Cheap per round: one sum, no allocation unless over the budget.
        let total: usize = self
            .panes
            .values()
            .map(|p| p.core.term.scrollback().bytes())
            .sum();
        if total <= self.scrollback_budget {
            return;
        }
        let freed = crate::pipeline::budget::enforce(
            self.panes.values_mut().map(|p| &mut p.core.term),
            self.scrollback_budget,
        );
        if freed > 0 {
            for p in self.panes.values() {
                p.stats
                    .scrollback_lines
                    .store(p.core.term.scrollback().len() as u64, Ordering::Relaxed);
            }
        }
    }

    /// Scans the screens whose burst ended on a change for a question (the waiting
    /// state), each once its queue is still empty after a fresh look at the ptys: input
    /// that came meanwhile (a query) is parsed and answered first, the scan waits for
    /// the round after it. A pane read ahead (a flood) empties its queue whenever this
    /// thread catches up with the reading thread, so it is scanned only when this
    /// thread has nothing else to do (`idle`): the flood has paused or ended. And when no
    /// input waits at all the scans are left to that idle phase too, which first encodes
    /// scrollback a little at a time with looks for input between: a query written
    /// right behind a burst is answered before the scan (10-90 µs) instead of after.
    pub(super) fn look_for_questions(&mut self, idle: bool) {
        if !self.panes.values().any(|p| p.question_due) {
            return;
        }
        self.read_ptys();
        if !idle && !self.has_input() {
            // This thread is about to be idle: `scan_before_sleeping` scans then.
            return;
        }
        for p in self.panes.values_mut() {
            let flooding = p.ahead.as_ref().is_some_and(|a| !idle || !a.is_paused());
            if !p.question_due || !p.queue.is_empty() || flooding {
                continue;
            }
            p.question_due = false;
            p.question_looked = p.question_look();
            p.stats.question_scans.fetch_add(1, Ordering::Relaxed);
            let asks = crate::pipeline::activity::screen_asks_question(&p.core.term);
            p.activity.on_screen_checked(Instant::now(), asks);
        }
    }

    /// Runs the question scans that waited for this thread to be idle (panes read
    /// ahead); returns whether there were any (the caller looks for work again before it
    /// sleeps).
    pub(super) fn scan_before_sleeping(&mut self) -> bool {
        // Only scans that can run now: a pane with bytes queued (paused for its writes)
        // would keep this thread from ever sleeping.
        if !self.panes.values().any(|p| {
            p.question_due && p.queue.is_empty() && p.ahead.as_ref().is_none_or(|a| a.is_paused())
        }) {
            return false;
        }
        self.look_for_questions(true);
        true
    }

    /// The work put off until no input waits; returns whether it did any (the caller
    /// looks for input before more, or sleeps). First scrollback encoding, a little at a
    /// time with a look for input between (a query that arrives meanwhile goes first),
    /// then the UI is woken for a frame built since (a keystroke's echo is not kept
    /// behind a scan), then the question scans.
    pub(super) fn idle_work(&mut self) -> bool {
        if self.settle_before_sleeping() {
            return true;
        }
        self.flush_wake();
        self.scan_before_sleeping()
    }

    /// Encodes a few scrollback lines of one pane whose encoding was deferred
    /// ([`crate::model::Scrollback::settle_some`]: lines scrolled off by a burst are
    /// encoded after it, once this thread has nothing else to do); returns whether there
    /// were any (the caller looks for input before it encodes more or sleeps).
    pub(super) fn settle_before_sleeping(&mut self) -> bool {
        let mut due = None;
        for (&pane, p) in self.panes.iter_mut() {
            // A burst that overflowed the queue encoded eagerly; the next one waits
            // again (a pane read ahead stays eager: its flood goes on).
            if p.ahead.is_none() && p.core.term.scrollback().is_eager() {
                p.core.term.set_scrollback_eager(false);
            }
            if due.is_none() && p.core.term.scrollback().unsettled() > 0 {
                due = Some(pane);
            }
        }
        let Some((pane, p)) = due.and_then(|pane| Some((pane, self.panes.get_mut(&pane)?))) else {
            return false;
        };
        let dropped = p.core.term.scrollback().dropped();
        p.core.term.settle_scrollback(SETTLE_LINES);
        if p.core.term.scrollback().dropped() != dropped {
            // The byte cap dropped old lines: the UI's scrollback counts changed.
            self.deliver(pane);
        }
        true
    }

    pub(super) fn flush_wake(&mut self) {
        if std::mem::take(&mut self.wake_due) {
            (self.waker)();
        }
    }
}
