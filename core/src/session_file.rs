//! The session file as a face keeps it: loaded at start, saved off the face's thread
//! whenever the state changes (only the newest waiting state is written), and saved
//! at once on exit. Both faces use it.

use std::path::PathBuf;
use std::sync::mpsc;

use crate::session::{LoadOutcome, SessionState, SessionStore};

/// The session file and a thread that writes it, so saving never blocks a frame.
pub struct SessionFile {
    store: SessionStore,
    /// The saving thread's queue (`None` once `save_now` closed it).
    saver: Option<mpsc::Sender<SessionState>>,
    thread: Option<std::thread::JoinHandle<()>>,
    last_saved: Option<SessionState>,
    /// The window as it is now, saved with the session (`TernApp::note_window`).
    pub window: Option<crate::session::SavedWindow>,
    /// The restored window was maximized: asked again once the window is up (a
    /// window manager may drop the state asked for before the window was mapped).
    pub maximize_pending: bool,
    /// Told each state as it is handed to the saving thread (the app keeps it to save
    /// on a crash).
    remember: fn(&SessionStore, &SessionState),
}

impl SessionFile {
    pub fn new(path: PathBuf) -> SessionFile {
        let store = SessionStore::new(path);
        let (saver, jobs) = mpsc::channel::<SessionState>();
        let thread_store = SessionStore::new(store.path().to_path_buf());
        let thread = std::thread::Builder::new()
            .name("tern-session".into())
            .spawn(move || {
                while let Ok(mut state) = jobs.recv() {
                    // Only the newest state matters.
                    while let Ok(newer) = jobs.try_recv() {
                        state = newer;
                    }
                    if let Err(e) = thread_store.save(&state) {
                        eprintln!(
                            "tern: cannot save the session to {}: {e}",
                            thread_store.path().display()
                        );
                    }
                }
            })
            .ok();
        SessionFile {
            store,
            saver: thread.is_some().then_some(saver),
            thread,
            last_saved: None,
            window: None,
            maximize_pending: false,
            remember: |_, _| {},
        }
    }

    /// `remember` is told each state as it is handed to the saving thread.
    pub fn remembering(mut self, remember: fn(&SessionStore, &SessionState)) -> SessionFile {
        self.remember = remember;
        self
    }

    pub fn load(&mut self) -> LoadOutcome {
        let outcome = self.store.load();
        if let LoadOutcome::Restored(s) = &outcome {
            self.last_saved = Some(s.clone());
        }
        outcome
    }

    /// Saves `state` in the background if it differs from the last one saved.
    pub fn save_if_changed(&mut self, state: SessionState) {
        if self.last_saved.as_ref() != Some(&state) {
            (self.remember)(&self.store, &state);
            match &self.saver {
                Some(tx) => {
                    let _ = tx.send(state.clone());
                }
                None => {
                    let _ = self.store.save(&state);
                }
            }
            self.last_saved = Some(state);
        }
    }

    /// Saves now and returns once it is written (at exit). The saving thread is
    /// closed and waited for first, so an older state it was still writing cannot land
    /// after this one.
    pub fn save_now(&mut self, state: SessionState) -> std::io::Result<()> {
        drop(self.saver.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        self.store.save(&state)?;
        self.last_saved = Some(state);
        Ok(())
    }

    pub fn path(&self) -> &std::path::Path {
        self.store.path()
    }
}
