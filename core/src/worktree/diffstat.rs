//! What a worktree changed against its base (issue 51, item 10): the files, lines
//! added and lines removed between where its branch left the repository's main
//! branch (`git diff --merge-base BASE`: committed and uncommitted changes, as a
//! reviewer sees them) and its working tree. Runs git: call it off the UI thread (the
//! sidebar's `GitWorker` does, with each list).

use std::path::Path;

use super::{Result, git_failure, run_raw};

/// Files changed, lines added and removed; binary files count as files only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DiffStat {
    pub files: usize,
    pub added: u64,
    pub removed: u64,
}

impl DiffStat {
    pub fn is_empty(&self) -> bool {
        self.files == 0
    }
}

/// The worktree at `worktree` against where it left `base` (a branch).
pub fn diff_against(worktree: &Path, base: &str) -> Result<DiffStat> {
    let args = ["diff", "--numstat", "-z", "--merge-base", base];
    let out = run_raw(worktree, args)?;
    if !out.status.success() {
        return Err(git_failure(&args, &out));
    }
    Ok(parse_numstat(&out.stdout))
}

/// `git diff --numstat -z`: `ADDED\tREMOVED\tPATH\0` per file (`-\t-\t` for a binary
/// file; a rename gives `ADDED\tREMOVED\t\0FROM\0TO\0`).
pub fn parse_numstat(out: &[u8]) -> DiffStat {
    let mut stat = DiffStat::default();
    let mut fields = out.split(|&b| b == 0);
    while let Some(entry) = fields.next() {
        let text = String::from_utf8_lossy(entry);
        let mut parts = text.splitn(3, '\t');
        let (Some(added), Some(removed), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if path.is_empty() {
            // A rename: the two paths follow as fields of their own.
            fields.next();
            fields.next();
        }
        stat.files += 1;
        stat.added += added.parse::<u64>().unwrap_or(0);
        stat.removed += removed.parse::<u64>().unwrap_or(0);
    }
    stat
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numstat_counts_files_lines_renames_and_binaries() {
        let out = b"3\t1\tsrc/a.rs\x00-\t-\timg.png\x002\t0\t\x00old.rs\x00new.rs\x00";
        assert_eq!(
            parse_numstat(out),
            DiffStat {
                files: 3,
                added: 5,
                removed: 1
            }
        );
        assert!(parse_numstat(b"").is_empty());
    }
}
