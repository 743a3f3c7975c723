//! Worktrees against real git repositories made in temporary folders.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use tern_core::worktree::{
    AheadBehind, BranchSpec, GitReply, GitRequest, GitWorker, Repo, WorktreeError,
};

/// A temporary folder holding a repository `repo/` with one commit on `main`.
struct Fixture {
    _dir: tempfile::TempDir,
    base: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = dir.path().canonicalize().expect("canonical temp dir");
        let f = Fixture { _dir: dir, base };
        std::fs::create_dir(f.repo()).expect("repo dir");
        git(&f.repo(), &["init", "-q", "-b", "main"]);
        std::fs::write(f.repo().join("README"), "hello\n").expect("write");
        git(&f.repo(), &["add", "README"]);
        git(&f.repo(), &["commit", "-q", "-m", "first"]);
        f
    }

    fn repo(&self) -> PathBuf {
        self.base.join("repo")
    }

    fn path(&self, name: &str) -> PathBuf {
        self.base.join(name)
    }

    fn open(&self) -> Repo {
        Repo::open(self.repo()).expect("open repo")
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "Tern Test")
        .env("GIT_AUTHOR_EMAIL", "test@tern.invalid")
        .env("GIT_COMMITTER_NAME", "Tern Test")
        .env("GIT_COMMITTER_EMAIL", "test@tern.invalid")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn commit(dir: &Path, file: &str) {
    std::fs::write(dir.join(file), file).expect("write");
    git(dir, &["add", file]);
    git(dir, &["commit", "-q", "-m", file]);
}

fn new_branch(name: &str) -> BranchSpec {
    BranchSpec::New {
        name: name.into(),
        base: None,
    }
}

#[test]
fn lists_the_main_worktree_clean() {
    let f = Fixture::new();
    let repo = f.open();
    assert_eq!(repo.root(), f.repo());
    assert_eq!(repo.name(), "repo");
    let list = repo.list().expect("list");
    assert_eq!(list.len(), 1);
    let main = &list[0];
    assert!(main.is_main);
    assert_eq!(main.path, f.repo());
    assert_eq!(main.branch.as_deref(), Some("main"));
    assert!(!main.detached);
    assert_eq!(main.head.as_ref().map(String::len), Some(40));
    let status = main.status.as_ref().expect("status computed");
    assert!(!status.is_dirty());
    assert_eq!(status.ahead_behind, None, "no upstream");
}

#[test]
fn opening_from_a_linked_worktree_or_subfolder_finds_the_main_root() {
    let f = Fixture::new();
    let wt = f
        .open()
        .add(f.path("feat"), new_branch("feat"))
        .expect("add");
    std::fs::create_dir(wt.path.join("sub")).expect("mkdir");
    assert_eq!(
        Repo::open(wt.path.join("sub")).expect("open").root(),
        f.repo()
    );
}

#[test]
fn add_with_a_new_branch() {
    let f = Fixture::new();
    let repo = f.open();
    let wt = repo
        .add(
            f.path("feature-x"),
            BranchSpec::New {
                name: "feature/x".into(),
                base: Some("main".into()),
            },
        )
        .expect("add");
    assert_eq!(wt.path, f.path("feature-x"));
    assert_eq!(wt.branch.as_deref(), Some("feature/x"));
    assert_eq!(wt.name(), "feature/x");
    assert!(!wt.is_main);
    assert!(f.path("feature-x/README").exists());
    let list = repo.list().expect("list");
    assert_eq!(list.len(), 2);
    assert_eq!(list[1].branch.as_deref(), Some("feature/x"));
}

#[test]
fn add_with_an_existing_branch() {
    let f = Fixture::new();
    git(&f.repo(), &["branch", "topic"]);
    let wt = f
        .open()
        .add(f.path("topic"), BranchSpec::Existing("topic".into()))
        .expect("add");
    assert_eq!(wt.branch.as_deref(), Some("topic"));
    assert_eq!(wt.status.map(|s| s.is_dirty()), Some(false));
}

#[test]
fn add_relative_path_is_taken_from_the_main_worktree() {
    let f = Fixture::new();
    let wt = f
        .open()
        .add("../rel", new_branch("rel"))
        .expect("add relative");
    assert_eq!(wt.path, f.path("rel"));
}

#[test]
fn add_where_the_path_exists_is_refused() {
    let f = Fixture::new();
    std::fs::create_dir(f.path("taken")).expect("mkdir");
    std::fs::write(f.path("taken/file"), "x").expect("write");
    let err = f
        .open()
        .add(f.path("taken"), new_branch("b"))
        .expect_err("path exists");
    assert_eq!(
        err,
        WorktreeError::PathExists {
            path: f.path("taken")
        }
    );
    assert!(err.to_string().contains("already exists"), "{err}");
    // An empty folder is fine, as for git.
    std::fs::create_dir(f.path("empty")).expect("mkdir");
    f.open()
        .add(f.path("empty"), new_branch("b"))
        .expect("empty folder is usable");
}

#[test]
fn add_a_branch_checked_out_elsewhere_is_refused() {
    let f = Fixture::new();
    let err = f
        .open()
        .add(f.path("again"), BranchSpec::Existing("main".into()))
        .expect_err("taken");
    assert_eq!(
        err,
        WorktreeError::BranchTaken {
            branch: "main".into(),
            worktree: f.repo()
        }
    );
    assert!(err.to_string().contains("already checked out"), "{err}");
    assert!(!f.path("again").exists());
}

#[test]
fn add_new_branch_with_a_taken_name_or_missing_existing_branch() {
    let f = Fixture::new();
    let repo = f.open();
    assert_eq!(
        repo.add(f.path("x"), new_branch("main")),
        Err(WorktreeError::BranchExists {
            branch: "main".into()
        })
    );
    assert_eq!(
        repo.add(f.path("x"), BranchSpec::Existing("nope".into())),
        Err(WorktreeError::BranchMissing {
            branch: "nope".into()
        })
    );
    assert_eq!(
        repo.add(f.path("x"), new_branch("bad..name")),
        Err(WorktreeError::InvalidBranchName {
            branch: "bad..name".into()
        })
    );
}

#[test]
fn add_with_a_bad_base_passes_gits_message_through() {
    let f = Fixture::new();
    let err = f
        .open()
        .add(
            f.path("x"),
            BranchSpec::New {
                name: "x".into(),
                base: Some("no-such-rev".into()),
            },
        )
        .expect_err("bad base");
    match &err {
        WorktreeError::Git { command, stderr } => {
            assert!(command.starts_with("git worktree add"), "{command}");
            assert!(stderr.contains("no-such-rev"), "{stderr}");
        }
        other => panic!("expected a git error, got {other:?}"),
    }
}

#[test]
fn remove_a_clean_worktree() {
    let f = Fixture::new();
    let repo = f.open();
    repo.add(f.path("w"), new_branch("w")).expect("add");
    repo.remove(f.path("w"), false).expect("remove");
    assert!(!f.path("w").exists());
    assert_eq!(repo.list().expect("list").len(), 1);
    // The branch stays.
    assert!(git(&f.repo(), &["branch", "--list", "w"]).contains('w'));
}

#[test]
fn remove_a_dirty_worktree_is_refused_unless_forced() {
    let f = Fixture::new();
    let repo = f.open();
    repo.add(f.path("w"), new_branch("w")).expect("add");
    std::fs::write(f.path("w/README"), "changed\n").expect("write");
    std::fs::write(f.path("w/new-file"), "new\n").expect("write");
    let err = repo.remove(f.path("w"), false).expect_err("dirty");
    assert_eq!(
        err,
        WorktreeError::Dirty {
            path: f.path("w"),
            changed_files: 2
        }
    );
    assert!(
        err.to_string().contains("2 changed or untracked files"),
        "{err}"
    );
    assert!(f.path("w").exists());
    repo.remove(f.path("w"), true).expect("forced remove");
    assert!(!f.path("w").exists());
}

#[test]
fn remove_refuses_the_main_worktree_and_strangers() {
    let f = Fixture::new();
    let repo = f.open();
    assert_eq!(
        repo.remove(f.repo(), true),
        Err(WorktreeError::MainWorktree { path: f.repo() })
    );
    std::fs::create_dir(f.path("other")).expect("mkdir");
    assert_eq!(
        repo.remove(f.path("other"), true),
        Err(WorktreeError::NotAWorktree {
            path: f.path("other")
        })
    );
}

#[test]
fn remove_refuses_a_locked_worktree() {
    let f = Fixture::new();
    let repo = f.open();
    repo.add(f.path("w"), new_branch("w")).expect("add");
    git(
        &f.repo(),
        &["worktree", "lock", "--reason", "on a usb disk", "w"],
    );
    let list = repo.list().expect("list");
    assert_eq!(list[1].locked.as_deref(), Some("on a usb disk"));
    let err = repo.remove(f.path("w"), true).expect_err("locked");
    assert!(matches!(err, WorktreeError::Locked { .. }), "{err:?}");
    assert!(err.to_string().contains("on a usb disk"), "{err}");
}

#[test]
fn not_a_repository_and_missing_path_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plain = dir.path().join("plain");
    std::fs::create_dir(&plain).expect("mkdir");
    let err = Repo::open(&plain).expect_err("not a repo");
    assert_eq!(
        err,
        WorktreeError::NotARepository {
            path: plain.clone()
        }
    );
    assert!(
        err.to_string().ends_with("is not inside a git repository."),
        "{err}"
    );
    let missing = dir.path().join("missing");
    assert_eq!(
        Repo::open(&missing),
        Err(WorktreeError::NotFound { path: missing })
    );
}

#[test]
fn dirty_detection_counts_changed_staged_and_untracked_files() {
    let f = Fixture::new();
    let repo = f.open();
    std::fs::write(f.repo().join("README"), "changed\n").expect("write");
    std::fs::write(f.repo().join("staged"), "s\n").expect("write");
    git(&f.repo(), &["add", "staged"]);
    std::fs::write(f.repo().join("untracked"), "u\n").expect("write");
    std::fs::write(f.repo().join(".gitignore"), "ignored\n").expect("write");
    std::fs::write(f.repo().join("ignored"), "i\n").expect("write");
    let list = repo.list().expect("list");
    let status = list[0].status.as_ref().expect("status");
    // README, staged, untracked, .gitignore; not the ignored file.
    assert_eq!(status.changed_files, 4);
    assert!(list[0].is_dirty());
}

#[test]
fn ahead_and_behind_a_local_upstream() {
    let f = Fixture::new();
    let repo = f.open();
    let wt = repo.add(f.path("w"), new_branch("w")).expect("add");
    git(&wt.path, &["branch", "--set-upstream-to=main"]);
    commit(&wt.path, "a1");
    commit(&wt.path, "a2");
    commit(&f.repo(), "b1");
    let list = repo.list().expect("list");
    let w = list.iter().find(|w| w.path == f.path("w")).expect("listed");
    assert_eq!(
        w.status.as_ref().and_then(|s| s.ahead_behind),
        Some(AheadBehind {
            ahead: 2,
            behind: 1
        })
    );
    assert_eq!(list[0].status.as_ref().and_then(|s| s.ahead_behind), None);
}

#[test]
fn detached_and_prunable_worktrees_are_reported() {
    let f = Fixture::new();
    let repo = f.open();
    git(
        &f.repo(),
        &["worktree", "add", "-q", "--detach", "../det", "HEAD"],
    );
    repo.add(f.path("gone"), new_branch("gone")).expect("add");
    std::fs::remove_dir_all(f.path("gone")).expect("rm");
    let list = repo.list().expect("list");
    let det = list.iter().find(|w| w.path == f.path("det")).expect("det");
    assert!(det.detached);
    assert_eq!(det.branch, None);
    assert_eq!(det.name(), "det");
    let gone = list
        .iter()
        .find(|w| w.path == f.path("gone"))
        .expect("gone");
    assert!(gone.prunable.is_some());
    assert_eq!(gone.status, None);
    repo.prune().expect("prune");
    assert_eq!(repo.list().expect("list").len(), 2);
}

#[test]
fn state_stamp_changes_with_git_metadata_only() {
    let f = Fixture::new();
    let repo = f.open();
    let s0 = repo.state_stamp();
    assert_eq!(s0, repo.state_stamp(), "stable while nothing happens");
    repo.list().expect("list");
    assert_eq!(s0, repo.state_stamp(), "listing does not touch the index");
    repo.add(f.path("w"), new_branch("w")).expect("add");
    let s1 = repo.state_stamp();
    assert_ne!(s0, s1, "a new worktree changes the stamp");
    commit(&f.path("w"), "c");
    assert_ne!(s1, repo.state_stamp(), "a commit in a linked worktree");
}

#[test]
fn git_worker_answers_requests_by_id() {
    let f = Fixture::new();
    let wakes = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let w = wakes.clone();
    let mut worker = GitWorker::spawn(Some(std::sync::Arc::new(move || {
        w.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    })))
    .expect("spawn");
    let wait = |worker: &GitWorker| {
        worker
            .recv_timeout(Duration::from_secs(60))
            .expect("a response within a minute")
    };

    let open = worker.send(GitRequest::Open { path: f.repo() });
    let r = wait(&worker);
    assert_eq!(r.id, open);
    let GitReply::Opened(Ok(repo)) = r.reply else {
        panic!("open failed: {:?}", r.reply)
    };

    let bad = worker.send(GitRequest::Open {
        path: f.path("nowhere"),
    });
    let add = worker.send(GitRequest::Add {
        repo: repo.clone(),
        path: f.path("w"),
        branch: new_branch("w"),
    });
    let r = wait(&worker);
    assert_eq!(r.id, bad);
    assert!(matches!(
        r.reply,
        GitReply::Opened(Err(WorktreeError::NotFound { .. }))
    ));
    let r = wait(&worker);
    assert_eq!(r.id, add);
    assert!(matches!(r.reply, GitReply::Added(Ok(_))), "{:?}", r.reply);

    worker.send(GitRequest::Refresh {
        repo: repo.clone(),
        since: None,
    });
    let GitReply::Refreshed { stamp, worktrees } = wait(&worker).reply else {
        panic!("expected Refreshed")
    };
    assert_eq!(worktrees.expect("listed").expect("ok").len(), 2);
    worker.send(GitRequest::Refresh {
        repo: repo.clone(),
        since: Some(stamp),
    });
    let GitReply::Refreshed { worktrees, .. } = wait(&worker).reply else {
        panic!("expected Refreshed")
    };
    assert!(worktrees.is_none(), "unchanged stamp: no listing");

    let rm = worker.send(GitRequest::Remove {
        repo,
        path: f.path("w"),
        force: false,
    });
    let r = wait(&worker);
    assert_eq!(r.id, rm);
    assert!(matches!(r.reply, GitReply::Removed(Ok(()))));
    assert!(worker.try_recv().is_none());
    // The waker runs after each response is queued; the last one may still be on its way.
    assert!(wakes.load(std::sync::atomic::Ordering::Relaxed) >= 5);
}
