//! Files a kitty graphics command names (`t=f`, `t=t`): which ones tern reads.

use std::io::Read;

use super::{MAX_TRANSMISSION_BYTES, Refusal, refuse};

/// The folders a temporary file (`t=t`) may be in.
fn temp_dirs() -> Vec<std::path::PathBuf> {
    let mut dirs = vec![std::env::temp_dir(), "/tmp".into(), "/dev/shm".into()];
    dirs.iter_mut().for_each(|d| {
        if let Ok(real) = d.canonicalize() {
            *d = real;
        }
    });
    dirs
}

/// Reads a file a program named, by kitty's rules and tern's: only a regular file (no
/// FIFO, device, socket or folder: the type is checked before opening and again on
/// the opened file), not in /proc, /sys or /dev; a temporary file only in the temp
/// folder with `tty-graphics-protocol` in its name; and only a file everyone may read,
/// or, for a temporary file, one of this user's (so a root tern does not show
/// `/etc/shadow`). At most [`MAX_TRANSMISSION_BYTES`] from `offset` (`size` bytes if not 0).
pub(super) fn read(
    path: &str,
    temporary: bool,
    offset: u32,
    size: u32,
) -> Result<Vec<u8>, Refusal> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let bad = |why: &str| refuse("EBADF", format!("cannot read the file: {why}"));
    let path = std::path::Path::new(path);
    if !path.is_absolute() {
        return Err(bad("the path is not absolute"));
    }
    let real = path.canonicalize().map_err(|_| bad("no such file"))?;
    if ["/proc", "/sys", "/dev"]
        .iter()
        .any(|d| real.starts_with(d) && !real.starts_with("/dev/shm"))
    {
        return Err(bad("a system file"));
    }
    if temporary {
        let in_temp = real
            .parent()
            .is_some_and(|parent| temp_dirs().iter().any(|d| d == parent));
        let named = real
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.contains("tty-graphics-protocol"));
        if !in_temp || !named {
            return Err(bad("not a temporary file of the graphics protocol"));
        }
    }
    let check = |meta: &std::fs::Metadata| -> Result<(), Refusal> {
        if !meta.file_type().is_file() {
            return Err(bad("not a regular file"));
        }
        let everyone_reads = meta.mode() & 0o004 != 0;
        let ours = temporary && meta.uid() == rustix::process::geteuid().as_raw();
        if !everyone_reads && !ours {
            return Err(bad("not readable by everyone"));
        }
        Ok(())
    };
    check(&std::fs::metadata(&real).map_err(|_| bad("no such file"))?)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW)
        .open(&real)
        .map_err(|_| bad("it cannot be opened"))?;
    check(&file.metadata().map_err(|_| bad("no such file"))?)?;
    let mut file = std::io::BufReader::new(file);
    std::io::copy(
        &mut (&mut file).take(u64::from(offset)),
        &mut std::io::sink(),
    )
    .map_err(|_| bad("a read failed"))?;
    let limit = if size != 0 {
        (size as usize).min(MAX_TRANSMISSION_BYTES)
    } else {
        MAX_TRANSMISSION_BYTES
    };
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|_| bad("a read failed"))?;
    if bytes.len() > limit {
        if size != 0 {
            bytes.truncate(limit);
        } else {
            return Err(refuse("EFBIG", "the file is too large"));
        }
    }
    Ok(bytes)
}
