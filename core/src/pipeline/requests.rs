//! The UI's requests to the model thread (screen dumps, history pages, searches) and
//! the answers it polls for: every one can be asked without waiting ([`Pending`],
//! [`SearchRequest`]); the waiting forms are for tests and tools.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use crate::model::ScreenDump;

use super::{ModelMsg, PaneId, Pipeline};

/// An answer the model thread will send: [`Pending::poll`] never blocks.
#[derive(Debug)]
pub struct Pending<T> {
    rx: mpsc::Receiver<T>,
}

/// Where a [`Pending`] answer is.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer<T> {
    Ready(T),
    Waiting,
    /// No answer will come (the pane or the model thread is gone).
    Gone,
}

impl<T> Pending<T> {
    /// The answer, once it is there.
    pub fn poll(&self) -> Answer<T> {
        match self.rx.try_recv() {
            Ok(t) => Answer::Ready(t),
            Err(mpsc::TryRecvError::Empty) => Answer::Waiting,
            Err(mpsc::TryRecvError::Disconnected) => Answer::Gone,
        }
    }
}

/// A page of older scrollback, fetched on demand (scrolling, search).
#[derive(Clone, Debug)]
pub struct HistoryPage {
    /// Lines, oldest first.
    pub rows: Vec<crate::model::Row>,
    /// Absolute line of `rows[0]` (later than asked when older lines were dropped).
    pub first: u64,
    /// Lines the model holds in all.
    pub total: usize,
    /// Lines dropped off the scrollback before those held (the absolute line of the
    /// oldest one held).
    pub dropped: u64,
    /// `seq` the page was read at.
    pub seq: u64,
}

/// How far a search got, shared between the model thread and the asker.
#[derive(Debug, Default)]
pub struct SearchProgress {
    /// Scrollback lines searched so far.
    pub scanned: AtomicU64,
    /// Scrollback lines to search.
    pub total: AtomicU64,
    /// Set by the asker: the model thread drops the search at its next slice.
    pub cancelled: std::sync::atomic::AtomicBool,
}

/// A search running on the model thread. The asker never waits for it: it polls
/// [`SearchRequest::poll`] (the model thread wakes the UI when the answer is there),
/// shows [`SearchRequest::progress`], and cancels by [`SearchRequest::cancel`] or by
/// dropping the request.
#[derive(Debug)]
pub struct SearchRequest {
    rx: Receiver<Result<SearchResults, String>>,
    progress: Arc<SearchProgress>,
}

impl SearchRequest {
    /// The answer once it is there; `None` while the search runs.
    pub fn poll(&self) -> Option<Result<SearchResults, String>> {
        match self.rx.try_recv() {
            Ok(answer) => Some(answer),
            Err(mpsc::TryRecvError::Empty) => None,
            Err(mpsc::TryRecvError::Disconnected) => {
                Some(Err("the search was dropped (its pane is gone)".into()))
            }
        }
    }

    /// Waits up to `timeout` for the answer (tests and tools; the window polls).
    pub fn wait(&self, timeout: Duration) -> Result<SearchResults, String> {
        self.rx
            .recv_timeout(timeout)
            .map_err(|_| "the search did not finish".to_string())?
    }

    /// `(lines searched, lines to search)` of the scrollback.
    pub fn progress(&self) -> (u64, u64) {
        (
            self.progress.scanned.load(Ordering::Relaxed),
            self.progress.total.load(Ordering::Relaxed),
        )
    }

    pub fn cancel(&self) {
        self.progress.cancelled.store(true, Ordering::Relaxed);
    }
}

impl Drop for SearchRequest {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResults {
    /// Matches in order (scrollback lines first, then the screen), at most
    /// [`crate::model::search::MAX_MATCHES`]. Lines are absolute: counted from the first
    /// line the pane ever had (scrollback `dropped + index`, then the screen).
    pub matches: Vec<crate::model::search::SearchMatch>,
    /// Absolute line of the screen's first row when the search finished.
    pub first_screen_line: usize,
}

impl Pipeline {
    /// The model's current screen of a pane, after parsing everything read so far.
    pub fn dump_screen(&self, pane: PaneId) -> Option<ScreenDump> {
        self.waits_for_the_model();
        let (tx, rx) = mpsc::channel();
        self.model_tx
            .send(ModelMsg::Query {
                pane,
                reply: tx,
                wake: false,
            })
            .ok()?;
        rx.recv_timeout(Duration::from_secs(10)).ok()
    }

    /// [`Pipeline::dump_screen`] without waiting: the dump arrives in the returned
    /// [`Pending`] and the waker runs when it does. For the window, which never waits
    /// on the model thread (invariant 5).
    pub fn request_dump(&self, pane: PaneId) -> Pending<ScreenDump> {
        let (tx, rx) = mpsc::channel();
        let _ = self.model_tx.send(ModelMsg::Query {
            pane,
            reply: tx,
            wake: true,
        });
        Pending { rx }
    }

    /// [`Pipeline::history`] without waiting (see [`Pipeline::request_dump`]).
    pub fn request_history(&self, pane: PaneId, first: u64, count: usize) -> Pending<HistoryPage> {
        self.history_pages.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel();
        let _ = self.model_tx.send(ModelMsg::History {
            pane,
            first,
            count,
            reply: tx,
            wake: true,
        });
        Pending { rx }
    }

    /// Pages older scrollback: up to `count` lines from absolute line `first` (see
    /// [`HistoryPage::first`]; a snapshot's `scrollback_dropped + scrollback_lines` is
    /// the line just below its history). Cost is O(count), whatever the history length.
    pub fn history(&self, pane: PaneId, first: u64, count: usize) -> Option<HistoryPage> {
        self.history_pages.fetch_add(1, Ordering::Relaxed);
        self.waits_for_the_model();
        let (tx, rx) = mpsc::channel();
        self.model_tx
            .send(ModelMsg::History {
                pane,
                first,
                count,
                reply: tx,
                wake: false,
            })
            .ok()?;
        rx.recv_timeout(Duration::from_secs(10)).ok()
    }

    /// Marks the calling thread as the face's UI thread: the calls it makes that wait
    /// for the model thread are counted ([`Pipeline::ui_waits`]).
    pub fn mark_ui_thread(&self) {
        if let Ok(mut t) = self.ui_thread.lock() {
            *t = Some(std::thread::current().id());
        }
    }

    /// How many calls on the UI thread waited for the model thread's answer (history
    /// pages and screen dumps asked for with the waiting calls). Invariant 5: none,
    /// except the session the window saves as it closes.
    pub fn ui_waits(&self) -> u64 {
        self.ui_waits.load(Ordering::Relaxed)
    }

    fn waits_for_the_model(&self) {
        let on_ui = self
            .ui_thread
            .lock()
            .is_ok_and(|t| *t == Some(std::thread::current().id()));
        if on_ui {
            self.ui_waits.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many history pages were asked for, waiting or not (by anyone, since the
    /// start).
    pub fn history_pages(&self) -> u64 {
        self.history_pages.load(Ordering::Relaxed)
    }

    /// Starts a search of the pane's scrollback and screen (on the model thread, after
    /// parsing what has been read); returns at once.
    pub fn start_search(
        &self,
        pane: PaneId,
        query: &crate::model::search::SearchQuery,
    ) -> SearchRequest {
        let (tx, rx) = mpsc::channel();
        let progress = Arc::new(SearchProgress::default());
        // A model thread that is gone drops `tx`: `poll` then says so.
        let _ = self.model_tx.send(ModelMsg::Search {
            pane,
            query: query.clone(),
            reply: tx,
            progress: progress.clone(),
        });
        SearchRequest { rx, progress }
    }

    /// Searches and waits for the answer (for tools and tests; the window uses
    /// [`Pipeline::start_search`]).
    pub fn search(
        &self,
        pane: PaneId,
        query: &crate::model::search::SearchQuery,
    ) -> Result<SearchResults, String> {
        self.start_search(pane, query).wait(Duration::from_secs(30))
    }
}
