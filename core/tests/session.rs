//! Session persistence: round trip, a corrupt file set aside, a failed save that keeps
//! the previous file, a missing file.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tern_core::session::{
    LoadOutcome, SavedLayout, SavedPane, SavedTab, SavedWorktree, SessionState, SessionStore,
    SplitDir,
};

fn tab(title: &str, layout: SavedLayout, focused_pane: usize) -> SavedTab {
    SavedTab {
        title: Some(title.into()),
        custom_title: false,
        layout,
        focused_pane,
    }
}

/// Two worktrees, one with a nested split (and a pane's last screen), plus a loose tab.
fn sample() -> SessionState {
    let nested = SavedLayout::Split {
        dir: SplitDir::Horizontal,
        ratios: vec![0.3, 0.7],
        children: vec![
            SavedLayout::Leaf(SavedPane {
                cwd: "/src/app".into(),
                last_screen: Some(vec!["$ cargo test".into(), "ok: 12 passed".into()]),
                command: Some(vec!["claude".into(), "--model".into(), "opus".into()]),
                agent: None,
                keeper: None,
            }),
            SavedLayout::split(
                SplitDir::Vertical,
                vec![
                    SavedLayout::leaf("/src/app/core"),
                    SavedLayout::leaf("/src/app/ünïcode dir"),
                ],
            ),
        ],
    };
    SessionState {
        worktrees: vec![
            SavedWorktree {
                repo: "/src/app".into(),
                path: "/src/app".into(),
                name: "main".into(),
                tabs: vec![
                    tab("editor", nested, 2),
                    SavedTab {
                        custom_title: true,
                        ..tab("my \"quoted\" tab", SavedLayout::leaf("/src/app"), 0)
                    },
                ],
                active_tab: 1,
            },
            SavedWorktree {
                repo: "/src/app".into(),
                path: "/src/app-feature".into(),
                name: "feature/x".into(),
                tabs: vec![tab("agent", SavedLayout::leaf("/src/app-feature"), 0)],
                active_tab: 0,
            },
        ],
        active_worktree: Some(1),
        loose_tabs: vec![tab("home", SavedLayout::leaf("/home/me"), 0)],
        ..SessionState::default()
    }
}

fn store(dir: &Path) -> SessionStore {
    SessionStore::new(dir.join("tern").join("session.ron"))
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_saved_session_loads_back_the_same() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = store(dir.path());
    let state = sample();
    store.save(&state).expect("save");
    assert_eq!(store.load(), LoadOutcome::Restored(state.clone()));
    // Saving again replaces it.
    let mut changed = state;
    changed.active_worktree = None;
    store.save(&changed).expect("save again");
    assert_eq!(store.load(), LoadOutcome::Restored(changed));
    assert_eq!(files_in(dir.path().join("tern").as_path()), ["session.ron"]);
}

#[test]
fn panes_are_counted_depth_first() {
    let state = sample();
    let panes = state.worktrees[0].tabs[0].layout.panes();
    let cwds: Vec<&Path> = panes.iter().map(|p| p.cwd.as_path()).collect();
    assert_eq!(
        cwds,
        [
            Path::new("/src/app"),
            Path::new("/src/app/core"),
            Path::new("/src/app/ünïcode dir")
        ]
    );
}

#[test]
fn a_missing_file_is_a_fresh_start() {
    let dir = tempfile::tempdir().expect("temp dir");
    assert_eq!(store(dir.path()).load(), LoadOutcome::Fresh);
}

#[test]
fn a_corrupt_file_is_kept_aside_and_the_app_starts_clean() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = store(dir.path());
    std::fs::create_dir_all(dir.path().join("tern")).expect("mkdir");
    std::fs::write(store.path(), "(worktrees: [ (repo: oops").expect("write");
    let LoadOutcome::Corrupt { kept_aside, error } = store.load() else {
        panic!("expected Corrupt")
    };
    assert!(!error.is_empty());
    assert!(!store.path().exists(), "moved out of the way");
    let name = kept_aside
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    assert!(name.starts_with("session.ron.corrupt-"), "{name}");
    assert_eq!(
        std::fs::read_to_string(&kept_aside).expect("kept"),
        "(worktrees: [ (repo: oops"
    );
    assert_eq!(store.load(), LoadOutcome::Fresh);

    // A second bad file in the same second gets its own name.
    std::fs::write(store.path(), "not ron at all").expect("write");
    let LoadOutcome::Corrupt {
        kept_aside: second, ..
    } = store.load()
    else {
        panic!("expected Corrupt")
    };
    assert_ne!(second, kept_aside);
    assert!(kept_aside.exists() && second.exists());
}

#[test]
fn a_file_from_a_newer_tern_is_kept_aside() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = store(dir.path());
    std::fs::create_dir_all(dir.path().join("tern")).expect("mkdir");
    std::fs::write(store.path(), "(version: 99)").expect("write");
    let LoadOutcome::Corrupt { error, .. } = store.load() else {
        panic!("expected Corrupt")
    };
    assert!(error.contains("newer tern"), "{error}");
}

/// Passes `limit` bytes, then fails like a full disk.
struct FullDisk<'a> {
    inner: &'a mut dyn Write,
    left: usize,
}

impl Write for FullDisk<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"));
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        self.inner.write(&buf[..n])
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[test]
fn a_failed_save_keeps_the_previous_session() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = store(dir.path());
    let old = sample();
    store.save(&old).expect("first save");
    let mut new = sample();
    new.loose_tabs.clear();
    for limit in [0, 1, 100] {
        let err = store
            .save_via(&new, |w, bytes| {
                FullDisk {
                    inner: w,
                    left: limit,
                }
                .write_all(bytes)
            })
            .expect_err("disk full");
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
        assert_eq!(store.load(), LoadOutcome::Restored(old.clone()));
        assert_eq!(
            files_in(dir.path().join("tern").as_path()),
            ["session.ron"],
            "no temporary left behind"
        );
    }
}

#[test]
fn a_save_where_the_folder_cannot_exist_fails_cleanly() {
    let dir = tempfile::tempdir().expect("temp dir");
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "x").expect("write");
    let store = SessionStore::new(PathBuf::from(&blocker).join("session.ron"));
    assert!(store.save(&sample()).is_err());
    assert_eq!(std::fs::read_to_string(&blocker).expect("read"), "x");
}

#[test]
fn loading_repairs_hand_edited_layouts_and_indexes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = store(dir.path());
    std::fs::create_dir_all(dir.path().join("tern")).expect("mkdir");
    std::fs::write(
        store.path(),
        r#"(
    worktrees: [(
        repo: "/r", path: "/r", name: "main", active_tab: 7,
        tabs: [
            (layout: Split(dir: Vertical, ratios: [2.0], children: [
                Leaf((cwd: "/a")),
                Split(dir: Horizontal, ratios: [], children: [Leaf((cwd: "/b"))]),
                Split(dir: Horizontal, ratios: [], children: []),
            ]), focused_pane: 9),
            (layout: Split(dir: Vertical, ratios: [], children: [])),
        ],
    )],
    active_worktree: Some(4),
)"#,
    )
    .expect("write");
    let LoadOutcome::Restored(state) = store.load() else {
        panic!("expected Restored")
    };
    let w = &state.worktrees[0];
    assert_eq!(w.tabs.len(), 1, "the tab without panes is dropped");
    assert_eq!(w.active_tab, 0);
    assert_eq!(state.active_worktree, None);
    let tab = &w.tabs[0];
    assert_eq!(tab.focused_pane, 1);
    assert_eq!(
        tab.layout,
        SavedLayout::Split {
            dir: SplitDir::Vertical,
            ratios: vec![0.5, 0.5],
            children: vec![SavedLayout::leaf("/a"), SavedLayout::leaf("/b")],
        }
    );
}

#[test]
fn a_session_file_that_cannot_be_read_is_reported_and_left_in_place() {
    // A folder where the file should be: reading fails with an I/O error that says
    // nothing about the contents (as permission errors do for a non-root user).
    let dir = tempfile::tempdir().expect("dir");
    let store = store(dir.path());
    std::fs::create_dir_all(store.path()).expect("a folder in the file's place");
    let before = files_in(dir.path());
    let LoadOutcome::Unreadable { error } = store.load() else {
        panic!("expected Unreadable");
    };
    assert!(error.contains("cannot read"), "{error}");
    assert_eq!(files_in(dir.path()), before, "nothing was renamed");
    assert!(store.path().is_dir());
}

#[cfg(unix)]
#[test]
fn saved_sessions_are_private_to_the_user() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("dir");
    let store = store(dir.path());
    store.save(&sample()).expect("save");
    let mode = std::fs::metadata(store.path())
        .expect("stat")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
}
