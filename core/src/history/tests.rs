use super::*;
use std::time::Instant;

fn quiet() -> Note {
    Arc::new(|_| {})
}

#[test]
fn what_is_written_reads_back_in_order_across_runs_and_goes_on_remove() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h");
    for run in 0..2 {
        let h = History::start(path.clone(), quiet()).unwrap();
        let tap = h.tap(7);
        for i in 0..1000 {
            tap.send(format!("run {run} line {i}\r\n").as_bytes());
        }
        drop(h);
    }
    let text = String::from_utf8(read_history(&path, 7)).unwrap();
    let want: String = (0..2)
        .flat_map(|run| (0..1000).map(move |i| format!("run {run} line {i}\r\n")))
        .collect();
    assert_eq!(text, want);
    use std::os::unix::fs::PermissionsExt;
    for file in [path_of(&path, 7), raw_path_of(&path, 7)] {
        if let Ok(meta) = std::fs::metadata(&file) {
            assert_eq!(meta.permissions().mode() & 0o777, 0o600, "{file:?}");
        }
    }
    let h = History::start(path.clone(), quiet()).unwrap();
    h.remove(7);
    drop(h);
    assert!(read_history(&path, 7).is_empty());
}

#[test]
fn a_flushed_member_reads_back_while_the_writer_still_runs() {
    let dir = tempfile::tempdir().unwrap();
    let h = History::start(dir.path().to_owned(), quiet()).unwrap();
    h.tap(1).send(b"before the kill");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while read_history(dir.path(), 1) != b"before the kill" {
        assert!(std::time::Instant::now() < deadline, "never flushed");
        std::thread::yield_now();
    }
    std::mem::forget(h); // as a tern killed with -9 leaves it
}

/// A flood's bytes are appended raw (a write, no compression on the way) and
/// compressed only once the pane has been quiet; both read back the same.
#[test]
fn a_pane_s_bytes_are_kept_raw_while_it_prints_and_compressed_once_it_rests() {
    let dir = tempfile::tempdir().unwrap();
    let settle = std::time::Duration::from_millis(300);
    let limits = Limits {
        settle_after: settle,
        ..Limits::default()
    };
    let h = History::start_with(dir.path().to_owned(), quiet(), limits).unwrap();
    let tap = h.tap(3);
    let mut want = Vec::new();
    // Printing for 4 settle periods, a line every 20 ms: never quiet long enough.
    let began = Instant::now();
    let mut i = 0;
    while began.elapsed() < settle * 4 {
        let line = format!("line {i} {}\r\n", "x".repeat(60));
        tap.send(line.as_bytes());
        want.extend_from_slice(line.as_bytes());
        i += 1;
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    while read_history(dir.path(), 3) != want {
        assert!(Instant::now() < deadline, "never written");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(
        !path_of(dir.path(), 3).exists(),
        "nothing compressed while the pane printed"
    );
    // Quiet: the tail becomes a gzip member, the raw file goes.
    while std::fs::metadata(raw_path_of(dir.path(), 3)).is_ok_and(|m| m.len() > 0)
        || !path_of(dir.path(), 3).exists()
    {
        assert!(Instant::now() < deadline, "never compressed");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let gz = std::fs::metadata(path_of(dir.path(), 3)).unwrap().len();
    assert!(
        gz * 4 < want.len() as u64,
        "compressed: {gz} of {}",
        want.len()
    );
    assert_eq!(read_history(dir.path(), 3), want);
    tap.send(b"after the rest");
    drop(h);
    want.extend_from_slice(b"after the rest");
    assert_eq!(
        read_history(dir.path(), 3),
        want,
        "a new tail after the member"
    );
    // The next writer compresses a tail it finds at its start.
    let h = History::start_with(dir.path().to_owned(), quiet(), limits).unwrap();
    while raw_path_of(dir.path(), 3).exists() {
        assert!(
            Instant::now() < deadline,
            "a tail left at start never compressed"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(read_history(dir.path(), 3), want);
    drop(h);
}

/// Past the folder's cap, the panes written least recently lose their history,
/// whole; the pane being written keeps its own.
#[test]
fn past_the_folder_s_cap_the_least_recently_written_panes_lose_their_history() {
    let dir = tempfile::tempdir().unwrap();
    let notes = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let note: Note = {
        let notes = notes.clone();
        Arc::new(move |n| notes.lock().unwrap().push(n))
    };
    let limits = Limits {
        total_cap_bytes: 25_000,
        ..Limits::default()
    };
    let h = History::start_with(dir.path().to_owned(), note, limits).unwrap();
    let block = |pane: u64| format!("pane {pane} {}\r\n", "y".repeat(9_980)).into_bytes();
    for pane in 1..=4u64 {
        h.tap(pane).send(&block(pane));
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        while read_history(dir.path(), pane) != block(pane) {
            assert!(Instant::now() < deadline, "pane {pane} never written");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        // Distinct file times, oldest first.
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    drop(h);
    let kept: Vec<u64> = (1..=4)
        .filter(|p| !read_history(dir.path(), *p).is_empty())
        .collect();
    assert_eq!(kept, vec![3, 4], "the two written last are kept");
    assert_eq!(read_history(dir.path(), 4), block(4));
    let notes = notes.lock().unwrap();
    assert!(
        notes.iter().any(|n| n.contains("passed its cap")),
        "said: {notes:?}"
    );
}

/// A disk that is full (here the pane's file is `/dev/full`: every write fails with
/// ENOSPC): a breadcrumb says so once, that pane's history stops, the writer and the
/// other panes go on.
#[test]
fn a_full_disk_stops_that_pane_s_history_with_a_breadcrumb_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let notes = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let note: Note = {
        let notes = notes.clone();
        Arc::new(move |n| notes.lock().unwrap().push(n))
    };
    let h = History::start(dir.path().to_owned(), note).unwrap();
    let (full, fine) = (h.tap(1), h.tap(2));
    // The disk fills once the writer runs: its start-up pass settles the tails a tern
    // left, and would take a `/dev/full` there for an empty tail and remove it (the
    // test then raced that pass: about 1 run in 3 saw no error at all).
    fine.send(b"first\r\n");
    tern_testkit::eventually(
        "the writer's first flush",
        std::time::Duration::from_secs(30),
        || read_history(dir.path(), 2) == b"first\r\n",
    );
    std::os::unix::fs::symlink("/dev/full", raw_path_of(dir.path(), 1)).unwrap();
    for i in 0..50 {
        full.send(format!("lost {i}\r\n").as_bytes());
        fine.send(format!("kept {i}\r\n").as_bytes());
    }
    drop(h);
    let want: String = std::iter::once("first\r\n".to_owned())
        .chain((0..50).map(|i| format!("kept {i}\r\n")))
        .collect();
    assert_eq!(
        read_history(dir.path(), 2),
        want.as_bytes(),
        "the other pane"
    );
    let notes = notes.lock().unwrap();
    let said: Vec<&String> = notes
        .iter()
        .filter(|n| n.contains("cannot write pane history"))
        .collect();
    assert_eq!(said.len(), 1, "said once: {notes:?}");
    assert!(said[0].contains("No space left"), "{said:?}");
}

/// A tern killed while a tail was being compressed leaves each byte read back once:
/// before the gzip file was remade (the tail only in `.settling`) and after (in both),
/// and the next writer finishes the job.
#[test]
fn a_kill_while_a_tail_is_compressed_loses_and_repeats_nothing() {
    use std::io::Write as _;
    for remade in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let gz = path_of(dir.path(), 5);
        let member = |text: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(text).unwrap();
            e.finish().unwrap()
        };
        let mut file = member(b"older lines\r\n");
        if remade {
            file.extend(member(b"the tail\r\n"));
        }
        std::fs::write(&gz, file).unwrap();
        std::fs::write(
            settling_path_of(&raw_path_of(dir.path(), 5)),
            b"the tail\r\n",
        )
        .unwrap();
        std::fs::write(raw_path_of(dir.path(), 5), b"newest\r\n").unwrap();
        let want = b"older lines\r\nthe tail\r\nnewest\r\n";
        assert_eq!(read_history(dir.path(), 5), want, "remade: {remade}");
        let h = History::start_with(
            dir.path().to_owned(),
            quiet(),
            Limits {
                settle_after: std::time::Duration::from_millis(50),
                ..Limits::default()
            },
        )
        .unwrap();
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        while settling_path_of(&raw_path_of(dir.path(), 5)).exists()
            || raw_path_of(dir.path(), 5).exists()
        {
            assert!(Instant::now() < deadline, "never settled");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        drop(h);
        assert_eq!(
            read_history(dir.path(), 5),
            want,
            "settled, remade: {remade}"
        );
    }
}

/// A closed pane's files move to `closed/` and read back there (gzip members and the
/// raw tail, in order) until the writer stops; bytes parsed after the close are not
/// written; the folder's cap takes closed panes' history first. Catches: `closed/` kept
/// past the writer's stop, a retired pane's late piece making a new file, closed panes
/// not counted against the cap.
#[test]
fn a_closed_panes_history_reads_back_until_the_writer_stops_and_goes_first_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h");
    let limits = Limits {
        settle_after: std::time::Duration::from_millis(50),
        ..Limits::default()
    };
    let h = History::start_with(path.clone(), quiet(), limits).unwrap();
    let tap = h.tap(3);
    tap.send(b"settled part\r\n");
    // Compressed once quiet, then a raw tail after it.
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    while !path_of(&path, 3).exists() {
        assert!(Instant::now() < deadline, "never settled");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    tap.send(b"raw tail\r\n");
    let retired = h.retire(3);
    tap.send(b"parsed after the close\r\n");
    assert!(retired.wait(std::time::Duration::from_secs(10)), "moved");
    let mut text = Vec::new();
    h.closed_reader(3).read_to_end(&mut text).unwrap();
    assert_eq!(text, b"settled part\r\nraw tail\r\n");
    assert!(
        read_history(&path, 3).is_empty(),
        "nothing left outside closed/"
    );
    // The late piece: a new pane's key written after it flushes the batch.
    h.tap(4).send(b"x");
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    while read_history(&path, 4).is_empty() {
        assert!(Instant::now() < deadline, "never written");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(
        read_history(&path, 3).is_empty(),
        "a late piece made a file"
    );
    drop(h);
    assert!(!closed_dir(&path).exists(), "closed/ outlived the writer");

    // At the cap, the closed pane's history goes before any open pane's.
    let limits = Limits {
        total_cap_bytes: 3000,
        ..Limits::default()
    };
    let h = History::start_with(path.clone(), quiet(), limits).unwrap();
    h.tap(5).send(&[b'a'; 1000]);
    let retired = h.retire(5);
    assert!(retired.wait(std::time::Duration::from_secs(10)));
    h.tap(6).send(&[b'b'; 1000]);
    h.tap(7).send(&[b'c'; 1500]);
    h.tap(8).send(b"flush");
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    while read_history(&path, 8).is_empty() {
        assert!(Instant::now() < deadline, "never written");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let mut closed = Vec::new();
    h.closed_reader(5).read_to_end(&mut closed).unwrap();
    assert!(closed.is_empty(), "the closed pane's history went first");
    assert_eq!(
        read_history(&path, 6).len(),
        1000,
        "the open panes kept theirs"
    );
    assert_eq!(read_history(&path, 7).len(), 1500);
}
