//! Parsers for git's porcelain output: `git worktree list --porcelain -z` and
//! `git status --porcelain=v2 --branch -z`. Pure functions, unit-tested on captured text.

use std::path::PathBuf;

use super::{AheadBehind, WorktreeStatus};

/// One record of `git worktree list --porcelain -z`, before status is added.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorktreeRecord {
    pub path: PathBuf,
    pub head: Option<String>,
    /// Full ref name (`refs/heads/main`); `None` when detached or bare.
    pub branch_ref: Option<String>,
    pub detached: bool,
    pub bare: bool,
    /// `Some(reason)` when locked; the reason may be empty.
    pub locked: Option<String>,
    /// `Some(reason)` when git would prune it (its directory is gone).
    pub prunable: Option<String>,
}

/// Parses `git worktree list --porcelain -z`: attributes are NUL-terminated, records
/// end with an empty attribute. The first record is the main worktree.
pub fn parse_worktree_list(out: &[u8]) -> Vec<WorktreeRecord> {
    let mut records = Vec::new();
    let mut current: Option<WorktreeRecord> = None;
    for field in out.split(|&b| b == 0) {
        if field.is_empty() {
            if let Some(rec) = current.take() {
                records.push(rec);
            }
            continue;
        }
        let text = String::from_utf8_lossy(field);
        let (key, value) = match text.split_once(' ') {
            Some((k, v)) => (k, Some(v)),
            None => (&*text, None),
        };
        if key == "worktree" {
            if let Some(rec) = current.take() {
                records.push(rec);
            }
            current = Some(WorktreeRecord {
                path: path_from_bytes(&field[b"worktree ".len().min(field.len())..]),
                ..WorktreeRecord::default()
            });
            continue;
        }
        let Some(rec) = current.as_mut() else {
            continue;
        };
        match key {
            "HEAD" => rec.head = value.map(str::to_owned),
            "branch" => rec.branch_ref = value.map(str::to_owned),
            "detached" => rec.detached = true,
            "bare" => rec.bare = true,
            "locked" => rec.locked = Some(value.unwrap_or("").to_owned()),
            "prunable" => rec.prunable = Some(value.unwrap_or("").to_owned()),
            _ => {}
        }
    }
    if let Some(rec) = current {
        records.push(rec);
    }
    records
}

#[cfg(unix)]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// Parses `git status --porcelain=v2 --branch -z`: `# branch.*` headers, then one entry
/// per changed path (`1`, `2` (followed by its original path), `u`, `?`, `!`).
pub fn parse_status_v2(out: &[u8]) -> WorktreeStatus {
    let mut status = WorktreeStatus::default();
    let mut fields = out.split(|&b| b == 0).filter(|f| !f.is_empty());
    while let Some(field) = fields.next() {
        match field.first() {
            Some(b'#') => {
                let text = String::from_utf8_lossy(field);
                if let Some(ab) = text.strip_prefix("# branch.ab ") {
                    status.ahead_behind = parse_ab(ab);
                }
            }
            Some(b'2') => {
                // A rename or copy: its original path follows as its own field.
                fields.next();
                status.changed_files += 1;
            }
            Some(b'1' | b'u' | b'?') => status.changed_files += 1,
            _ => {}
        }
    }
    status
}

fn parse_ab(text: &str) -> Option<AheadBehind> {
    let mut parts = text.split_whitespace();
    let ahead = parts.next()?.strip_prefix('+')?.parse().ok()?;
    let behind = parts.next()?.strip_prefix('-')?.parse().ok()?;
    Some(AheadBehind { ahead, behind })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worktree_list_records() {
        let out = b"worktree /r\0HEAD aaaa\0branch refs/heads/main\0\0\
worktree /r-wt\0HEAD bbbb\0detached\0locked reason here\0\0\
worktree /gone\0HEAD cccc\0branch refs/heads/x\0prunable gitdir file points to non-existent location\0\0";
        let recs = parse_worktree_list(out);
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].path, PathBuf::from("/r"));
        assert_eq!(recs[0].branch_ref.as_deref(), Some("refs/heads/main"));
        assert!(!recs[0].detached);
        assert!(recs[1].detached);
        assert_eq!(recs[1].locked.as_deref(), Some("reason here"));
        assert_eq!(recs[1].head.as_deref(), Some("bbbb"));
        assert!(recs[2].prunable.is_some());
    }

    #[test]
    fn worktree_list_bare_main_and_bare_lock() {
        let out = b"worktree /r.git\0bare\0\0worktree /w\0HEAD a\0branch refs/heads/b\0locked\0\0";
        let recs = parse_worktree_list(out);
        assert!(recs[0].bare);
        assert_eq!(recs[0].head, None);
        assert_eq!(recs[1].locked.as_deref(), Some(""));
    }

    #[test]
    fn status_counts_entries_and_reads_ahead_behind() {
        let out =
            b"# branch.oid abc\0# branch.head feat\0# branch.upstream main\0# branch.ab +3 -1\0\
1 .M N... 100644 100644 100644 a b file.rs\0\
2 R. N... 100644 100644 100644 a b R100 new name\0old name\0\
? untracked\0";
        let s = parse_status_v2(out);
        assert_eq!(s.changed_files, 3);
        assert!(s.is_dirty());
        assert_eq!(
            s.ahead_behind,
            Some(AheadBehind {
                ahead: 3,
                behind: 1
            })
        );
    }

    #[test]
    fn clean_status_without_upstream() {
        let s = parse_status_v2(b"# branch.oid abc\0# branch.head main\0");
        assert!(!s.is_dirty());
        assert_eq!(s.ahead_behind, None);
    }
}
