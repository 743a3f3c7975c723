//! [`GitWorker`]: one thread that runs git requests in order, so the UI never waits on
//! a subprocess. The UI sends a request (getting its id back at once) and polls
//! responses each frame; the waker asks for that frame.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use super::{BranchSpec, Repo, Result, StateStamp, Worktree};
use crate::pipeline::Waker;

/// Tags a request and its response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

/// Work for the git thread.
#[derive(Clone, Debug)]
pub enum GitRequest {
    /// [`Repo::open`].
    Open { path: PathBuf },
    /// [`Repo::list`] (with status).
    List { repo: Repo },
    /// [`Repo::add`].
    Add {
        repo: Repo,
        path: PathBuf,
        branch: BranchSpec,
    },
    /// [`Repo::remove`].
    Remove {
        repo: Repo,
        path: PathBuf,
        force: bool,
    },
    /// Takes [`Repo::state_stamp`] and lists again only when it differs from `since`
    /// (`None`: always list). Cheap when nothing changed, so the app may send one every
    /// second or two per repository; keep at most one in flight per repository.
    Refresh {
        repo: Repo,
        since: Option<StateStamp>,
    },
}

/// The result of a request.
#[derive(Clone, Debug)]
pub enum GitReply {
    Opened(Result<Repo>),
    Listed(Result<Vec<Worktree>>),
    Added(Result<Worktree>),
    Removed(Result<()>),
    /// `worktrees` is `None` when the stamp equals `since` (nothing to redraw).
    Refreshed {
        stamp: StateStamp,
        worktrees: Option<Result<Vec<Worktree>>>,
    },
}

#[derive(Clone, Debug)]
pub struct GitResponse {
    pub id: RequestId,
    pub reply: GitReply,
}

/// The app's handle on the git thread ("tern-git"). Dropping it lets the thread end
/// after the request it is running; the thread is not joined, so a slow git command
/// never holds up closing the window.
pub struct GitWorker {
    requests: Sender<(RequestId, GitRequest)>,
    responses: Receiver<GitResponse>,
    next_id: u64,
}

impl GitWorker {
    /// Starts the thread. `waker` is called after each response is queued (the app
    /// passes `egui::Context::request_repaint`).
    pub fn spawn(waker: Option<Waker>) -> std::io::Result<GitWorker> {
        let (req_tx, req_rx) = mpsc::channel::<(RequestId, GitRequest)>();
        let (resp_tx, resp_rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("tern-git".into())
            .spawn(move || {
                while let Ok((id, request)) = req_rx.recv() {
                    let reply = execute(request);
                    if resp_tx.send(GitResponse { id, reply }).is_err() {
                        return;
                    }
                    if let Some(w) = &waker {
                        w();
                    }
                }
            })?;
        Ok(GitWorker {
            requests: req_tx,
            responses: resp_rx,
            next_id: 0,
        })
    }

    /// Queues a request; never blocks.
    pub fn send(&mut self, request: GitRequest) -> RequestId {
        self.next_id += 1;
        let id = RequestId(self.next_id);
        // The thread only ends when this handle is dropped (or it panicked, in which
        // case the request gets no response, which the UI shows as pending).
        let _ = self.requests.send((id, request));
        id
    }

    /// A finished response, if any; never blocks.
    pub fn try_recv(&self) -> Option<GitResponse> {
        self.responses.try_recv().ok()
    }

    /// Waits up to `timeout` for a response (for tests and tools, not the UI thread).
    pub fn recv_timeout(&self, timeout: Duration) -> Option<GitResponse> {
        self.responses.recv_timeout(timeout).ok()
    }
}

fn execute(request: GitRequest) -> GitReply {
    match request {
        GitRequest::Open { path } => GitReply::Opened(Repo::open(path)),
        GitRequest::List { repo } => GitReply::Listed(repo.list()),
        GitRequest::Add { repo, path, branch } => GitReply::Added(repo.add(path, branch)),
        GitRequest::Remove { repo, path, force } => GitReply::Removed(repo.remove(path, force)),
        GitRequest::Refresh { repo, since } => {
            let stamp = repo.state_stamp();
            let worktrees = if since.as_ref() == Some(&stamp) {
                None
            } else {
                Some(repo.list())
            };
            GitReply::Refreshed { stamp, worktrees }
        }
    }
}
