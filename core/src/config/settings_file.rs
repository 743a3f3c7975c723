//! Reading the files the user points tern at (the config, theme files) so that the
//! file cannot decide what reading it costs: it is opened non-blocking (a FIFO opens
//! at once instead of waiting for a writer), checked with `fstat` on the open file (no
//! race with a rename) to be a regular file, and read up to
//! [`MAX_SETTINGS_FILE_BYTES`]. A FIFO, a device (`/dev/zero`), a socket, a folder or a
//! file over the cap is an error that says what it is; the caller names the file.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The largest config or theme file read (real ones are a few KiB).
pub const MAX_SETTINGS_FILE_BYTES: u64 = 1024 * 1024;

/// The text of the settings file at `path`, or why it is not read.
pub fn read_settings_file(path: &Path) -> std::io::Result<String> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    // The file may grow after the `fstat`: never read past the cap.
    file.take(MAX_SETTINGS_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_SETTINGS_FILE_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// Opens `path` without blocking and keeps it only if it is a regular file within
/// the cap.
fn open_regular(path: &Path) -> std::io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    let meta = file.metadata()?;
    let kind = meta.file_type();
    if kind.is_dir() {
        // As reading one says it ("Is a directory").
        return Err(std::io::Error::from_raw_os_error(libc::EISDIR));
    }
    let what = if kind.is_file() {
        None
    } else if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        Some("not a file")
    };
    if let Some(what) = what {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{what}, not a regular file: not read"),
        ));
    }
    if meta.len() > MAX_SETTINGS_FILE_BYTES {
        return Err(too_large());
    }
    Ok(file)
}

fn too_large() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "larger than {} KiB: not read",
            MAX_SETTINGS_FILE_BYTES / 1024
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_a_device_a_folder_and_a_huge_file_are_refused_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo.conf");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let err = read_settings_file(&fifo).expect_err("a FIFO");
        assert!(err.to_string().contains("a FIFO"), "{err}");
        let err = read_settings_file(Path::new("/dev/zero")).expect_err("a device");
        assert!(err.to_string().contains("a device"), "{err}");
        let err = read_settings_file(dir.path()).expect_err("a folder");
        assert!(err.to_string().contains("Is a directory"), "{err}");
        let huge = dir.path().join("huge.conf");
        std::fs::write(&huge, vec![b'#'; MAX_SETTINGS_FILE_BYTES as usize + 1]).expect("write");
        let err = read_settings_file(&huge).expect_err("too large");
        assert!(err.to_string().contains("larger than 1024 KiB"), "{err}");
        let fine = dir.path().join("fine.conf");
        std::fs::write(&fine, "background = #000000\n").expect("write");
        assert_eq!(
            read_settings_file(&fine).expect("a small file"),
            "background = #000000\n"
        );
    }
}
